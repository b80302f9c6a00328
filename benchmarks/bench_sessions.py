"""``envtui sessions DIR --json`` against the floors of reading the same tree, side by side.

For each tree size (``--files``, 100 / 1,000 / 10,000 by default) the tree is built once
(``tests/support/data/session_trees.py``: a real 0.171 turn grown to ``--size-kb``, ending with
the real rollout's later turns, so every file has a compaction, a world state to carry and
a finding at its last step), then every command below runs as a fresh process, in rounds,
the order rotated each round; each ratio is taken within a round and quoted as the median
[min-max] over the rounds:

* **envtui**: ``envtui sessions DIR --json`` (and, with ``--before ENVTUI``, another
  installation's ``envtui`` the same way, for a before/after in one run);
* **floor, heads and tails**: python reading each file's first line and, from the start
  of the line of its last ``task_started`` (found by reading back from the end), every
  line to the end, each with ``json.loads``: the least any reader of a thread's latest
  state must do (the tail offset is found here, not taken from envtui);
* **floor, every line**: ``json.loads`` of every line of every file.

Then ``envtui sessions EMPTY --json`` against ``python -c 'import pydantic'`` (the start-up
anchor), and the peak RSS of each envtui run, for the memory per thread (peak at N files
less the peak on the empty folder, over N). Budgets (issue 22): <= 5x the heads-and-tails
floor at every size, <= 1.3x ``import pydantic`` on an empty folder, <= 16 KiB per thread.

Run: ``python benchmarks/bench_sessions.py [--files 100,1000,10000] [--size-kb 100]
[--rounds 3] [--before PATH/TO/envtui]``. The trees are written to a temporary folder
(reading them then hits the page cache, as for a tree Codex has just written) and removed.
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.data.session_trees import grown_tree  # noqa: E402

FLOOR_TAILS = """
import json, os, sys
MARK = b'"type":"task_started"'
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        with open(os.path.join(folder, name), "rb") as handle:
            json.loads(handle.readline())
            end = handle.seek(0, 2)
            start, chunk = end, b""
            while start > 0:
                start = max(0, start - 65536)
                handle.seek(start)
                chunk = handle.read(end - start)
                found = chunk.rfind(MARK)
                if found >= 0:
                    chunk = chunk[chunk.rfind(b"\\n", 0, found) + 1 :]
                    break
            for line in chunk.splitlines():
                json.loads(line)
"""
FLOOR_LINES = """
import json, os, sys
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        with open(os.path.join(folder, name), "rb") as handle:
            for line in handle:
                json.loads(line)
