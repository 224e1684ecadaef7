; push/pop scopes. The JSON operations (symguard solve|redundancy FILE) use the assertions in
; force at the first check-sat; symguard solve --smtlib answers every check-sat: sat, unsat, sat.
(set-logic QF_LIA)
(declare-const n Int)
(declare-const m Int)
(assert (> n 0))
(push 1)
(assert (! (< n 0) :named contradiction))   ; popped before the first check-sat
(pop 1)
(assert (! (= (+ n m) 10) :named sum10))
(assert (! (> m n) :named m_gt_n))
(check-sat)
(push 1)
(assert (! (> n 5) :named n_gt5))
(check-sat)
(pop 1)
(check-sat)
(get-value (n m (+ n m)))
