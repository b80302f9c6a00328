"""Cold start of ``envtui render`` (and ``--help``) next to ``python -c 'import pydantic'``.

Each command is started ``--runs`` times, interleaved so that machine load hits all of
them alike; the median wall time of each is printed with its ratio to the pydantic import
(the budget for ``render``: 1.3x). With ``--compare DIR`` the code in DIR is timed the
same way, side by side. Run: ``python benchmarks/bench_startup.py``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "turn-state.json"


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--compare", metavar="DIR", help="also time the envtui code in DIR")
    args = parser.parse_args()
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    commands: dict[str, tuple[list[str], dict[str, str]]] = {
        "python -c 'import pydantic'": ([sys.executable, "-c", "import pydantic"], base),
    }
    trees = [("", None)] + ([(f" ({args.compare})", args.compare)] if args.compare else [])
    for suffix, tree in trees:
        env = {**base, "PYTHONPATH": tree} if tree else base
        envtui = [sys.executable, "-m", "envtui"]
        commands[f"envtui render{suffix}"] = ([*envtui, "render", str(EXAMPLE)], env)
        commands[f"envtui --help{suffix}"] = ([*envtui, "--help"], env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, (command, env) in commands.items():
            times[name].append(timed(command, env))
    reference = statistics.median(times["python -c 'import pydantic'"])
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"{name:<48} {median * 1000:6.0f} ms  {median / reference:5.2f}x")


if __name__ == "__main__":
    main()
