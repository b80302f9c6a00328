"""Which Codex envtui models: the released 0.171 (default) or the 0.150 of the seed design.

The two differ in what the context shows for failed environments and in which tools they
advertise (``codex-0.171.md``); everything that differs is decided by looking at a
:class:`Profile`, never at a version string.
"""

from __future__ import annotations

from enum import StrEnum


class Profile(StrEnum):
    CODEX_0171 = "codex-0.171"
    CODEX_0150 = "codex-0.150"

    @property
    def renders_failed_environments(self) -> bool:
        """0.171 renders ``<status>failed</status>``; 0.150 leaves failed ones out."""
        return self is Profile.CODEX_0171

    @property
    def has_daemon(self) -> bool:
        """0.171 runs interactive Codex in a shared app-server daemon; 0.150 has none."""
        return self is Profile.CODEX_0171


DEFAULT_PROFILE = Profile.CODEX_0171
