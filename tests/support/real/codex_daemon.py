"""The real Codex 0.171 app-server serving its daemon socket, for envtui to attach to.

``codex app-server --listen unix://`` is the server the daemon runs (``codex app-server
daemon start`` runs the same command, in the background, from a 424 MB copy of the
binaries in ``CODEX_HOME/packages``): it listens on
``CODEX_HOME/app-server-control/app-server-control.sock`` with the same protocol. Run in
the foreground, in the empty network namespace of the loopback model stand-in
(:func:`~tests.support.real.codex_approvals.approval_codex`), it is ended by its process
group: no pid-update loop is left, and nothing is copied.

:class:`Owner` is the thread's owner, as the Codex TUI is: another client of the socket
that starts the thread and the turn, and may answer what the thread asks.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.real.codex_approvals import ApprovalCodex, approval_codex
from tests.support.waiting import poll_until

from envtui.environments.daemon_socket import DaemonSocketChannel, daemon_socket
from envtui.environments.jsonrpc import JsonRpcClient


@dataclass
class ServedDaemon:
    codex: ApprovalCodex
    process: subprocess.Popen[bytes]

    @property
    def socket(self) -> Path:
        return daemon_socket(self.codex.home)

    def stop(self) -> None:
        """End the server and the stand-in (their process group), SIGKILL after a short wait:
        with a turn waiting on an approval SIGTERM may not end it."""
        with _quiet():
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with _quiet():
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


@contextmanager
def _quiet() -> Iterator[None]:
    with suppress(ProcessLookupError):
        yield


def short_root() -> Path:
    """A folder with a short path: a Unix socket's path is limited to about 100 bytes."""
    return Path(tempfile.mkdtemp(prefix="cxd"))


def serve_daemon(codex: ApprovalCodex) -> ServedDaemon:
    """Start the server on ``codex``'s home and wait until its socket is there."""
    process = subprocess.Popen(
        [str(codex.program), "app-server", "--listen", "unix://"],
        env={**os.environ, "CODEX_HOME": str(codex.home)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    served = ServedDaemon(codex, process)
    try:
        poll_until(lambda: served.socket.exists(), timeout=60, what="the daemon's socket")
    except BaseException:
        served.stop()
        raise
    return served


@contextmanager
def daemon_home(answers: list[dict[str, Any]]) -> Iterator[ServedDaemon]:
    """A fresh home whose model answers ``answers``, served; ended on the way out."""
    import shutil

    root = short_root()
    codex = approval_codex(root, answers)
    signed_in = {"auth_mode": "apikey", "OPENAI_API_KEY": "sk-offline"}  # the TUI asks otherwise
    (codex.home / "auth.json").write_text(json.dumps(signed_in))
    served = serve_daemon(codex)
    try:
        yield served
    finally:
        served.stop()
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class Owner:
    """The thread's owner: a client that starts a thread and a turn, and hears its requests."""

    rpc: JsonRpcClient
    requests: list[dict[str, Any]] = field(default_factory=list)
    resolved: list[dict[str, Any]] = field(default_factory=list)
    thread: str = ""

    @classmethod
    async def connect(cls, socket: Path, name: str = "codex-tui") -> Owner:
        owner: Owner | None = None

        def heard(message: dict[str, Any]) -> None:
            if owner is not None and message.get("method") == "serverRequest/resolved":
                owner.resolved.append(message["params"])

        def asked(message: dict[str, Any]) -> bool:
            assert owner is not None
            owner.requests.append(message)
            return True

        rpc = JsonRpcClient(
            await DaemonSocketChannel.connect(socket), heard, peer="daemon", on_request=asked
        )
        owner = cls(rpc)
        rpc.start()
        client = {"name": name, "title": None, "version": "0"}
        await rpc.request(
            "initialize",
            {"clientInfo": client, "capabilities": {"experimentalApi": True}},
            timeout=60,
        )
        await rpc.notify("initialized")
        return owner

    async def start_turn(self, cwd: Path, text: str = "go") -> str:
        started = await self.rpc.request("thread/start", {"cwd": str(cwd)}, timeout=60)
        self.thread = started["thread"]["id"]
        await self.rpc.request(
            "turn/start",
            {"threadId": self.thread, "input": [{"type": "text", "text": text}]},
            timeout=60,
        )
        return self.thread

    def answer(self, request_id: object, decision: str) -> None:
        self.rpc.respond(request_id, {"decision": decision})

    async def aclose(self) -> None:
        await self.rpc.aclose()
