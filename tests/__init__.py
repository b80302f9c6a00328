"""envtui's tests: ``unit/`` is fast and needs nothing real; ``integration/`` needs real parts.

``support/`` holds what both use: fakes, scripted streams, servers, waiting, CLI helpers.
"""
