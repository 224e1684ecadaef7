"""``python -m symguard.service.cli``: the same as the ``symguard`` console script."""

import sys

from .main import main

sys.exit(main())
