; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"s4": ["s4"], "s40": ["s40"], "l_x0_": ["s4", "s40", 5], "l_x1_": ["s4", "s40", 3], "l_x2_": ["s4", "s40", 1], "l_x3_": ["s4", "s40"]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s4": 2, "s40": 23, "s58": 5, "s71": 3}
(set-logic ALL)
(declare-const s4 Int)
(declare-const s40 Int)
(declare-const s58 Int)
(declare-const s71 Int)
(assert (>= s4 2))
(assert (>= s40 2))
(assert (>= s58 2))
(assert (>= s71 2))
(assert (! (= s58 5) :named g0))
(assert (! (= s71 3) :named g1))
(check-sat)
