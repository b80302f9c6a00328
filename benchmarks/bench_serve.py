"""``envtui serve`` against the terminal: time to the first frame, and one dashboard's memory.

Side by side in one run, inside ``unshare -n`` (the script re-runs itself there): the
demo served to a real Chromium (Debian's, driven by playwright) and the same demo under
tmux at the same size. Printed: seconds from starting ``envtui serve`` to the first frame
drawn in the page (the browser is already open, as a person's would be), from opening a
second page on the running server to its first frame, and from starting tmux to the
first frame on its screen; then, after both ran the demo for ``--settle``
seconds, the RSS and USS of the served dashboard (the tab host with its one tab), of
the one in tmux, their ratio, and the RSS of the server itself. With ``--before DIR``,
each round also serves another checkout's envtui (an older commit) the same way, for the
first frames before and after side by side. Run from the checkout (it uses the tests'
browser support): ``python -m benchmarks.bench_serve [--rounds N] [--settle S]
[--before DIR]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
from playwright.sync_api import Browser, Page, sync_playwright

from tests.support.real.browser import CATCH_TERMINAL, SCREEN_TEXT, launch, wait_for_port

PORT = 47653
HEADER = "envtui ·"
"""The dashboard's header: on screen once the first frame is drawn."""
DEMO = [sys.executable, "-m", "envtui", "demo"]


def start_server(workdir: Path, checkout: Path | None = None) -> subprocess.Popen[bytes]:
    """``envtui serve`` of this checkout, or of ``checkout``."""
    env = {**os.environ, "PYTHONPATH": str(checkout)} if checkout else None
    with (workdir / "serve.log").open("wb") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "envtui", "serve", "--port", str(PORT)],
            cwd=workdir,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )


def printed_url(workdir: Path) -> str:
    """The address the server printed, with its token (the page answers 401 without)."""
    log = workdir / "serve.log"
    deadline = time.monotonic() + 60
    while not (found := re.findall(r" on (http://\S+?), a dashboard", log.read_text())):
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.01)  # the poll interval of this bounded wait
    return str(found[0])


def stop_server(server: subprocess.Popen[bytes]) -> None:
    server.terminate()  # it ends its dashboards before it exits
    server.wait(timeout=30)


@contextmanager
def in_tmux(workdir: Path, columns: int, rows: int) -> Iterator[Callable[[], str]]:
    """The demo in a tmux session of ``columns`` x ``rows``; yields its screen reader."""
    tmux = shutil.which("tmux")
    assert tmux is not None, "needs tmux"
    socket = f"envtui-bench-{os.getpid()}"
    command = f"exec {' '.join(DEMO)}"
    base = [tmux, "-L", socket]
    subprocess.run(
        [*base, "-f", "/dev/null", "new-session", "-d", "-s", "b", "-x", str(columns),
         "-y", str(rows), "-c", str(workdir), command],
        check=True, env={**os.environ, "TERM": "xterm-256color"},
    )  # fmt: skip
    try:
        yield (
            lambda: (
                subprocess.run(
                    [*base, "capture-pane", "-p", "-t", "b"], capture_output=True, text=True
                ).stdout
            )
        )
    finally:
        subprocess.run([*base, "kill-server"], check=False)


