"""A ``codex app-server`` that misbehaves on purpose: JSON-RPC over stdio, fault injection.

Usage: ``python fake_app_server.py MODE app-server [...]``. The thread has two
environments in selection order, ``local`` then ``remote``. Modes:

- ``normal``: answers everything; ``remote`` connects at once.
- ``early-connected``: ``remote``'s connected notification comes before ``local``'s first
  status answer, which is held back for a while (Codex's own order after a fast connect).
- ``bad-time``: the connected notification has ``emittedAtMs: 1e300``.
- ``bad-status``: ``environment/status`` answers a list; ``environment/info`` a string.
- ``status-error-object``: ``remote`` is unavailable with an ``error`` that is an object.
- ``thread-string``: ``thread/start`` answers ``{"thread": "not-an-object"}``.
- ``thread-environments-bad``: the thread's environments are ``[1, "x", {"environmentId": 5}]``
  besides ``local``.
- ``bad-notifications``: notifications with the wrong shape, a line that is not JSON, and one
  nested thousands deep, between good ones.
- ``die-with-escapes``: after the handshake, writes terminal escapes to stderr and exits 1.
- ``flood``: after the handshake, notifications without end, never reading stdin again.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

MODE = sys.argv[1]
ESCAPES = "\x1b]2;APPSRV-TITLE\x07\x1b]52;c;QVBQU1JWLUNMSVA=\x07\x9b31m\u202e"
LOCK = threading.Lock()
local_answered = threading.Event()


def send(message: object) -> None:
    with LOCK:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def raw(line: str) -> None:
    with LOCK:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def connected(**extra: object) -> dict[str, object]:
    params = {"threadId": "t1", "environmentId": "remote"}
    return {"method": "thread/environment/connected", "params": params, **extra}


def after_the_thread_started() -> None:
    if MODE in ("normal", "early-connected"):
        send(connected(emittedAtMs=int(time.time() * 1000)))
    elif MODE == "bad-time":
        send(connected(emittedAtMs=1e300))
    elif MODE == "bad-notifications":
        send({"method": "thread/environment/connected", "params": [1, 2]})
        send({"method": 5, "params": {"environmentId": "remote"}})
        send({"method": "thread/environment/connected", "params": {"environmentId": 7}})
        raw("{this is not json")
        raw('{"method": "x", "params": ' + "[" * 5000 + "]" * 5000 + "}")
        send({"method": "thread/environment/connected", "params": {"environmentId": "remote"}})
    elif MODE == "die-with-escapes":
        time.sleep(1)
        sys.stderr.write("fatal: " + ESCAPES + "\n")
        sys.stderr.flush()
        os._exit(1)
    elif MODE == "flood":
        for n in range(10**9):
            send({"method": "noise/event", "params": {"n": n, "pad": "x" * 200}})


def thread_result() -> object:
    environments: list[object] = [
        {"environmentId": "local", "cwd": "/tmp"},
        {"environmentId": "remote", "cwd": "/tmp"},
    ]
    if MODE == "thread-string":
        return {"thread": "not-an-object"}
    if MODE == "thread-environments-bad":
        environments = [1, "x", {"environmentId": 5}, environments[0]]
    return {"thread": {"id": "t1", "environments": environments}}


def status(params: dict[str, object]) -> object:
    env_id = params.get("environmentId")
    if MODE == "bad-status":
        return [1, 2]
    if MODE == "status-error-object" and env_id == "remote":
        return {"status": "unknown", "error": {"x": 1}}
    if MODE == "early-connected" and env_id == "local" and not local_answered.is_set():
        time.sleep(1.5)  # remote is connected (and ready) before local has any status
        local_answered.set()
    return {"status": "ready"}


def answer(method: object, params: dict[str, object]) -> object:
    if method == "initialize":
        return {"userAgent": "fake"}
    if method in ("thread/start", "thread/resume"):
        threading.Thread(target=after_the_thread_started, daemon=True).start()
        return thread_result()
    if method == "environment/status":
        return status(params)
    if method == "environment/info":
        return (
            "a string" if MODE == "bad-status" else {"shell": {"name": "bash", "path": "/bin/bash"}}
        )
    return {}


for line in sys.stdin:
    message = json.loads(line)
    method, request_id = message.get("method"), message.get("id")
    if request_id is None:
        continue
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    result = answer(method, params)
    send({"id": request_id, "result": result})
