"""Showing untrusted text on a terminal without letting it act as terminal control.

Environment ids, paths, shells, error texts, finding codes, file names and theme keys come
from config files, remote hosts, app-servers, rollouts and event files. Written raw to a
terminal, an ESC or C1 control could move the cursor, retitle the window, set the
clipboard or hide text; bidirectional overrides could reorder what a reader sees; zero-width
and other invisible characters could make two different ids look the same.

Every such string goes through this one module before it reaches a widget, a toast, a title,
a notice or a terminal: text through :func:`for_terminal`, which shows each of those
characters as a visible escape (``\\x1b``, ``\\u202e``, ``\\u200b``); JSON through
:func:`dumps_json_line`, which writes them as ``\\u`` escapes, so the JSON value is unchanged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

_INVISIBLE_RANGES = (
    "\x00-\x08\x0b-\x1f"  # C0 controls, ESC among them (tab and newline only lay text out)
    "\x7f-\x9f"  # DEL and the C1 controls (U+009B is a one-character CSI)
    "\u00ad"  # soft hyphen
    "\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"  # Arabic and Syriac format marks
    "\u115f\u1160\u3164\uffa0"  # Hangul fillers: letters that draw nothing
    "\u180e"  # Mongolian vowel separator
    "\u200b-\u200f"  # zero-width space, non-joiner, joiner; LRM, RLM
    "\u2028-\u202e"  # line and paragraph separators; bidi embeddings and overrides
    "\u2060-\u2064\u2066-\u206f"  # word joiner, invisible operators, bidi isolates
    "\ud800-\udfff"  # lone surrogates: not characters at all
    "\ufeff"  # zero-width no-break space (BOM)
    "\ufff9-\ufffb"  # interlinear annotation
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"  # language tags (invisible ASCII look-alikes)
)
"""Unicode's control (Cc), format (Cf), surrogate (Cs), line and paragraph separator
characters (through Unicode 15), and the Hangul fillers: nothing a reader can see."""

_UNSAFE = re.compile(f"[{_INVISIBLE_RANGES}]")
_FLAGS = (False, False, True)  # json.dumps's sort_keys, skipkeys and allow_nan
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""``json.dumps``'s encoder for these options, made once rather than at every call."""
_C_ENCODE: Callable[[Any, int], list[str]] | None = (
    None
    if c_make_encoder is None
    else c_make_encoder(None, _ENCODER.default, encode_basestring, None, ":", ",", *_FLAGS)
)
"""The C encoder ``_ENCODER`` would make at each call, made once, for objects and arrays.
It keeps no record of the containers it is in (a parsed value cannot hold itself), so it
has no state and is safe in any thread."""


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON writes a character outside the BMP as a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def for_terminal(text: str) -> str:
    """``text`` with control, direction and invisible characters shown as escapes.

    ``\\x1b`` for ESC, ``\\u202e`` for a right-to-left override, ``\\u200b`` for a zero-width
    space. Newlines and tabs are kept: they only lay text out.
    """
    return _UNSAFE.sub(_visible, text)


def one_line(text: str) -> str:
    """:func:`for_terminal`, with newlines shown as spaces: for a cell, a title or a label."""
    return for_terminal(text).replace("\n", " ").replace("\t", " ")


def dumps_json_line(value: Any) -> str:
    """Compact one-line JSON, non-ASCII kept, terminal-active characters ``\\u``-escaped.

    Lone surrogates (from a ``\\ud800`` escape in some input) are escaped the same way, so
    the line always encodes as UTF-8 and decodes to the same value.
    """
    if _C_ENCODE is not None and isinstance(value, dict | list):
        text = "".join(_C_ENCODE(value, 0))
    else:
        text = _ENCODER.encode(value)
    if text.isascii() and "\x7f" not in text:
        return text  # json.dumps has escaped C0 already: nothing else is unsafe in ASCII
    return _UNSAFE.sub(_json_escape, text)
