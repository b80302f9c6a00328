"""``envtui check`` on long rollouts: time against the floor of reading the file, and memory.

Rollouts of 1,000, 10,000 and 100,000 steps are built by repeating a real turn of the
0.171 rollout under ``tests/rollouts/`` (its first turn as written, then its user message,
tool call, tool output and answer again and again, two steps a turn); the tool-heavy ones
also carry Codex's 37 KB ``additional_tools`` item (the code-mode ``exec`` description) in
every turn. Each measurement runs in a fresh process, side by side in one run:

* **floor**: a Python loop of ``json.loads`` over the file's lines, the least any reader
  must do;
* **check**: ``envtui check FILE --json`` (the command's ``main``, output to /dev/null;
  the modules it imports are loaded before the clock starts, as ``json`` is for the floor).

It prints the best of ``--repeat`` runs of each, their ratio, and each process's peak RSS.
Then the parse time of a 1 MB code-mode ``exec`` line, hostile and benign, next to
``json.loads`` of the same line.
Run: ``python benchmarks/bench_check.py [--sizes 1000 10000 100000]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = next((ROOT / "tests" / "rollouts").glob("rollout-*-01a22cff-8327-*.jsonl"))
SIZES = (1_000, 10_000, 100_000)
TOOL_HEAVY_LIMIT = 10_000  # a tool-heavy 100,000-step file would be 2.3 GB

FLOOR = """
import json, sys, time
started = time.perf_counter()
with open(sys.argv[1], encoding="utf-8", errors="replace") as lines:
    for line in lines:
        json.loads(line)
print(time.perf_counter() - started)
"""
CHECK = """
import contextlib, os, sys, time
from envtui.cli import main
import envtui.commands.check, envtui.rollout.check  # imported before the clock, as json is
started = time.perf_counter()
with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
    code = main(["check", sys.argv[1], "--json"])
print(time.perf_counter() - started, file=sys.stderr)
"""


def build(steps: int, directory: Path, *, tool_heavy: bool) -> Path:
    """A rollout of ``steps`` steps: the real first turn, then its body repeated."""
    lines = SOURCE.read_text().splitlines()
    kinds = [(json.loads(line)["type"], json.loads(line)["payload"].get("type")) for line in lines]
    end = kinds.index(("event_msg", "task_complete"))
    first_turn = lines[: end + 1]
    body = [lines[1], *lines[9 : end + 1]]  # task_started, then turn_context … task_complete
    if tool_heavy:
        body.insert(1, lines[2])  # the additional_tools item
    path = directory / f"rollout-{steps}{'-tools' if tool_heavy else ''}.jsonl"
    with path.open("w") as out:
        out.write("\n".join(first_turn) + "\n")
        chunk = "\n".join(body) + "\n"
        for _ in range(steps // 2 - 1):
            out.write(chunk)
    return path


def measure(script: str, path: Path) -> tuple[float, float]:
    """(seconds the script reports, peak RSS in MB) of a fresh process running it."""
    process = subprocess.Popen(
        [sys.executable, "-c", script, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    _, status, usage = os.wait4(process.pid, 0)
    out, err = process.stdout.read(), process.stderr.read()  # type: ignore[union-attr]
    if os.waitstatus_to_exitcode(status) not in (0,):
        raise SystemExit(f"measurement failed: {err[-2000:]}")
    seconds = float((out or err).strip().splitlines()[-1])
    return seconds, usage.ru_maxrss / 1024


def code_mode_line() -> None:
    from envtui.rollout.items import calls_from

    cells = {
        "hostile 'a({'": "a({" * 350_000,
        "hostile 'f({environment_id: ...'": "f({environment_id: 'x' " * 45_000,
        "benign calls": 'await tools.exec_command({ cmd: "ls", environment_id: "g" });\n' * 15_000,
    }
    print(f"\n{'1 MB code-mode exec line':<34} {'parse':>9} {'json.loads':>11} {'ratio':>6}")
    for name, cell in cells.items():
        payload = {"type": "custom_tool_call", "name": "exec", "call_id": "c", "input": cell}
        line = json.dumps({"type": "response_item", "payload": payload})
        parse = min(timeit.repeat(lambda p=payload: calls_from(p), number=1, repeat=3))  # type: ignore[misc]
        load = min(timeit.repeat(lambda s=line: json.loads(s), number=1, repeat=3))  # type: ignore[misc]
        print(f"{name:<34} {parse * 1e3:>7.1f}ms {load * 1e3:>9.1f}ms {parse / load:>5.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (best time kept)")
    args = parser.parse_args()
    print(
        f"{'steps':>7} {'kind':<6} {'file':>8} {'floor':>8} {'check':>8} {'ratio':>6}"
        f" {'floor RSS':>10} {'check RSS':>10}"
    )
    with tempfile.TemporaryDirectory() as scratch:
        for steps in args.sizes:
            for tool_heavy in (False, True):
                if tool_heavy and steps > TOOL_HEAVY_LIMIT:
                    continue
                path = build(steps, Path(scratch), tool_heavy=tool_heavy)
                floors = [measure(FLOOR, path) for _ in range(args.repeat)]
                checks = [measure(CHECK, path) for _ in range(args.repeat)]
                floor, floor_rss = min(t for t, _ in floors), max(m for _, m in floors)
                check, check_rss = min(t for t, _ in checks), max(m for _, m in checks)
                size = path.stat().st_size / 1e6
                path.unlink()
                print(
                    f"{steps:>7} {'tools' if tool_heavy else 'plain':<6} {size:>6.0f}MB"
                    f" {floor:>7.2f}s {check:>7.2f}s {check / floor:>5.2f}x"
                    f" {floor_rss:>8.0f}MB {check_rss:>8.0f}MB"
                )
    code_mode_line()


if __name__ == "__main__":
    main()
