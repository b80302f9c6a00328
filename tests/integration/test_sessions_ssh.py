"""``envtui sessions --ssh``: a host's sessions tree over SFTP, with known_hosts checked."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.support.data.session_trees import (
    copy_real,
    thread_id,
    tree_with_links_out,
    with_wrong_last_context,
)
from tests.support.real.ssh_servers import in_process_server
from tests.support.waiting import wait_until

from envtui.incidents.sessions_view import SessionsView
from envtui.sources.sessions.session_files import LocalSessionFiles
from envtui.sources.sessions.sessions_index import SessionsIndex, watch_sessions
from envtui.sources.sessions.sessions_sftp import SftpSessionFiles
from envtui.vocabulary.events import Event, StepRecorded


async def test_a_remote_tree_gives_the_same_rows_as_the_local_one(tmp_path: Path) -> None:
    tree = tmp_path / "sessions"
    copy_real(tree)
    local = SessionsIndex(LocalSessionFiles(tree)).poll()
    async with in_process_server(sftp=True) as server:
        settings = server.settings(tmp_path / "known_hosts")
        files = SftpSessionFiles(settings, str(tree), client_keys=[server.client_key])
        await files.open()
        try:
            views: list[SessionsView] = []
            stop = asyncio.Event()
            task = asyncio.ensure_future(
                watch_sessions(SessionsIndex(files), views.append, stop, poll=0.05)
            )
            await wait_until(lambda: bool(views), what="the first listing")
            remote = views[-1]
            assert remote.up
            key = lambda s: s.thread_id  # noqa: E731
            rows = [
                json.dumps({**s.as_json(), "path": None, "last_written": None, "live": None})
                for s in sorted(remote.threads, key=key)
            ]
            expected = [
                json.dumps({**s.as_json(), "path": None, "last_written": None, "live": None})
                for s in sorted(local.threads, key=key)
            ]
            # a fork's parent is looked up on this machine only: the remote fork says so
            fork = "01a22cff-865d-7af0-9cfb-fce462bf2aaa"
            assert [r for r in rows if fork not in r] == [e for e in expected if fork not in e]
            with_wrong_last_context(tree)  # a new rollout on the host: a new row
            await wait_until(
                lambda: any(s.thread_id == thread_id(999) for s in views[-1].threads),
                what="the new row",
            )
            new = next(s for s in views[-1].threads if s.thread_id == thread_id(999))
            assert new.incidents == ["context-mismatch"]
            stop.set()
            await task
            events: list[Event] = []
            stop = asyncio.Event()
            follow = asyncio.ensure_future(files.rollout_source(new.path)(events.append, stop))
            await wait_until(
                lambda: sum(isinstance(e.msg, StepRecorded) for e in events) == 3,
                what="the thread's steps",
            )
            stop.set()
            await follow
        finally:
            await files.aclose()


async def test_an_unknown_host_key_is_refused_with_the_reason(tmp_path: Path) -> None:
    async with in_process_server(sftp=True) as server:
        settings = server.settings(tmp_path / "known_hosts")
        (tmp_path / "known_hosts").write_text("")
        files = SftpSessionFiles(settings, str(tmp_path), client_keys=[server.client_key])
        try:
            with pytest.raises(OSError, match="unknown host key"):
                await files.open()
        finally:
            await files.aclose()


async def test_a_link_out_of_the_remote_tree_is_skipped_and_counted(tmp_path: Path) -> None:
    tree, inside = tree_with_links_out(tmp_path)
    async with in_process_server(sftp=True) as server:
        settings = server.settings(tmp_path / "known_hosts")
        files = SftpSessionFiles(settings, str(tree), client_keys=[server.client_key])
        await files.open()
        try:
            view = await asyncio.to_thread(SessionsIndex(files).poll)
            listed = {info.name for info in await asyncio.to_thread(files.listing)}
        finally:
            await files.aclose()
    assert view.up
    shown = {s.thread_id for s in view.threads}
    assert shown == {"01a22cff-8327-7a01-b3f2-16679aa14a85"}  # the real rollout inside
    assert thread_id(999) not in shown
    folder = inside.parent
    assert sorted(view.outside) == sorted(
        [str(folder / f"rollout-2026-11-30T10-00-01-{thread_id(5)}.jsonl"), str(folder / "2026")]
    )
    # the link inside the tree is read (the same thread as its target: shown once)
    assert listed == {inside.name, f"rollout-2026-11-30T10-00-02-{thread_id(6)}.jsonl"}
