"""``envtui rollout FILE --follow`` on a large rollout: idle CPU, and how soon a new step shows.

Two rollouts are written, about 40 MB and about 40 KB, with the same steps (each carrying
a tool output of a few KB, as real ones do). For each, ``envtui rollout FILE --follow`` runs
in a pseudo-terminal of 120x40; once the last step is on screen its CPU share is read over
``--seconds`` with nothing appended, and then a step is appended a few times and the time
until the dashboard writes that step's number to the terminal is taken. The budget: at
most 2 % of one core idle, and a new step on screen within 1.5 s whatever the file's size.
With ``--compare DIR`` the code in DIR is measured the same way, side by side. Run:
``python benchmarks/bench_follow.py [--seconds 30]``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from terminal import PtyDashboard

SESSION = "01a22a73-bda3-7d50-96a2-a5269a5918d4"
OUTPUT = "drwxr-xr-x 2 user user 4096 Nov 30 12:00 src\n" * 80  # about 4 KB, as `ls -l` gives


def item(kind: str, payload: dict[str, object]) -> str:
    return json.dumps({"timestamp": "2026-11-30T03:16:01.000Z", "type": kind, "payload": payload})


def step_lines(number: int) -> list[str]:
    """One sampling step: the context, the world state, a call and its (large) output."""
    cwd = f"/repo/{number % 5}"
    context = (
        "<environment_context>\n  <cwd>" + cwd + "</cwd>\n  <shell>bash</shell>\n"
        "</environment_context>"
    )
    state = {"environments": {"local": {"cwd": cwd, "shell": "bash", "is_primary": True}}}
    return [
        item("response_item", {"type": "message", "role": "user",
                               "content": [{"type": "input_text", "text": context}]}),
        item("world_state", {"full": True, "state": state}),
        item("response_item", {"type": "function_call", "name": "exec_command",
                               "arguments": json.dumps({"cmd": "ls -l"}), "call_id": f"c{number}"}),
        item("response_item", {"type": "function_call_output", "call_id": f"c{number}",
                               "output": OUTPUT}),
    ]  # fmt: skip


def write_rollout(path: Path, size: int) -> int:
    """A rollout of about ``size`` bytes; the number of its last step."""
    number = 0
    with path.open("w", encoding="utf-8") as handle:
        handle.write(item("session_meta", {"id": SESSION, "cli_version": "0.171.0"}) + "\n")
        handle.write(item("event_msg", {"type": "task_started"}) + "\n")
        while handle.tell() < size:
            number += 1
            handle.write("".join(line + "\n" for line in step_lines(number)))
    return number


def shown(dashboard: PtyDashboard, number: int, timeout: float) -> float | None:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if dashboard.seen(f"step {number}"):
            return time.monotonic() - start
        time.sleep(0.01)
    return None


def measure(path: Path, last: int, seconds: float, pythonpath: str | None) -> str:
    with PtyDashboard(["rollout", str(path), "--follow"], pythonpath=pythonpath) as dashboard:
        loaded = shown(dashboard, last, timeout=300)
        if loaded is None:
            return "the last step never showed"
        time.sleep(3)
        share = dashboard.cpu_share(seconds)
        latencies = []
        for number in range(last + 1, last + 4):
            with path.open("a", encoding="utf-8") as handle:
                handle.write("".join(line + "\n" for line in step_lines(number)))
            latency = shown(dashboard, number, timeout=30)
            latencies.append(f"{latency:.2f} s" if latency is not None else "never")
            time.sleep(1)
        return (
            f"read in {loaded:5.1f} s, idle {share * 100:5.2f} % of one core, "
            f"new step on screen after {', '.join(latencies)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--megabytes", type=float, default=40.0)
    parser.add_argument("--compare", metavar="DIR", help="also measure the envtui code in DIR")
    args = parser.parse_args()
    runs = [("this checkout", None)] + ([(args.compare, args.compare)] if args.compare else [])
    with tempfile.TemporaryDirectory() as tmp:
        for label, size in (("large", int(args.megabytes * 1e6)), ("small", 40_000)):
            for name, pythonpath in runs:
                path = Path(tmp) / f"rollout-{label}.jsonl"
                last = write_rollout(path, size)
                megabytes = path.stat().st_size / 1e6
                result = measure(path, last, args.seconds, pythonpath)
                print(f"{megabytes:6.1f} MB, {last} steps, {name}: {result}", flush=True)


if __name__ == "__main__":
    main()
