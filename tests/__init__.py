"""envtui's tests: ``unit/`` runs alone in seconds; ``integration/`` needs real parts.

``support/`` holds what both use: fakes, scripted streams, servers, waiting, CLI helpers.
"""
