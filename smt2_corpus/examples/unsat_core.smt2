; An unsatisfiable guard set: s = 4*b + 2 is never a multiple of 4. The unsat core names the
; guards that conflict (s_small is not needed for the conflict).
(set-logic QF_LIA)
(set-option :produce-unsat-cores true)
(declare-const b Int)
(declare-const s Int)
(assert (>= b 1))
(assert (! (= (mod s 4) 0) :named s_mult4))
(assert (! (= s (+ (* 4 b) 2)) :named s_shape))
(assert (! (<= s 64) :named s_small))
(check-sat)
(get-unsat-core)
