; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"s4": ["s4"], "s40": ["s40"], "l_x0_": ["s4", "s40", 16], "l_x1_": ["s4", "s40"], "s11": ["s11"], "l_x2_": ["s4", "s11"]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s4": 2, "s11": 7, "s40": 101, "s58": 16}
(set-logic ALL)
(declare-const s4 Int)
(declare-const s11 Int)
(declare-const s40 Int)
(declare-const s58 Int)
(assert (>= s4 2))
(assert (>= s11 2))
(assert (>= s40 2))
(assert (>= s58 2))
(assert (! (= s58 16) :named g0))
(assert (! (not (= (div (+ s40 (- 1)) 2) 0)) :named g1))
(assert (! (not (= (div (+ s40 (- 1)) 4) 0)) :named g2))
(assert (! (let ((?x0 (+ (div (+ s40 (- 1)) 4) 1))) (<= (+ (- (* ?x0 ?x0)) 2) 0)) :named g3))
(assert (! (<= (+ (- (div (+ s40 (- 1)) 4)) 1) 0) :named g4))
(assert (! (<= (+ (div (+ s40 (- 1)) 4) (- 2047)) 0) :named g5))
(assert (! (let ((?x0 (+ (div (+ s40 (- 1)) 4) 1))) (let ((?x1 (* s4 ?x0)) (?x2 (- (* s4 ?x0)))) (and (not (= ?x1 0)) (not (= (ite (<= (+ ?x2 1) 0) (mod s4 ?x1) (- (mod (- s4) ?x2))) 0))))) :named g6))
(assert (! (<= s11 128) :named g7))
(check-sat)
