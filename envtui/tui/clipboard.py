"""Copying text so that it really lands somewhere, and saying where it landed.

A terminal application can only *ask* for the clipboard, with the OSC 52 escape sequence,
and many terminals and multiplexers drop that request silently: tmux does unless its
``set-clipboard`` option is ``on``. So the dashboard also hands the text to the local
clipboard tools it finds (``wl-copy``, ``xclip``, ``xsel``, ``pbcopy``, ``clip.exe``) and,
inside tmux, to tmux's own paste buffer, and the notice names each one that took it, or
says plainly that only the request was sent and how to make it arrive.

The tools are run with no shell, bounded in time, the text on their standard input, each
in a process group of its own: a tool that hangs, or whose copy is cancelled as the
dashboard quits, is ended with whatever it started (a tool that is a script leaves its own
children behind when only the script is killed).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from envtui.vocabulary.stopping import (
    cancel_and_wait,
    kill_group,
    kill_group_when_started,
    within,
)

TOOL_TIMEOUT = 10.0
"""Seconds a clipboard tool may take before it is ended and counted as failed. The copy runs
beside the interface, which never waits for it: the bound only ends a tool that hangs, and
is long enough that one merely slow (a loaded machine, a busy tmux server) is not killed
with the copy half done and reported as failed."""


@dataclass(frozen=True)
class Tool:
    """A program that puts its standard input on a clipboard, and what the notice calls it."""

    name: str
    command: tuple[str, ...]


def local_tools(environ: Mapping[str, str] | None = None) -> list[Tool]:
    """The clipboard tools of this desktop that exist here, in the order they are tried."""
    env = os.environ if environ is None else environ
    wanted: list[Tool] = []
    if env.get("TMUX"):
        wanted.append(Tool("the tmux buffer", ("tmux", "load-buffer", "-")))
    if env.get("WAYLAND_DISPLAY"):
        wanted.append(Tool("wl-copy", ("wl-copy",)))
    if env.get("DISPLAY"):
        wanted.append(Tool("xclip", ("xclip", "-selection", "clipboard", "-in")))
        wanted.append(Tool("xsel", ("xsel", "--clipboard", "--input")))
    if sys.platform == "darwin":
        wanted.append(Tool("pbcopy", ("pbcopy",)))
    if "microsoft" in os.uname().release.lower():
        wanted.append(Tool("clip.exe", ("clip.exe",)))
    found: list[Tool] = []
    for tool in wanted:
        if tool.name == "xsel" and any(f.name == "xclip" for f in found):
            continue  # one X clipboard tool is enough
        if shutil.which(tool.command[0]):
            found.append(tool)
    return found


async def run_tool(tool: Tool, text: str, timeout: float = TOOL_TIMEOUT) -> bool:
    """Give ``text`` to ``tool``; True when it took it (exit status 0 in time)."""
    ran = await _run_bounded(tool.command, timeout, feed=text.encode("utf-8"))
    return ran is not None and ran[0] == 0


async def tmux_clipboard(environ: Mapping[str, str] | None = None) -> str | None:
    """tmux's ``set-clipboard`` option (``on``, ``external``, ``off``), None outside tmux."""
    env = os.environ if environ is None else environ
    if not env.get("TMUX") or shutil.which("tmux") is None:
        return None
    query = ("tmux", "show-options", "-gv", "set-clipboard")
    ran = await _run_bounded(query, TOOL_TIMEOUT, read_output=True)
    if ran is None:
        return None
    return ran[1].decode("utf-8", "replace").strip() or None


async def _run_bounded(
    command: Sequence[str], timeout: float, *, feed: bytes | None = None, read_output: bool = False
) -> tuple[int | None, bytes] | None:
    """``command`` with ``feed`` on its input: its exit status and (``read_output``) its
    standard output; None when it did not start or ran out of time (it is then ended with
    its process group). Output that is not read goes nowhere, so that a child a tool leaves
    behind to keep the clipboard cannot hold the copy up by holding a pipe open."""
    process = await _start(command, feeds=feed is not None, read_output=read_output)
    if process is None:
        return None
    communicate = asyncio.ensure_future(process.communicate(feed))
    try:
        finished = await within(timeout, asyncio.shield(communicate))
    except BaseException:  # the copy cancelled (the dashboard quits): the tool goes too
        kill_group(process.pid)  # before any await, which a second cancellation would cut
        await _abandon(process, communicate)
        raise
    if not finished:
        kill_group(process.pid)
        await _abandon(process, communicate)
        return None
    return process.returncode, communicate.result()[0] or b""


async def _start(
    command: Sequence[str], *, feeds: bool, read_output: bool
) -> asyncio.subprocess.Process | None:
    """The tool, started in a session of its own; None when it cannot be. The start is
    shielded: cancelled half way, asyncio would kill the tool alone, not what it started
    meanwhile, so a copy cancelled while its tool starts ends its group once started."""
    starting = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE if feeds else None,
            stdout=asyncio.subprocess.PIPE if read_output else asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
    )
    try:
        return await asyncio.shield(starting)
    except OSError:
        return None
    except BaseException:
        starting.add_done_callback(kill_group_when_started)
        raise


async def _abandon(process: asyncio.subprocess.Process, communicate: asyncio.Future[Any]) -> None:
    """Wait for a killed tool's end, and let its input go."""
    await cancel_and_wait(communicate)
    await process.wait()
    if process.stdin is not None:  # a write cut off half way leaves it open
        process.stdin.close()


def copy_notice(what: str, *, took: Sequence[str], tmux_setting: str | None) -> str:
    """The notice after a copy: where ``what`` went, and whether the OSC 52 request may
    have been dropped (and how to let it through)."""
    places = ["your terminal's clipboard (OSC 52)"] if tmux_setting in (None, "on") else []
    places += list(took)
    notice = f"copied {what} to " + (" and ".join(places) if places else "nowhere for sure")
    if tmux_setting is not None and tmux_setting != "on":
        notice += (
            f"; tmux drops the terminal clipboard request (set-clipboard is {tmux_setting}):"
            " `tmux set -g set-clipboard on` lets it through"
        )
    elif not took and tmux_setting is None:
        notice += " (if your terminal allows it: no local clipboard tool was found)"
    return notice
