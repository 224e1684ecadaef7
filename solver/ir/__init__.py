"""The IR: what every later stage reads.

In: nothing but Python values. Out: hash-consed immutable terms (``terms``) normalized at
construction, the validated ``Problem`` (``problem``), Python-integer evaluation of terms — the
reference semantics every model is re-checked with (``pyeval``), sympy-syntax printing
(``printer``) and canonical problems with the map back to the caller's names (``canonical``).
No text parsing, no solver.
"""
