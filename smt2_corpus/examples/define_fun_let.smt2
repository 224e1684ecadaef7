; define-fun macros and let: expanded by substitution, shared subterms built once.
(set-logic QF_NIA)
(declare-const batch Int)
(declare-const seq Int)
(define-fun numel ((b Int) (s Int)) Int (* b s 64))
(define-fun ceil_div ((a Int) (d Int)) Int (- (div (- a) d)))  ; ceil(a/d) for d > 0
(assert (and (>= batch 1) (<= batch 64) (>= seq 1) (<= seq 2048)))
(assert (! (let ((blocks (ceil_div seq 128))) (<= blocks 16)) :named blocks_le16))  ; seq <= 2048
(assert (! (let ((n (numel batch seq))) (= (mod n 64) 0)) :named numel_aligned))     ; always
(assert (! (>= seq 129) :named long_seq))
(assert (! (>= (ceil_div seq 128) 2) :named two_blocks))  ; the same condition as long_seq
(check-sat)
