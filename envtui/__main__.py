"""``python -m envtui``: the same entry point as the ``envtui`` console script."""

from envtui.cli import main

raise SystemExit(main())
