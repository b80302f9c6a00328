"""``envtui serve``: what it checks before it serves, and the command line it serves.

Serving itself, in a real Chromium, is in ``tests/integration/test_serve_browser.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

from tests.support.main_in_process import run_cli

from envtui.commands.serve.command import (
    REMOTE_WARNING,
    address_lines,
    check_address,
    check_dashboard,
    dashboard_arguments,
    public_url,
    remote_warning,
)
from envtui.commands.serve.hosted_tabs import host_command
from envtui.commands.serve.shared_source import shared_for


def _address(
    host: str, *, allow_remote: bool = False, url: str | None = None
) -> argparse.Namespace:
    return argparse.Namespace(
        host=host, port=8000, allow_remote=allow_remote, public_url=url, max_sessions=8
    )


def test_the_dashboard_arguments_follow_the_double_dash_and_default_to_the_demo() -> None:
    assert dashboard_arguments(["--", "watch", "--config", "f.toml"]) == [
        "watch",
        "--config",
        "f.toml",
    ]
    assert dashboard_arguments(["replay", "run.jsonl"]) == ["replay", "run.jsonl"]
    assert dashboard_arguments([]) == ["demo"]
    assert dashboard_arguments(["--"]) == ["demo"]


def test_the_tab_host_runs_this_python_with_its_socket_and_every_argument_as_given() -> None:
    command = host_command(7, ["replay", "my run; rm -rf ~.jsonl", "--speed", "0"])
    assert command == [
        sys.executable, "-m", "envtui.commands.serve.tab_process", "--listen-fd", "7", "--",
        "replay", "my run; rm -rf ~.jsonl", "--speed", "0",
    ]  # fmt: skip


def test_a_typo_in_the_dashboard_arguments_fails_at_once_with_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        run_cli(["serve", "--", "wtach"], capsys)
    assert exited.value.code == 2
    assert (
        "envtui serve --: error: argument COMMAND: invalid choice: 'wtach'"
        in capsys.readouterr().err
    )


def test_a_command_that_is_not_a_dashboard_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        run_cli(["serve", "--", "render", "state.json"], capsys)
    assert exited.value.code == 2


def test_recording_is_refused_since_every_tab_would_rewrite_the_file(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run_cli(["serve", "--", "demo", "--record", "run.jsonl"], capsys)
    assert code == 2
    assert err.startswith("envtui serve: error: --record: every browser tab would rewrite")


def test_a_missing_replay_file_fails_before_serving(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["serve", "--", "replay", "no-such.jsonl"], capsys)
    assert (code, out, err) == (2, "", "envtui replay: error: no-such.jsonl: no such file\n")


def test_loopback_needs_no_permission_and_no_warning() -> None:
    for host in ("127.0.0.1", "127.0.0.2", "localhost", "::1"):
        assert check_address(_address(host)) == 0
        assert remote_warning(_address(host)) is None


def test_another_address_needs_allow_remote(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_address(_address("my-host.example")) == 2
    capsys.readouterr()
    code, _, err = run_cli(["serve", "--host", "192.0.2.7"], capsys)
    assert code == 2
    assert err == (
        "envtui serve: error: --host 192.0.2.7 is reachable from other machines; pass "
        "--allow-remote to serve it anyway (behind an SSH tunnel or a TLS proxy)\n"
    )


def test_allow_remote_is_warned_that_plain_http_crosses_the_network_readable() -> None:
    address = _address("192.0.2.7", allow_remote=True)
    assert check_address(address) == 0
    assert remote_warning(address) == REMOTE_WARNING.format(url="http://192.0.2.7:8000")
    assert "SSH tunnel" in REMOTE_WARNING
    assert "TLS" in REMOTE_WARNING


def test_listening_everywhere_needs_the_public_url_browsers_use(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert check_address(_address("0.0.0.0", allow_remote=True)) == 2
    assert "pass --public-url URL" in capsys.readouterr().err
    address = _address("0.0.0.0", allow_remote=True, url="https://dash.example")
    assert check_address(address) == 0
    assert "https://dash.example is reachable" in (remote_warning(address) or "")


def test_a_port_out_of_range_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["serve", "--port", "70000"], capsys)
    assert (code, err) == (2, "envtui serve: error: --port 70000: not a port (1-65535)\n")


def test_an_ipv6_address_is_bracketed_in_the_url() -> None:
    assert public_url("::1", 8000) == "http://[::1]:8000"
    assert public_url("127.0.0.1", 80) == "http://127.0.0.1:80"


def test_a_missing_textual_serve_is_one_clear_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)  # any import of it fails
    monkeypatch.delitem(sys.modules, "envtui.commands.serve.web_server", raising=False)
    code, out, err = run_cli(["serve"], capsys)
    assert (code, out) == (1, "")
    assert err.startswith("envtui serve: error: textual-serve cannot be loaded (")
    assert err.endswith("); reinstall envtui to bring it back\n")
    assert err.count("\n") == 1


def test_max_sessions_below_one_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["serve", "--max-sessions", "0"], capsys)
    assert (code, err) == (2, "envtui serve: error: --max-sessions 0: must be 1 or more\n")


def test_a_missing_or_empty_token_file_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "no-such-token"
    code, out, err = run_cli(["serve", "--token-file", str(missing)], capsys)
    assert (code, out) == (2, "")
    assert err == f"envtui serve: error: --token-file {missing}: no such file\n"
    empty = tmp_path / "token"
    empty.write_text(" \n\t\n", encoding="utf-8")
    empty.chmod(0o600)
    code, out, err = run_cli(["serve", "--token-file", str(empty)], capsys)
    assert (code, out) == (2, "")
    assert err == f"envtui serve: error: --token-file {empty}: empty (it should hold the token)\n"


def test_a_shared_or_short_token_file_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    token = tmp_path / "token"
    token.write_text("y" * 40 + "\n", encoding="utf-8")
    token.chmod(0o644)
    code, out, err = run_cli(["serve", "--token-file", str(token)], capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"envtui serve: error: --token-file {token}: others may read or change it "
        f"(mode 644); run chmod 600 {token}\n"
    )
    token.chmod(0o600)
    token.write_text("short-18-character", encoding="utf-8")
    code, out, err = run_cli(["serve", "--token-file", str(token)], capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"envtui serve: error: --token-file {token}: the token has 18 characters; use at least 32\n"
    )


def _checked(arguments: list[str]) -> argparse.Namespace:
    checked = check_dashboard(arguments)
    assert isinstance(checked, argparse.Namespace)
    return checked


def test_a_live_command_is_served_as_one_source_that_every_tab_follows(tmp_path: Path) -> None:
    config = tmp_path / "envtui.toml"
    config.write_text('[[environments]]\nid = "local"\nkind = "local"\ncwd = "/"\n')
    arguments = ["watch", "--config", str(config), "--utc", "--theme", "nord"]
    shared = shared_for(_checked(arguments), tmp_path)
    assert shared is not None
    assert shared.tab_arguments() == [
        "replay", str(tmp_path / "events.jsonl"), "--follow", "--speed", "0",
        "--title", "watch", "--config", str(config), "--theme", "nord", "--utc",
    ]  # fmt: skip


def test_a_command_that_reads_a_file_is_served_a_dashboard_per_tab(tmp_path: Path) -> None:
    recording = tmp_path / "run.jsonl"
    recording.write_text("")
    assert shared_for(_checked(["replay", str(recording)]), tmp_path) is None
    demo = shared_for(_checked(["demo"]), tmp_path)
    assert demo is not None
    assert demo.title == "demo"


def test_the_address_is_printed_alone_on_its_own_line() -> None:
    """Nothing glued to the token: a double click or a script takes the line whole."""
    url = "http://127.0.0.1:8000/?token=abc-DEF_123"
    lines = address_lines("envtui demo", url, 8, shared=object()).split("\n")
    assert lines == [
        "envtui serve: envtui demo, a dashboard per tab, at most 8 on one shared source "
        "(Ctrl+C stops them all); open:",
        url,
    ]
    assert address_lines("envtui replay x", url, 2, shared=None).split("\n")[1] == url
