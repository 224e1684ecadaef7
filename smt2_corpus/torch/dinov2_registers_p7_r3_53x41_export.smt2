; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"x0": ["s4", 3, "s58", "s24"]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s4": 2, "s24": 41, "s58": 53}
(set-logic ALL)
(declare-const s4 Int)
(declare-const s24 Int)
(declare-const s58 Int)
(assert (<= 2 s4 64))
(assert (<= 16 s24 1024))
(assert (<= 16 s58 1024))
(assert (! (<= (+ (- s58) 7) 0) :named g0))
(assert (! (<= (+ (- s24) 7) 0) :named g1))
(assert (! (not (= (+ (div s24 7) (- 1)) 0)) :named g2))
(assert (! (not (= (+ (div s58 7) (- 1)) 0)) :named g3))
(assert (! (let ((?x0 (div s58 7))) (not (= (+ ?x0 (- (* ?x0 (div s24 7)))) 0))) :named g4))
(assert (! (let ((?x0 (div s58 7)) (?x1 (div s24 7))) (let ((?x2 (- (* ?x0 ?x1))) (?x3 (* ?x0 ?x1))) (and (not (= (ite (<= (+ ?x2 1) 0) (mod ?x0 ?x3) (- (mod (- ?x0) ?x2))) 0)) (not (= ?x3 0))))) :named g5))
(assert (! (not (= (+ (* (div s58 7) (div s24 7)) (- 1)) 0)) :named g6))
(assert (! (not (= (+ (* (div s58 7) (div s24 7)) (- 9)) 0)) :named g7))
(assert (! (= (+ (div s58 7) (- 7)) 0) :named g8))
(assert (! (= (+ (div s24 7) (- 5)) 0) :named g9))
(assert (! (= (+ (* (div s58 7) (div s24 7)) (- 35)) 0) :named g10))
(check-sat)
