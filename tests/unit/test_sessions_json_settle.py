"""``sessions --json`` waits for the hosts' daemons a bounded time before it prints; a host
whose daemon had not said all by then is named on stderr, so rows printed without its live
state are not taken for complete."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.support.data.session_trees import copy_real

from envtui.commands import sessions as sessions_command
from envtui.environments.remote import RetryableError
from envtui.sources.sessions.fleet import Fleet, SessionsHost
from envtui.sources.sessions.session_files import LocalSessionFiles
from envtui.sources.sessions.sessions_index import SessionsIndex
from envtui.vocabulary.stopping import cancel_and_wait


def _host(name: str, root: Path, opener: object | None) -> SessionsHost:
    copy_real(root)
    files = LocalSessionFiles(root)
    return SessionsHost(name, files, SessionsIndex(files, host=name), daemon=opener)  # type: ignore[arg-type]


async def _settled(fleet: Fleet) -> dict[str, str]:
    """What the fleet had not said when ``--json`` stopped waiting for it."""
    stop = asyncio.Event()
    daemons = asyncio.create_task(fleet.run_daemons(stop))
    try:
        await sessions_command._daemons_settled(fleet)
        return fleet.unsettled()
    finally:
        stop.set()
        await cancel_and_wait(daemons)  # a daemon never answering is not waited for


async def test_a_host_whose_daemon_never_answers_is_named_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def never_answers() -> object:
        await asyncio.Event().wait()  # a peer that accepts and never says a word
        raise AssertionError("unreachable")

    monkeypatch.setattr(sessions_command, "SETTLE", 0.2)  # it never settles: any bound does
    fleet = Fleet(
        [_host("here", tmp_path / "a", None), _host("there", tmp_path / "b", never_answers)]
    )
    assert await _settled(fleet) == {"there": "its daemon not reached yet"}
    assert capsys.readouterr().err == (
        "envtui sessions: there: its daemon not reached yet after 0.2 s; "
        "its rows are printed without it\n"
    )


async def test_a_host_whose_daemon_said_all_is_not_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def refused() -> object:
        raise RetryableError("no codex app-server daemon runs here")

    monkeypatch.setattr(sessions_command, "SETTLE", 60.0)  # a hang guard: it settles at once
    fleet = Fleet([_host("there", tmp_path / "b", refused)])
    assert await _settled(fleet) == {}
    assert capsys.readouterr().err == ""
