"""Copying: the tools found, a tool really run, and a notice that says where the text went."""

from __future__ import annotations

import asyncio
from pathlib import Path

import psutil
import pytest

from tests.support.waiting import DEFAULT_TIMEOUT, poll_until, wait_until

from envtui.tui.clipboard import Tool, copy_notice, local_tools, run_tool, tmux_clipboard


def _tool(folder: Path, name: str, script: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(0o755)


def test_the_tools_of_this_desktop_are_found_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("tmux", "xclip", "xsel", "wl-copy"):
        _tool(tmp_path, name, "cat >/dev/null")
    monkeypatch.setenv("PATH", str(tmp_path))
    names = [t.name for t in local_tools({"TMUX": "/tmp/t,1,0", "DISPLAY": ":0"})]
    assert names == ["the tmux buffer", "xclip"]  # one X tool is enough
    assert [t.name for t in local_tools({"WAYLAND_DISPLAY": "wayland-0"})] == ["wl-copy"]
    assert local_tools({}) == []


async def test_a_tool_gets_the_text_on_its_input(tmp_path: Path) -> None:
    out = tmp_path / "got"
    _tool(tmp_path, "keep", f"cat > {out}")
    assert await run_tool(Tool("keep", (str(tmp_path / "keep"),)), "héllo\n")
    assert out.read_text(encoding="utf-8") == "héllo\n"


async def test_a_failing_or_hanging_tool_is_not_counted_and_leaves_nothing_running(
    tmp_path: Path,
) -> None:
    """A hanging tool is ended with what it started: a script's own child too."""
    child = tmp_path / "child.pid"
    _tool(tmp_path, "fails", "exit 3")
    _tool(tmp_path, "hangs", f"sleep 600 & echo $! > {child}.new; mv {child}.new {child}; wait")
    assert not await run_tool(Tool("fails", (str(tmp_path / "fails"),)), "x")
    # the timeout is what ends the hanging tool; it is long enough for the script to have
    # started its child first on a loaded machine
    assert not await run_tool(Tool("hangs", (str(tmp_path / "hangs"),)), "x", timeout=5)
    assert not await run_tool(Tool("missing", (str(tmp_path / "nope"),)), "x")
    assert child.exists(), "the hanging tool was ended before it had started its child"
    sleeper = int(child.read_text())
    await wait_until(lambda: not _running(sleeper), what="the hanging tool's child ended")


async def test_a_copy_cancelled_while_its_tool_hangs_ends_the_tool_and_its_child(
    tmp_path: Path,
) -> None:
    """The dashboard quits (its copy worker cancelled) while a tool hangs: the tool runs in
    a session of its own, so nothing else would end it or what it started."""
    child = tmp_path / "child.pid"
    _tool(tmp_path, "hangs", f"sleep 600 & echo $! > {child}.new; mv {child}.new {child}; wait")
    hangs = Tool("hangs", (str(tmp_path / "hangs"),))
    copy = asyncio.ensure_future(run_tool(hangs, "x", timeout=DEFAULT_TIMEOUT))
    await wait_until(child.exists, what="the hanging tool's child started")
    await _cancelled_ends_all(copy, child)


async def test_a_copy_cancelled_while_its_tool_starts_ends_the_tool_and_its_child(
    tmp_path: Path,
) -> None:
    """Cancelled after the tool is spawned but before its pipes are connected (the event
    loop busy meanwhile): what the tool started by then is ended too."""
    child = tmp_path / "child.pid"
    _tool(tmp_path, "hangs", f"sleep 600 & echo $! > {child}.new; mv {child}.new {child}; wait")
    hangs = Tool("hangs", (str(tmp_path / "hangs"),))
    copy = asyncio.ensure_future(run_tool(hangs, "x", timeout=DEFAULT_TIMEOUT))
    me = psutil.Process()
    for _ in range(100):  # one step at a time, until the tool is spawned
        await asyncio.sleep(0)
        if me.children():
            break
    assert me.children(), "the tool was not spawned"
    # the loop held (no await) while the tool starts its child: its pipes wait meanwhile
    poll_until(child.exists, what="the hanging tool's child started")
    await _cancelled_ends_all(copy, child)


async def _cancelled_ends_all(copy: asyncio.Future[bool], child: Path) -> None:
    sleeper = int(child.read_text())
    tool = psutil.Process(sleeper).ppid()
    copy.cancel()
    with pytest.raises(asyncio.CancelledError):
        await copy
    await wait_until(lambda: not _running(sleeper), what="the hanging tool's child ended")
    await wait_until(lambda: not _running(tool), what="the hanging tool ended")


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def test_outside_tmux_there_is_no_tmux_setting() -> None:
    assert await tmux_clipboard({}) is None


def test_the_notice_names_each_place_and_a_dropped_request() -> None:
    assert copy_notice("12 characters", took=[], tmux_setting=None) == (
        "copied 12 characters to your terminal's clipboard (OSC 52)"
        " (if your terminal allows it: no local clipboard tool was found)"
    )
    assert copy_notice("12 characters", took=["xclip"], tmux_setting=None) == (
        "copied 12 characters to your terminal's clipboard (OSC 52) and xclip"
    )
    assert copy_notice("12 characters", took=["the tmux buffer"], tmux_setting="external") == (
        "copied 12 characters to the tmux buffer; tmux drops the terminal clipboard request"
        " (set-clipboard is external): `tmux set -g set-clipboard on` lets it through"
    )
    assert copy_notice("12 characters", took=[], tmux_setting="off").startswith(
        "copied 12 characters to nowhere for sure; tmux drops"
    )
    assert copy_notice("12 characters", took=["the tmux buffer"], tmux_setting="on") == (
        "copied 12 characters to your terminal's clipboard (OSC 52) and the tmux buffer"
    )
