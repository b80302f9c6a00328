"""Timezone detection as Codex does it on Linux, and the date in that zone."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from envtui.context.local_time import current_date, detect_timezone


def _host(tmp_path: Path, link: str | None = None, timezone: str | None = None) -> dict[str, Any]:
    localtime = tmp_path / "localtime"
    timezone_file = tmp_path / "timezone"
    if link is not None:
        localtime.symlink_to(link)
    if timezone is not None:
        timezone_file.write_text(timezone, encoding="utf-8")
    return {"localtime": localtime, "timezone_file": timezone_file}


def test_symlink_target_names_the_zone(tmp_path: Path) -> None:
    assert (
        detect_timezone(**_host(tmp_path, link="/usr/share/zoneinfo/Europe/Berlin"))
        == "Europe/Berlin"
    )
    other = tmp_path / "b"
    other.mkdir()
    assert detect_timezone(**_host(other, link="../usr/share/zoneinfo/Asia/Tokyo")) == "Asia/Tokyo"


def test_etc_timezone_when_localtime_is_not_a_symlink(tmp_path: Path) -> None:
    (tmp_path / "localtime").write_bytes(b"TZif")
    host = _host(tmp_path, timezone="America/Los_Angeles\n")
    assert detect_timezone(**host) == "America/Los_Angeles"


def test_unknown_names_fall_back_to_etc_utc(tmp_path: Path) -> None:
    assert (
        detect_timezone(**_host(tmp_path, link="/elsewhere/Mars/Olympus", timezone="Not/AZone"))
        == "Etc/UTC"
    )
    assert detect_timezone(**_host(tmp_path / "missing")) == "Etc/UTC"


def test_override_wins_when_it_is_a_real_zone(tmp_path: Path) -> None:
    host = _host(tmp_path, timezone="Europe/Berlin")
    assert detect_timezone("Asia/Kolkata", **host) == "Asia/Kolkata"
    assert detect_timezone("../../etc/passwd", **host) == "Europe/Berlin"


def test_date_is_taken_in_the_zone() -> None:
    instant = datetime(2026, 2, 26, 23, 30, tzinfo=UTC)
    assert current_date(instant, "Etc/UTC") == "2026-02-26"
    assert current_date(instant, "Asia/Tokyo") == "2026-02-27"
    assert current_date(instant, "America/Los_Angeles") == "2026-02-26"
    assert current_date(datetime(2026, 2, 26, 23, 30), "Asia/Tokyo") == "2026-02-27"
