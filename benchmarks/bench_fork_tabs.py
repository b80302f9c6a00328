"""What forking dashboards from one preloaded process would save, before building it.

``envtui serve`` starts one dashboard process per browser tab. One way to share their
pages is a process that has imported the dashboard's modules once and forks a child per
tab (``gc.freeze()`` first, so the collector does not touch the shared objects). This
measures that, side by side in one run, without changing ``serve``:

* **spawned**: ``--tabs`` fresh ``python -m envtui demo`` processes;
* **forked**: the same number of children forked from this process after it imported
  the dashboard (each then runs ``envtui demo`` from the imported ``main``).

Each child runs under Textual's web driver at 160x45, as a served tab does, its output to
/dev/null and its input a pipe kept open. After ``--settle`` seconds the children's PSS
(each shared page split among the processes that map it) is summed, with this process's
own for the forked kind, and the children are killed. The demo is heavier than a served
tab's ``replay --follow`` (it runs its own source), so the absolute figures are an upper
bound; the ratio forked / spawned is what the technique would save.

Run: ``python benchmarks/bench_fork_tabs.py [--tabs 10] [--settle 25]``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRELOADED = (
    "textual.drivers.web_driver",
    "envtui.tui.app",
    "envtui.commands.dashboard",
    "envtui.sources.demo",
)
WEB = {
    "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver",
    "TEXTUAL_FPS": "60",
    "TEXTUAL_COLOR_SYSTEM": "truecolor",
    "COLUMNS": "160",
    "ROWS": "45",
}


def pss_mb(pid: int) -> float:
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0.0
    found = re.search(r"^Pss:\s+(\d+) kB", text, re.MULTILINE)
    return int(found.group(1)) / 1024 if found else 0.0


def spawned(tabs: int, settle: float) -> float:
    """The PSS in MB of ``tabs`` dashboards started as processes of their own."""
    children = []
    for _ in range(tabs):
        read, _write = os.pipe()  # the write end stays open: no end of input
        children.append(
            subprocess.Popen(
                [sys.executable, "-m", "envtui", "demo"],
                stdin=read,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env={**os.environ, **WEB, "PYTHONPATH": str(ROOT)},
            )
        )
        os.close(read)
    time.sleep(settle)
    total = sum(pss_mb(child.pid) for child in children)
    for child in children:
        child.kill()
        child.wait()
    return total


def forked(tabs: int, settle: float) -> tuple[float, float]:
    """(children's PSS, this process's PSS) in MB for ``tabs`` dashboards forked from here."""
    os.environ.update(WEB)  # read by Textual when it is imported
    sys.path.insert(0, str(ROOT))
    for name in PRELOADED:  # imported once here: their pages are shared with every child
        importlib.import_module(name)
    from envtui.cli import main

    gc.collect()
    gc.freeze()
    children = []
    for _ in range(tabs):
        read, _write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: a tab's dashboard
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(read, 0)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.setsid()
            try:
                main(["demo"])
            finally:
                os._exit(0)
        os.close(read)
        children.append(pid)
    time.sleep(settle)
    total = sum(pss_mb(pid) for pid in children)
    own = pss_mb(os.getpid())
    for pid in children:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return total, own


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tabs", type=int, default=10)
    parser.add_argument("--settle", type=float, default=25.0)
    args = parser.parse_args()
    one = spawned(1, args.settle)
    many = spawned(args.tabs, args.settle)
    children, parent = forked(args.tabs, args.settle)  # last: it imports into this process
    print(f"1 spawned dashboard:        PSS {one:6.1f} MB")
    print(f"{args.tabs} spawned dashboards:      PSS {many:6.1f} MB  ({many / one:.2f}x one)")
    both = children + parent
    print(
        f"{args.tabs} forked + their parent:   PSS {both:6.1f} MB  ({both / one:.2f}x one, "
        f"{both / many:.2f}x spawned)"
    )


if __name__ == "__main__":
    main()
