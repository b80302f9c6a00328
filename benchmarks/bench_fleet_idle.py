"""The merged sessions table of several hosts, idle and under a key, beside one host's.

Each of ``--hosts`` hosts is a ``CODEX_HOME`` whose sessions tree holds ``--threads``
rollouts of ``--size-kb`` (hard links to one tree built as ``bench_sessions.py`` builds
it) and, unless ``--no-daemons``, a real Codex 0.171 app-server daemon on its socket, which
``envtui sessions`` attaches to as it does on a real host. Two tables are measured in the
same run: the merged one (every host, one config) and the one-host one (the first host
alone, the same code path).

* **Idle**: one private tmux server (``bench_sessions_idle.py``'s) runs ``top -d 1.5``
  (the floor), ``envtui sessions`` of every host and of one host, each in a window of
  ``--size``; once each shows all its threads, and after ``--warmup`` seconds, the CPU
  time of each window's process (and its children) is read over ``--seconds`` seconds,
  in % of one core. Budget (issue 39): <= 2 % of a core at 3 hosts x 1,000 threads.
* **A key**: in this process (Pilot, the table at 200x50), the same two tables, each
  attached to the daemons; ``down`` is pressed ``--keys`` times, each timed until the app
  moved the cursor and wrote its next screen update to the terminal. Budget:
  within a frame (1/60 s) as with one host: the ratio of the merged table's median to the
  one-host table's. After the first screenful every ``down`` scrolls the table by a row,
  so most presses are the dearer kind: the median and p95 of those are printed too.

Run: ``python benchmarks/bench_fleet_idle.py [--hosts 3] [--threads 1000] [--seconds 60]``
(``--no-idle``: the key part only). The load average is printed before and after, as the
times follow it on a shared machine. Trees, daemons and the tmux server are gone at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

# the benchmarks' folder is on the path of a script; importing it puts the project's root there
from bench_sessions_idle import Tmux, cpu_shares, rss_mib, wait_for_rows

from tests.support.data.session_trees import grown_tree
from tests.support.real.codex_daemon import daemon_home

from envtui.settings.config import HostConfig
from envtui.sources.sessions.fleet import Fleet
from envtui.sources.sessions.hosts import configured_host
from envtui.sources.sessions.session_files import SessionFiles
from envtui.sources.sessions.sessions_index import SessionsIndex, watch_sessions
from envtui.tui.options import DashboardOptions
from envtui.tui.sessions.sessions_app import SessionsApp

FRAME = 1 / 60
IDLE_BUDGET = 2.0


def homes(stack: ExitStack, scratch: Path, count: int, daemons: bool) -> list[Path]:
    """``count`` Codex homes, each served by its daemon unless ``daemons`` is false."""
    if not daemons:
        return [scratch / f"home-{n}" for n in range(count)]
    served = [stack.enter_context(daemon_home([{"message": "ok"}])) for _ in range(count)]
    return [daemon.codex.home for daemon in served]


def fill(homes: list[Path], tree: list[Path], source: Path) -> None:
    """Every home's sessions tree: hard links to the one built tree (no copy of the bytes)."""
    for home in homes:
        for path in tree:
            target = home / "sessions" / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.link(path, target)


def config_file(path: Path, homes: list[Path]) -> Path:
    hosts = "".join(
        f'[[hosts]]\nname = "host-{n}"\ncodex_home = "{home}"\n\n' for n, home in enumerate(homes)
    )
    path.write_text(hosts)
    return path


def idle(args: argparse.Namespace, configs: dict[str, tuple[Path, int]]) -> None:
    """Each table's CPU beside ``top``'s, in one tmux server (see the module)."""
    columns, rows = (int(n) for n in args.size.split("x"))
    with Tmux((columns, rows)) as tmux:
        for name, (config, _) in configs.items():
            tmux.window(name, [sys.executable, "-m", "envtui", "sessions", "--config", str(config)])
        for name, (_, threads) in configs.items():
            wait_for_rows(tmux, [name], threads, args.timeout)
        time.sleep(args.warmup)
        names = ["top", *configs]
        pids = {name: tmux.pid(name) for name in names}
        shares = cpu_shares(pids, args.runs, args.seconds)
        for name in names:
            runs = " / ".join(f"{s:.2f}" for s in shares[name])
            print(
                f"  idle {name:9} {runs} % of a core over {args.seconds:g} s (runs), "
                f"RSS {rss_mib(pids[name]):.0f} MiB"
            )
        merged = statistics.median(shares["merged"])
        verdict = "within" if merged <= IDLE_BUDGET else "OVER"
        print(f"  idle budget: <= {IDLE_BUDGET:g} % of a core ({verdict})")


def _fleet(homes: list[Path]) -> Fleet:
    def index(files: SessionFiles, host: str) -> SessionsIndex:
        return SessionsIndex(files, host=host)

    hosts = [
        configured_host(HostConfig(name=f"host-{n}", codex_home=str(home)), index)
        for n, home in enumerate(homes)
    ]
    return Fleet(hosts, interval=1.0)


def _attached(fleet: Fleet) -> bool:
    return bool(fleet.daemons) and all(d.state == "attached" for d in fleet.daemons.values())


