"""A replay on screen, measured on the user's path, next to the same events headless.

A JSONL stream of N events is written once per size, as ``envtui --record`` writes them
(status changes of 1,000 environments, each line naming its event's number in its error,
and a step every 1,000 events). Then, in rounds, each measurement in a fresh process of
its own and their order rotated from round to round:

* **json.loads**: a Python loop of ``json.loads`` over the file's lines, the floor;
* **decode**: the file read and decoded as a replay reads it, nothing kept;
* **decode + store**: the same, every event folded into the dashboard's store;
* **replay drawn**: ``envtui replay FILE --speed 0`` as a user runs it, every frame
  rendered to terminal output, until the table shows the last event's row and the event
  log ends with its line (from the app's start: Textual's start-up is included).

Printed for each size: each measurement's median [min-max] over the rounds, then the
ratios (replay / decode + store, replay / json.loads, decode + store / json.loads), each
taken round by round; once in wall seconds and once in the CPU seconds of the measuring
process (on a machine shared with other work, the wall clock also counts the others).
``--code DIR`` measures another checkout of envtui as well (its modules on the path
instead of this one's), interleaved with this one in the same rounds,
so a change is compared with the code before it on the same machine at the same minute.
Run: ``python benchmarks/bench_tui.py [--sizes 100000 1000000] [--rounds 3] [--code DIR]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
STATES = ("starting", "ready", "unavailable")
KINDS = ("loads", "decode", "store", "replay")
NAMES = {
    "loads": "json.loads loop",
    "decode": "decode",
    "store": "decode + store",
    "replay": "replay drawn",
}
STEP_EVERY = 1_000
RATIOS = (
    ("replay / decode+store", "replay", "store", "budget 2x"),
    ("replay / json.loads", "replay", "loads", "budget 15x"),
    ("decode+store / json.loads", "store", "loads", "budget 5x"),
    ("decode / json.loads", "decode", "loads", ""),
)


def event_line(i: int, environments: int) -> str:
    """Event ``i`` as a line of a recording: a status change, or every STEP_EVERY-th a step."""
    at = (T0 + timedelta(microseconds=i)).isoformat()
    if i % STEP_EVERY == STEP_EVERY - 1 and i > 0:
        text = f"<environment_context>\n  <cwd>/srv/{i}</cwd>\n</environment_context>"
        msg: dict[str, Any] = {"type": "step", "step": i // STEP_EVERY, "text": text}
        msg |= {"diff": text, "notes": [], "unchecked": [], "findings": 0}
    else:
        msg = {
            "type": "environment_status",
            "environment_id": f"env-{i % environments:04d}",
            "kind": "ssh",
            "status": STATES[(i // environments) % 3],
            "primary": False,
            "cwd": f"/srv/{i % environments}",
            "error": f"event {i}",
        }
    return json.dumps({"id": "", "msg": msg, "at": at}, separators=(",", ":"))


def write_stream(path: Path, count: int, environments: int) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for i in range(count):
            handle.write(event_line(i, environments) + "\n")


def last_status(count: int) -> int:
    """The number of the stream's last status event (the last line may be a step)."""
    last = count - 1
    return last - 1 if last % STEP_EVERY == STEP_EVERY - 1 and last > 0 else last


# --- the measurements, each run in a process of its own -------------------------------------


def _modules() -> dict[str, Any]:
    """The modules measured, where this checkout keeps them or where an older one did."""
    try:
        from envtui.dashboard.store import Store
        from envtui.tui.log_widget import EventLog
        from envtui.vocabulary.events import Event, decode_lines
        from envtui.vocabulary.limits import bounded_lines
    except ImportError:  # the layout before the layer packages
        from envtui.events import Event, decode_lines  # type: ignore[no-redef,import-untyped]
        from envtui.limits import bounded_lines  # type: ignore[no-redef,import-untyped]
        from envtui.store import Store  # type: ignore[no-redef,import-untyped]
        from envtui.tui.event_log import EventLog  # type: ignore[no-redef,import-untyped]
    from envtui.sources.replay import replay
    from envtui.tui.app import DashboardOptions, EnvTuiApp
    from envtui.tui.widgets import EnvironmentTable

    return {
        "Store": Store,
        "EventLog": EventLog,
        "Event": Event,
        "decode_lines": decode_lines,
        "bounded_lines": bounded_lines,
        "replay": replay,
        "DashboardOptions": DashboardOptions,
        "EnvTuiApp": EnvTuiApp,
        "EnvironmentTable": EnvironmentTable,
    }


def now() -> tuple[float, float]:
    """Wall and CPU seconds (the process's own: on a shared machine, the work it did)."""
    return time.perf_counter(), time.process_time()


def since(started: tuple[float, float]) -> tuple[float, float]:
    wall, cpu = now()
    return wall - started[0], cpu - started[1]


def measure_loads(path: Path, _count: int) -> tuple[float, float]:
    started = now()
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            json.loads(line)
    return since(started)


