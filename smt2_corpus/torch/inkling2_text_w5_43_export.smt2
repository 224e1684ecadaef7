; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"x0": ["s4", "s40"]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s4": 2, "s40": 43}
(set-logic ALL)
(declare-const s4 Int)
(declare-const s40 Int)
(assert (<= 2 s4 64))
(assert (<= 2 s40 512))
(assert (! (<= (+ (- s40) 4) 0) :named g0))
(check-sat)
