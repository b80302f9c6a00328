"""The answers of ``envtui serve``'s tabs to what Codex asks, relayed to the one source.

Every tab of a served ``codex`` replays the server's stream, so the approvals and questions
are in each; the tab's answer (``o``, ``O``, ``x``, ``r``, confirmed) goes over a Unix
socket in the stream's private folder to the server, which sends it to the app-server as a
dashboard in a terminal would, and replies with why it was not sent, or nothing. The
answer then comes back to every tab through the stream (``request_answered``, then
``request_resolved``), so a second tab sees it answered. One line each way, bounded; a
server that is gone is said, never waited on for long.

A tab replays the stream a moment behind the server, so the request it showed may have
changed since (answered from another tab or the terminal, withdrawn, asked again by a
restarted app-server under the same id). The relay takes only an answer that names the
request as it was shown: its app-server connection (``generation``) and the digest of what
the tab showed (``shown``); the source then checks both against the request it holds
(:meth:`~envtui.environments.thread_requests.ThreadRequests.answer`). An answer without
them, or for a request that changed, is refused and the tab is told why.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import Callable
from pathlib import Path

from envtui.vocabulary.thread_messages import RequestAnswered

MAX_ANSWER = 1 << 20
"""Bytes of one answer's line (a question's answers are text a person typed)."""
REPLY_TIMEOUT = 5.0
"""Seconds a tab waits for the server's reply (it sends to a local app-server)."""
Answer = Callable[[RequestAnswered], "str | None"]


async def serve_answers(path: Path, answer: Answer) -> asyncio.AbstractServer:
    """Listen at ``path`` for the tabs' answers, each given to ``answer``."""

    async def one(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), REPLY_TIMEOUT)
            problem = relayed(line, answer)
            writer.write(json.dumps({"problem": problem}).encode() + b"\n")
            await writer.drain()
        except (OSError, TimeoutError, ValueError):
            pass  # the tab went away; it says so itself
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    return await asyncio.start_unix_server(one, path=str(path), limit=MAX_ANSWER)


def relayed(line: bytes, answer: Answer) -> str | None:
    """One tab's line given to ``answer``: why it was not sent, or None."""
    try:
        message = RequestAnswered.model_validate_json(line)
    except ValueError:
        return "the answer could not be read"
    unnamed = [name for name in ("generation", "shown") if getattr(message, name) is None]
    if unnamed:
        return (
            f"request #{message.request_id}: the answer does not say which request was shown "
            f"(no {' and no '.join(unnamed)}); nothing sent"
        )
    return answer(message)


class AnswerRelay:
    """A tab's way to answer: the answer to the server at ``path``, its reply returned."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self, message: RequestAnswered) -> str | None:
        """Why the answer was not sent, or None (the server sent it to Codex)."""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
                connection.settimeout(REPLY_TIMEOUT)
                connection.connect(str(self.path))
                connection.sendall(message.model_dump_json().encode() + b"\n")
                reply = connection.makefile("rb").readline(MAX_ANSWER)
        except OSError as exc:
            return f"the server did not take the answer ({exc.strerror or exc})"
        try:
            problem = json.loads(reply)["problem"]
        except (ValueError, KeyError, TypeError):
            return "the server's reply could not be read"
        return None if problem is None else str(problem)
