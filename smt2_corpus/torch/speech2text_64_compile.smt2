; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"s6": ["s6"], "s0": ["s0"], "l_x1_": ["s6", "s0"], "l_x0_": ["s6", "s0", 16]}
; symguard: hints = {"s0": 64, "s6": 2, "s58": 16}
(set-logic ALL)
(declare-const s0 Int)
(declare-const s6 Int)
(declare-const s58 Int)
(assert (>= s0 2))
(assert (>= s6 2))
(assert (>= s58 2))
(assert (! (= s58 16) :named g0))
(assert (! (not (= (div (+ s0 (- 1)) 2) 0)) :named g1))
(assert (! (not (= (div (+ s0 (- 1)) 4) 0)) :named g2))
(assert (! (let ((?x0 (+ (div (+ s0 (- 1)) 4) 1))) (<= (+ (- (* ?x0 ?x0)) 2) 0)) :named g3))
(assert (! (<= (+ (- (div (+ s0 (- 1)) 4)) 1) 0) :named g4))
(assert (! (<= (+ (div (+ s0 (- 1)) 4) (- 63)) 0) :named g5))
(assert (! (let ((?x0 (+ (div (+ s0 (- 1)) 4) 1))) (let ((?x1 (- (* ?x0 s6))) (?x2 (* ?x0 s6))) (and (not (= (ite (<= (+ ?x1 1) 0) (mod s6 ?x2) (- (mod (- s6) ?x1))) 0)) (not (= ?x2 0))))) :named g6))
(check-sat)
