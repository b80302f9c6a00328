"""A served ``codex`` tab's answers: over the stream folder's socket to the one source."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import pytest

from tests.unit.test_answer_identity import _asked, _connection, _shown_answer

from envtui.commands.dashboard_sources import Answering
from envtui.commands.serve import tab_process
from envtui.commands.serve.command import check_dashboard
from envtui.commands.serve.shared_answers import AnswerRelay, serve_answers
from envtui.commands.serve.shared_source import shared_for
from envtui.tui.web.served_driver import ServedDriver
from envtui.vocabulary.events import Event
from envtui.vocabulary.thread_messages import RequestAnswered

ANSWER = RequestAnswered(
    request_id=7,
    generation=3,
    shown="0f" * 16,
    kind="command",
    answer="accept",
    key="o",
    answers={"q": ["secret"]},
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


async def _relayed(path: Path, *messages: RequestAnswered) -> list[str | None]:
    """Each of ``messages`` sent by a tab's relay to the server at ``path``: the replies."""
    relay = AnswerRelay(path)
    loop = asyncio.get_running_loop()
    return [await loop.run_in_executor(None, relay, message) for message in messages]


@pytest.mark.parametrize(
    ("unnamed", "words"),
    [({"generation": None}, "no generation"), ({"shown": None}, "no shown"),
     ({"generation": None, "shown": None}, "no generation and no shown")],
    ids=["generation", "shown", "both"],
)  # fmt: skip
async def test_an_answer_that_does_not_name_the_request_it_showed_is_refused(
    tmp_path: Path, unnamed: dict[str, None], words: str
) -> None:
    given: list[RequestAnswered] = []
    server = await serve_answers(tmp_path / "answers.sock", given.append)
    try:
        (problem,) = await _relayed(tmp_path / "answers.sock", ANSWER.model_copy(update=unnamed))
    finally:
        server.close()
        await server.wait_closed()
    assert problem == (
        f"request #7: the answer does not say which request was shown ({words}); nothing sent"
    )
    assert given == []  # the source never saw it


async def test_a_tabs_answer_for_a_request_that_changed_is_refused_with_the_reason(
    tmp_path: Path,
) -> None:
    """The server's side is the real request table of an app-server connection: a tab that
    showed #0 before it changed, or #0 of the app-server before a restart, sends nothing."""
    events: list[Event] = []
    first, _ = _connection(events)
    old = _asked(first, events, "echo SAFE-harmless")
    first.gone()  # the app-server restarted: a new connection asks a new #0
    requests, replies = _connection(events)
    new = _asked(requests, events, "rm -rf ~/IMPORTANT")
    shown_before = new.model_copy(update={"command": "echo what the tab showed"})
    server = await serve_answers(tmp_path / "answers.sock", requests.answer)
    try:
        problems = await _relayed(
            tmp_path / "answers.sock",
            _shown_answer(old),
            _shown_answer(shown_before),
            _shown_answer(new),
        )
    finally:
        server.close()
        await server.wait_closed()
    assert problems == [
        "request #0 was asked by an app-server that is gone; this one's is another",
        "request #0 is not the request that was shown (it changed); nothing sent",
        None,
    ]
    assert replies.sent == [(0, {"decision": "accept"})]  # only the answer to what was shown


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
