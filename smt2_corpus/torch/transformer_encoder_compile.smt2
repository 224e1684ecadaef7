; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"s33": ["s33"], "s50": ["s50"], "s69": ["s69"], "l_args_0_": ["s33", "s50", "s69"]}
; symguard: hints = {"s33": 3, "s50": 11, "s69": 16}
(set-logic ALL)
(declare-const s33 Int)
(declare-const s50 Int)
(declare-const s69 Int)
(assert (>= s33 2))
(assert (>= s50 2))
(assert (>= s69 2))
(check-sat)
