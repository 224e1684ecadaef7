; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"s6": ["s6"], "s0": ["s0"], "l_x1_": ["s6", "s0"], "s40": ["s40"], "l_x0_": ["s6", "s40"]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s0": 13, "s6": 2, "s40": 29}
(set-logic ALL)
(declare-const s0 Int)
(declare-const s6 Int)
(declare-const s40 Int)
(assert (>= s0 2))
(assert (>= s6 2))
(assert (>= s40 2))
(assert (! (<= s0 127) :named g0))
(assert (! (<= s0 126) :named g1))
(assert (! (let ((?x0 (- s0))) (and (not (= s0 0)) (= (+ (ite (<= (+ ?x0 1) 0) (div (+ (* 4 s0) (- 1)) s0) (div (+ (* (- 4) s0) 1) ?x0)) (- 3)) 0))) :named g2))
(check-sat)
