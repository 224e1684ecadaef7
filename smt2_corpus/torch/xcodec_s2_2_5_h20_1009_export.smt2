; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"x0": ["s4", 1, "s58"]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s4": 2, "s58": 1009}
(set-logic ALL)
(declare-const s4 Int)
(declare-const s58 Int)
(assert (<= 2 s4 64))
(assert (<= 400 s58 160000))
(assert (! (not (= (div s58 10) 0)) :named g0))
(assert (! (<= (+ (- (div s58 10)) 2) 0) :named g1))
(assert (! (not (= (+ (div s58 20) (- 1)) 0)) :named g2))
(assert (! (not (= (+ s4 (- (* s4 (div s58 20)))) 0)) :named g3))
(assert (! (let ((?x0 (div s58 20))) (let ((?x1 (* s4 ?x0)) (?x2 (- (* s4 ?x0)))) (and (not (= ?x1 0)) (not (= (ite (<= (+ ?x2 1) 0) (mod s4 ?x1) (- (mod (- s4) ?x2))) 0))))) :named g4))
(assert (! (<= (+ (- (div s58 20)) 2) 0) :named g5))
(assert (! (= s58 1009) :named g6))
(assert (! (= (+ (div s58 20) (- 50)) 0) :named g7))
(assert (! (= (+ (div s58 20) (- (div (+ (div s58 4) (- 4)) 5)) (- 1)) 0) :named g8))
(assert (! (let ((?x0 (+ (div (+ (div s58 4) (- 4)) 5) 1))) (let ((?x1 (- (* ?x0 s4))) (?x2 (* ?x0 s4))) (and (not (= (ite (<= (+ ?x1 1) 0) (mod s4 ?x2) (- (mod (- s4) ?x1))) 0)) (not (= ?x2 0))))) :named g9))
(check-sat)
