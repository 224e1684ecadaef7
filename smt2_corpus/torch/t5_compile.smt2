; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"s6": ["s6"], "s0": ["s0"], "l_x1_": ["s6", "s0"], "s40": ["s40"], "l_x0_": ["s6", "s40"]}
; symguard: hints = {"s0": 7, "s6": 3, "s40": 13}
(set-logic ALL)
(declare-const s0 Int)
(declare-const s6 Int)
(declare-const s40 Int)
(assert (>= s0 2))
(assert (>= s6 2))
(assert (>= s40 2))
(check-sat)
