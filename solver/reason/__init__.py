"""Reasoning without search: intervals, facts, canonical rewriting, refutation by points.

In: IR terms and a ``Problem``. Out: sound verdicts that need no SMT call (interval bounds,
constants, facts of kept guards, rewrites to canonical forms under ranges) and concrete points that
refute entailments. Every claim here is exact; what it cannot settle goes to ``solver.smt``.
"""
