"""A real ``codex app-server`` that asks for approvals, for envtui to attach to.

:func:`approval_codex` makes a ``CODEX_HOME`` whose ``config.toml`` asks before anything
leaves the sandbox (``approval_policy = "on-request"``, ``sandbox_mode = "read-only"``) and
points the model at the loopback stand-in (:mod:`tests.support.fakes.model_stub`), with a stdio
exec-server ``devbox`` whose environment says where a command ran (``ENVTUI_WHERE``, which
only that exec-server has). It returns a ``codex`` program for ``CodexOptions.codex``: a
script that starts the stand-in and the real app-server in one empty network namespace
(``unshare -n``), so envtui's own client starts, watches and ends it as it would any
app-server. The stand-in's answers are calls of ``exec_command`` with an escalation
(:func:`escalated`), Codex's way to ask for a command outside the sandbox.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.fakes.model_stub import recorded_requests, write_script
from tests.support.files import MODEL_STUB
from tests.support.real.codex_tools import CODEX, UNSHARE

MODEL_PORT = 8642

WHERE = "devbox-stdio"
"""What ``$ENVTUI_WHERE`` says on the ``devbox`` exec-server (and nowhere else)."""

ASKING_CONFIG = """approval_policy = "on-request"
sandbox_mode = "read-only"
"""


def escalated(
    cmd: str, environment: str | None = None, why: str = "needs to run outside the sandbox"
) -> dict[str, Any]:
    """The model calls ``exec_command`` asking to leave the sandbox (Codex then asks)."""
    arguments: dict[str, Any] = {
        "cmd": cmd,
        "sandbox_permissions": "require_escalated",
        "justification": why,
    }
    if environment is not None:
        arguments["environment_id"] = environment
    return {"function_call": {"name": "exec_command", "arguments": json.dumps(arguments)}}


def devbox(name: str = "devbox") -> str:
    """environments.toml: a stdio exec-server that knows where it is."""
    return (
        f'[[environments]]\nid = "{name}"\nprogram = "{CODEX}"\n'
        f'args = ["exec-server", "--listen", "stdio"]\nenv = {{ ENVTUI_WHERE = "{WHERE}" }}\n'
    )


@dataclass(frozen=True)
class ApprovalCodex:
    """Where one asking Codex keeps its things."""

    home: Path
    work: Path
    stub: Path
    program: Path
    """The ``codex`` to start: the stand-in and the app-server in an empty network."""

    def requests(self) -> list[dict[str, Any]]:
        """Every request Codex sent to the model, oldest first."""
        return recorded_requests(self.stub)

    def told(self) -> list[str]:
        """Every tool output the model was told, in the order of the requests."""
        outputs: list[str] = []
        for body in self.requests():
            for item in (body.get("input") if isinstance(body, dict) else None) or []:
                if isinstance(item, dict) and item.get("type") == "function_call_output":
                    output = item.get("output")
                    if isinstance(output, str) and output not in outputs:
                        outputs.append(output)
        return outputs

    def rollout(self) -> str:
        """The text of the thread's rollout (one thread per home); empty until Codex has
        written its first line (it creates the file lazily, so a poll may come before)."""
        paths = list(self.home.glob("sessions/*/*/*/rollout-*.jsonl"))
        assert len(paths) <= 1, paths
        return paths[0].read_text() if paths else ""


def approval_codex(
    root: Path,
    answers: list[dict[str, Any]],
    *,
    environments: str | None = None,
    config: str = ASKING_CONFIG,
    alongside: str | None = None,
    listening: int | None = None,
    codex: Path | None = None,
) -> ApprovalCodex:
    """A home, a working folder and a ``codex`` program; see the module. ``alongside`` is a
    shell command started in the same namespace just before the app-server (an exec-server
    that a test kills and starts again, say), which waits until something listens on port
    ``listening`` there (at most 10 s); the command must end when its parent does.
    ``codex`` is the app-server's binary (default: 0.171.0)."""
    binary = codex or CODEX
    assert binary is not None
    assert UNSHARE is not None
    home, work, stub = root / "home", root / "work", root / "model"
    for folder in (home, work, stub):
        folder.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'openai_base_url = "http://127.0.0.1:{MODEL_PORT}/v1"\n{config}'
    )
    (home / "environments.toml").write_text(devbox() if environments is None else environments)
    write_script(stub, answers)
    program = root / "codex-asking"
    app_server = f'{binary} "$@"'
    if alongside is not None:
        beside = root / "alongside.sh"
        beside.write_text(f"#!/bin/sh\n{alongside}\n")
        beside.chmod(0o755)
        wait = (
            f"for i in $(seq 200); do (echo > /dev/tcp/127.0.0.1/{listening}) 2>/dev/null "
            "&& break; sleep 0.05; done; "
            if listening is not None
            else ""
        )
        app_server = f'/bin/bash -c \'{beside} & {wait}exec "$0" "$@"\' {binary} "$@"'
    program.write_text(
        "#!/bin/sh\nexport OPENAI_API_KEY=sk-offline\n"
        f"exec {UNSHARE} -n {sys.executable} {MODEL_STUB} {stub} {MODEL_PORT} -- {app_server}\n"
    )
    program.chmod(0o755)
    return ApprovalCodex(home, work, stub, program)