"""


class Run(NamedTuple):
    wall: float  # seconds
    cpu: float  # user + system seconds: less moved than wall by others' load on the machine
    rss: int  # peak, KiB


MEASURED = """
import os, sys, time
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - started
print(os.waitstatus_to_exitcode(status), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
"""
"""Runs a command and says its exit code, wall and CPU seconds and peak RSS (KiB).

Linux keeps a process's peak RSS across ``execve`` and starts a forked child's from its
parent's size, so a command started straight from this benchmark (which holds a tree's
worth of bytes while it builds one) would report this process's peak, not its own. The
command is started from this small process instead, and timed there."""


def timed(command: list[str]) -> Run:
    """Wall and CPU seconds and peak RSS of one run; its output is thrown away."""
    said = subprocess.run(
        [sys.executable, "-c", MEASURED, *command], capture_output=True, text=True, check=True
    ).stdout.split()
    code, wall, cpu, rss = int(said[0]), float(said[1]), float(said[2]), int(said[3])
    if code not in (0, 1):  # 1: a live thread with an incident, as designed
        raise SystemExit(f"{command}: exit {code}")
    return Run(wall, cpu, rss)


def rounds(commands: dict[str, list[str]], count: int) -> dict[str, list[Run]]:
    """Every command once a round, the order rotated each round."""
    names = list(commands)
    results: dict[str, list[Run]] = {name: [] for name in names}
    for number in range(count):
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            results[name].append(timed(commands[name]))
    return results


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} [{min(values):.2f}-{max(values):.2f}]"


def ratios(
    results: dict[str, list[Run]], top: str, bottom: str, *, cpu: bool = False
) -> list[float]:
    pairs = zip(results[top], results[bottom], strict=True)
    return [(a.cpu / b.cpu) if cpu else (a.wall / b.wall) for a, b in pairs]


def envtuis(args: argparse.Namespace) -> dict[str, list[str]]:
    found = {"envtui": [sys.executable, "-m", "envtui"]}
    if args.before:
        found["before"] = [args.before]
    return found


def measure_size(args: argparse.Namespace, scratch: Path, files: int) -> dict[str, float]:
    """One tree: every command in rounds; the median peak RSS of each envtui (KiB)."""
    tree = scratch / f"tree-{files}"
    grown_tree(tree, files, args.size_kb * 1024)
    sizes = [p.stat().st_size for p in tree.rglob("*.jsonl")]
    names = envtuis(args)
    commands = {name: [*cmd, "sessions", str(tree), "--json"] for name, cmd in names.items()}
    commands["floor_tails"] = [sys.executable, "-c", FLOOR_TAILS, str(tree)]
    commands["floor_lines"] = [sys.executable, "-c", FLOOR_LINES, str(tree)]
    results = rounds(commands, args.rounds)
    mean = sum(sizes) / len(sizes) / 1024
    print(f"\n{files} files, {sum(sizes) / 1e9:.2f} GB (mean {mean:.0f} KiB), {args.rounds} rounds")
    for name, runs in results.items():
        walls, cpus = spread([r.wall for r in runs]), spread([r.cpu for r in runs])
        print(f"  {name:12} wall {walls} s, CPU {cpus} s")
    for name in names:
        print(
            f"  {name} / heads-and-tails floor (budget 5x): "
            f"wall {spread(ratios(results, name, 'floor_tails'))}x, "
            f"CPU {spread(ratios(results, name, 'floor_tails', cpu=True))}x; "
            f"/ every line: wall {spread(ratios(results, name, 'floor_lines'))}x"
        )
    shutil.rmtree(tree)
    return {name: statistics.median(r.rss for r in results[name]) for name in names}


def measure_empty(args: argparse.Namespace, scratch: Path) -> dict[str, float]:
    empty = scratch / "empty"
    empty.mkdir()
    names = envtuis(args)
    commands = {name: [*cmd, "sessions", str(empty), "--json"] for name, cmd in names.items()}
    one = scratch / "one"
    grown_tree(one, 1, args.size_kb * 1024)
    for name, cmd in names.items():  # what a first file costs: the reader, check and models
        commands[f"{name}_one_file"] = [*cmd, "sessions", str(one), "--json"]
    commands["import_pydantic"] = [sys.executable, "-c", "import pydantic"]
    timed(commands["import_pydantic"])  # a warm-up: bytecode and page cache
    results = rounds(commands, max(5, 3 * args.rounds))
    print("empty folder (and a folder of one rollout)")
    for name, runs in results.items():
        walls, cpus = spread([r.wall * 1000 for r in runs]), spread([r.cpu * 1000 for r in runs])
        print(f"  {name:18} wall {walls} ms, CPU {cpus} ms")
    for name in names:
        ratio = spread(ratios(results, name, "import_pydantic"))
        print(f"  {name}: {ratio}x import pydantic (budget 1.3x)")
    return {name: statistics.median(r.rss for r in results[name]) for name in names}


def memory(peaks: dict[int, dict[str, float]]) -> None:
    """Memory per thread: the peak's growth from one tree size to the next, per thread added."""
    print("\nmemory per thread (peak RSS growth between sizes; budget 16 KiB)")
    sizes = sorted(peaks)
    for low, high in itertools.pairwise(sizes):
        for name in peaks[high]:
            per = (peaks[high][name] - peaks[low][name]) / (high - low)
            mib = peaks[high][name] / 1024
            print(f"  {name}: {low} -> {high} threads: {per:.1f} KiB per thread ({mib:.0f} MiB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", default="100,1000,10000", help="tree sizes, comma-separated")
    parser.add_argument("--size-kb", type=int, default=100, help="the size each rollout grows to")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", metavar="ENVTUI", help="another envtui to measure beside")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        peaks = {0: measure_empty(args, scratch)}
        for files in (int(n) for n in args.files.split(",")):
            peaks[files] = measure_size(args, scratch, files)
        memory(peaks)


if __name__ == "__main__":
    main()
