"""The dashboard commands from the command line, with the app run headless.

``EnvTuiApp.run`` is replaced by a headless run whose autopilot waits (bounded) until the
store holds what the test expects, then presses ``q``: everything before it (config,
source table, recording) is the real command.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.files import ROLLOUTS
from tests.support.scenarios.scripted_stream import scripted_events
from tests.support.waiting import wait_until

from envtui.cli import build_parser, main
from envtui.commands import dashboard
from envtui.commands.dashboard_sources import SOURCES
from envtui.dashboard.store import Store
from envtui.tui.app import EnvTuiApp
from envtui.vocabulary.events import Event, decode_lines, encode_event

Condition = Callable[[Store], bool]
ROLLOUT = sorted(ROLLOUTS.glob("rollout-*.jsonl"))[0]

pytestmark = pytest.mark.usefixtures("a_terminal")


def run_headless(monkeypatch: pytest.MonkeyPatch, until: Condition) -> list[Store]:
    """Make the next dashboard run headless; it quits once ``until(store)`` holds."""
    run = EnvTuiApp.run
    stores: list[Store] = []

    def headless(app: EnvTuiApp) -> None:
        async def quit_when_done(pilot: Any) -> None:
            await wait_until(lambda: until(app.store), timeout=20, what="the dashboard's store")
            stores.append(app.store)
            await pilot.press("q")

        run(app, headless=True, size=(100, 30), auto_pilot=quit_when_done)

    monkeypatch.setattr(EnvTuiApp, "run", headless)
    return stores


def write_stream(path: Path) -> Path:
    path.write_text("".join(encode_event(event) + "\n" for event in scripted_events()))
    return path


@pytest.fixture
def no_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test fails if the dashboard starts."""

    def started(app: EnvTuiApp) -> None:
        raise AssertionError("the dashboard started")

    monkeypatch.setattr(EnvTuiApp, "run", started)


def every_scripted_event(store: Store) -> bool:
    """Every scripted event is in; a source that ended adds its own ``source_status``."""
    return store.counters["total"] - store.counters["source_status"] == len(scripted_events())


def test_every_dashboard_command_has_a_source() -> None:
    subparsers = next(
        action
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    modes = {
        parser.get_default("mode")
        for parser in subparsers.choices.values()
        if parser.get_default("handler") is dashboard.run
    }
    assert modes == {"demo", "watch", "codex", "replay", "rollout"}
    assert set(SOURCES) == modes


def test_replay_shows_the_stream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stores = run_headless(
        monkeypatch, lambda store: every_scripted_event(store) and "replay" in store.sources
    )
    stream = write_stream(tmp_path / "stream.jsonl")
    assert main(["replay", str(stream), "--speed", "0"]) == 0
    assert [store.counters["total"] for store in stores] == [len(scripted_events()) + 1]
    assert sorted(stores[0].environments) == ["build", "legacy", "local"]
    assert stores[0].sources["replay"].state == "ended"  # said, once the file is read


def test_record_writes_every_event_of_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stores = run_headless(monkeypatch, every_scripted_event)
    stream = write_stream(tmp_path / "stream.jsonl")
    out = tmp_path / "out.jsonl"
    assert main(["replay", str(stream), "--speed", "0", "--record", str(out)]) == 0
    assert len(stores) == 1
    recorded = list(decode_lines(out.read_text(encoding="utf-8").splitlines()))
    assert all(isinstance(item, Event) for item in recorded)
    assert recorded == scripted_events()


def test_watch_runs_the_configured_environments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        f'step_interval = 0.2\n[[environments]]\nid = "local"\nkind = "local"\ncwd = "{tmp_path}"\n'
    )

    def ready_with_a_step(store: Store) -> bool:
        row = store.environments.get("local")
        return row is not None and row.status == "ready" and bool(store.steps)

    stores = run_headless(monkeypatch, ready_with_a_step)
    assert main(["watch", "--config", str(config)]) == 0
    [store] = stores
    assert store.environments["local"].primary
    text = store.steps[0].text
    assert text is not None
    assert f"<cwd>{tmp_path}</cwd>" in text


@pytest.mark.parametrize("command", ["replay", "rollout"])
def test_a_missing_file_fails_before_the_screen(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    missing = tmp_path / "missing.jsonl"
    assert main([command, str(missing)]) == 2
    assert capsys.readouterr().err == f"envtui {command}: error: {missing}: no such file\n"


@pytest.mark.usefixtures("no_screen")
def test_a_bad_codex_environments_file_fails_before_the_screen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "environments.toml"
    broken.write_text("[[environments]\n")
    assert main(["watch", "--codex-environments", str(broken)]) == 2
    assert capsys.readouterr().err.startswith("envtui watch: error: ")


@pytest.mark.usefixtures("no_screen")
@pytest.mark.parametrize("command", ["demo", "watch", "replay", "rollout"])
def test_a_record_file_in_a_missing_directory_fails_before_the_screen(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {"replay": write_stream(tmp_path / "stream.jsonl"), "rollout": ROLLOUT}
    args = [command, *([str(files[command])] if command in files else [])]
    record = tmp_path / "nonexistent" / "rec.jsonl"
    assert main([*args, "--record", str(record)]) == 2
    assert capsys.readouterr().err == (
        f"envtui {command}: error: --record {record}: no such directory: {record.parent}\n"
    )


def test_a_record_that_fails_is_a_notice_and_the_replay_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def everything_and_the_notice(store: Store) -> bool:
        # the notice (a warning) and the replay's end (a source status) may come in either
        # order, and in one batch with the last scripted events
        notices = store.counters["warning"]
        scripted = store.counters["total"] - store.counters["source_status"] - notices
        return scripted == len(scripted_events()) and notices == 1

    stores = run_headless(monkeypatch, everything_and_the_notice)
    stream = write_stream(tmp_path / "stream.jsonl")
    assert main(["replay", str(stream), "--speed", "0", "--record", "/dev/full"]) == 0
    [store] = stores
    assert sorted(store.environments) == ["build", "legacy", "local"]
    assert any("recording stopped: /dev/full: cannot write" in entry.line for entry in store.log)


@pytest.mark.usefixtures("no_screen")
@pytest.mark.parametrize("command", ["replay", "rollout"])
def test_a_fifo_is_refused_before_the_screen_and_never_read(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    fifo = tmp_path / "stream.jsonl"
    os.mkfifo(fifo)  # reading it would wait for a writer for ever
    assert main([command, str(fifo)]) == 2
    assert capsys.readouterr().err == f"envtui {command}: error: {fifo}: not a regular file\n"
