"""stale-available on a real 0.171 thread whose websocket exec-server is killed and started
again in a loop, checked offline with ``envtui check --events`` (the stream ``envtui events
--codex`` wrote): each step is judged by the connection state when its request was sent.

The ground truth is Codex's own request timing: the model stand-in writes down when each
request arrived. A step is stale exactly when, at that moment, the latest connection
notification for the remote said ``disconnected``; envtui must name those steps, no step
earlier and none later. A request within ``UNCLEAR`` of a change may go either way: which
side of it Codex built the request on is not known to the millisecond.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.support.connection_fold import connection_states
from tests.support.fakes.model_stub import REQUESTS
from tests.support.real.codex_approvals import approval_codex
from tests.support.real.codex_tools import CODEX, needs_codex
from tests.support.waiting import poll_until

from envtui.vocabulary.events import decode_event

pytestmark = needs_codex

PORT = 9877
UNCLEAR = timedelta(milliseconds=250)


def _call(number: int) -> dict[str, object]:
    arguments = {"cmd": f"sleep 1; echo step {number}", "environment_id": "wsbox"}
    return {"function_call": {"name": "exec_command", "arguments": json.dumps(arguments)}}


def _loop() -> str:
    """The exec-server up for 5 s, down for 3 s, for as long as the app-server runs."""
    return (
        f'while kill -0 "$PPID" 2>/dev/null; do {CODEX} exec-server --listen '
        f"ws://127.0.0.1:{PORT} >/dev/null 2>&1 & pid=$!; sleep 5; kill -9 $pid; sleep 3; done"
    )


def _request_times(stub: Path) -> list[datetime]:
    """When each sampling request reached the model stand-in (Codex's request timing)."""
    records = [json.loads(line) for line in (stub / REQUESTS).read_text().splitlines()]
    return [
        datetime.fromtimestamp(r["at"], UTC)
        for r in records
        if r["path"] == "/v1/responses" and isinstance(r["body"], dict)
    ]


def test_a_killed_and_restarted_websocket_remote_is_stale_exactly_at_the_requests_that_saw_it_lost(
    tmp_path: Path,
) -> None:
    codex = approval_codex(
        tmp_path,
        [*(_call(n) for n in range(12)), {"message": "done"}],
        environments=f'[[environments]]\nid = "wsbox"\nurl = "ws://127.0.0.1:{PORT}"\n',
        config='approval_policy = "never"\n',
        alongside=_loop(),
        listening=PORT,
    )
    out = tmp_path / "events.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "envtui", "events", "--codex", str(codex.program),
         "--codex-home", str(codex.home), "--cwd", str(codex.work), "--prompt", "go",
         "--poll-interval", "0.5", "--out", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        poll_until(lambda: _turn_ended(out), timeout=240, what="the turn's end")
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    events = [decode_event(line) for line in out.read_text().splitlines()]
    lost = [e for e in events if e.msg.type == "environment_disconnected"]
    assert lost, "the loop never cost the thread its remote: nothing to check"
    requests = _request_times(codex.stub)

    def state(at: datetime) -> str | None:
        return connection_states(events, at).get("wsbox")

    # A request that reached the stand-in within UNCLEAR of a connection change may have been
    # built on either side of it (Codex writes the rollout, sends, and envtui hears of the
    # change, each some milliseconds apart): such a step may go either way; every other
    # step must be judged exactly. (0.171 holds its requests while the remote is down and
    # reconnects within about 50 ms of the server's return, so most lost windows are short.)
    clear = {
        number
        for number, sent in enumerate(requests, start=1)
        if state(sent - UNCLEAR) == state(sent) == state(sent + UNCLEAR)
    }
    expected = {n for n in clear if state(requests[n - 1]) == "disconnected"}
    rollout = next(codex.home.glob("sessions/*/*/*/rollout-*.jsonl"))
    result = subprocess.run(
        [sys.executable, "-m", "envtui", "check", str(rollout), "--events", str(out), "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    report = json.loads(result.stdout)
    assert len(report["steps"]) == len(requests)
    stale = {f["step"] for f in report["findings"] if f["code"] == "stale-available"}
    assert stale & clear == expected, (stale, expected, clear)
    unclear = sorted(set(range(1, len(requests) + 1)) - clear)
    print(f"\nstale at steps {sorted(stale)} of {len(requests)}; at a change: {unclear}")


def _turn_ended(out: Path) -> bool:
    """The thread went active, then idle again: the turn is over."""
    text = out.read_text() if out.exists() else ""
    _, active, after = text.partition('"status":"active"')
    return bool(active) and '"status":"idle"' in after
