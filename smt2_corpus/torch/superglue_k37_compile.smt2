; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"s58": ["s58"], "l_x0_": [2, 2, "s58", 2], "l_x1_": [2, 2, 16, "s58"], "l_x2_": [2, 2, "s58"]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s4": 2, "s58": 37, "s71": 16}
(set-logic ALL)
(declare-const s4 Int)
(declare-const s58 Int)
(declare-const s71 Int)
(assert (>= s4 2))
(assert (>= s58 2))
(assert (>= s71 2))
(assert (! (= (+ (* 4 s4 s58) (- (* s4 s4 s4 s58))) 0) :named g0))
(assert (! (and (= (ite (<= (+ (- s4) 1) 0) (mod (* s4 s4) (* 2 s4)) (- (mod (- (* s4 s4)) (* (- 2) s4)))) 0) (not (= s4 0))) :named g1))
(assert (! (= (+ (* 2 s4) (- (* s4 s4))) 0) :named g2))
(assert (! (= s4 2) :named g3))
(assert (! (= (+ (* s71 s58) (* (- 16) s58)) 0) :named g4))
(assert (! (not (= s58 16)) :named g5))
(assert (! (let ((?x0 (- s58))) (and (not (= (ite (<= (+ ?x0 1) 0) (mod 16 s58) (- (mod (- 16) ?x0))) 0)) (not (= s58 0)))) :named g6))
(check-sat)
