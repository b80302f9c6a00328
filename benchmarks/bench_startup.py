"""Cold start of ``envtui render`` (and ``--help``) next to ``python -c 'import pydantic'``.

Each command is started ``--runs`` times, interleaved so that machine load hits all of
them alike; the median wall time of each is printed with its ratio to the pydantic import
(the budget for ``render``: 1.3x), and how many modules it imports (``-X importtime``), of
them envtui's own: ``envtui --help`` lists the commands from one table and loads none of
their modules. With ``--compare DIR`` the code in DIR is timed the same way, side by side.
Run: ``python benchmarks/bench_startup.py``.

Whether envtui's bytecode is cached changes the result by a tenth or more: pydantic comes
compiled from its wheel, while an editable checkout run with ``PYTHONDONTWRITEBYTECODE``
compiles every envtui module on every start. The first line printed says which case was
measured; ``--compile`` compiles the trees first, as installing the package does.
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "turn-state.json"


def bytecode_state(tree: Path) -> str:
    """Whether every module of the ``envtui`` package in ``tree`` has a current .pyc."""
    sources = list((tree / "envtui").rglob("*.py"))
    cached = [
        source
        for source in sources
        if Path(importlib.util.cache_from_source(str(source))).is_file()
        and Path(importlib.util.cache_from_source(str(source))).stat().st_mtime
        >= source.stat().st_mtime
    ]
    return f"{len(cached)} of {len(sources)} envtui modules with cached bytecode"


def timed(command: list[str], env: dict[str, str]) -> float:
    # ``python -m`` puts the working directory first on sys.path: run in the tree timed
    cwd = env.get("PYTHONPATH") or ROOT
    start = time.perf_counter()
    subprocess.run(command, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def imported(command: list[str], env: dict[str, str]) -> tuple[int, int]:
    """How many modules ``command`` imports, and how many of them are envtui's."""
    cwd = env.get("PYTHONPATH") or ROOT
    run = subprocess.run(
        [command[0], "-X", "importtime", *command[1:]],
        env=env,
        cwd=cwd,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    names = [
        line.rsplit("|", 1)[1].strip()
        for line in run.stderr.splitlines()
        if line.startswith("import time:") and "|" in line and "cumulative" not in line
    ]
    return len(names), sum(name.split(".")[0] == "envtui" for name in names)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--compare", metavar="DIR", help="also time the envtui code in DIR")
    parser.add_argument(
        "--compile", action="store_true", help="compile the envtui trees first, as installing does"
    )
    args = parser.parse_args()
    trees_on_disk = [ROOT] + ([Path(args.compare)] if args.compare else [])
    for tree in trees_on_disk:
        if args.compile:
            compileall.compile_dir(tree / "envtui", quiet=1)
        print(f"{tree}: {bytecode_state(tree)}")
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    commands: dict[str, tuple[list[str], dict[str, str]]] = {
        "python -c 'import pydantic'": ([sys.executable, "-c", "import pydantic"], base),
    }
    trees = [("", None)] + ([(f" ({args.compare})", args.compare)] if args.compare else [])
    for suffix, tree in trees:
        env = {**base, "PYTHONPATH": str(Path(tree).resolve())} if tree else base
        envtui = [sys.executable, "-m", "envtui"]
        commands[f"envtui render{suffix}"] = ([*envtui, "render", str(EXAMPLE)], env)
        commands[f"envtui --help{suffix}"] = ([*envtui, "--help"], env)
        commands[f"envtui check --help{suffix}"] = ([*envtui, "check", "--help"], env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, (command, env) in commands.items():
            times[name].append(timed(command, env))
    reference = statistics.median(times["python -c 'import pydantic'"])
    for name, samples in times.items():
        median = statistics.median(samples)
        modules, own = imported(*commands[name])
        print(
            f"{name:<48} {median * 1000:6.0f} ms  {median / reference:5.2f}x"
            f"  {modules:4} modules, {own:3} of envtui"
        )


if __name__ == "__main__":
    main()
