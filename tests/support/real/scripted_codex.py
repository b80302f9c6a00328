"""A real ``codex app-server`` that completes turns offline, against the model stand-in.

:class:`ScriptedCodex` makes a ``CODEX_HOME`` whose ``config.toml`` points the model
endpoint at the loopback stand-in (:mod:`tests.support.fakes.model_stub`), starts the stand-in
and the app-server in one empty network namespace (and, when asked, a private mount
namespace whose ``/etc`` is a copy the test can change the timezone of), and drives threads
through JSON-RPC: turns that finish, compaction, forks. What Codex sent to the model is in
:meth:`requests`; the notifications it sent, as envtui events, in :meth:`events`.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.fakes.model_stub import is_compaction, recorded_requests, write_script
from tests.support.files import MODEL_STUB
from tests.support.real.codex_app_server import AppServer
from tests.support.real.codex_tools import NSENTER, UNSHARE

from envtui.environments.app_server import emitted_at
from envtui.vocabulary.events import (
    EnvironmentConnected,
    EnvironmentDisconnected,
    Event,
    thread_event,
)

MODEL_PORT = 8642
ZONEINFO = Path("/usr/share/zoneinfo")


def message(text: str) -> dict[str, Any]:
    return {"message": text}


def exec_command(cmd: str) -> dict[str, Any]:
    """A flat ``exec_command`` call (Codex runs it in the primary environment)."""
    return {"function_call": {"name": "exec_command", "arguments": json.dumps({"cmd": cmd})}}


class ScriptedCodex(AppServer):
    """``codex app-server`` with the model stand-in; ``answers`` are its scripted replies."""

    def __init__(
        self,
        root: Path,
        codex: Path,
        answers: list[dict[str, Any]],
        *features: str,
        environments: str | None = None,
        own_etc: bool = False,
    ) -> None:
        self.root, self.codex = root, codex
        self.stub, self.work = root / "model", root / "work"
        home = root / "home"
        for directory in (home, self.stub, self.work):
            directory.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(f'openai_base_url = "http://127.0.0.1:{MODEL_PORT}/v1"\n')
        if environments is not None:
            (home / "environments.toml").write_text(environments)
        write_script(self.stub, answers)
        self.etc = root / "etc" if own_etc else None
        if self.etc is not None and not self.etc.exists():
            subprocess.run(["cp", "-a", "/etc", str(self.etc)], check=False)
        super().__init__(home, *features)

    def command(self, *args: str) -> list[str]:
        assert UNSHARE is not None
        namespaces = ["-n", "-m"] if self.etc is not None else ["-n"]
        etc = ["--etc", str(self.etc)] if self.etc is not None else []
        return [
            UNSHARE, *namespaces, sys.executable, str(MODEL_STUB), str(self.stub),
            str(MODEL_PORT), *etc, "--", str(self.codex), *args,
        ]  # fmt: skip

    def environment(self) -> dict[str, str]:
        return {**os.environ, "CODEX_HOME": str(self.codex_home), "OPENAI_API_KEY": "sk-offline"}

    # --- driving ---------------------------------------------------------------------------

    async def start_thread(self, **params: Any) -> str:
        result = await self.request("thread/start", {"cwd": str(self.work), **params})
        thread: str = result["thread"]["id"]
        return thread

    async def turn(self, thread: str, text: str, *, timeout: float = 120, **params: Any) -> None:
        """Start a turn and wait until it completes."""
        done = self.completed_turns()
        await self.request(
            "turn/start",
            {"threadId": thread, "input": [{"type": "text", "text": text}], **params},
        )
        await self.until(lambda: self.completed_turns() > done, timeout, f"turn {text!r}")

    async def compact(self, thread: str, *, timeout: float = 60) -> None:
        done = self.completed_turns()
        await self.request("thread/compact/start", {"threadId": thread})
        await self.until(lambda: self.completed_turns() > done, timeout, "the compaction")

    async def fork(self, thread: str, **params: Any) -> str:
        result = await self.request("thread/fork", {"threadId": thread, **params})
        fork: str = result["thread"]["id"]
        return fork

    def completed_turns(self) -> int:
        return sum(n["method"] == "turn/completed" for n in self.notifications)

    def set_timezone(self, zone: str) -> None:
        """Point this namespace's ``/etc/localtime`` at ``zone`` (``own_etc`` only)."""
        assert self.etc is not None, "ScriptedCodex(own_etc=True) to change the timezone"
        link = self.etc / "localtime"
        with contextlib.suppress(FileNotFoundError):
            link.unlink()
        link.symlink_to(ZONEINFO / zone)

    def in_namespace(self, *command: str) -> subprocess.Popen[bytes]:
        """Run ``command`` in the app-server's network namespace (it can reach the stand-in)."""
        assert NSENTER is not None
        assert self.pid is not None
        return subprocess.Popen(
            [NSENTER, f"--net=/proc/{self.pid}/ns/net", *command],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    # --- what happened ---------------------------------------------------------------------

    def requests(self) -> list[dict[str, Any]]:
        """Every sampling request Codex sent to the model (compaction requests left out)."""
        return [body for body in recorded_requests(self.stub) if is_sampling(body)]

    def rollout(self, thread: str) -> Path:
        (path,) = self.codex_home.glob(f"sessions/*/*/*/rollout-*-{thread}.jsonl")
        return path

    def events(self) -> list[Event]:
        """The connection notifications, as the events ``envtui events --codex`` writes."""
        events = []
        for note in self.notifications:
            environment = (note.get("params") or {}).get("environmentId")
            if note["method"] == "thread/environment/connected":
                msg: Any = EnvironmentConnected(environment_id=environment)
            elif note["method"] == "thread/environment/disconnected":
                msg = EnvironmentDisconnected(environment_id=environment)
            else:
                continue
            events.append(thread_event(msg, at=emitted_at(note)))
        return events

    def save_events(self, path: Path) -> Path:
        from envtui.vocabulary.events import encode_event

        path.write_text("".join(encode_event(e) + "\n" for e in self.events()))
        return path


def listening(pid: int, port: int) -> bool:
    """Whether a socket listens on ``port`` in the network namespace of process ``pid``."""
    try:
        table = Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return False
    wanted = f":{port:04X}"
    return any(
        fields[1].endswith(wanted) and fields[3] == "0A"  # 0A: LISTEN
        for fields in (row.split() for row in table)
    )


def is_sampling(body: Any) -> bool:
    """A sampling request: a request body that is not a compaction."""
    return isinstance(body, dict) and not is_compaction(body)


def sent_blocks(body: dict[str, Any]) -> list[str]:
    """Every ``<environment_context>`` block in one request's input, oldest first."""
    blocks = []
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "message":
            for part in item.get("content") or []:
                text = part.get("text") if isinstance(part, dict) else None
                if isinstance(text, str) and text.startswith("<environment_context>"):
                    blocks.append(text)
    return blocks
