"""``envtui sessions`` on a large tree: indexing time, CPU while idle, memory per thread.

The tree is 1,000 rollouts of about 1 MB each (1 GB), each a real 0.171 turn repeated
(``tests/support/data/session_trees.py``) and ending with the real rollout's later turns, so
every file has a compaction, a world state to carry and a finding at its last step. Each
measurement runs in a fresh process, side by side in one run:

* **index**: one poll of :class:`SessionsIndex` over the tree (head, scanned middle,
  parsed tail of every file), wall time and CPU time;
* **floor, heads and tails**: plain ``open``/``readline``/``seek``/``read`` of the same
  heads and the same tails, with ``json.loads`` of each tail line: the least any reader
  of that state must do;
* **floor, every byte**: reading every byte of every file with plain reads, parsing
  nothing (the index scans the middle of each file for state lines at about this cost);
* **idle**: after the index, the watch loop polling every second for ``--idle`` seconds
  with nothing written: CPU time over wall time, in % of one core;
* **memory**: the RSS the index adds, for the 1 GB tree of 1,000 threads and for a tree
  of the same bytes in 100 threads: it follows the threads, not the bytes.

Run: ``python -m benchmarks.bench_sessions [--files 1000] [--size-mb 1] [--idle 20]``.
The files are written to a temporary folder first (reading them then hits the page
cache, as for a tree Codex has just written); the tree is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.data.session_trees import grown_tree  # noqa: E402

INDEX = """
import json, resource, sys, time
from pathlib import Path
from envtui.sources.session_files import LocalSessionFiles
from envtui.sources.sessions_index import SessionsIndex
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20
before = rss()
index = SessionsIndex(LocalSessionFiles(Path(sys.argv[1])))
wall, cpu = time.perf_counter(), time.process_time()
view = index.poll()
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
threads = {t.thread_id for t in view.threads}
tails = {p: t.tail_start for p, t in index._threads.items()}
Path(sys.argv[2]).write_text(json.dumps(tails))
incidents = sum(1 for t in view.threads if t.incidents == ["context-mismatch"])
print(json.dumps({"wall": wall, "cpu": cpu, "threads": len(threads), "rows": len(view.threads),
                  "incidents": incidents, "rss_added": rss() - before}))
"""
FLOOR_TAILS = """
import json, sys, time
tails = json.loads(open(sys.argv[1]).read())
started = time.perf_counter()
for path, start in tails.items():
    with open(path, "rb") as handle:
        json.loads(handle.readline())
        handle.seek(start)
        for line in handle.read().splitlines():
            json.loads(line)
print(json.dumps({"wall": time.perf_counter() - started}))
"""
FLOOR_BYTES = """
import json, sys, time
tails = json.loads(open(sys.argv[1]).read())
started = time.perf_counter()
for path in tails:
    with open(path, "rb") as handle:
        while handle.read(1 << 20):
            pass
print(json.dumps({"wall": time.perf_counter() - started}))
"""
IDLE = """
import asyncio, json, sys, time
from pathlib import Path
from envtui.sources.session_files import LocalSessionFiles
from envtui.sources.sessions_index import SessionsIndex, watch_sessions
index = SessionsIndex(LocalSessionFiles(Path(sys.argv[1])))
index.poll()
async def idle(seconds):
    stop = asyncio.Event()
    polls = []
    task = asyncio.ensure_future(watch_sessions(index, polls.append, stop, poll=1.0))
    await asyncio.sleep(1.5)  # the first poll after the index
    wall, cpu = time.perf_counter(), time.process_time()
    await asyncio.sleep(seconds)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    stop.set()
    await task
    return wall, cpu, len(polls)
wall, cpu, polls = asyncio.run(idle(float(sys.argv[2])))
print(json.dumps({"wall": wall, "cpu": cpu, "polls": polls}))
"""


def run(script: str, *args: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def measure_tree(root: Path, files: int, size: int, idle: float | None) -> dict[str, float]:
    grown_tree(root, files, size)
    total = sum(p.stat().st_size for p in root.rglob("*.jsonl"))
    tails = root.parent / f"tails-{files}.json"
    index = run(INDEX, str(root), str(tails))
    tails_floor = run(FLOOR_TAILS, str(tails))
    bytes_floor = run(FLOOR_BYTES, str(tails))
    result = {"files": files, "bytes": total, **{f"index_{k}": v for k, v in index.items()}}
    result["floor_tails"] = tails_floor["wall"]
    result["floor_bytes"] = bytes_floor["wall"]
    if idle:
        idle_run = run(IDLE, str(root), str(idle))
        result["idle_cpu_percent"] = 100 * idle_run["cpu"] / idle_run["wall"]
        result["idle_polls"] = idle_run["polls"]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--size-mb", type=float, default=1.0)
    parser.add_argument("--idle", type=float, default=20.0)
    args = parser.parse_args()
    size = int(args.size_mb * 2**20)
    with tempfile.TemporaryDirectory() as scratch:
        many = measure_tree(Path(scratch) / "many", args.files, size, args.idle)
        shutil.rmtree(Path(scratch) / "many")
        few_files = max(1, args.files // 10)
        few = measure_tree(Path(scratch) / "few", few_files, size * 10, None)
    print(f"tree: {many['files']:.0f} rollouts, {many['bytes'] / 1e9:.2f} GB")
    print(
        f"index: {many['index_wall']:.2f} s wall, {many['index_cpu']:.2f} s CPU "
        f"(budget 10 s); {many['index_rows']:.0f} rows, {many['index_threads']:.0f} distinct "
        f"threads, {many['index_incidents']:.0f} with the context-mismatch of their last step"
    )
    print(
        f"floor, heads and tails (plain reads, json.loads): {many['floor_tails']:.2f} s; "
        f"index / floor = {many['index_wall'] / many['floor_tails']:.1f}x"
    )
    print(
        f"floor, every byte read (no parsing): {many['floor_bytes']:.2f} s; "
        f"index / floor = {many['index_wall'] / many['floor_bytes']:.1f}x"
    )
    print(
        f"idle: {many['idle_cpu_percent']:.2f} % of one core over {args.idle:g} s "
        f"({many['idle_polls']:.0f} polls; budget 2 %)"
    )
    print(
        f"memory added by the index: {many['index_rss_added']:.1f} MB for "
        f"{many['files']:.0f} threads ({many['bytes'] / 1e9:.2f} GB), "
        f"{few['index_rss_added']:.1f} MB for {few['files']:.0f} threads "
        f"({few['bytes'] / 1e9:.2f} GB); per thread "
        f"{1024 * many['index_rss_added'] / many['files']:.0f} KB and "
        f"{1024 * few['index_rss_added'] / few['files']:.0f} KB"
    )


if __name__ == "__main__":
    main()
