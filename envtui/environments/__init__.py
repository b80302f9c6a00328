"""envtui's environment runtime: transports, Codex's selection semantics, snapshots.

Nothing here imports Textual. Transports (local, ssh, and later exec-server) implement
:class:`~envtui.environments.base.Environment`; the
:class:`~envtui.environments.manager.EnvironmentManager` selects them with Codex's rules and
turns their signals into events.
"""
