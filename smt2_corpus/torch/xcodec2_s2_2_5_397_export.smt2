; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"wave": ["s94", 1, "s86"], "features": ["s94", "s65", 32]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s65": 20, "s86": 397, "s94": 2, "s97": 2}
(set-logic ALL)
(declare-const s65 Int)
(declare-const s86 Int)
(declare-const s94 Int)
(declare-const s97 Int)
(assert (<= 8 s65 8000))
(assert (<= 200 s86 160000))
(assert (<= 2 s94 64))
(assert (<= 2 s97 64))
(assert (! (not (= (+ (div s86 2) (- 1)) 0)) :named g0))
(assert (! (<= (+ (- (div s86 2)) 2) 0) :named g1))
(assert (! (not (= (+ (div s86 4) (- 1)) 0)) :named g2))
(assert (! (<= (+ (- (div s86 4)) 4) 0) :named g3))
(assert (! (not (= (div (+ (div s86 4) (- 4)) 5) 0)) :named g4))
(assert (! (= (+ s97 (- s94)) 0) :named g5))
(assert (! (= (+ s65 (- (div (+ (div s86 4) (- 4)) 5)) (- 1)) 0) :named g6))
(check-sat)
