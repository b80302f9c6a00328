"""A served ``codex`` tab's answers: over the stream folder's socket to the one source."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from envtui.commands.dashboard_sources import Answering
from envtui.commands.serve import tab_process
from envtui.commands.serve.command import check_dashboard
from envtui.commands.serve.shared_answers import AnswerRelay, serve_answers
from envtui.commands.serve.shared_source import shared_for
from envtui.tui.web.served_driver import ServedDriver
from envtui.vocabulary.thread_messages import RequestAnswered

ANSWER = RequestAnswered(
    request_id=7, kind="command", answer="accept", key="o", answers={"q": ["secret"]}
)


async def test_a_tabs_answer_reaches_the_source_and_its_reply_comes_back(tmp_path: Path) -> None:
    given: list[RequestAnswered] = []

    def answer(message: RequestAnswered) -> str | None:
        given.append(message)
        return None if len(given) == 1 else "request #7 is already answered"

    path = tmp_path / "answers.sock"
    server = await serve_answers(path, answer)
    try:
        relay = AnswerRelay(path)
        loop = asyncio.get_running_loop()
        first = await loop.run_in_executor(None, relay, ANSWER)  # a tab blocks; the loop serves
        second = await loop.run_in_executor(None, relay, ANSWER)
    finally:
        server.close()
        await server.wait_closed()
    assert first is None
    assert second == "request #7 is already answered"  # the second tab is told why
    assert given == [ANSWER, ANSWER]


def test_a_tab_whose_server_is_gone_is_told_so_at_once(tmp_path: Path) -> None:
    problem = AnswerRelay(tmp_path / "answers.sock")(ANSWER)
    assert problem is not None
    assert problem.startswith("the server did not take the answer (")


def test_a_served_codex_tab_replays_the_stream_and_answers_through_the_server(
    tmp_path: Path,
) -> None:
    codex = tmp_path / "codex"
    codex.write_text("#!/bin/sh\n")
    codex.chmod(0o755)
    checked = check_dashboard(["codex", "--codex", str(codex), "--cwd", str(tmp_path)])
    assert isinstance(checked, argparse.Namespace)
    shared = shared_for(checked, tmp_path)
    assert shared is not None
    arguments = shared.tab_arguments()
    assert arguments[arguments.index("--answers") + 1] == str(tmp_path / "answers.sock")
    (tmp_path / "events.jsonl").write_text("")
    tab = check_dashboard(arguments)  # as the tab host reads its command line
    assert isinstance(tab, argparse.Namespace)
    app = tab_process.dashboard(tab, ServedDriver)  # a tab's dashboard, as the host makes it
    assert isinstance(app.options.answers, Answering)  # the keys answer, through the server
    relay = app.options.answers.answer
    assert isinstance(relay, AnswerRelay)
    assert relay.path == tmp_path / "answers.sock"

    assert app.options.source_name == f"codex {codex}"  # the header names the codex that runs
    assert app.driver_class is ServedDriver
