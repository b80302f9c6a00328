"""Run inside ``unshare -n``: ``envtui serve`` and a real Chromium, used as a person would.

``python -m tests.support.scenarios.serve_browser MODE ARTEFACTS`` prints one JSON object
with what was seen; the test asserts on it. The namespace is empty (textual-serve's page
asks for web fonts from the internet, which must fail at once), so the loopback is
brought up first. The server runs in a process group of its own, as in a terminal, so
Ctrl+C is the terminal's SIGINT to that group.

The page is opened at the address the server prints (with its token), as a person would
copy it from the terminal.

MODE ``use``: the first frame (and how long it took), the environments table, ``?``, ``t``,
``h``, ``e``, ``y``, the palette's screenshot, ``/``, a closed tab, a second tab and Ctrl+C.
``term`` and ``kill``: a tab open, then SIGTERM or SIGKILL to the server alone.
``late``: a tab open until the demo is some steps in, then a second tab: what each shows.
``attack``: the dashboard open in one tab (so the browser holds its token), then another
account's page on another port of 127.0.0.1, which opens the dashboard's websocket and
frames its page, and that account replaying whatever the browser sent it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
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
from tests.support.real.serve_process import TabDashboard, tab_dashboards, tab_hosts
from tests.support.waiting import poll_until

from envtui.commands.serve.web_page import STORAGE_KEY

PORT = 47652
ORIGIN = f"http://127.0.0.1:{PORT}"
ATTACKER_PORT = PORT + 1
SIGNALS = {"term": signal.SIGTERM, "kill": signal.SIGKILL}
ARRIVAL = 90.0
"""Seconds a download, a notice, an exit or the server's address may take before the
scenario gives up: a hang guard, on a machine whose cores other tests keep busy."""


def start_server(workdir: Path) -> subprocess.Popen[bytes]:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    log = (workdir / "serve.log").open("wb")
    return subprocess.Popen(
        [sys.executable, "-m", "envtui", "serve", "--port", str(PORT), "--", "demo"],
        cwd=workdir,
        env={**os.environ, "TMPDIR": str(workdir)},  # the stream's folder, even if killed
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )


def printed_url(workdir: Path) -> str:
    """The address the server printed once it listens (its token in it)."""
    log = workdir / "serve.log"
    found: list[str] = []

    def printed() -> bool:
        found[:] = re.findall(r"; open:\n(http://\S+)\n", log.read_text(errors="replace"))
        return bool(found)

    def said() -> str:
        return f"the address in the server's output, which reads: {log.read_text()[-2000:]!r}"

    poll_until(printed, timeout=ARRIVAL, what=said, interval=0.05)
    return found[0]


def dashboards(server: subprocess.Popen[bytes]) -> list[TabDashboard]:
    """The server's dashboards: one per open tab, in its tab host."""
    return tab_dashboards(server.pid)


def ended(tabs: list[TabDashboard]) -> bool:
    return not any(tab.running() for tab in tabs)


def ready_tab(context: BrowserContext, url: str, seen: dict[str, Any] | None = None) -> Page:
    """A new tab on the dashboard, once its table shows a ready environment; into ``seen``
    the first frame's seconds and the ready screen."""
    page = context.new_page()
    start = time.monotonic()
    open_dashboard(page, url)
    focused = page.evaluate("document.activeElement.className")
    wait_for_screen(page, lambda s: bool(s.strip()), "the first frame")
    first_frame = time.monotonic() - start
    text = wait_for_screen(
        page, lambda s: "environments" in s and "● ready" in s, "a ready environment"
    )
    if seen is not None:
        seen["first_frame_seconds"] = round(first_frame, 2)
        seen["ready_seconds"] = round(time.monotonic() - start, 2)
        seen["ready_screen"] = text
        seen["page_url"] = page.url
        seen["focused_on_load"] = focused
    return page


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
    context: BrowserContext, server: subprocess.Popen[bytes], url: str, seen: dict[str, Any]
) -> list[TabDashboard]:
    """Everything a person does in one tab, then a second tab and Ctrl+C; returns the
    dashboards that ran when Ctrl+C came."""
    page = ready_tab(context, url, seen)
    page.keyboard.press("?")
    seen["help_screen"] = wait_for_screen(page, lambda s: "Keys" in s, "the help")
    page.keyboard.press("Escape")
    wait_for_screen(page, lambda s: "Keys" not in s, "the help closed")
    page.keyboard.press("t")
    seen["theme_screen"] = wait_for_screen(page, lambda s: "Pick a theme" in s, "the theme picker")
    page.keyboard.press("Escape")
    wait_for_screen(page, lambda s: "Pick a theme" not in s, "the theme picker closed")
    page.keyboard.press("h")
    seen["history_screen"] = wait_for_screen(page, lambda s: "history ·" in s, "the history")
    page.keyboard.press("Escape")
    wait_for_screen(page, lambda s: "history ·" not in s, "the history closed")
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
    page.keyboard.press("/")
    seen["filter_screen"] = wait_for_screen(
        page, lambda s: "filter environments" in s, "the filter box"
    )
    page.screenshot(path=seen["artefact"])
    seen["stored_token"] = page.evaluate(f"sessionStorage.getItem({STORAGE_KEY!r}) !== null")
    page.reload()  # the token is in the tab's sessionStorage, no longer in its address
    seen["reload_screen"] = wait_for_screen(page, lambda s: "environments" in s, "a reload")
    first = dashboards(server)
    seen["first_tab"] = len(first)
    page.close()
    seen["closed_tab_ended"] = _waited(lambda: ended(first))
    ready_tab(context, url)  # a new tab needs the printed address: the token is per tab
    running = dashboards(server)
    os.killpg(server.pid, signal.SIGINT)  # Ctrl+C in the server's terminal
    return running


