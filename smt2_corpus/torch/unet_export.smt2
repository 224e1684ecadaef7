; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"x": ["s77", 3, "s53", "s0"]}
; symguard: hints = {"s0": 37, "s53": 50, "s77": 2}
(set-logic ALL)
(declare-const s0 Int)
(declare-const s53 Int)
(declare-const s77 Int)
(assert (<= 16 s0 2048))
(assert (<= 16 s53 2048))
(assert (<= 2 s77 64))
(assert (! (not (= (+ (div s0 2) (- 1)) 0)) :named g0))
(assert (! (not (= (+ (div s53 2) (- 1)) 0)) :named g1))
(assert (! (let ((?x0 (div s0 2)) (?x1 (div s53 2))) (not (= (+ (* (ite (<= ?x0 0) 1 ?x0) (ite (<= ?x1 0) 1 ?x1)) (- 1)) 0))) :named g2))
(assert (! (and (<= (+ (- (div s0 4)) 1) 0) (<= (+ (- (div s53 4)) 1) 0)) :named g3))
(assert (! (not (= (+ (div s0 4) (- 1)) 0)) :named g4))
(assert (! (not (= (+ (div s53 4) (- 1)) 0)) :named g5))
(assert (! (let ((?x0 (div s0 4)) (?x1 (div s53 4))) (not (= (+ (* (ite (<= ?x0 0) 1 ?x0) (ite (<= ?x1 0) 1 ?x1)) (- 1)) 0))) :named g6))
(check-sat)
