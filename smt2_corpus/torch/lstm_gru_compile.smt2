; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"s77": ["s77"], "l_x_": ["s77", 11, 8]}
; symguard: hints = {"s27": 11, "s53": 8, "s77": 3}
(set-logic ALL)
(declare-const s27 Int)
(declare-const s53 Int)
(declare-const s77 Int)
(assert (>= s27 2))
(assert (>= s53 2))
(assert (>= s77 2))
(assert (! (= s53 8) :named g0))
(assert (! (= s27 11) :named g1))
(check-sat)
