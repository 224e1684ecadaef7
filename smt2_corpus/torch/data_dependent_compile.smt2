; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"s77": ["s77"], "s27": ["s27"], "l_x_": ["s77", "s27"]}
; symguard: hints = {"s27": 5, "s77": 7, "s94": 3}
(set-logic ALL)
(declare-const s27 Int)
(declare-const s77 Int)
(declare-const s94 Int)
(declare-const u0 Int)
(assert (>= s27 2))
(assert (>= s77 2))
(assert (<= 0 u0 9223372036854775806))
(assert (<= (+ u0 (- (* s77 s27))) 0))  ; "a0"
(assert (! (<= (+ (- s94) 1) 0) :named g0))
(assert (! (<= (+ (- s77) s94) 0) :named g1))
(check-sat)
