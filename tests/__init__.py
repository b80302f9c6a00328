"""envtui's tests: ``unit/`` is fast and needs nothing real; ``integration/`` needs real parts.

``support/`` holds what both use: ``fakes/``, ``real/``, ``scenarios/``, ``data/`` and waiting.
"""
