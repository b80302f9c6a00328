"""The real Codex TUI in tmux, a client of a served app-server daemon (``--remote``), as a
person runs it, and the keys a person presses at its approval prompt.

Its first prompt is given on Codex's command line (``codex [PROMPT]``), which the TUI
submits as its session starts: typed into the composer instead, a key that comes while
the TUI starts can be lost, and an Enter right after fast keys can be taken for a newline
of a paste (the composer's paste-burst logic), so the turn would not start.
"""

from __future__ import annotations

import contextlib
import shlex
import shutil
import subprocess
from collections.abc import Iterator

from tests.support.real.codex_daemon import ServedDaemon
from tests.support.real.codex_tools import CODEX
from tests.support.waiting import wait_until

TMUX = shutil.which("tmux")
PROMPT = "Would you like to run the following command?"
"""What the TUI shows while a command waits for approval."""


def tmux(socket: str, *args: str) -> str:
    assert TMUX is not None
    done = subprocess.run([TMUX, "-L", socket, *args], capture_output=True, text=True, timeout=30)
    return done.stdout


@contextlib.contextmanager
def codex_tui(daemon: ServedDaemon, asked: str) -> Iterator[str]:
    """The real Codex TUI in tmux, a client of ``daemon``, its first turn ``asked`` as it
    starts; the tmux socket's name."""
    socket = f"envtui-codex-{daemon.process.pid}"
    command = (
        f"env CODEX_HOME={daemon.codex.home} {CODEX} --remote unix://{daemon.socket} "
        f"{shlex.quote(asked)}; sleep 600"
    )
    tmux(socket, "new-session", "-d", "-s", "tui", "-x", "160", "-y", "45", "-c",
         str(daemon.codex.work), command)  # fmt: skip
    try:
        yield socket
    finally:
        tmux(socket, "kill-server")


def pane(socket: str) -> str:
    return tmux(socket, "capture-pane", "-p", "-t", "tui")


async def answer_in_tui(socket: str, key: str) -> None:
    """Press ``key`` at the TUI's approval prompt until the prompt closes.

    A key that reaches the TUI in the moment it draws the prompt can be lost (the TUI takes
    its keys from its own loop); a person would press it again, and so does this, a bounded
    number of times. What the test asserts is what envtui sees, not how many presses it took.
    """
    for _ in range(3):
        tmux(socket, "send-keys", "-t", "tui", key)
        with contextlib.suppress(AssertionError):
            await wait_until(lambda: PROMPT not in pane(socket), timeout=15, what="the prompt")
            return
    raise AssertionError(f"the TUI's prompt stayed open after {key!r} three times:\n{pane(socket)}")
