; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"s4": ["s4"], "l_x0_": ["s4", 41]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s4": 2, "s40": 41}
(set-logic ALL)
(declare-const s4 Int)
(declare-const s40 Int)
(assert (>= s4 2))
(assert (>= s40 2))
(assert (! (= s40 41) :named g0))
(assert (! (<= s4 15) :named g1))
(check-sat)