def end_server(
    context: BrowserContext, server: subprocess.Popen[bytes], url: str, sig: signal.Signals
) -> list[TabDashboard]:
    """A tab open, then ``sig`` to the server alone; returns the dashboard that ran."""
    ready_tab(context, url)
    running = dashboards(server)
    server.send_signal(sig)
    return running


STEP = re.compile(r"·  step (\d+)  ·")


def step_shown(text: str) -> int:
    """The step number in the dashboard's header (0 before the first step)."""
    found = STEP.search(text)
    return int(found.group(1)) if found else 0


def environment_rows(text: str) -> list[str]:
    """The environments table's rows as the status and id columns read."""
    table = text.split("╭─ environments", 1)[-1].split("╰", 1)[0]
    return [" ".join(row.split()[1:4]) for row in table.splitlines() if "│" in row][1:]


def late(
    context: BrowserContext, server: subprocess.Popen[bytes], url: str, seen: dict[str, Any]
) -> list[TabDashboard]:
    """A tab open until step 4, then a second tab: the step each showed first, and whether
    both then show the same step and table at once (a tab's own demo would start again)."""
    early = ready_tab(context, url)
    seen["early_step"] = step_shown(wait_for_screen(early, lambda s: step_shown(s) >= 4, "step 4"))
    late_tab = ready_tab(context, url)
    seen["late_first_step"] = step_shown(screen(late_tab))
    deadline = time.monotonic() + ARRIVAL
    same = False
    while not same and time.monotonic() < deadline:
        both = screen(early), screen(late_tab)
        same = step_shown(both[0]) == step_shown(both[1]) and environment_rows(
            both[0]
        ) == environment_rows(both[1])
        if not same:
            late_tab.wait_for_timeout(100)  # the poll interval of this bounded wait
    seen["same_store"] = same
    seen["late_rows"] = environment_rows(screen(late_tab))
    running = dashboards(server)
    os.killpg(server.pid, signal.SIGINT)
    return running


ATTACKER_PAGE = f"""<!doctype html><html><body><pre id="out">waiting</pre>
<iframe id="frame" src="{ORIGIN}/"></iframe><script>
let got = "", frames = 0;
window.stored = sessionStorage.length;
const ws = new WebSocket("ws://127.0.0.1:{PORT}/ws?width=120&height=40");
ws.binaryType = "arraybuffer";
ws.onopen = () => {{ document.title = "OPEN"; ws.send(JSON.stringify(["stdin", "?"])); }};
ws.onmessage = (e) => {{ frames++;
  got += typeof e.data === "string" ? e.data : new TextDecoder().decode(e.data);
  document.getElementById("out").textContent = got.slice(-20000); }};
ws.onerror = () => {{ document.title = "ERROR"; }};
ws.onclose = (e) => {{ document.title = "CLOSED " + e.code; window.frames_seen = frames; }};
</script></body></html>"""
"""What a page on another origin would do in the browser: drive the dashboard's websocket
and show the dashboard's page in a frame."""
ATTACKER = r"""
import base64, json, os, socket, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
PORT, TARGET = int(sys.argv[1]), int(sys.argv[2])
PAGE = sys.stdin.buffer.read()
seen = []

def replay():
    lines = [f"GET /ws?width=120&height=40 HTTP/1.1", f"Host: 127.0.0.1:{TARGET}",
             "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13",
             "Sec-WebSocket-Key: " + base64.b64encode(os.urandom(16)).decode(),
             f"Origin: http://127.0.0.1:{TARGET}"]
    lines += [f"Cookie: {c}" for c in seen[-1:]]
    got = 0
    with socket.create_connection(("127.0.0.1", TARGET), timeout=10) as s:
        s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        answer = s.recv(65536).split(b"\r\n", 1)[0].decode()
        if " 101 " in answer:
            payload, mask = b'["stdin", "?"]', os.urandom(4)
            s.sendall(bytes([0x81, 0x80 | len(payload)]) + mask
                      + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
            try:
                while got < 10000 and (chunk := s.recv(65536)):
                    got += len(chunk)
            except OSError:
                pass
    return {"status": answer, "bytes": got, "cookies": list(seen), "uid": os.getuid()}

class Attacker(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/replay":
            body, kind = json.dumps(replay()).encode(), "application/json"
        else:
            if self.headers.get("Cookie"):
                seen.append(self.headers["Cookie"])
            body, kind = PAGE, "text/html; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

ThreadingHTTPServer(("127.0.0.1", PORT), Attacker).serve_forever()
"""
"""Another local account's server (run as ``nobody``): it serves :data:`ATTACKER_PAGE`,
keeps whatever credential the user's browser sends along to its port (a cookie of
127.0.0.1 would be), and on ``/replay`` opens the dashboard's websocket itself with it and
an ``Origin`` of its choosing, then types ``?``."""


