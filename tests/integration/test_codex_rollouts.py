"""No false alarms on healthy runs: rollouts written by the real codex 0.171 check clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.codex_app_server import record_turn
from tests.support.codex_tools import CODEX, needs_codex

from envtui.cli import main

pytestmark = needs_codex


def _environments_toml(home: Path, body: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "environments.toml").write_text(body)


def _check(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    code = main(["check", str(path), "--json"])
    report: dict[str, object] = json.loads(capsys.readouterr().out)
    assert code == 0, report["findings"]
    return report


async def test_local_only_thread_checks_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    report = _check(await record_turn(home, work), capsys)
    assert report["rollout"]["cli_version"] == "0.171.0"  # type: ignore[index]
    assert report["steps"][0]["context"].startswith("<environment_context>\n  <cwd>")  # type: ignore[index]


async def test_local_and_a_ready_remote_check_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    _environments_toml(
        home,
        f'[[environments]]\nid = "devbox"\nprogram = "{CODEX}"\nargs = ["exec-server", "--listen", "stdio"]\n',
    )
    report = _check(await record_turn(home, work), capsys)
    assert '<environment id="devbox" primary="false">' in report["steps"][0]["context"]  # type: ignore[index]


async def test_a_remote_that_starts_late_checks_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    _environments_toml(
        home,
        f'[[environments]]\nid = "devbox"\nprogram = "/bin/sh"\nargs = ["-c", "sleep 8; exec {CODEX} exec-server --listen stdio"]\ninitialize_timeout_sec = 60\n',
    )
    path = await record_turn(
        home, work, "deferred_executor", settle_after="thread/environment/connected", wait=90
    )
    report = _check(path, capsys)
    steps: list[dict[str, str | None]] = report["steps"]  # type: ignore[assignment]
    contexts = [step["context"] for step in steps if step["context"]]
    assert "<status>starting</status>" in (contexts[0] or "")
