"""One source for every browser tab of ``envtui serve``.

A live dashboard command (``demo``, ``watch``, ``codex``) served to ten tabs must not mean
ten SSH connections to every host, ten app-servers and ten alert commands. So the server
runs the command's source once, in its own event loop, and writes the events as
``envtui events`` does (the incidents derived after each step's findings included) to a
stream in the server's private folder; each tab's dashboard (in the tab host,
:mod:`envtui.commands.serve.tab_process`) is the dashboard of ``envtui replay STREAM --follow
--speed 0``, which reads what was written so far (a tab that opens late starts from the
state the others show) and then what comes. ``--metrics`` is served once, by the server.

For ``codex``, Codex's approvals and questions are shown in every tab, and a tab's answer
goes back to the server over a Unix socket beside the stream
(:mod:`envtui.commands.serve.shared_answers`), which sends it to the one app-server. ``replay``
and ``rollout`` read a file of their own and are served as they are, each tab reading it.

The alert command (``--alert-command``, or the config's ``[alerts] command``) runs here,
once per burst whatever the number of tabs, from a store of the server's own that sees
every event. The bell and the notifications are a terminal's: the tabs, which replay
incidents that are hours old when they open late, give none.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass, field
from pathlib import Path

from envtui.commands.common import CLOSE_TIMEOUT, event_writer, metrics_for
from envtui.commands.dashboard_sources import SOURCES, alerts_for, source_for
from envtui.commands.serve.shared_alerts import with_alert_command
from envtui.commands.serve.shared_answers import serve_answers
from envtui.commands.serve.stream_thinning import thinned
from envtui.sources.line_writer import LineWriter
from envtui.vocabulary.answers import answers_of
from envtui.vocabulary.safe_text import for_terminal

LIVE_COMMANDS = frozenset({"demo", "watch", "codex"})
"""The dashboard commands whose source is run once for all tabs."""
STREAM_NAME = "events.jsonl"
ANSWERS_NAME = "answers.sock"


def shared_for(args: argparse.Namespace, folder: Path) -> SharedSource | None:
    """The shared source of a served live command (its arguments already checked), its
    stream in the server's private ``folder``; None for a command that reads a file."""
    if args.mode not in LIVE_COMMANDS:
        return None
    return SharedSource(args, SOURCES[args.mode].title(args), folder)


def screen_arguments(args: argparse.Namespace) -> list[str]:
    """The served command's own config and screen options, for each tab's dashboard."""
    arguments: list[str] = []
    for flag, value in (
        ("--config", args.config),
        ("--theme", args.theme),
        ("--export-dir", args.export_dir),
    ):
        if value is not None:
            arguments += [flag, str(value)]
    return arguments + [flag for flag in ("--utc", "--ascii") if getattr(args, flag[2:])]


@dataclass
class SharedSource:
    """The served command's source, run once, writing the stream every tab follows."""

    args: argparse.Namespace
    title: str
    """The source's name in each tab's header: the command's, as in a terminal."""
    folder: Path
    failure: str | None = None
    """Why the source stopped on its own (a Codex that could not start), once it did."""
    refused: int = 0
    """The exit code when the source could not start (said already): a --metrics address
    in use."""
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None

    @property
    def stream(self) -> Path:
        return self.folder / STREAM_NAME

    @property
    def answers(self) -> Path | None:
        """Where the tabs' answers to Codex go (None: the source asks nothing)."""
        return self.folder / ANSWERS_NAME if self.args.mode == "codex" else None

    def tab_arguments(self) -> list[str]:
        """Each tab's dashboard: a replay that follows the stream, titled as the command
        (and, for ``codex``, the socket its answers go to)."""
        answers = [] if self.answers is None else ["--answers", str(self.answers)]
        return [
            "replay",
            str(self.stream),
            "--follow",
            "--speed",
            "0",
            "--title",
            self.title,
            *answers,
            *screen_arguments(self.args),
        ]

    def start(self, stopped: asyncio.Event) -> int:
        """Open the stream and start the source (``stopped`` is set if it ends on its own);
        0, or the exit code after the error line (an unusable ``--metrics`` address)."""
        prepared = source_for(self.args)
        if isinstance(prepared, int):
            self.refused = prepared
            return prepared
        served = metrics_for(self.args.mode, self.args) if "metrics" in self.args else None
        if isinstance(served, int):
            self.refused = served
            return served
        source = prepared[1]
        door = answers_of(source)  # before any wrapping, as a dashboard does
        if served is not None:
            from envtui.sources.metrics_server import with_metrics

            source = with_metrics(source, served[0], self.args.mode)
        writer = LineWriter.open(str(self.stream))
        state = served[0] if served is not None else None
        written = thinned(event_writer(writer, state))  # what tabs show, not every delta
        sink = with_alert_command(written, alerts_for(self.args, prepared[0]))

        async def run() -> None:
            listening = None
            try:
                if door is not None and self.answers is not None:
                    listening = await serve_answers(self.answers, door.answer)
                await sink.run(source, self._stop)
            except Exception as exc:  # the source's own failure: the server says it and ends
                self.failure = str(exc) or type(exc).__name__
            finally:
                if listening is not None:
                    listening.close()
                writer.close(CLOSE_TIMEOUT)
                if served is not None:
                    served[1].close()
                if not self._stop.is_set():
                    stopped.set()

        self._task = asyncio.get_running_loop().create_task(run())
        return 0

    async def stop(self, grace: float) -> None:
        """Stop the source and wait ``grace`` seconds for it to close what it opened."""
        self._stop.set()
        if self._task is not None:
            await asyncio.wait({self._task}, timeout=grace)

    def report(self) -> int:
        """The server's exit code for how the source ended: 1 with the reason if it failed,
        the refusal's code if it could not start."""
        if self.refused:
            return self.refused
        if self.failure is None:
            return 0
        message = f"envtui serve: error: {self.args.mode}: {self.failure}"
        print(for_terminal(message), file=sys.stderr)
        return 1
