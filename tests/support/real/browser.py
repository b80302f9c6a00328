"""A real Chromium driven by playwright, and the text of the terminal in its page.

playwright's own browser download cannot be used here, so Debian's Chromium is launched
by path. textual-serve's page draws with xterm.js on a canvas, so the text is read from
xterm.js's buffer: a script that runs before the page's own catches the ``Terminal``
instance when textual.js stores it (``this.terminal = new Terminal(...)``).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # importable without playwright, so a test can say it is missing
    from playwright.sync_api import Browser, Page, Playwright

CHROMIUM = next(
    filter(None, map(shutil.which, ("chromium-headless-shell", "chromium"))),
    None,
)
"""Debian's Chromium (chromium-headless-shell, which .ci/run installs, or chromium)."""
HAS_PLAYWRIGHT = importlib.util.find_spec("playwright") is not None
"""Whether playwright (the test extra) is installed; this module imports it only for types."""

UNSHARE = shutil.which("unshare")
NEEDS_BROWSER_OFFLINE = [
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="needs Chromium (Debian package chromium-headless-shell, which .ci/run installs)",
    ),
    pytest.mark.skipif(
        not HAS_PLAYWRIGHT,
        reason="needs playwright (the test extra: pip install '.[test]')",
    ),
    pytest.mark.skipif(
        UNSHARE is None or shutil.which("ip") is None or os.geteuid() != 0,
        reason="needs unshare -n and ip (util-linux, iproute2) and root for the namespace",
    ),
]
"""The marks of a test that drives a served dashboard in Chromium inside ``unshare -n``."""

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",  # tests run as root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",  # else Chromium keeps calling the (closed) network
    "--disable-component-update",
    "--disable-sync",
)

CATCH_TERMINAL = """
window.__terminals = [];
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "terminal", {
      value, writable: true, configurable: true, enumerable: true,
    });
    window.__terminals.push(value);
  },
});
"""
"""Run before the page's scripts: the first object to set ``.terminal`` is textual.js's."""

SCREEN_TEXT = """() => {
  const terminal = window.__terminals[0];
  if (!terminal) return "";
  const buffer = terminal.buffer.active;
  const lines = [];
  for (let row = 0; row < terminal.rows; row++) {
    const line = buffer.getLine(buffer.viewportY + row);
    lines.push(line ? line.translateToString(true) : "");
  }
  return lines.join("\\n");
}"""
"""What the terminal in the page shows now, one line per row."""


def launch(playwright: Playwright) -> Browser:
    """Debian's Chromium, headless, with a fresh profile (playwright makes one per launch)."""
    assert CHROMIUM is not None
    return playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS))


def wait_for_port(host: str, port: int, timeout: float = 30.0) -> float:
    """Seconds until something listens on ``host:port``; fails after ``timeout``."""
    start = time.monotonic()
    while True:
        try:
            socket.create_connection((host, port), timeout=1).close()
            return time.monotonic() - start
        except OSError:
            if time.monotonic() - start > timeout:
                raise AssertionError(
                    f"nothing listens on {host}:{port} after {timeout} s"
                ) from None
            time.sleep(0.02)  # the poll interval of this bounded wait


def open_dashboard(page: Page, url: str) -> None:
    """Load textual-serve's page with the terminal catcher in place."""
    page.add_init_script(CATCH_TERMINAL)
    page.goto(url)  # no click, no focus from here: the page gives the terminal the keys


def screen(page: Page) -> str:
    text = page.evaluate(SCREEN_TEXT)
    assert isinstance(text, str)
    return text


def wait_for_screen(
    page: Page, condition: Callable[[str], bool], what: str, timeout: float = 60.0
) -> str:
    """Poll the page's terminal text until ``condition`` holds; fail after ``timeout``."""
    start = time.monotonic()
    while not condition(text := screen(page)):
        if time.monotonic() - start > timeout:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}; screen:\n{text}")
        page.wait_for_timeout(50)  # the poll interval of this bounded wait
    return text
