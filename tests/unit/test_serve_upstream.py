"""The parts of textual-serve that ``envtui serve`` builds on, held to the signatures it
uses: a release that renames or reshapes one fails here, by name, instead of serving a
page that cannot start a dashboard (pyproject.toml pins textual-serve below 2 for this)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager
from textual_serve.server import Server


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


def test_the_dashboard_process_is_started_driven_and_stopped_as_envtui_does() -> None:
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
        "set_terminal_size": ["width", "height"],
        "blur": [],
        "focus": [],
    }
    for name, arguments in methods.items():
        method = getattr(AppService, name)
        assert inspect.iscoroutinefunction(method), f"AppService.{name} is no longer a coroutine"
        assert [n for n, _ in _parameters(method)] == ["self", *arguments], name
