"""What the real ``codex app-server`` 0.171.0 asks is shown whole before it is approved.

The model stand-in asks Codex to run a command padded with 5,000 spaces, whose tail is a
second command; and, with the ``exec_permission_approvals`` feature, a command that also
asks for write access to another folder (``additionalPermissions``). Codex asks envtui's
operator. The confirmation envtui would show for each request (built from what the real
app-server sent, not from a shape written by hand) has the tail and the padding in words,
or the extra grant in words, once; and the answer sent for it is the one Codex applies:
declined, nothing runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.real.codex_approvals import (
    ASKING_CONFIG,
    ApprovalCodex,
    approval_codex,
    escalated,
)
from tests.support.real.codex_tools import needs_codex
from tests.support.waiting import running, wait_until

from envtui.environments.app_server import CodexOptions
from envtui.sources.codex_attach import CodexSource
from envtui.tui.needs_you.confirm import confirmation_text
from envtui.vocabulary.answers import shown_digest
from envtui.vocabulary.events import Event
from envtui.vocabulary.thread_messages import RequestAnswered, RequestPending, RequestResolved

pytestmark = [needs_codex, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

TAIL = "; echo the-tail-ran > tail-ran.txt"
PADDED = "echo hello" + " " * 5000 + TAIL


PERMISSION_APPROVALS = ASKING_CONFIG + "\n[features]\nexec_permission_approvals = true\n"


def _pending(events: list[Event]) -> list[RequestPending]:
    return [e.msg for e in events if isinstance(e.msg, RequestPending)]


def _source(codex: ApprovalCodex, events: list[Event]) -> CodexSource:
    options = CodexOptions(
        codex=str(codex.program),
        codex_home=codex.home,
        cwd=str(codex.work),
        poll_interval=0.3,
        prompt="go",
    )
    return CodexSource(options, events.append, operator=True)


def _decline(request: RequestPending) -> RequestAnswered:
    """The answer the confirmation sends for ``request``, as it was shown."""
    return RequestAnswered(
        request_id=request.request_id,
        generation=request.generation,
        shown=shown_digest(request),
        thread=request.thread,
        kind=request.kind,
        answer="decline",
        key="x",
    )


async def _declined(codex: ApprovalCodex, source: CodexSource, events: list[Event]) -> None:
    """Decline the one request, and wait until Codex told the model so."""
    (request,) = _pending(events)
    assert source.answer(_decline(request)) is None
    await wait_until(lambda: any(isinstance(e.msg, RequestResolved) for e in events), timeout=90)
    await wait_until(lambda: "rejected by user" in codex.rollout(), timeout=90)


async def test_a_padded_command_from_the_real_codex_is_confirmed_with_its_tail_in_sight(
    tmp_path: Path,
) -> None:
    codex = approval_codex(tmp_path, [escalated(PADDED), {"message": "done"}])
    events: list[Event] = []
    source = _source(codex, events)
    async with running(source.run):
        await wait_until(lambda: bool(_pending(events)), timeout=90)
        (request,) = _pending(events)
        assert request.command is not None
        assert TAIL in request.command  # Codex's own wrapping keeps it; envtui keeps it too
        assert request.command_length is not None
        assert request.command_length > 5000
        shown = confirmation_text(request, _decline(request), {})
        assert f"echo hello⟨5,000 spaces⟩{TAIL}" in shown
        await _declined(codex, source, events)
    assert not (codex.work / "tail-ran.txt").exists()  # the tail never ran


async def test_the_extra_folder_a_real_command_approval_grants_is_shown_in_words_once(
    tmp_path: Path,
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    arguments = {
        "cmd": f"echo granted > {elsewhere}/granted.txt",
        "sandbox_permissions": "with_additional_permissions",
        "additional_permissions": {"file_system": {"write": [str(elsewhere)]}},
        "justification": "needs to write elsewhere",
    }
    call = {"function_call": {"name": "exec_command", "arguments": json.dumps(arguments)}}
    codex = approval_codex(
        tmp_path, [call, {"message": "done"}], environments="", config=PERMISSION_APPROVALS
    )
    events: list[Event] = []
    source = _source(codex, events)
    async with running(source.run):
        await wait_until(lambda: bool(_pending(events)), timeout=90)
        (request,) = _pending(events)
        assert request.kind == "command"
        assert request.decisions == ["accept", "cancel"]  # as 0.171 offers with the feature
        shown = confirmation_text(request, _decline(request), {})
        approve = confirmation_text(
            request, _decline(request).model_copy(update={"answer": "accept"}), {}
        )
        for text in (shown, approve):
            assert text.count(f"also grants: write {elsewhere}") == 1, text
            assert "{" not in text  # words, never a dict
        await _declined(codex, source, events)
    assert not (elsewhere / "granted.txt").exists()
