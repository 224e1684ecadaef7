"""The SMT layer: the only place that talks to pysmt and z3.

In: IR terms and a ``Problem``. Out: exact encodings (``encode``), an incremental z3 session
driven by assumption literals with budgets (``checker``), optimization (``optimize``) and proofs
of unboundedness (``unbounded``). Outcomes (sat/unsat/unknown, models) are plain values; z3 and
pysmt objects do not leave this package.
"""
