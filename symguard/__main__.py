"""``python -m symguard``: the ``symguard`` console script."""

from symguard.service.cli import main

raise SystemExit(main())
