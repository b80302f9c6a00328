"""A few lines of Python that speak the exec-server handshake, and ways for it to misbehave.

Usage: ``python fake_exec_server.py MODE``; MODE is one of normal, slow-initialize,
never-initialize, malformed, error, no-info, exit-after-ready, spawn-child, and the hostile
ones: requests (asks without end and never reads again), notifications (floods them),
escape-child (starts a child in a session of its own that ignores SIGTERM; its pid goes to
``FAKE_PID_FILE``), surrogates (an ``environment/info`` with lone surrogates).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "normal"
INFO = {
    "shell": {
        "name": os.environ.get("FAKE_SHELL_NAME", "fish"),
        "path": os.environ.get("FAKE_SHELL_PATH", "/usr/bin/fish"),
    },
    "executorVersion": "0.0.0-fake",
    "cwd": os.environ.get("FAKE_CWD", "file:///srv/work"),
    "platformOs": "linux",
}


def reply(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


if MODE == "spawn-child":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(os.environ["FAKE_PID_FILE"], "w") as handle:
        handle.write(f"{os.getpid()} {child.pid}\n")

for line in sys.stdin:
    request = json.loads(line)
    method, request_id = request.get("method"), request.get("id")
    if method == "initialize":
        if MODE == "never-initialize":
            continue
        if MODE == "malformed":
            sys.stdout.write("{this is not json\n")
            sys.stdout.flush()
            continue
        if MODE == "error" or "clientName" not in request.get("params", {}):
            reply(
                {
                    "id": request_id,
                    "error": {"code": -32602, "message": "missing field `clientName`"},
                }
            )
            continue
        if MODE == "slow-initialize":
            time.sleep(float(os.environ.get("FAKE_DELAY", "1")))
        reply({"id": request_id, "result": {"sessionId": "fake", "environmentInfo": INFO}})
    elif method == "environment/info":
        if MODE == "no-info":
            continue
        if MODE == "surrogates":  # JSON escapes that decode to lone surrogates
            result = '{"shell": {"name": "sh\\ud800", "path": "/bin/sh\\udfff"}}'
            sys.stdout.write(f'{{"id": {request_id}, "result": {result}}}\n')
            sys.stdout.flush()
            continue
        reply({"id": request_id, "result": INFO})
        if MODE == "requests":
            for n in range(10**9):  # never reads stdin again: envtui's answers pile up
                reply({"id": 10_000 + n, "method": "server/ask", "params": {"pad": "x" * 100}})
        if MODE == "notifications":
            for n in range(10**9):
                reply({"method": "noise", "params": {"n": n, "pad": "x" * 100}})
        if MODE == "escape-child":
            escaped = subprocess.Popen(
                [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"],
                start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            with open(os.environ["FAKE_PID_FILE"], "w") as handle:
                handle.write(f"{escaped.pid}\n")
        if MODE == "exit-after-ready":
            time.sleep(0.3)
            sys.stderr.write("fatal: the fake exec-server gave up\n")
            sys.exit(3)
