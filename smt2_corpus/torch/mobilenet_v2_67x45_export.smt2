; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"x0": ["s4", 3, 67, 45]}
; symguard: hints = {"s4": 2, "s24": 45, "s58": 67}
(set-logic ALL)
(declare-const s4 Int)
(declare-const s24 Int)
(declare-const s58 Int)
(assert (<= 2 s4 64))
(assert (<= 32 s24 1024))
(assert (<= 32 s58 1024))
(assert (! (= s58 67) :named g0))
(assert (! (= s24 45) :named g1))
(check-sat)
