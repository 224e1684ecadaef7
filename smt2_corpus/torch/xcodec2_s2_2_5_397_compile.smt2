; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"s97": ["s97"], "s65": ["s65"], "l_features_": ["s97", "s65", 32], "s86": ["s86"], "l_wave_": ["s97", 1, "s86"]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s55": 32, "s65": 20, "s86": 397, "s97": 2}
(set-logic ALL)
(declare-const s55 Int)
(declare-const s65 Int)
(declare-const s86 Int)
(declare-const s97 Int)
(assert (>= s55 2))
(assert (>= s65 2))
(assert (>= s86 2))
(assert (>= s97 2))
(assert (! (= s55 32) :named g0))
(assert (! (<= s97 15) :named g1))
(assert (! (not (= (+ (div s86 2) (- 1)) 0)) :named g2))
(assert (! (<= (+ (- (div s86 2)) 2) 0) :named g3))
(assert (! (not (= (+ (div s86 4) (- 1)) 0)) :named g4))
(assert (! (<= (+ (- (div s86 4)) 4) 0) :named g5))
(assert (! (not (= (div (+ (div s86 4) (- 4)) 5) 0)) :named g6))
(assert (! (= (+ s65 (- (div (+ (div s86 4) (- 4)) 5)) (- 1)) 0) :named g7))
(check-sat)
