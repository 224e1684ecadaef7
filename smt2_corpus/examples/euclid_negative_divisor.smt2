; SMT-LIB div/mod are Euclidean: the remainder is never negative, also for a negative divisor.
; (div -7 -2) = 4 and (mod -7 -2) = 1, whereas Python gives -7 // -2 = 3 and -7 % -2 = -1.
; symguard keeps the SMT-LIB meaning for .smt2 input (SPEC 1.2); every divisor must be non-zero.
(set-logic QF_LIA)
(set-option :produce-models true)
(declare-const x Int)
(declare-const d Int)
(declare-const q Int)
(assert (= x (- 7)))
(assert (< d 0))
(assert (> d (- 3)))
(assert (! (= (div x d) q) :named q_is_div))
(assert (! (= (mod x d) 1) :named euclid_mod))
(assert (! (>= (mod x d) 0) :named mod_nonneg))
(assert (! (= x (+ (* d q) (mod x d))) :named division_identity))
(check-sat)
(get-model)
(get-value ((div x d) (mod x d)))
