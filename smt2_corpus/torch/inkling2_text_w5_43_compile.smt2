; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"s4": ["s4"], "s40": ["s40"], "l_x0_": ["s4", "s40"]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s4": 2, "s40": 43}
(set-logic ALL)
(declare-const s4 Int)
(declare-const s40 Int)
(assert (>= s4 2))
(assert (>= s40 2))
(assert (! (<= s4 15) :named g0))
(assert (! (<= (+ (- s40) 4) 0) :named g1))
(check-sat)
