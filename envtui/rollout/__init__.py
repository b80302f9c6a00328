"""Layer 2, Codex rollout files: one line in (its shape checked), what an item says, the
world state a rollout builds, the streaming reader that cuts steps, the steps it settles,
a fork's parent, and the check of each step against envtui's own render and the rules.

Pure and synchronous; reading bytes from a file or a host is the sources' business.
"""
