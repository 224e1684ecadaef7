; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)
; Python floor division/modulus are written with Euclidean div/mod on a positive divisor.
; symguard: inputs = {"x": ["s77", 3, "s53", "s0"]}
; symguard: options = {"on_unsupported": "skip"}
; symguard: hints = {"s0": 137, "s53": 131, "s77": 2}
(set-logic ALL)
(declare-const s0 Int)
(declare-const s53 Int)
(declare-const s77 Int)
(assert (<= 16 s0 1024))
(assert (<= 16 s53 1024))
(assert (<= 2 s77 64))
(assert (! (let ((?x0 (- s0))) (and (<= (+ ?x0 137) 0) (<= (+ (div (div (div (div (div (div (div (div (div (div (div (div (div (div (div (div (ite (<= (+ ?x0 1) 0) s0 ?x0) 18446744073709551616) 18446744073709551616) 18446744073709551616) 18446744073709551616) 18446744073709551616) 18446744073709551616) 18446744073709551616) 18446744073709551616) 18446744073709551616) 18446744073709551616) 18446744073709551616) 18446744073709551616) 18446744073709551616) 18446744073709551616) 18446744073709551616) 1024) (- 144115188075855863)) 0) (<= s0 137))) :named g0))
(assert (! (<= (+ (- (div s53 16)) 2) 0) :named g1))
(assert (! (<= (+ (- (div s0 16)) 2) 0) :named g2))
(check-sat)
