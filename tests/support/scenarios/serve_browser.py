"""Run inside ``unshare -n``: ``envtui serve`` and a real Chromium, used as a person would.

``python -m tests.support.scenarios.serve_browser MODE ARTEFACTS`` prints one JSON object
with what was seen; the test asserts on it. The namespace is empty (textual-serve's page
asks for web fonts from the internet, which must fail at once), so the loopback is
brought up first. The server runs in a process group of its own, as in a terminal, so
Ctrl+C is the terminal's SIGINT to that group.

MODE ``use``: the environments table, ``?``, ``e``, ``y``, the palette's screenshot, a
closed tab, a second tab and Ctrl+C. ``term`` and ``kill``: a tab open, then SIGTERM or
SIGKILL to the server alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil
from playwright.sync_api import BrowserContext, Download, Page, sync_playwright

from tests.support.liveness import alive
from tests.support.real.browser import (
    launch,
    open_dashboard,
    screen,
    wait_for_port,
    wait_for_screen,
)
from tests.support.waiting import poll_until

PORT = 47652
URL = f"http://127.0.0.1:{PORT}/"
SIGNALS = {"term": signal.SIGTERM, "kill": signal.SIGKILL}
ARRIVAL = 30.0
"""Seconds a download, a notice or an exit may take before the scenario gives up."""


def start_server(workdir: Path) -> subprocess.Popen[bytes]:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    log = (workdir / "serve.log").open("wb")
    return subprocess.Popen(
        [sys.executable, "-m", "envtui", "serve", "--port", str(PORT), "--", "demo"],
        cwd=workdir,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )


def dashboards(server: subprocess.Popen[bytes]) -> list[psutil.Process]:
    """The server's children: one dashboard per open tab."""
    return psutil.Process(server.pid).children()


def ended(processes: list[psutil.Process]) -> bool:
    return not any(alive(process.pid) for process in processes)


def ready_tab(context: BrowserContext) -> tuple[Page, str]:
    """A new tab on the dashboard, once its table shows a ready environment."""
    page = context.new_page()
    open_dashboard(page, URL)
    text = wait_for_screen(
        page, lambda s: "environments" in s and "● ready" in s, "a ready environment"
    )
    return page, text


def download(context: BrowserContext, page: Page, *keys: str) -> tuple[str, str]:
    """Press ``keys`` and return the file the browser downloads: its name and text.

    textual.js opens each delivery in a new tab, so downloads are taken from every tab.
    """
    arrived: list[Download] = []

    def arrive(file: Download) -> None:  # playwright wants a function, not a bound method
        arrived.append(file)

    context.on("page", lambda tab: tab.on("download", arrive))
    page.on("download", arrive)
    for key in keys:
        page.keyboard.press(key)
    start = time.monotonic()
    while not arrived and time.monotonic() - start < ARRIVAL:
        page.wait_for_timeout(50)  # the poll interval of this bounded wait
    assert arrived, f"no download after {keys}; the screen:\n{screen(page)}"
    path = arrived[0].path()
    return arrived[0].suggested_filename, path.read_text(encoding="utf-8")


def use(
    context: BrowserContext, server: subprocess.Popen[bytes], seen: dict[str, Any]
) -> list[psutil.Process]:
    """Everything a person does in one tab, then a second tab and Ctrl+C; returns the
    dashboards that ran when Ctrl+C came."""
    page, seen["ready_screen"] = ready_tab(context)
    page.keyboard.press("?")
    seen["help_screen"] = wait_for_screen(page, lambda s: "Keys" in s, "the help")
    page.keyboard.press("Escape")
    wait_for_screen(page, lambda s: "<environment_context>" in s, "a step's context")
    seen["export_name"], seen["export_text"] = download(context, page, "e")
    page.keyboard.press("y")
    wait_for_screen(page, lambda s: "clipboard" in s, "the copy notice")
    seen["clipboard"] = page.evaluate("navigator.clipboard.readText()")
    page.keyboard.press("Control+p")
    wait_for_screen(page, lambda s: "Search for commands" in s, "the command palette")
    page.keyboard.type("screenshot")
    wait_for_screen(page, lambda s: "Save an SVG" in s, "the screenshot command")
    seen["screenshot_name"], seen["screenshot_text"] = download(context, page, "Enter")
    page.screenshot(path=seen["artefact"])
    first = dashboards(server)
    seen["first_tab"] = len(first)
    page.close()
    seen["closed_tab_ended"] = _waited(lambda: ended(first))
    ready_tab(context)
    running = dashboards(server)
    os.killpg(server.pid, signal.SIGINT)  # Ctrl+C in the server's terminal
    return running


def end_server(
    context: BrowserContext, server: subprocess.Popen[bytes], sig: signal.Signals
) -> list[psutil.Process]:
    """A tab open, then ``sig`` to the server alone; returns the dashboard that ran."""
    ready_tab(context)
    running = dashboards(server)
    server.send_signal(sig)
    return running


def _waited(condition: Any) -> bool:
    try:
        poll_until(condition, timeout=ARRIVAL, interval=0.05)
    except AssertionError:
        return False
    return True


def main(mode: str, artefacts: Path) -> dict[str, Any]:
    seen: dict[str, Any] = {"artefact": str(artefacts / "serve-browser.png")}
    started: list[psutil.Process] = []
    with tempfile.TemporaryDirectory() as workdir, sync_playwright() as playwright:
        server = start_server(Path(workdir))
        try:
            seen["listening_after"] = wait_for_port("127.0.0.1", PORT)
            browser = launch(playwright)
            context = browser.new_context(viewport={"width": 1400, "height": 800})
            context.grant_permissions(["clipboard-read", "clipboard-write"], origin=URL)
            if mode == "use":
                started = use(context, server, seen)
            else:
                started = end_server(context, server, SIGNALS[mode])
            seen["dashboards"] = len(started)
            seen["server_exit"] = server.wait(timeout=ARRIVAL)
            seen["dashboards_ended"] = _waited(lambda: ended(started))
            browser.close()
        finally:
            for process in started:
                with contextlib.suppress(psutil.Error):  # nothing outlives the scenario
                    process.kill()
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGKILL)
            server.wait()
            seen["server_files"] = sorted(p.name for p in Path(workdir).iterdir())
            seen["server_log"] = (Path(workdir) / "serve.log").read_text(errors="replace")
    return seen


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], Path(sys.argv[2]))))
