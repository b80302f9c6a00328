"""A loopback stand-in for the model endpoint, so a real Codex completes turns offline.

Codex talks to ``openai_base_url`` (set in ``CODEX_HOME/config.toml``): ``POST
/v1/responses`` wants a Responses-API server-sent-event stream, ``POST
/v1/responses/compact`` a JSON body with the compacted history. This server answers both
from a script and writes down every request body: what Codex sent is the ground truth of
what the model saw.

It must run in the same empty network namespace as the app-server, so it is started by
running this file as a program under ``unshare -n``::

    unshare -n python model_stub.py DIR PORT -- codex app-server ...

which brings the loopback up, serves in a child process (ended with the app-server,
through the parent-death signal and the process group), waits until it listens, and then
becomes the app-server itself (``exec``), so the caller's pipes are the app-server's.

``DIR/script.json`` is read at every request, so a test can add answers while Codex runs:
``{"responses": [ANSWER, ...], "compact": [ITEM, ...]}``. The n-th ``/v1/responses``
request gets the n-th answer (past the end: a plain message). An ANSWER is
``{"message": TEXT}``, ``{"function_call": {"name", "arguments"}}`` (arguments a JSON
text) or ``{"custom_tool_call": {"name", "input"}}``; ``"delay"`` (seconds) holds the
answer back, ``"hold": PATH`` until that file exists. Each request is appended to
``DIR/requests.jsonl`` as ``{"path", "at", "body"}`` the moment it arrives.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SCRIPT = "script.json"
REQUESTS = "requests.jsonl"
DEFAULT_ANSWER: dict[str, Any] = {"message": "done"}
STARTUP_SECONDS = 10.0


def write_script(directory: Path, responses: list[dict[str, Any]], **extra: Any) -> None:
    """Write the stand-in's script (atomically: the server may be reading it)."""
    directory.mkdir(parents=True, exist_ok=True)
    scratch = directory / (SCRIPT + ".tmp")
    scratch.write_text(json.dumps({"responses": responses, **extra}))
    scratch.replace(directory / SCRIPT)


def recorded_requests(directory: Path, path: str = "/v1/responses") -> list[dict[str, Any]]:
    """The bodies Codex sent to ``path``, oldest first."""
    file = directory / REQUESTS
    if not file.exists():
        return []
    records = [json.loads(line) for line in file.read_text().splitlines() if line.strip()]
    return [record["body"] for record in records if record["path"] == path]


