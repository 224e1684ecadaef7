; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"x0": ["s4", "s40", 16], "x1": ["s4", "s0"]}
; symguard: hints = {"s0": 3, "s4": 2, "s6": 2, "s40": 3}
(set-logic ALL)
(declare-const s0 Int)
(declare-const s4 Int)
(declare-const s6 Int)
(declare-const s40 Int)
(assert (<= 2 s0 4000))
(assert (<= 2 s4 64))
(assert (<= 2 s6 64))
(assert (<= 2 s40 4000))
(assert (! (not (= (div (+ s40 (- 1)) 2) 0)) :named g0))
(assert (! (= (div (+ s40 (- 1)) 4) 0) :named g1))
(assert (! (= (+ s4 (- s6)) 0) :named g2))
(check-sat)
