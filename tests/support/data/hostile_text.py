"""Text that would act on a terminal if it reached one raw, and the test that it did not."""

from __future__ import annotations

import unicodedata

X = (
    "\x1b]2;TITLE\x07\x1b]52;c;Q0xJUA==\x1b\\\x1b[31m\x1b[2J\x1b[5;5H\x9b31m\u202eRTL"
    "\u200bZW\u2066\ufeff\U000e0041[bold red]MK[/]"
)
"""Every kind of hostile text at once: OSC title and clipboard, CSI, C1 CSI, a bidi
override, zero-width and tag characters, and Rich markup."""

VISIBLE = "\\x1b]2;TITLE\\x07"
"""How the title sequence looks once it is made inert."""


def active_characters(text: str) -> list[str]:
    """Characters a terminal would act on or that draw nothing (newlines and tabs lay out)."""
    return sorted({c for c in text if unicodedata.category(c) in ("Cc", "Cf") and c not in "\n\t"})