def start_attacker() -> subprocess.Popen[bytes]:
    """:data:`ATTACKER` as ``nobody``, listening on :data:`ATTACKER_PORT`."""
    attacker = subprocess.Popen(
        ["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups",
         "/usr/bin/python3", "-c", ATTACKER, str(ATTACKER_PORT), str(PORT)],
        stdin=subprocess.PIPE, cwd="/",
    )  # fmt: skip
    assert attacker.stdin is not None
    attacker.stdin.write(ATTACKER_PAGE.encode())
    attacker.stdin.close()
    wait_for_port("127.0.0.1", ATTACKER_PORT)
    return attacker


def attack(
    context: BrowserContext, server: subprocess.Popen[bytes], url: str, seen: dict[str, Any]
) -> list[TabDashboard]:
    """The dashboard in one tab, then another account's page in another tab of the same
    browser, and that account replaying what the browser sent it: what each got, and how
    many dashboards ran meanwhile (the one tab's, if the attack is refused)."""
    ready_tab(context, url)
    seen["cookies"] = [c["name"] for c in context.cookies(ORIGIN)]
    before = dashboards(server)
    most = len(before)
    attacker = start_attacker()
    try:
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{ATTACKER_PORT}/")
        deadline = time.monotonic() + ARRIVAL
        while not page.title().startswith(("CLOSED", "ERROR", "OPEN")):
            assert time.monotonic() < deadline, "the attacker's websocket never ended"
            most = max(most, len(dashboards(server)))
            page.wait_for_timeout(100)  # the poll interval of this bounded wait
        with urllib.request.urlopen(f"http://127.0.0.1:{ATTACKER_PORT}/replay", timeout=60) as r:
            seen["replay"] = json.loads(r.read())
        most = max(most, len(dashboards(server)))
        seen["attack_title"] = page.title()
        seen["attack_text"] = page.inner_text("#out")
        seen["attack_frames"] = page.evaluate("window.frames_seen ?? -1")
        seen["attack_storage"] = page.evaluate("window.stored")
        seen["frame_urls"] = [frame.url for frame in page.frames[1:]]
        seen["dashboards_before_attack"] = len(before)
        seen["dashboards_during_attack"] = most
        page.close()
    finally:
        attacker.terminate()
        attacker.wait(timeout=ARRIVAL)
    running = dashboards(server)
    os.killpg(server.pid, signal.SIGINT)
    return running


def _waited(condition: Any) -> bool:
    try:
        poll_until(condition, timeout=ARRIVAL, interval=0.05)
    except AssertionError:
        return False
    return True


def main(mode: str, artefacts: Path) -> dict[str, Any]:
    seen: dict[str, Any] = {"artefact": str(artefacts / "serve-browser.png")}
    started: list[TabDashboard] = []
    hosts: list[psutil.Process] = []
    with tempfile.TemporaryDirectory() as workdir, sync_playwright() as playwright:
        server = start_server(Path(workdir))
        try:
            seen["listening_after"] = wait_for_port("127.0.0.1", PORT, timeout=ARRIVAL)
            url = printed_url(Path(workdir))
            browser = launch(playwright)
            context = browser.new_context(viewport={"width": 1400, "height": 800})
            context.grant_permissions(["clipboard-read", "clipboard-write"], origin=ORIGIN)
            hosts = tab_hosts(server.pid)
            if mode == "use":
                started = use(context, server, url, seen)
            elif mode == "late":
                started = late(context, server, url, seen)
            elif mode == "attack":
                started = attack(context, server, url, seen)
            else:
                started = end_server(context, server, url, SIGNALS[mode])
            seen["dashboards"] = len(started)
            hosts += [h for h in tab_hosts(server.pid) if h not in hosts]  # one started anew
            seen["tab_hosts"] = len(hosts)
            seen["server_exit"] = server.wait(timeout=ARRIVAL)
            seen["dashboards_ended"] = _waited(
                lambda: ended(started) and not any(alive(host.pid) for host in hosts)
            )
            browser.close()
        finally:
            for host in hosts:
                with contextlib.suppress(psutil.Error):  # nothing outlives the scenario
                    host.kill()
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGKILL)
            server.wait()
            seen["server_files"] = sorted(p.name for p in Path(workdir).iterdir())
            seen["server_log"] = (Path(workdir) / "serve.log").read_text(errors="replace")
    return seen


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], Path(sys.argv[2]))))
