"""The ``symguard`` command line: a client of the service and the solver, never imported by them.

``main`` (the console script ``symguard = "symguard.service.cli:main"``) parses the command line and
dispatches; ``batch`` runs many inputs with a progress bar and a summary (``batch_report``);
``shrink_model`` turns a PyTorch model into a small pytest (``shrink_model_template``).
"""

from .main import build_parser, main, run_files

__all__ = ["build_parser", "main", "run_files"]