async def key_times(
    homes: list[Path], threads: int, keys: int, daemons: bool
) -> list[tuple[float, bool]]:
    """Seconds each ``down`` took to be handled and drawn on the table of ``homes``, and
    whether it scrolled the table."""
    fleet = _fleet(homes)

    async def watch(show: Any, stop: asyncio.Event) -> None:
        await fleet.open()
        daemons_task = asyncio.get_running_loop().create_task(fleet.run_daemons(stop))
        try:
            await watch_sessions(fleet, show, stop, poll=1.0, wake=fleet.woken)
        finally:
            stop.set()
            await asyncio.wait({daemons_task}, timeout=10)

    options = DashboardOptions(source_name="sessions")
    app = SessionsApp(watch, fleet.thread_source, options, hosts=True)
    times: list[tuple[float, bool]] = []
    async with app.run_test(size=(200, 50)) as pilot:
        table = app.sessions.table
        while table.row_count < threads * len(homes) or (daemons and not _attached(fleet)):
            await pilot.pause(0.1)
        await pilot.pause(2.0)  # the first polls after the rows settle
        painted = _painted(app, table)
        for _ in range(min(keys, table.row_count - 1)):
            times.append(await _one_key(app, table, painted))
            await asyncio.sleep(0.05)  # a person's pace: each key meets an idle table
        await pilot.press("q")
    return times


def _painted(app: Any, table: Any) -> list[tuple[float, int]]:
    """Each screen update the app writes to its terminal, with the cursor's row it shows
    (filled as the app writes)."""
    painted: list[tuple[float, int]] = []
    original = app._display

    def display(screen: Any, renderable: Any) -> None:
        original(screen, renderable)
        if renderable is not None:
            painted.append((time.perf_counter(), table.cursor_row))

    app._display = display
    return painted


async def _one_key(app: Any, table: Any, painted: list[tuple[float, int]]) -> tuple[float, bool]:
    """From ``down`` sent as the terminal sends it to the first update written that shows
    the cursor moved (polled every millisecond), and whether the table scrolled. An update
    is matched by the row it shows, not by coming after the move was seen: an update
    written between the move and the poll that sees it is the key's, and a later one (the
    clock's tick) is not."""
    row, top, mark = table.cursor_row, table.scroll_y, len(painted)
    started = time.perf_counter()
    app.simulate_key("down")
    while True:
        moved = [at for at, shown in painted[mark:] if shown != row]
        if moved:
            return moved[0] - started, table.scroll_y != top
        await asyncio.sleep(0.001)


def keys(args: argparse.Namespace, all_homes: list[Path]) -> None:
    """The merged table's key times beside the one-host table's (see the module)."""
    tables = {"one-host": all_homes[:1], "merged": all_homes}
    medians = {}
    for name, homes in tables.items():
        pressed = asyncio.run(key_times(homes, args.threads, args.keys, not args.no_daemons))
        times = sorted(t for t, _ in pressed)
        scrolled = sorted(t for t, scrolls in pressed if scrolls)
        medians[name] = statistics.median(times)
        print(
            f"  key  {name:9} median {medians[name] * 1000:.1f} ms, p95 {_p95(times):.1f} ms, "
            f"max {times[-1] * 1000:.1f} ms over {len(times)} presses (a frame: "
            f"{FRAME * 1000:.1f} ms)"
        )
        if scrolled:
            print(
                f"  key  {name:9} of which {len(scrolled)} scrolled the table: median "
                f"{statistics.median(scrolled) * 1000:.1f} ms, p95 {_p95(scrolled):.1f} ms"
            )
    print(f"  key  merged / one host: {medians['merged'] / medians['one-host']:.2f}x")


def _p95(times: list[float]) -> float:
    """The 95th percentile of sorted ``times``, in milliseconds."""
    return times[int(0.95 * (len(times) - 1))] * 1000


def _load() -> str:
    return " ".join(f"{n:.2f}" for n in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1000, help="threads on each host")
    parser.add_argument("--size-kb", type=int, default=100, help="each rollout's size")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--warmup", type=float, default=15.0)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--keys", type=int, default=200, help="key presses on each table")
    parser.add_argument("--size", default="200x50", help="each window's COLUMNSxROWS")
    parser.add_argument("--timeout", type=float, default=900.0, help="for the rows to show")
    parser.add_argument("--no-daemons", action="store_true", help="the hosts' files only")
    parser.add_argument("--no-idle", action="store_true", help="the key part only")
    args = parser.parse_args()
    with ExitStack() as stack, tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        source = scratch / "tree"
        tree = grown_tree(source, args.threads, args.size_kb * 1024)
        all_homes = homes(stack, scratch, args.hosts, not args.no_daemons)
        fill(all_homes, tree, source)
        configs = {
            "merged": (config_file(scratch / "merged.toml", all_homes), args.threads * args.hosts),
            "one-host": (config_file(scratch / "one.toml", all_homes[:1]), args.threads),
        }
        print(f"{args.hosts} hosts x {args.threads} threads of {args.size_kb} KiB")
        print(f"  load average {_load()}")
        if not args.no_idle:
            idle(args, configs)
        keys(args, all_homes)
        print(f"  load average {_load()}")


if __name__ == "__main__":
    main()
