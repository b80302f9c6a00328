"""File URI → native path text, as Codex's ``PathUri::inferred_native_path_string`` does.

The convention (POSIX, Windows drive, Windows UNC) is inferred from the URI's spelling,
not from the host envtui runs on: a ``file:///C:/x`` URI renders as ``C:\\x`` on Linux too.
Codex's own URI parser normalises a URI before converting it (scheme and host lower-cased,
``localhost`` dropped, dot segments resolved, drive letter upper-cased, query and fragment
dropped); :func:`normalize_file_uri` does the same for URIs envtui reads from files.
"""

from __future__ import annotations

import base64
import re
from urllib.parse import SplitResult, unquote_to_bytes, urlsplit

BAD_PATH_PREFIX = "file:///%00/bad/path/"
"""Codex's prefix for paths that are not valid UTF-8 or contain NUL (base64url payload)."""

_FILE_URI = re.compile(r"\Afile://", re.IGNORECASE)
_SINGLE_DOT = frozenset({".", "%2e"})
_DOUBLE_DOT = frozenset({"..", ".%2e", "%2e.", "%2e%2e"})


def is_file_uri(text: str) -> bool:
    """True when ``text`` is spelled as a ``file://`` URI (the scheme is case-insensitive)."""
    return _FILE_URI.match(text) is not None


def path_text(value: str) -> str:
    """Native path text for a value that is either a ``file://`` URI or already native text."""
    if is_file_uri(value):
        return native(normalize_file_uri(value))
    return value


def _split(uri: str) -> SplitResult:
    """``urlsplit``, with its refusal (an unclosed ``[`` in the host) as one ValueError."""
    try:
        return urlsplit(uri)
    except ValueError as exc:
        raise ValueError(f"not a valid file URI: {exc}") from None


def _is_drive(segment: str) -> bool:
    """``C:``: one ASCII letter and a colon."""
    return len(segment) == 2 and segment[0].isascii() and segment[0].isalpha() and segment[1] == ":"


def _decode_segment(segment: str) -> str:
    """Percent-decode once, then decode the bytes as UTF-8 with replacement characters."""
    return unquote_to_bytes(segment).decode("utf-8", errors="replace")


def normalize_file_uri(uri: str) -> str:
    """Normalise a ``file://`` URI the way Codex's URI parser stores it.

    Codex's opaque fallback URIs are returned unchanged: their payload is not a path.
    """
    if uri.startswith(BAD_PATH_PREFIX):
        return uri
    parts = _split(uri)
    host = parts.netloc.lower()
    if host == "localhost":
        host = ""
    path = parts.path.replace("\\", "/")
    if not path.startswith("/"):
        path = "/" + path
    segments: list[str] = []
    raw_segments = path.split("/")[1:]
    for index, segment in enumerate(raw_segments):
        last = index == len(raw_segments) - 1
        lowered = segment.lower()
        if lowered in _SINGLE_DOT:
            if last:
                segments.append("")
            continue
        if lowered in _DOUBLE_DOT:
            # A Windows drive letter is the root of its path: ".." never climbs above it.
            if segments and not (len(segments) == 1 and not host and _is_drive(segments[0])):
                segments.pop()
            if last:
                segments.append("")
            continue
        segments.append(segment)
    if segments and not host and _is_drive(segments[0]):
        segments[0] = segments[0][0].upper() + ":"
    return "file://" + host + "/" + "/".join(segments)


def native(uri: str) -> str:
    """The native path text of a (normalised) file URI, exactly as Codex infers it."""
    raw = _opaque_fallback_bytes(uri)
    if raw is not None:
        return _render_opaque(raw) or uri
    parts = _split(uri)
    host = parts.netloc.lower()
    if host == "localhost":
        host = ""
    segments = (parts.path or "/").split("/")[1:]
    first = next((segment for segment in segments if segment), None)
    windows = bool(host) or (first is not None and _is_drive(first))
    if not windows:
        return "".join("/" + _decode_segment(segment) for segment in segments)
    if host:
        share = _decode_segment(segments[0]) if segments else ""
        if not share:
            return uri
        out = "\\\\" + host + "\\" + share
    else:
        drive = _decode_segment(segments[0])
        if not _is_drive(drive):
            return uri
        out = drive[0].upper() + ":"
    for segment in segments[1:]:
        out += "\\" + _decode_segment(segment)
    if len(out) == 2 and out[1] == ":":
        out += "\\"
    return out


def _opaque_fallback_bytes(uri: str) -> bytes | None:
    """The payload of an opaque fallback URI, if ``uri`` is one in canonical unpadded form."""
    if not uri.startswith(BAD_PATH_PREFIX):
        return None
    encoded = uri[len(BAD_PATH_PREFIX) :]
    if not encoded or "/" in encoded:
        return None
    try:
        raw = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    except ValueError:
        return None
    if base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii") != encoded:
        return None
    return raw


def _render_opaque(raw: bytes) -> str | None:
    """POSIX bytes as lossy UTF-8, Windows wide strings as lossy UTF-16; anything else None."""
    if raw.startswith(b"/"):
        return raw.decode("utf-8", errors="replace")
    if len(raw) % 2:
        return None
    wide = [int.from_bytes(raw[i : i + 2], "little") for i in range(0, len(raw), 2)]
    separators = (ord("\\"), ord("/"))
    drive_root = (
        len(wide) >= 3
        and wide[0] < 128
        and chr(wide[0]).isalpha()
        and wide[1] == ord(":")
        and wide[2] in separators
    )
    unc_root = len(wide) >= 2 and wide[0] in separators and wide[1] in separators
    if drive_root or unc_root:
        return raw.decode("utf-16-le", errors="replace")
    return None
