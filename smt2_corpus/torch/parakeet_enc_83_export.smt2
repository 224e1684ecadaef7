; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"x0": ["s4", "s40", 16]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s4": 2, "s40": 83}
(set-logic ALL)
(declare-const s4 Int)
(declare-const s40 Int)
(assert (<= 2 s4 64))
(assert (<= 16 s40 4000))
(assert (! (not (= (div (+ s40 (- 1)) 2) 0)) :named g0))
(assert (! (not (= (div (+ s40 (- 1)) 4) 0)) :named g1))
(assert (! (not (= (div (+ s40 (- 1)) 8) 0)) :named g2))
(assert (! (not (= (+ s4 (- (* s4 (+ (div (+ s40 (- 1)) 8) 1)))) 0)) :named g3))
(assert (! (let ((?x0 (+ (div (+ s40 (- 1)) 8) 1))) (let ((?x1 (* s4 ?x0)) (?x2 (- (* s4 ?x0)))) (and (not (= ?x1 0)) (not (= (ite (<= (+ ?x2 1) 0) (mod s4 ?x1) (- (mod (- s4) ?x2))) 0))))) :named g4))
(assert (! (<= (+ (- (div (+ s40 (- 1)) 8)) 1) 0) :named g5))
(assert (! (<= (+ (- (div (+ s40 (- 1)) 8)) 1) 0) :named g6))
(assert (! (let ((?x0 (+ (* 2 (div (+ s40 (- 1)) 8)) 1))) (let ((?x1 (* s4 ?x0)) (?x2 (- (* s4 ?x0)))) (and (not (= ?x1 0)) (not (= (ite (<= (+ ?x2 1) 0) (mod s4 ?x1) (- (mod (- s4) ?x2))) 0))))) :named g7))
(assert (! (let ((?x0 (div (+ s40 (- 1)) 8))) (let ((?x1 (+ ?x0 1)) (?x2 (- ?x0))) (and (not (= ?x1 0)) (not (= (ite (<= ?x2 0) (mod (+ (* 2 ?x0) 1) ?x1) (- (mod (+ (* (- 2) ?x0) (- 1)) (+ ?x2 (- 1))))) 0))))) :named g8))
(check-sat)
