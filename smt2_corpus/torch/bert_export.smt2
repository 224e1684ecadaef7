; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"x0": ["s4", "s0"], "x1": ["s6", "s0"]}
; symguard: hints = {"s0": 13, "s4": 3, "s6": 3, "s40": 13}
(set-logic ALL)
(declare-const s0 Int)
(declare-const s4 Int)
(declare-const s6 Int)
(declare-const s40 Int)
(assert (<= 2 s0 64))
(assert (<= 2 s4 64))
(assert (<= 2 s6 64))
(assert (<= 2 s40 64))
(assert (! (<= s40 64) :named g0))
(assert (! (= (+ s0 (- s40)) 0) :named g1))
(check-sat)
