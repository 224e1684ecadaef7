; Non-linear integer arithmetic is undecidable in general: the answer is sat (with a model that
; symguard re-checks in Python) or unknown, never a guess. The first check-sat is easy; the second
; (x^3 + y^3 = z^3, Fermat n = 3) is unsat; with these bounds z3 proves it, unbounded it would not.
(set-logic QF_NIA)
(declare-const h Int)
(declare-const w Int)
(declare-const c Int)
(assert (and (>= h 1) (>= w 1) (>= c 1) (<= c 10)))
(assert (! (= (* h w) 96) :named area))
(assert (! (>= h w) :named tall))
(assert (! (= (mod (* h w c) 5) 2) :named channels))
(check-sat)
(get-model)
(push 1)
(assert (= (+ (* h h h) (* w w w)) (* c c c)))
(check-sat)
(pop 1)
