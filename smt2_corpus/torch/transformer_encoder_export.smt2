; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"src": ["s28", "s98", 16]}
; symguard: hints = {"s28": 3, "s98": 11}
(set-logic ALL)
(declare-const s28 Int)
(declare-const s98 Int)
(assert (<= 2 s28 64))
(assert (<= 2 s98 512))
(check-sat)