def _script(directory: Path) -> dict[str, Any]:
    try:
        data = json.loads((directory / SCRIPT).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _event(kind: str, **fields: Any) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n".encode()


def is_compaction(body: Any) -> bool:
    """A compaction request (0.171): its input ends with a ``compaction_trigger`` item."""
    items = body.get("input") if isinstance(body, dict) else None
    if not isinstance(items, list) or not items:
        return False
    last = items[-1]
    return isinstance(last, dict) and last.get("type") == "compaction_trigger"


CALLS = {"function_call": ("fc", "arguments", "{}"), "custom_tool_call": ("ctc", "input", "")}
"""The scripted calls: each one's item id prefix, and its argument field and default."""


def _output_item(answer: dict[str, Any], number: int) -> dict[str, Any]:
    if isinstance(answer.get("item"), dict):
        return dict(answer["item"])
    for kind, (prefix, field, default) in CALLS.items():
        if kind in answer:
            call = answer[kind]
            return {
                "type": kind,
                "id": f"{prefix}_{number}",
                "call_id": f"call_{number}",
                "name": call["name"],
                field: call.get(field, default),
            }
    return {
        "type": "message",
        "role": "assistant",
        "id": f"msg_{number}",
        "content": [{"type": "output_text", "text": answer.get("message", "done")}],
    }


def sse_body(answer: dict[str, Any], number: int) -> bytes:
    """One scripted answer as a Responses-API stream: the item, then ``response.completed``."""
    response_id = f"resp_{number}"
    usage = {
        "input_tokens": 10,
        "input_tokens_details": None,
        "output_tokens": 5,
        "output_tokens_details": None,
        "total_tokens": 15,
    }
    item = _output_item(answer, number)
    return b"".join(
        (
            _event("response.created", response={"id": response_id}),
            _event("response.output_item.done", item=item),
            _event("response.completed", response={"id": response_id, "usage": usage}),
        )
    )


class ModelStub:
    """The HTTP server: one request per connection is all Codex needs (it may keep alive)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.responses = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while await self._one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        head = await reader.readuntil(b"\r\n\r\n")
        request_line, *header_lines = head.decode("latin-1").split("\r\n")
        method, path, _ = request_line.split(" ", 2)
        headers = {
            k.strip().lower(): v.strip()
            for k, _, v in (line.partition(":") for line in header_lines if line)
        }
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("content-encoding") == "zstd":
            return self._reply(writer, 415, b"{}", "application/json")
        parsed: Any = json.loads(body) if body else None
        path = path.split("?", 1)[0]
        with (self.directory / REQUESTS).open("a") as out:
            out.write(json.dumps({"path": path, "at": time.time(), "body": parsed}) + "\n")
        if method == "GET":  # a websocket upgrade: not offered, Codex falls back to HTTP
            return self._reply(writer, 426, b'{"error":"no websocket"}', "application/json")
        if method == "POST" and path == "/v1/responses" and is_compaction(parsed):
            item = _script(self.directory).get("compaction") or _compaction_item()
            return self._reply(writer, 200, sse_body({"item": item}, 0), "text/event-stream")
        if method == "POST" and path == "/v1/responses":
            answer = self._next_answer()
            await self._hold(answer)
            return self._reply(writer, 200, sse_body(answer, self.responses), "text/event-stream")
        if method == "POST" and path == "/v1/responses/compact":
            items = _script(self.directory).get("compact") or [_summary_message()]
            return self._reply(
                writer, 200, json.dumps({"output": items}).encode(), "application/json"
            )
        return self._reply(writer, 404, b'{"error":"not here"}', "application/json")

    def _next_answer(self) -> dict[str, Any]:
        answers = _script(self.directory).get("responses") or []
        self.responses += 1
        index = self.responses - 1
        answer = answers[index] if index < len(answers) else DEFAULT_ANSWER
        return answer if isinstance(answer, dict) else DEFAULT_ANSWER

    async def _hold(self, answer: dict[str, Any]) -> None:
        if isinstance(answer.get("delay"), int | float):
            await asyncio.sleep(answer["delay"])
        hold = answer.get("hold")
        if isinstance(hold, str):
            deadline = time.monotonic() + 120
            while not Path(hold).exists() and time.monotonic() < deadline:
                await asyncio.sleep(0.05)  # bounded (the deadline): the test releases it

    @staticmethod
    def _reply(writer: asyncio.StreamWriter, status: int, body: bytes, kind: str) -> bool:
        head = (
            f"HTTP/1.1 {status} X\r\ncontent-type: {kind}\r\ncontent-length: {len(body)}\r\n"
            "connection: keep-alive\r\n\r\n"
        )
        writer.write(head.encode() + body)
        return True


def _compaction_item() -> dict[str, Any]:
    """What a compaction request answers in 0.171: one opaque ``compaction`` item."""
    return {"type": "compaction", "id": "cmp_1", "encrypted_content": "c3VtbWFyeQ=="}


def _summary_message() -> dict[str, Any]:
    """What ``/v1/responses/compact`` answers (0.150): the history replaced by a summary."""
    return {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "summary of the conversation so far"}],
    }


async def serve(directory: Path, port: int) -> None:
    stub = ModelStub(directory)
    server = await asyncio.start_server(stub.handle, "127.0.0.1", port)
    async with server:
        await server.serve_forever()


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when its parent (the app-server, after exec) ends."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _wait_listening(port: int) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)  # bounded (the deadline): the child binds within milliseconds
    raise SystemExit("model stand-in did not start")


def main(argv: list[str]) -> None:
    directory, port, *rest = argv
    etc = None
    if rest[:1] == ["--etc"]:
        etc, rest = rest[1], rest[2:]
    separator, *command = rest
    assert separator == "--", "usage: model_stub.py DIR PORT [--etc DIR] -- COMMAND..."
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    if etc is not None:  # a private mount namespace: the test may change this /etc's localtime
        subprocess.run(["mount", "--bind", etc, "/etc"], check=True)
    parent = os.getpid()
    child = os.fork()
    if child == 0:
        _die_with_parent()
        if os.getppid() != parent:
            os._exit(0)
        asyncio.run(serve(Path(directory), int(port)))
        os._exit(0)
    _wait_listening(int(port))
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
