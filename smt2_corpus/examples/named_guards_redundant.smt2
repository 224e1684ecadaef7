; Shape guards as a compiler collects them: asserts are facts, :named assertions are guards.
; Which guards can be dropped without changing what they accept?
(set-logic QF_LIA)
(declare-const s0 Int)
(declare-const s1 Int)
(assert (>= s0 2))
(assert (>= s1 2))
(assert (= (mod s0 8) 0))
(assert (! (>= s0 16) :named g_ge16))
(assert (! (>= s0 8) :named g_ge8))                 ; a positive multiple of 8 already is
(assert (! (not (= s1 1)) :named g_ne1))           ; implied by the assert s1 >= 2
(assert (! (<= s0 (* 8 s1)) :named g_fit))
(assert (! (= (mod (* 2 s0) 16) 0) :named g_mod16)) ; 2*s0 = 0 (mod 16) iff s0 = 0 (mod 8)
(check-sat)
