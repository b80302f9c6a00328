"""``envtui check`` on long rollouts: time against the floor of reading the file, and memory.

Rollouts of 1,000, 10,000 and 100,000 steps are built from the real 0.171 rollout under
``tests/rollouts/``, in four kinds:

* **plain**: its first turn as written, then its user message, tool call, tool output and
  answer again and again (two steps a turn);
* **tools**: the same with Codex's 37 KB ``additional_tools`` item (the code-mode ``exec``
  description) in every turn;
* **changing**: the real rollout as written, then its last turn (one step) again and
  again with its timezone moved to the other zone each time, in the world state and in
  the context message Codex sent: every step's context is rendered and differs from the
  one before, and every step checks clean;
* **moving**: the first turn with two environments, ``local`` and ``build``, and a
  ``world_state`` patch before every request that moves the primary to the other one, so
  every step's context is rendered anew and differs from the step before (the recorded
  turn was Codex's with one environment, so each step also has two findings).

Each measurement runs in a fresh process, in rounds (the order rotated round by round):

* **floor**: a Python loop of ``json.loads`` over the file's lines, the least any reader
  must do;
* **check**: ``envtui check FILE --json`` (the command's ``main``, output to /dev/null;
  the modules it imports are loaded before the clock starts, as ``json`` is for the floor);
* **jq**: ``jq -c . FILE`` to /dev/null, a reader people know (skipped, with a line saying
  so, where jq is not installed).

Printed per file: the median [min-max] of each, the ratios check / floor and check / jq
taken round by round, and each process's peak RSS. ``--code DIR`` measures the check of
another checkout too, in the same rounds. Then the parse time of a 1 MB code-mode ``exec``
line, hostile and benign, next to ``json.loads`` of the same line.
Run: ``python benchmarks/bench_check.py [--sizes 1000 10000 100000] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path
from typing import Any

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
import envtui.commands.check_output, envtui.rollout.fork_parent, envtui.rollout.checked
import envtui.sources.sessions.sessions_index  # and every other module the check loads
started = time.perf_counter()
with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
    code = main(["check", sys.argv[1], "--json"])
print(time.perf_counter() - started, file=sys.stderr)
"""


KINDS = ("plain", "tools", "changing", "moving")
ENVIRONMENTS = {
    "local": {"cwd": "/home/me/work", "status": "available", "shell": "bash"},
    "build": {"cwd": "/srv/build", "status": "available", "shell": "zsh"},
}


def primary_patch(line: str, primary: str) -> str:
    """A ``world_state`` patch line, dated as ``line``, that makes ``primary`` primary."""
    item = json.loads(line)
    moved = {env: {"is_primary": env == primary} for env in ENVIRONMENTS}
    state = {"environments": {"environments": moved}}
    patch = {"timestamp": item["timestamp"], "type": "world_state"}
    return json.dumps({**patch, "payload": {"full": False, "state": state}})


def two_environments(line: str) -> str:
    """The first turn's full ``world_state`` with ``local`` (primary) and ``build``."""
    item = json.loads(line)
    environments: dict[str, dict[str, Any]] = {e: dict(v) for e, v in ENVIRONMENTS.items()}
    environments["local"]["is_primary"] = True
    item["payload"]["state"]["environments"]["environments"] = environments
    return json.dumps(item)


