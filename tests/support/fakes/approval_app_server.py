"""A ``codex app-server`` that asks for approvals from a script, for the approval races.

Usage: ``python approval_app_server.py STATE_DIR app-server [...]``. Each start is the next
instance (1, 2, …: a restarted app-server, whose request ids start at 0 again, as Codex's
do). ``STATE_DIR/script.json`` holds, per instance, the steps it runs once its thread is
started or resumed:

- ``{"ask": {"id": 0, "command": "…", …}}``: a command approval (the other keys are
  ``CommandExecutionRequestApprovalParams`` fields, 0.171.0's schema);
- ``{"send": {…}}``: any message (a ``serverRequest/resolved``, say);
- ``{"wait": "NAME"}``: until ``STATE_DIR/NAME`` exists;
- ``{"exit": 1}``: the app-server dies.

Every answer the client sends is appended to ``STATE_DIR/answers.jsonl`` with the instance
that received it; ``STATE_DIR/asked-N`` is written once instance N has sent its steps.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

STATE = Path(sys.argv[1])
THREAD = "t-approvals"
LOCK = threading.Lock()


def instance_number() -> int:
    number = 1
    while True:
        try:
            (STATE / f"instance-{number}").touch(exist_ok=False)
            return number
        except FileExistsError:
            number += 1


INSTANCE = instance_number()


def send(message: object) -> None:
    with LOCK:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def ask(fields: dict[str, Any]) -> dict[str, Any]:
    request_id = fields.pop("id")
    params = {
        "threadId": THREAD,
        "turnId": f"turn-{INSTANCE}",
        "itemId": f"call-{INSTANCE}-{request_id}",
        "startedAtMs": int(time.time() * 1000),
        "environmentId": "local",
        "cwd": str(STATE),
        "availableDecisions": ["accept", "cancel"],
        **fields,
    }
    return {"id": request_id, "method": "item/commandExecution/requestApproval", "params": params}


def run_steps() -> None:
    script = json.loads((STATE / "script.json").read_text())
    steps = script[INSTANCE - 1] if len(script) >= INSTANCE else []
    for step in steps:
        if "ask" in step:
            send(ask(dict(step["ask"])))
        elif "send" in step:
            send(step["send"])
        elif "wait" in step:
            while not (STATE / step["wait"]).exists():
                time.sleep(0.05)
        elif "exit" in step:
            os._exit(step["exit"])
        if "wait" not in step:
            (STATE / f"asked-{INSTANCE}").write_text(str(steps.index(step) + 1))


def result(method: object) -> object:
    if method == "initialize":
        return {"userAgent": "approval-app-server"}
    if method in ("thread/start", "thread/resume"):
        threading.Thread(target=run_steps, daemon=True).start()
        status = {"type": "active", "activeFlags": ["waitingOnApproval"]}
        environments = [{"environmentId": "local", "cwd": str(STATE)}]
        return {"thread": {"id": THREAD, "status": status, "environments": environments}}
    if method == "environment/status":
        return {"status": "ready"}
    if method == "environment/info":
        return {"shell": {"name": "bash", "path": "/bin/bash"}}
    return {}


for line in sys.stdin:
    message = json.loads(line)
    method, request_id = message.get("method"), message.get("id")
    if method is None and request_id is not None:  # the client's answer to our request
        with LOCK, (STATE / "answers.jsonl").open("a") as answers:
            answers.write(json.dumps({"instance": INSTANCE, **message}) + "\n")
        continue
    if request_id is not None:
        send({"id": request_id, "result": result(method)})
