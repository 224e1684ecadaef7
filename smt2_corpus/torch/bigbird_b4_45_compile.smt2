; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"s6": ["s6"], "l_x1_": ["s6", 45], "l_x0_": ["s6", 45]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s0": 45, "s6": 2}
(set-logic ALL)
(declare-const s0 Int)
(declare-const s6 Int)
(declare-const u0 Int)
(declare-const u1 Int)
(declare-const u2 Int)
(declare-const u3 Int)
(assert (>= s0 2))
(assert (>= s6 2))
(assert (= u0 1))  ; "a0"
(assert (= u2 1))  ; "a1"
(assert (= u1 1))  ; "a2"
(assert (= u3 1))  ; "a3"
(assert (<= (- u0) 0))  ; "a4"
(assert (= (+ s6 (- (* s6 u0))) 0))  ; "a5"
(assert (<= (- u1) 0))  ; "a6"
(assert (= (+ u0 (- u1)) 0))  ; "a7"
(assert (<= (- u2) 0))  ; "a8"
(assert (= (+ s6 (- (* s6 u2))) 0))  ; "a9"
(assert (<= (- u3) 0))  ; "a10"
(assert (= (+ u3 (- u2)) 0))  ; "a11"
(assert (! (<= s0 256) :named g0))
(assert (! (<= (+ (- s0) 29) 0) :named g1))
(assert (! (<= (+ (- (mod (+ (- (mod s0 4)) 4) 4)) 1) 0) :named g2))
(assert (! (= s0 45) :named g3))
(check-sat)
