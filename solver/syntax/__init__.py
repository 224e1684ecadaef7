"""Text in and out: the sympy/PyTorch expression syntax, SMT-LIB terms and scripts, JSON documents.

In: strings and decoded JSON from the caller. Out: IR terms and ``Problem`` values
(``document.load_problem``), with errors that name where the fault is; and the way back,
``.smt2`` text for export (``smtlib_writer``, ``export``). Nothing here reasons about meaning.
"""