def build(steps: int, directory: Path, kind: str) -> Path:
    """A rollout of ``steps`` steps: the real first turn, then its body repeated."""
    lines = SOURCE.read_text().splitlines()
    kinds = [(json.loads(line)["type"], json.loads(line)["payload"].get("type")) for line in lines]
    end = kinds.index(("event_msg", "task_complete"))
    first_turn = lines[: end + 1]
    body = [lines[1], *lines[9 : end + 1]]  # task_started, then turn_context … task_complete
    if kind == "tools":
        body.insert(1, lines[2])  # the additional_tools item
    path = directory / f"rollout-{steps}-{kind}.jsonl"
    if kind == "changing":
        return changing(steps, lines, path)
    with path.open("w") as out:
        if kind != "moving":
            out.write("\n".join(first_turn) + "\n")
            chunk = "\n".join(body) + "\n"
            for _ in range(steps // 2 - 1):
                out.write(chunk)
            return path
        first_turn[8] = two_environments(first_turn[8])
        output = next(i for i, k in enumerate(kinds) if k[1] == "function_call_output")
        # the second request of a turn goes out after the tool's output: the primary
        # moves there, and again before the next turn's first request
        second = [*first_turn[: output + 1], primary_patch(lines[output], "build")]
        out.write("\n".join(second + first_turn[output + 1 :]) + "\n")
        at = body.index(lines[output]) + 1
        for _ in range(steps // 2 - 1):
            moved = [body[0], primary_patch(body[1], "local"), *body[1:at]]
            moved += [primary_patch(lines[output], "build"), *body[at:]]
            out.write("\n".join(moved) + "\n")
    return path


def changing(steps: int, lines: list[str], path: Path) -> Path:
    """The real rollout as written, then its last turn again and again, its timezone moved
    to the other zone each time in the world state and in the context message Codex sent:
    one step a turn, and every step's context differs from the one before."""
    start = max(i for i, line in enumerate(lines) if '"task_started"' in line)
    turn = lines[start:]
    zones = ("Europe/Berlin", "Etc/UTC")
    with path.open("w") as out:
        out.write("\n".join(lines) + "\n")
        for number in range(steps - 3):  # the file has three steps
            moved = "\n".join(turn).replace(zones[0], zones[1]) if number % 2 == 0 else None
            out.write((moved or "\n".join(turn)) + "\n")
    return path


def measure(command: list[str], path: Path, code: Path = ROOT) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of a fresh process: the seconds a Python script reports
    (its imports before the clock), or the whole run of ``jq``."""
    jq = command[0] == "jq"
    started = time.perf_counter()
    process = subprocess.Popen(
        [*command, str(path)],
        stdout=subprocess.DEVNULL if jq else subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(code)},
        cwd=code,  # ``python -c`` puts its working directory first on sys.path
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    out = process.stdout.read() if process.stdout else ""
    err = process.stderr.read()  # type: ignore[union-attr]
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"measurement failed: {err[-2000:]}")
    seconds = wall if jq else float((out or err).strip().splitlines()[-1])
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


def spread(values: list[float], unit: str) -> str:
    return f"{statistics.median(values):.2f}{unit} [{min(values):.2f}-{max(values):.2f}]"


def one_file(path: Path, rounds: int, codes: list[Path]) -> dict[str, list[tuple[float, float]]]:
    """Every measurement of ``path``, ``rounds`` times, the order rotated round by round."""
    jobs: list[tuple[str, list[str], Path]] = [("floor", [sys.executable, "-c", FLOOR], ROOT)]
    jobs += [(f"check {code}", [sys.executable, "-c", CHECK], code) for code in codes]
    if shutil.which("jq"):
        jobs.append(("jq", ["jq", "-c", "."], ROOT))
    times: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in jobs}
    for round_number in range(rounds):
        shift = round_number % len(jobs)
        for name, command, code in jobs[shift:] + jobs[:shift]:
            times[name].append(measure(command, path, code))
    return times


def report(steps: int, kind: str, path: Path, times: dict[str, list[tuple[float, float]]]) -> None:
    floor = [t for t, _ in times["floor"]]
    jq = [t for t, _ in times.get("jq", [])]
    print(f"\n{steps:,} steps, {kind}, {path.stat().st_size / 1e6:.0f} MB")
    print(f"  {'floor (json.loads)':<34} {spread(floor, ' s'):>24}")
    if jq:
        print(f"  {'jq -c .':<34} {spread(jq, ' s'):>24}")
    for name, values in times.items():
        if not name.startswith("check "):
            continue
        check = [t for t, _ in values]
        label = "check" if Path(name[6:]) == ROOT else f"check of {name[6:]}"
        rss = max(m for _, m in values)
        ratios = [c / f for c, f in zip(check, floor, strict=True)]
        line = f"  {label:<34} {spread(check, ' s'):>24}  {spread(ratios, 'x')} floor (budget 2x)"
        if jq:
            line += f", {spread([c / j for c, j in zip(check, jq, strict=True)], 'x')} jq"
        print(line + f", peak RSS {rss:.0f} MB")
    if not jq:
        print("  jq: not installed, its column is left out (apt-get install jq)")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    parser.add_argument("--kinds", nargs="*", choices=KINDS, default=list(KINDS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--code", type=Path, action="append", default=[], metavar="DIR")
    args = parser.parse_args()
    codes = [ROOT, *(code.resolve() for code in args.code)]
    with tempfile.TemporaryDirectory() as scratch:
        for steps in args.sizes:
            for kind in args.kinds:
                if kind == "tools" and steps > TOOL_HEAVY_LIMIT:
                    continue
                path = build(steps, Path(scratch), kind)
                report(steps, kind, path, one_file(path, args.rounds, codes))
                path.unlink()
    code_mode_line()


if __name__ == "__main__":
    main()
