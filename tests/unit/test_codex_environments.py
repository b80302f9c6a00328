"""Codex's environments.toml: one test per validation rule, selection order, the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from envtui.cli import main
from envtui.settings.codex_environments import (
    codex_environment_configs,
    parse_codex_environments,
    selection_order,
)
from envtui.settings.config import ConfigError, ExecServerEnvironmentConfig

WS = '[[environments]]\nid = "devbox"\nurl = "ws://127.0.0.1:8765"\n'
STDIO = '[[environments]]\nid = "ssh-dev"\nprogram = "ssh"\nargs = ["dev", "codex exec-server --listen stdio"]\n'


def _order(text: str) -> list[str]:
    return selection_order(parse_codex_environments(text))


def test_default_first_then_local_then_the_rest_in_file_order() -> None:
    assert _order('default = "ssh-dev"\n' + WS + STDIO) == ["ssh-dev", "local", "devbox"]


def test_no_default_selects_local_first() -> None:
    assert _order(WS + STDIO) == ["local", "devbox", "ssh-dev"]


def test_include_local_false_leaves_local_out() -> None:
    assert _order('default = "devbox"\ninclude_local = false\n' + WS + STDIO) == [
        "devbox",
        "ssh-dev",
    ]


def test_no_default_without_local_selects_nothing() -> None:
    assert _order("include_local = false\n" + WS) == []


@pytest.mark.parametrize("none", ["none", "None", "NONE"])
def test_default_none_in_any_case_selects_nothing(none: str) -> None:
    assert _order(f'default = "{none}"\n' + WS) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (WS + "colour = 1\n", "e.toml:4: environments[0].colour: unknown key"),
        ("verbose = true\n" + WS, "e.toml:1: verbose: unknown key"),
        (WS.replace('"devbox"', '""'), "e.toml:2: environments[0].id: must not be empty"),
        (
            WS.replace('"devbox"', '" devbox"'),
            "e.toml:2: environments[0].id: must not have surrounding whitespace",
        ),
        (
            WS.replace('"devbox"', '"' + "d" * 65 + '"'),
            "e.toml:2: environments[0].id: must be at most 64 characters",
        ),
        (
            WS.replace('"devbox"', '"dev.box"'),
            "e.toml:2: environments[0].id: may only contain ASCII letters, digits, - and _",
        ),
        (WS.replace('"devbox"', '"local"'), "e.toml:2: environments[0].id: 'local' is reserved"),
        (WS.replace('"devbox"', '"NONE"'), "e.toml:2: environments[0].id: 'NONE' is reserved"),
        (WS + WS, "e.toml:5: environments[1].id: duplicate environment id 'devbox'"),
        (
            '[[environments]]\nid = "x"\n',
            "e.toml:1: environments[0]: set exactly one of url and program",
        ),
        (
            WS + 'program = "codex"\n',
            "e.toml:1: environments[0]: set exactly one of url and program",
        ),
        (
            '[[environments]]\nid = "x"\nurl = "http://h"\n',
            "e.toml:3: environments[0].url: must be ws:// or wss:// followed by a host, without spaces",
        ),
        (WS + 'args = ["x"]\n', "e.toml:4: environments[0].args: requires program"),
        (WS + 'cwd = "x"\n', "e.toml:4: environments[0].cwd: requires program"),
        (WS + 'env = { A = "b" }\n', "e.toml:4: environments[0].env: requires program"),
        (
            STDIO + "connect_timeout_sec = 5\n",
            "e.toml:5: environments[0].connect_timeout_sec: requires url",
        ),
        (
            '[[environments]]\nid = "x"\nprogram = "  "\n',
            "e.toml:3: environments[0].program: must not be blank",
        ),
        (
            WS + "initialize_timeout_sec = 0\n",
            "e.toml:4: environments[0].initialize_timeout_sec: Input should be greater than 0",
        ),
        ('default = "ghost"\n' + WS, "e.toml:1: default: 'ghost' is not a configured environment"),
        (
            'default = "local"\ninclude_local = false\n' + WS,
            "e.toml:1: default: names local, but include_local = false leaves it out",
        ),
        ("include_local = 1\n", "e.toml:1: include_local: Input should be a valid boolean"),
        (
            '[[environments]]\nid = "x"\nurl = "ws://"\n',
            "e.toml:3: environments[0].url: must be ws:// or wss:// followed by a host, without spaces",
        ),
        (
            '[[environments]]\nid = "x"\nurl = "ws://a b"\n',
            "e.toml:3: environments[0].url: must be ws:// or wss:// followed by a host, without spaces",
        ),
        (
            '[[environments]]\nid = "x"\nurl = "ws://[::1"\n',
            "e.toml:3: environments[0].url: not a valid url: Invalid IPv6 URL",
        ),
        (
            WS + "initialize_timeout_sec = inf\n",
            "e.toml:4: environments[0].initialize_timeout_sec: Input should be a finite number",
        ),
        (
            "a = " + "{ b = " * 30_000 + "1" + " }" * 30_000 + "\n",
            "e.toml: invalid TOML: nested too deeply",
        ),
    ],
)
def test_each_invalid_case_is_one_clear_line(text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_codex_environments(text, "e.toml")
    assert str(caught.value) == expected


def test_invalid_file_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "environments.toml"
    path.write_text(WS.replace('"devbox"', '"local"'))
    assert main(["snapshot", "--codex-environments", str(path)]) == 2
    assert (
        capsys.readouterr().err
        == f"envtui snapshot: error: {path}:2: environments[0].id: 'local' is reserved\n"
    )


def test_entries_become_exec_server_environments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CODEX_HOME", raising=False)
    path = tmp_path / "environments.toml"
    path.write_text(
        'default = "ssh-dev"\n'
        + WS
        + "connect_timeout_sec = 2.5\ninitialize_timeout_sec = 7\n"
        + STDIO
        + 'cwd = "servers"\nenv = { CODEX_LOG = "debug" }\n'
    )
    ssh_dev, local, devbox = codex_environment_configs(path, thread_cwd="/home/me/repo")
    assert (local.id, local.kind, local.cwd) == ("local", "local", "/home/me/repo")
    assert isinstance(ssh_dev, ExecServerEnvironmentConfig)
    assert isinstance(devbox, ExecServerEnvironmentConfig)
    assert (ssh_dev.program, ssh_dev.args, ssh_dev.env) == (
        "ssh",
        ["dev", "codex exec-server --listen stdio"],
        {"CODEX_LOG": "debug"},
    )
    assert ssh_dev.program_cwd == str(tmp_path / "servers")
    assert ssh_dev.cwd == "/home/me/repo"
    assert (devbox.url, devbox.connect_timeout, devbox.initialize_timeout) == (
        "ws://127.0.0.1:8765",
        2.5,
        7,
    )
