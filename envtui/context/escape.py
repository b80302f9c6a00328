"""XML escaping of every value envtui puts into an ``<environment_context>`` block.

Codex escapes exactly five characters and leaves everything else (control characters,
any Unicode) unchanged. envtui uses the same escape everywhere, including network domains
and subagent lines, which Codex writes raw; that is envtui's one written deviation.
"""

from __future__ import annotations

import re

_NEEDS_ESCAPE = re.compile(r"[&<>\"']")


def esc(value: str) -> str:
    """Escape ``& < > " '`` for XML text and attribute values, and nothing else.

    Most values (paths, ids, shells) contain none of the five characters, so a single
    regex scan decides whether the five replacements run at all; ``&`` goes first so the
    entities written afterwards are not escaped twice.
    """
    if _NEEDS_ESCAPE.search(value) is None:
        return value
    return (
        value.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )
