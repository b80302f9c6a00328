"""Layer 1, what the operator configures and where envtui keeps things: the TOML config
(with its ``[alerts]``), Codex's ``environments.toml``, the ``codex`` binary, theme files,
the folders envtui reads and writes, and what the dashboard remembers between runs.
"""