def measure_decode(path: Path, _count: int, *, store: bool = False) -> tuple[float, float]:
    m = _modules()
    started = now()
    folded = m["Store"]()
    with path.open(encoding="utf-8", errors="replace") as handle:
        for item in m["decode_lines"](m["bounded_lines"](handle)):
            if store and isinstance(item, m["Event"]):
                folded.apply(item)
    return since(started)


def measure_store(path: Path, count: int) -> tuple[float, float]:
    return measure_decode(path, count, store=True)


def measure_replay(path: Path, count: int) -> tuple[float, float]:
    """Seconds from the app's start until the last status event is on screen."""
    import functools

    from terminal import run_in_process

    m = _modules()
    number = last_status(count)
    environment, error = f"env-{number % 1_000:04d}", f"event {number}"

    def shows(app: Any) -> bool:
        tables, logs = app.screen.query(m["EnvironmentTable"]), app.screen.query(m["EventLog"])
        if not tables or not logs:
            return False
        log, table = logs.first(), tables.first()
        return (
            any(line.endswith(f": {error}") for line in log.lines[-3:])  # "ended" may follow
            and log.following
            and environment in {str(key.value) for key in table.rows}
            and table.get_cell(environment, "error").plain == error
        )

    async def run() -> tuple[float, float]:
        source = functools.partial(m["replay"], path, speed=0)
        options = m["DashboardOptions"](source_name="replay", clock=lambda: T0)
        started = now()
        app = m["EnvTuiApp"](source, options)
        task = await run_in_process(app, (160, 48))
        while not shows(app):
            await asyncio.sleep(0.005)
        shown = since(started)
        app.exit()
        await task
        return shown

    return asyncio.run(run())


# --- the rounds -----------------------------------------------------------------------------


def run_child(kind: str, path: Path, count: int, code: Path) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(code), str(HERE)])}
    command = [sys.executable, __file__, "--measure", kind, "--file", str(path)]
    done = subprocess.run(
        [*command, "--count", str(count)], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{kind} on {code} failed:\n{done.stderr}")
    wall, cpu = done.stdout.split()[-2:]
    return float(wall), float(cpu)


def spread(values: list[float], unit: str = "") -> str:
    return (
        f"{statistics.median(values):7.2f}{unit} [{min(values):.2f}-{max(values):.2f}]"
        if values
        else "-"
    )


def one_size(count: int, rounds: int, codes: list[Path], directory: Path) -> None:
    path = directory / f"stream-{count}.jsonl"
    write_stream(path, count, 1_000)
    times: dict[tuple[Path, str], list[tuple[float, float]]] = {
        (c, k): [] for c in codes for k in KINDS
    }
    jobs = [(code, kind) for code in codes for kind in KINDS]
    for round_number in range(rounds):
        shift = round_number % len(jobs)
        for code, kind in jobs[shift:] + jobs[:shift]:
            times[code, kind].append(run_child(kind, path, count, code))
            wall, cpu = times[code, kind][-1]
            label = "this checkout" if code == ROOT else str(code)
            print(
                f"  round {round_number + 1}: {NAMES[kind]:<16} {label:<24} "
                f"{wall:8.2f} s wall {cpu:8.2f} s CPU",
                flush=True,
            )
    size_mb = path.stat().st_size / 2**20
    labels = [str(code) if code != ROOT else "this checkout" for code in codes]
    for index, clock in enumerate(("wall", "CPU")):
        print(
            f"\n{count:,} events ({size_mb:.0f} MB), {rounds} rounds, {clock} seconds: "
            "median [min-max]"
        )
        print(f"{'':26}" + "".join(f"{label:>30}" for label in labels))
        column = {key: [t[index] for t in values] for key, values in times.items()}
        for kind in KINDS:
            print(
                f"{NAMES[kind]:26}" + "".join(f"{spread(column[c, kind], ' s'):>30}" for c in codes)
            )
        for name, top, bottom, budget in RATIOS:
            cells = []
            for code in codes:
                pairs = zip(column[code, top], column[code, bottom], strict=True)
                cells.append(spread([a / b for a, b in pairs], "x"))
            print(f"{name:26}" + "".join(f"{cell:>30}" for cell in cells) + f"   {budget}")
        for code in codes[1:]:
            pairs = zip(column[code, "replay"], column[ROOT, "replay"], strict=True)
            print(
                f"replay drawn, {labels[codes.index(code)]} / this checkout: "
                f"{spread([a / b for a, b in pairs], 'x')}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--code", type=Path, action="append", default=[], metavar="DIR")
    parser.add_argument("--measure", choices=KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--file", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure = globals()[f"measure_{args.measure}"]
        print(*measure(args.file, args.count))
        return
    codes = [ROOT, *(code.resolve() for code in args.code)]
    with tempfile.TemporaryDirectory() as tmp:
        for count in args.sizes:
            one_size(count, args.rounds, codes, Path(tmp))


if __name__ == "__main__":
    main()
