"""The ``<timezone>`` name and ``<current_date>`` value, as Codex derives them on Linux.

Codex takes the IANA name from the ``/etc/localtime`` symlink target (one of four
prefixes stripped), else from ``/etc/timezone``, else ``Etc/UTC``; it never reads ``TZ``
for the name. envtui validates the name against zoneinfo, which the ``tzdata`` package
backs on machines without a system zone database. The date comes from an injected clock,
so tests and replays pin it. zoneinfo is imported when a zone is first looked up, never
by merely importing ``envtui.context`` (``envtui render`` looks up none).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

FALLBACK_TIMEZONE: Final = "Etc/UTC"
ZONEINFO_PREFIXES: Final = (
    "/usr/share/zoneinfo/",
    "../usr/share/zoneinfo/",
    "/etc/zoneinfo/",
    "../etc/zoneinfo/",
)

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """The real clock, timezone-aware, for production callers."""
    return datetime.now(UTC)


def _zone_exists(name: str) -> bool:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


def detect_timezone(
    override: str | None = None,
    *,
    localtime: Path = Path("/etc/localtime"),
    timezone_file: Path = Path("/etc/timezone"),
) -> str:
    """The IANA zone name for ``<timezone>``: the override, the host's zone, or ``Etc/UTC``.

    Candidates that zoneinfo does not know are skipped, so the result can always be used to
    compute the date in that zone.
    """
    candidates: list[str] = [override] if override else []
    try:
        target = os.readlink(localtime)
    except OSError:
        pass
    else:
        candidates += [target[len(p) :] for p in ZONEINFO_PREFIXES if target.startswith(p)][:1]
    with contextlib.suppress(OSError, UnicodeDecodeError):
        candidates.append(timezone_file.read_text(encoding="utf-8").rstrip())
    for name in candidates:
        if name and _zone_exists(name):
            return name
    return FALLBACK_TIMEZONE


def current_date(now: datetime, timezone: str) -> str:
    """``YYYY-MM-DD`` of the instant ``now`` in ``timezone`` (naive datetimes count as UTC)."""
    from zoneinfo import ZoneInfo

    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    return now.astimezone(ZoneInfo(timezone)).strftime("%Y-%m-%d")
