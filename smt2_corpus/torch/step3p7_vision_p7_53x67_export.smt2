; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"x0": ["s4", 3, "s58", "s24"]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s4": 2, "s24": 67, "s58": 53}
(set-logic ALL)
(declare-const s4 Int)
(declare-const s24 Int)
(declare-const s58 Int)
(declare-const u0 Int)
(declare-const u1 Int)
(declare-const u2 Int)
(assert (<= 2 s4 64))
(assert (<= 16 s24 1024))
(assert (<= 16 s58 1024))
(assert (<= (- u1) 0))  ; "a0"
(assert (<= (- u2) 0))  ; "a1"
(assert (= (+ (* u2 u0 u1) (- (* (div s58 7) (div s24 7)))) 0))  ; "a2"
(assert (<= (- u0) 0))  ; "a3"
(assert (! (<= (+ (- s58) 7) 0) :named g0))
(assert (! (<= (+ (- s24) 7) 0) :named g1))
(assert (! (not (= (+ (div s24 7) (- 1)) 0)) :named g2))
(assert (! (not (= (+ (div s58 7) (- 1)) 0)) :named g3))
(assert (! (let ((?x0 (div s58 7))) (not (= (+ ?x0 (- (* ?x0 (div s24 7)))) 0))) :named g4))
(assert (! (let ((?x0 (div s58 7)) (?x1 (div s24 7))) (let ((?x2 (- (* ?x0 ?x1))) (?x3 (* ?x0 ?x1))) (and (not (= (ite (<= (+ ?x2 1) 0) (mod ?x0 ?x3) (- (mod (- ?x0) ?x2))) 0)) (not (= ?x3 0))))) :named g5))
(assert (! (not (= (+ (* (div s58 7) (div s24 7)) (- 1)) 0)) :named g6))
(assert (! (not (= (+ (div s58 7) (- 4)) 0)) :named g7))
(assert (! (<= (+ (- (div s58 7)) 2) 0) :named g8))
(assert (! (<= (+ (- (div s24 7)) 2) 0) :named g9))
(assert (! (let ((?x0 (div s58 7)) (?x2 (div s24 7))) (let ((?x1 (ite (<= ?x0 0) 1 ?x0)) (?x3 (ite (<= ?x2 0) 1 ?x2))) (let ((?x4 (- (* ?x1 ?x3))) (?x5 (* ?x1 ?x3))) (and (not (= (ite (<= (+ ?x4 1) 0) (mod 1 ?x5) (- (mod (- 1) ?x4))) 0)) (not (= ?x5 0)))))) :named g10))
(assert (! (not (= (+ s4 (- (* s4 (div s58 7) (div s24 7)))) 0)) :named g11))
(assert (! (let ((?x0 (div s58 7)) (?x1 (div s24 7))) (let ((?x2 (* s4 ?x0 ?x1)) (?x3 (- (* s4 ?x0 ?x1)))) (and (not (= ?x2 0)) (not (= (ite (<= (+ ?x3 1) 0) (mod s4 ?x2) (- (mod (- s4) ?x3))) 0))))) :named g12))
(assert (! (let ((?x0 (+ (div (+ (div s58 7) (- 1)) 2) 1)) (?x1 (+ (div (+ (div s24 7) (- 1)) 2) 1))) (let ((?x2 (ite (<= ?x1 0) 1 ?x1))) (<= (+ (- (* (ite (<= ?x0 0) 1 ?x0) ?x2)) ?x2 1) 0))) :named g13))
(assert (! (let ((?x0 (+ (div (+ (div s24 7) (- 1)) 2) 1))) (<= (+ (- (ite (<= ?x0 0) 1 ?x0)) 2) 0)) :named g14))
(assert (! (not (= (div (+ (div s58 7) (- 1)) 2) 0)) :named g15))
(assert (! (let ((?x0 (+ (div (+ (div s58 7) (- 1)) 4) 1)) (?x1 (+ (div (+ (div s24 7) (- 1)) 4) 1))) (let ((?x2 (ite (<= ?x1 0) 1 ?x1))) (<= (+ (- (* (ite (<= ?x0 0) 1 ?x0) ?x2)) ?x2 1) 0))) :named g16))
(assert (! (let ((?x0 (+ (div (+ (div s24 7) (- 1)) 4) 1))) (<= (+ (- (ite (<= ?x0 0) 1 ?x0)) 2) 0)) :named g17))
(assert (! (not (= (div (+ (div s58 7) (- 1)) 4) 0)) :named g18))
(assert (! (let ((?x0 (div (+ (div s58 7) (- 1)) 4)) (?x2 (+ (div (+ (div s24 7) (- 1)) 4) 1))) (let ((?x1 (+ ?x0 1))) (let ((?x3 (* ?x1 ?x2)) (?x4 (- (* ?x1 ?x2)))) (and (not (= ?x3 0)) (not (= (ite (<= (+ ?x4 1) 0) (mod ?x1 ?x3) (- (mod (+ (- ?x0) (- 1)) ?x4))) 0)))))) :named g19))
(check-sat)
