"""Showing untrusted text on a terminal without letting it act as terminal control.

Environment ids, paths, shells and error texts come from config files, remote hosts and
rollouts. Written raw to a terminal, an ESC or C1 control could move the cursor, retitle
the window or hide text; bidirectional overrides could reorder what a reader sees. Text
for a terminal goes through :func:`for_terminal`; JSON goes through :func:`dumps_json_line`,
which writes the same characters as ``\\u`` escapes, so the JSON value is unchanged.
"""

from __future__ import annotations

import json
import re
from typing import Any

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_terminal(text: str) -> str:
    """``text`` with control and direction-override characters shown as ``\\xNN`` escapes.

    Newlines and tabs are kept: they only lay text out.
    """
    return _CONTROL.sub(_visible, text)


def dumps_json_line(value: Any) -> str:
    """Compact one-line JSON, non-ASCII kept, terminal-active characters ``\\u``-escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
