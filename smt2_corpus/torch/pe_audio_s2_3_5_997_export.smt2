; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"x0": ["s4", 1, "s58"]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s4": 2, "s58": 997}
(set-logic ALL)
(declare-const s4 Int)
(declare-const s58 Int)
(assert (<= 2 s4 64))
(assert (<= 400 s58 160000))
(assert (! (not (= (+ (div s58 2) (- 1)) 0)) :named g0))
(assert (! (<= (+ (- (div s58 2)) 2) 0) :named g1))
(assert (! (not (= (div (+ (div s58 2) (- 2)) 3) 0)) :named g2))
(assert (! (<= (+ (- (div (+ (div s58 2) (- 2)) 3)) 3) 0) :named g3))
(assert (! (not (= (div (+ (div (+ (div s58 2) (- 2)) 3) (- 3)) 5) 0)) :named g4))
(assert (! (<= (+ (- (div (+ (div (+ (div s58 2) (- 2)) 3) (- 3)) 5)) 1) 0) :named g5))
(assert (! (let ((?x0 (+ (div (+ (div (+ (div s58 2) (- 2)) 3) (- 3)) 5) 1))) (let ((?x1 (- (* s4 ?x0))) (?x2 (* s4 ?x0))) (and (not (= (ite (<= (+ ?x1 1) 0) (mod s4 ?x2) (- (mod (- s4) ?x1))) 0)) (not (= ?x2 0))))) :named g6))
(assert (! (let ((?x0 (+ (div (+ (div (+ (div s58 2) (- 2)) 3) (- 3)) 5) 2))) (let ((?x1 (* s4 ?x0)) (?x2 (- (* s4 ?x0)))) (and (not (= ?x1 0)) (not (= (ite (<= (+ ?x2 1) 0) (mod s4 ?x1) (- (mod (- s4) ?x2))) 0))))) :named g7))
(check-sat)
