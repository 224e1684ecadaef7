; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"x": ["s77", "s27"], "k": []}
; symguard: hints = {"s27": 5, "s77": 7}
(set-logic ALL)
(declare-const s27 Int)
(declare-const s77 Int)
(declare-const u0 Int)
(declare-const u1 Int)
(assert (<= 2 s27 64))
(assert (<= 2 s77 64))
(assert (<= 0 u0 9223372036854775806))
(assert (<= (+ (- u1) 1) 0))  ; "a0"
(assert (<= (+ (- s77) u1) 0))  ; "a1"
(assert (<= (+ u0 (- (* s77 s27))) 0))  ; "a2"
(check-sat)