def tmux_pid() -> int:
    tmux = shutil.which("tmux")
    assert tmux is not None
    out = subprocess.run(
        [tmux, "-L", f"envtui-bench-{os.getpid()}", "display", "-p", "-t", "b", "#{pane_pid}"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return int(out)


def first_frame_in_page(
    page: Page, workdir: Path, checkout: Path | None = None
) -> tuple[float, float, subprocess.Popen[bytes]]:
    """Seconds from starting the server until it listens and until the header is drawn in
    the page; and the server."""
    start = time.perf_counter()
    server = start_server(workdir, checkout)
    listening = wait_for_port("127.0.0.1", PORT)
    page.goto(printed_url(workdir))
    page.wait_for_function(f"() => ({SCREEN_TEXT})().includes({HEADER!r})", timeout=60_000)
    return listening, time.perf_counter() - start, server


def first_frame_in_tmux(workdir: Path, columns: int, rows: int) -> float:
    start = time.perf_counter()
    with in_tmux(workdir, columns, rows) as screen:
        while HEADER not in screen():
            if time.perf_counter() - start > 60:
                raise SystemExit("tmux: no frame after 60 s")
            time.sleep(0.01)  # the poll interval of this bounded wait
        return time.perf_counter() - start


def memory(pid: int) -> tuple[float, float]:
    """RSS and USS of ``pid`` in MB."""
    info = psutil.Process(pid).memory_full_info()
    return info.rss / 2**20, info.uss / 2**20


def served_first_frame(
    browser: Browser, workdir: Path, checkout: Path | None
) -> tuple[float, float, float, tuple[int, int]]:
    """(to listening, to the first frame, a second tab's first frame, the terminal's size)
    of a server started for one page, then another page opened once the first drew."""
    context = browser.new_context(viewport={"width": 1400, "height": 800})
    page = context.new_page()
    page.add_init_script(CATCH_TERMINAL)
    listening, seconds, server = first_frame_in_page(page, workdir, checkout)
    size = page.evaluate("[window.__terminals[0].cols, window.__terminals[0].rows]")
    second = context.new_page()
    second.add_init_script(CATCH_TERMINAL)
    start = time.perf_counter()
    second.goto(printed_url(workdir))  # the printed address again: the token is kept per tab
    second.wait_for_function(f"() => ({SCREEN_TEXT})().includes({HEADER!r})", timeout=60_000)
    again = time.perf_counter() - start
    context.close()
    stop_server(server)
    return listening, seconds, again, (size[0], size[1])


def measure(rounds: int, settle: float, before: Path | None) -> None:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        workdir = Path(tmp)
        browser = launch(playwright)
        listen_times, page_times, again_times, tmux_times = [], [], [], []
        before_times: list[float] = []
        before_again: list[float] = []
        for _ in range(rounds):
            listening, seconds, again, size = served_first_frame(browser, workdir, None)
            listen_times.append(listening)
            page_times.append(seconds)
            again_times.append(again)
            tmux_times.append(first_frame_in_tmux(workdir, *size))
            if before is not None:
                _, seconds, again, _ = served_first_frame(browser, workdir, before)
                before_times.append(seconds)
                before_again.append(again)
        print(f"{rounds} rounds, the demo at {size[0]}x{size[1]}; median (min-max)")
        _row("envtui serve to listening", listen_times)
        _row("envtui serve to the first frame in the page", page_times)
        if before_times:
            _row("  the same, served by --before", before_times)
        _row("a page on the running server, to its frame", again_times)
        if before_again:
            _row("  the same, served by --before", before_again)
        _row("tmux new-session to the first frame", tmux_times)
        page = browser.new_page(viewport={"width": 1400, "height": 800})
        page.add_init_script(CATCH_TERMINAL)
        _, _, server = first_frame_in_page(page, workdir)
        with in_tmux(workdir, *size):
            time.sleep(settle)  # both run the demo: steps, events, reconnections
            (served_pid,) = [
                child.pid
                for child in psutil.Process(server.pid).children()
                if "-m envtui" in " ".join(child.cmdline())  # not a step the source runs
            ]
            web_rss, web_uss = memory(served_pid)
            term_rss, term_uss = memory(tmux_pid())
            server_rss, _ = memory(server.pid)
        stop_server(server)
        browser.close()
    print(f"after {settle:.0f} s of the demo, side by side:")
    print(f"  served dashboard (process) RSS {web_rss:6.1f} MB   USS {web_uss:6.1f} MB")
    print(f"  dashboard in tmux          RSS {term_rss:6.1f} MB   USS {term_uss:6.1f} MB")
    ratios = f"RSS {web_rss / term_rss:6.2f}x     USS {web_uss / term_uss:.2f}x"
    print(f"  served / terminal          {ratios}")
    print(f"  the server (textual-serve) RSS {server_rss:6.1f} MB, once for all tabs")


def _row(label: str, values: list[float]) -> None:
    print(f"  {label:<44} {statistics.median(values):5.2f} s ({min(values):.2f}-{max(values):.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--settle", type=float, default=30.0)
    parser.add_argument("--before", type=Path, help="another checkout, served side by side")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        measure(args.rounds, args.settle, args.before)
        return
    unshare = shutil.which("unshare")
    assert unshare is not None, "needs unshare (util-linux)"
    argv = [unshare, "-n", sys.executable, "-m", "benchmarks.bench_serve", "--inside"]
    argv += ["--rounds", str(args.rounds), "--settle", str(args.settle)]
    argv += ["--before", str(args.before.resolve())] if args.before else []
    raise SystemExit(subprocess.run(argv, cwd=Path(__file__).parent.parent).returncode)


if __name__ == "__main__":
    main()
