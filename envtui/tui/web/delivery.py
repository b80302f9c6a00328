"""Handing a file or copied text to the person at the dashboard, in a terminal or a browser.

Under ``envtui serve`` the dashboard runs on the server's machine behind textual-serve's
web driver: a step export written to the server's disk would give the person in the
browser nothing. There, files go to the browser as downloads (Textual's ``deliver_text``)
and copied text to the browser's clipboard (xterm.js turns the OSC 52 sequence that
``copy_to_clipboard`` writes into ``navigator.clipboard``). The app decides by its driver
(``App.is_web``), never by a flag the person has to pass; in a terminal everything stays
as it was.
"""

from __future__ import annotations

import io
from datetime import datetime
from pathlib import Path
from typing import Any

from textual.app import App

from envtui.tui.clipboard import copy_notice, local_tools, run_tool, tmux_clipboard
from envtui.tui.details import unused_path


def deliver_file(
    app: App[Any], text: str, *, file_name: str, directory: Path, mime_type: str, name: str
) -> None:
    """In a browser, download ``text`` as ``file_name``; in a terminal, write it into
    ``directory`` (created if need be; a taken name is numbered, never overwritten). Either
    way a notice says what happened (``name`` says what it is)."""
    if app.is_web:
        download(app, text, file_name=file_name, mime_type=mime_type, name=name)
        app.notify(f"{name}: {file_name} sent to the browser as a download", markup=False)
        return
    path = directory / file_name
    try:
        directory.mkdir(parents=True, exist_ok=True)
        path = unused_path(directory, file_name)
        with path.open("x", encoding="utf-8") as handle:  # never over an earlier file
            handle.write(text)
    except OSError as exc:
        app.notify(f"could not write {path}: {exc.strerror or exc}", severity="error", markup=False)
        return
    app.notify(f"wrote {path}", markup=False)


def download(app: App[Any], text: str, *, file_name: str, mime_type: str, name: str) -> str | None:
    """Send ``text`` to the browser as a download named ``file_name``; the delivery key.

    Textual posts ``DeliveryComplete`` (or ``DeliveryFailed``) with ``name`` once the
    browser has fetched it (or it failed).
    """
    return app.deliver_text(
        io.StringIO(text),
        save_filename=file_name,
        open_method="download",
        mime_type=mime_type,
        name=name,
    )


async def copy_text(app: App[Any], text: str, what: str) -> None:
    """Copy ``text`` everywhere it can go, then say where it went.

    In a browser: its clipboard (which allows it on https and on localhost only). In a
    terminal: the OSC 52 request, plus every local clipboard tool found (the tmux buffer
    inside tmux), and a notice that names each place, or says that the request may have
    been dropped and how to let it through (:mod:`envtui.tui.clipboard`).
    """
    app.copy_to_clipboard(text)
    if app.is_web:
        app.notify(f"copied {what} to the browser's clipboard", markup=False)
        return
    tools = local_tools()
    took = [tool.name for tool in tools if await run_tool(tool, text)]
    setting = await tmux_clipboard()
    app.notify(copy_notice(what, took=took, tmux_setting=setting), markup=False)


def screenshot_file_name(now: datetime) -> str:
    """``envtui-screenshot-2026-01-31T09_05_07.svg``: sortable, and valid on every system."""
    return f"envtui-screenshot-{now:%Y-%m-%dT%H_%M_%S}.svg"
