; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"x0": ["s4", "s40"]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s4": 2, "s40": 1531}
(set-logic ALL)
(declare-const s4 Int)
(declare-const s40 Int)
(assert (<= 2 s4 64))
(assert (<= 400 s40 160000))
(assert (! (<= (+ (- s40) 7) 0) :named g0))
(assert (! (not (= (div (+ s40 (- 7)) 3) 0)) :named g1))
(assert (! (<= (+ (- (div (+ s40 (- 7)) 3)) 4) 0) :named g2))
(assert (! (not (= (div (+ (div (+ s40 (- 7)) 3) (- 4)) 3) 0)) :named g3))
(assert (! (<= (+ (- (div (+ (div (+ s40 (- 7)) 3) (- 4)) 3)) 2) 0) :named g4))
(assert (! (not (= (+ (div (+ (div (+ s40 (- 7)) 3) (- 4)) 6) (- 1)) 0)) :named g5))
(assert (! (<= (+ (- (div (+ (div (+ s40 (- 7)) 3) (- 4)) 6)) 3) 0) :named g6))
(assert (! (not (= (div (+ (div (+ (div (+ s40 (- 7)) 3) (- 4)) 6) (- 3)) 2) 0)) :named g7))
(assert (! (not (= (+ s4 (- (* s4 (+ (div (+ (div (+ (div (+ s40 (- 7)) 3) (- 4)) 6) (- 3)) 2) 1)))) 0)) :named g8))
(assert (! (let ((?x0 (+ (div (+ (div (+ (div (+ s40 (- 7)) 3) (- 4)) 6) (- 3)) 2) 1))) (let ((?x1 (- (* s4 ?x0))) (?x2 (* s4 ?x0))) (and (not (= (ite (<= (+ ?x1 1) 0) (mod s4 ?x2) (- (mod (- s4) ?x1))) 0)) (not (= ?x2 0))))) :named g9))
(assert (! (<= (+ (- (div (+ (div (+ (div (+ s40 (- 7)) 3) (- 4)) 6) (- 3)) 2)) 1) 0) :named g10))
(check-sat)
