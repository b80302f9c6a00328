"""The parts of textual-serve, and the private parts of Textual, that ``envtui serve``
builds on, held to the signatures it uses: a release that renames or reshapes one fails
here, by name, instead of serving a page that cannot start a dashboard (pyproject.toml
pins textual-serve below 2, and Textual below 9, for this)."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual._styles_cache import StylesCache
from textual.color import Color
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager
from textual_serve.server import Server

from envtui.tui.upstream.render_caches import INNER_OUTER, forget_ended_widgets
from envtui.tui.web.web_keys import key_parser


def _parameters(function: Callable[..., Any]) -> list[tuple[str, str]]:
    """(name, kind) of each parameter, ``self`` included."""
    return [(p.name, p.kind.name) for p in inspect.signature(function).parameters.values()]


POSITIONAL = "POSITIONAL_OR_KEYWORD"
KEYWORD = "KEYWORD_ONLY"


def test_the_server_takes_the_arguments_envtui_passes_and_has_the_attributes_it_reads() -> None:
    names = [name for name, _ in _parameters(Server.__init__)]
    assert names[:6] == ["self", "command", "host", "port", "title", "public_url"]
    server = Server("exec true", host="127.0.0.1", port=8000, title="t", public_url="http://x:1")
    assert (server.command, server.host, server.port) == ("exec true", "127.0.0.1", 8000)
    assert (server.title, server.public_url, server.debug) == ("t", "http://x:1", False)
    assert isinstance(server.download_manager, DownloadManager)
    assert (Path(server.templates_path) / "app_index.html").is_file()
    assert (Path(server.statics_path) / "js" / "textual.js").is_file()
    assert callable(server.initialize_logging)


@pytest.mark.parametrize("name", ["handle_index", "handle_download"])
def test_the_page_and_download_handlers_take_one_request(name: str) -> None:
    handler = getattr(Server, name)
    assert inspect.iscoroutinefunction(handler), f"Server.{name} is no longer a coroutine"
    assert _parameters(handler) == [("self", POSITIONAL), ("request", POSITIONAL)]


def test_a_tab_service_is_built_driven_and_told_of_output_as_envtui_does() -> None:
    """``HostedTab`` is an ``AppService`` whose dashboard is in the tab host: it overrides
    the process's start, stop and sends, and keeps textual-serve's handling of output."""
    assert _parameters(AppService.__init__) == [
        ("self", POSITIONAL),
        ("command", POSITIONAL),
        ("write_bytes", KEYWORD),
        ("write_str", KEYWORD),
        ("close", KEYWORD),
        ("download_manager", KEYWORD),
        ("debug", KEYWORD),
    ]
    methods = {
        "start": ["width", "height"],
        "stop": [],
        "send_bytes": ["data"],
        "send_meta": ["data"],
        "set_terminal_size": ["width", "height"],
        "blur": [],
        "focus": [],
        "on_data": ["payload"],
        "on_meta": ["data"],
    }
    for name, arguments in methods.items():
        method = getattr(AppService, name)
        assert inspect.iscoroutinefunction(method), f"AppService.{name} is no longer a coroutine"
        assert [n for n, _ in _parameters(method)] == ["self", *arguments], name
    service = AppService(
        "x",
        write_bytes=_nothing,
        write_str=_nothing,
        close=_nothing,
        download_manager=DownloadManager(),
    )
    assert isinstance(service.app_service_id, str)
    assert service.remote_close is _nothing


def test_the_download_manager_takes_chunks_and_cancels_as_envtui_asks() -> None:
    for name, arguments in {
        "chunk_received": ["delivery_key", "chunk"],
        "cancel_app_downloads": ["app_service_id"],
    }.items():
        method = getattr(DownloadManager, name)
        assert inspect.iscoroutinefunction(method), name
        assert [n for n, _ in _parameters(method)] == ["self", *arguments], name


async def _nothing(*_: object) -> None:
    """A websocket's side that takes anything."""


def test_textuals_private_key_parser_still_turns_browser_input_into_key_events() -> None:
    """The one private part of Textual a served tab reads its keys with
    (``envtui.tui.web.web_keys``): a Textual release that moves or reshapes it fails here."""
    parser = key_parser()
    fed = [event.key for event in parser.feed("a\x1b[A\r") if isinstance(event, events.Key)]
    assert fed == ["a", "up", "enter"]
    assert [event for event in parser.feed("\x1b")] == []  # the start of a key, or escape?
    deadline = time.monotonic() + 60
    ticked: list[str] = []
    while not ticked and time.monotonic() < deadline:  # a pause makes it the escape key
        ticked = [event.key for event in parser.tick() if isinstance(event, events.Key)]
        time.sleep(0.01)  # the poll interval of this bounded wait
    assert ticked == ["escape"]


def test_textuals_cache_of_background_styles_is_still_there_to_be_emptied() -> None:
    """The cache that keeps an ended tab's widgets (``envtui.tui.upstream.render_caches``)."""
    cached = StylesCache.get_inner_outer
    cached(StylesCache(), Color(1, 2, 3), Color(4, 5, 6))
    assert cached.cache_info().currsize > 0
    forget_ended_widgets()
    assert cached.cache_info().currsize == 0


def test_a_reshaped_cache_of_background_styles_is_an_error_not_a_silent_no_op(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(StylesCache, INNER_OUTER, lambda self, base, background: (base, base))
    with pytest.raises(RuntimeError, match="no cached get_inner_outer"):
        forget_ended_widgets()
