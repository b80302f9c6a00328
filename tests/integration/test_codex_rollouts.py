"""No false alarms on healthy runs: rollouts written by the real codex 0.171 check clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.main_in_process import clean_check
from tests.support.real.codex_app_server import record_turn
from tests.support.real.codex_tools import CODEX, needs_codex

pytestmark = needs_codex


def _environments_toml(home: Path, body: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "environments.toml").write_text(body)


async def test_local_only_thread_checks_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    report = clean_check(await record_turn(home, work), capsys)
    assert report["rollout"]["cli_version"] == "0.171.0"
    assert report["steps"][0]["context"].startswith("<environment_context>\n  <cwd>")


async def test_local_and_a_ready_remote_check_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    _environments_toml(
        home,
        f'[[environments]]\nid = "devbox"\nprogram = "{CODEX}"\nargs = ["exec-server", "--listen", "stdio"]\n',
    )
    report = clean_check(await record_turn(home, work), capsys)
    assert '<environment id="devbox" primary="false">' in report["steps"][0]["context"]


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
    report = clean_check(path, capsys)
    steps: list[dict[str, str | None]] = report["steps"]
    contexts = [step["context"] for step in steps if step["context"]]
    assert "<status>starting</status>" in (contexts[0] or "")
