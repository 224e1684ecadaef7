; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"s6": ["s6"], "s0": ["s0"], "l_x1_": ["s6", "s0"], "l_x0_": ["s6", "s0", 16]}
; symguard: hints = {"s0": 3, "s6": 2, "s58": 16}
(set-logic ALL)
(declare-const s0 Int)
(declare-const s6 Int)
(declare-const s58 Int)
(assert (>= s0 2))
(assert (>= s6 2))
(assert (>= s58 2))
(assert (! (= s58 16) :named g0))
(assert (! (not (= (div (+ s0 (- 1)) 2) 0)) :named g1))
(assert (! (= (div (+ s0 (- 1)) 4) 0) :named g2))
(check-sat)
