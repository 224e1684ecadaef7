; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"x0": ["s4", "s40"], "x1": ["s4", "s0"]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s0": 13, "s4": 2, "s6": 2, "s40": 29}
(set-logic ALL)
(declare-const s0 Int)
(declare-const s4 Int)
(declare-const s6 Int)
(declare-const s40 Int)
(assert (<= 2 s0 60))
(assert (<= 2 s4 64))
(assert (<= 2 s6 64))
(assert (<= 2 s40 100))
(assert (! (<= s0 127) :named g0))
(assert (! (not (= s0 127)) :named g1))
(assert (! (<= s0 126) :named g2))
(assert (! (let ((?x0 (- s0))) (and (not (= s0 0)) (= (+ (ite (<= (+ ?x0 1) 0) (div (+ (* 4 s0) (- 1)) s0) (div (+ (* (- 4) s0) 1) ?x0)) (- 3)) 0))) :named g3))
(assert (! (= (+ (ite (<= (+ (* (- 2) s0 s0) s0 1) 0) s0 (* 2 s0 s0)) (- s0)) 0) :named g4))
(assert (! (let ((?x0 (* 2 s0)) (?x2 (* 4 s6 s0 s0))) (let ((?x1 (ite (<= (+ (* (- 2) s0 s0) s0 1) 0) ?x0 (* 4 s0 s0)))) (= (+ ?x0 (- (ite (<= (+ (- ?x1) ?x2 1) 0) ?x2 ?x1))) 0))) :named g5))
(assert (! (and (= (ite (<= (+ (- s6) 1) 0) (mod (* 16 s4 s40) (* 16 s6)) (- (mod (* (- 16) s4 s40) (* (- 16) s6)))) 0) (not (= s6 0))) :named g6))
(assert (! (let ((?x0 (- s6)) (?x1 (- (* s4 s40)))) (and (= (+ (* s6 (ite (<= (+ ?x0 1) 0) (div (* s4 s40) s6) (div ?x1 ?x0))) ?x1) 0) (not (= s6 0)))) :named g7))
(assert (! (= (+ s4 (- s6)) 0) :named g8))
(check-sat)
