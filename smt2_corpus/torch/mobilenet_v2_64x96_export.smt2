; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"x0": ["s4", 3, 64, 96]}
; symguard: hints = {"s4": 2, "s24": 96, "s58": 64}
(set-logic ALL)
(declare-const s4 Int)
(declare-const s24 Int)
(declare-const s58 Int)
(assert (<= 2 s4 64))
(assert (<= 32 s24 1024))
(assert (<= 32 s58 1024))
(assert (! (= s58 64) :named g0))
(assert (! (= s24 96) :named g1))
(check-sat)
