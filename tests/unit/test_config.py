"""The TOML config: schema, lookup, and one clear line (file, line, key) for each mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from envtui.cli import main
from envtui.settings.config import (
    ConfigError,
    ExecServerEnvironmentConfig,
    LocalEnvironmentConfig,
    SshEnvironmentConfig,
    load_config,
    locate_config,
    parse_config,
)
from envtui.vocabulary.profiles import Profile

FULL = """\
timezone = "Europe/Berlin"
profile = "codex-0.150"

[network]
allowed = ["api.example.com"]
denied = ["blocked.example.com"]

[[environments]]
id = "local"
kind = "local"
cwd = "/srv/repo"

[[environments]]
id = "build"
kind = "ssh"
cwd = "/srv/repo"
workspace_roots = ["/srv/repo"]
host = "build.example.com"
port = 2222
user = "ci"
identity_files = ["~/.ssh/id_ed25519"]
known_hosts = "~/.ssh/known_hosts"
accept_new_host_keys = false
connect_timeout = 10
keepalive_interval = 5

[[environments]]
id = "codex-remote"
kind = "exec-server"
cwd = "/home/me/repo"
program = "codex"
args = ["exec-server", "--listen", "stdio"]
"""

ONE_SSH = '[[environments]]\nid = "build"\nkind = "ssh"\ncwd = "/r"\nhost = "h"\n'


def test_full_example_parses() -> None:
    config = parse_config(FULL, "c.toml")
    assert config.codex_profile is Profile.CODEX_0150
    assert config.timezone == "Europe/Berlin"
    assert config.network is not None
    assert config.network.allowed == ["api.example.com"]
    local, build, remote = config.environments
    assert isinstance(local, LocalEnvironmentConfig)
    assert isinstance(build, SshEnvironmentConfig)
    assert isinstance(remote, ExecServerEnvironmentConfig)
    assert (build.port, build.user, build.known_hosts_files()) == (
        2222,
        "ci",
        ("~/.ssh/known_hosts",),
    )


def test_ssh_defaults_leave_connection_keys_unset() -> None:
    (build,) = parse_config(ONE_SSH).environments
    assert isinstance(build, SshEnvironmentConfig)
    assert (build.port, build.user, build.identity_files, build.known_hosts) == (
        None,
        None,
        None,
        None,
    )
    assert (build.connect_timeout, build.keepalive_interval, build.keepalive_count_max) == (
        10,
        5,
        3,
    )
    assert (build.backoff_initial, build.backoff_max) == (1, 60)


def test_no_environments_means_one_local_in_the_current_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    (only,) = parse_config("").selected()
    assert (only.id, only.kind, only.cwd) == ("local", "local", str(tmp_path))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (ONE_SSH + "colour = 1\n", "c.toml:6: environments[0].colour: unknown key"),
        (
            '[[environments]]\nid = "a"\nkind = "local"\ncwd = "/r"\nhost = "h"\n',
            "c.toml:5: environments[0].host: unknown key",
        ),
        (
            ONE_SSH + 'port = "22"\n',
            "c.toml:6: environments[0].port: Input should be a valid integer",
        ),
        (
            ONE_SSH + "accept_new_host_keys = 1\n",
            "c.toml:6: environments[0].accept_new_host_keys: Input should be a valid boolean",
        ),
        (ONE_SSH + ONE_SSH, "c.toml:7: environments[1].id: duplicate environment id 'build'"),
        (
            ONE_SSH.replace('"build"', '"local"'),
            "c.toml:2: environments[0].id: 'local' is reserved for kind = \"local\"",
        ),
        (
            ONE_SSH.replace('"build"', '""'),
            "c.toml:2: environments[0].id: must be 1 to 64 ASCII letters, digits, - or _",
        ),
        (
            ONE_SSH.replace('"build"', '"' + "x" * 65 + '"'),
            "c.toml:2: environments[0].id: must be 1 to 64 ASCII letters, digits, - or _",
        ),
        (
            ONE_SSH.replace('kind = "ssh"\n', ""),
            "c.toml:1: environments[0].kind: missing; one of local, ssh, exec-server",
        ),
        (
            ONE_SSH.replace('host = "h"\n', ""),
            "c.toml:1: environments[0].host: required key is missing",
        ),
        (
            ONE_SSH + "backoff_max = 0.5\n",
            "c.toml:1: environments[0]: backoff_max must not be smaller than backoff_initial",
        ),
        (
            'profile = "codex-9"\n',
            "c.toml:1: profile: Input should be 'codex-0.171' or 'codex-0.150'",
        ),
        ('timezone = "Mars/Base"\n', "c.toml:1: timezone: unknown IANA time zone 'Mars/Base'"),
        ("x = = 1\n", "c.toml:1: invalid TOML: Invalid value"),
        (
            '[[environments]]\nid = "x"\nkind = "exec-server"\ncwd = "/r"\nprogram = "c"\nport = 22\n',
            "c.toml:6: environments[0].port: only taken when the exec-server runs on a host (set host)",
        ),
        # every wait has a bound, and a time computed from it stays in range
        (
            ONE_SSH + "backoff_initial = inf\n",
            "c.toml:6: environments[0].backoff_initial: Input should be a finite number",
        ),
        (
            ONE_SSH + "backoff_max = 1e300\n",
            "c.toml:6: environments[0].backoff_max: Input should be less than or equal to 86400",
        ),
        (
            ONE_SSH + "connect_timeout = inf\n",
            "c.toml:6: environments[0].connect_timeout: Input should be a finite number",
        ),
        (
            ONE_SSH + "keepalive_interval = nan\n",
            "c.toml:6: environments[0].keepalive_interval: Input should be a finite number",
        ),
        (
            "step_interval = 86401\n",
            "c.toml:1: step_interval: Input should be less than or equal to 86400",
        ),
        ("a = " + "[" * 50_000 + "]" * 50_000 + "\n", "c.toml: invalid TOML: nested too deeply"),
        (
            "port = " + "1" * 5000 + "\n",
            "c.toml: invalid TOML: Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits; use sys.set_int_max_str_digits() to increase the limit",
        ),
        (
            ONE_SSH.replace('cwd = "/r"', 'cwd = "file://[x/foo"'),
            "c.toml:4: environments[0].cwd: not a valid file URI: Invalid IPv6 URL",
        ),
        (
            '[[environments]]\nid = "x"\nkind = "exec-server"\ncwd = "/r"\nurl = "ws://[::1"\n',
            "c.toml:5: environments[0].url: not a valid url: Invalid IPv6 URL",
        ),
        (
            '[[environments]]\nid = "x"\nkind = "exec-server"\ncwd = "/r"\nurl = "ws://h:99999"\n',
            "c.toml:5: environments[0].url: not a valid url: Port out of range 0-65535",
        ),
        (
            '[[environments]]\nid = "x"\nkind = "exec-server"\ncwd = "/r"\nurl = "ws://:80"\n',
            "c.toml:5: environments[0].url: has no host",
        ),
        (
            'keymap = { pause = "\\u001b]2;x\\u0007" }\n',
            "c.toml:1: keymap.pause: must not contain control or invisible characters",
        ),
        (
            'theme = "a\\u202eb"\n',
            "c.toml:1: theme: must not contain control or invisible characters",
        ),
    ],
)
def test_bad_config_is_one_line_with_file_line_and_key(text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "c.toml")
    assert str(caught.value) == expected


@pytest.mark.parametrize("command", ["snapshot", "events"])
def test_bad_config_exits_2_with_one_line(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.toml"
    path.write_text(ONE_SSH + "colour = 1\n")
    assert main([command, "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"envtui {command}: error: {path}:6: environments[0].colour: unknown key\n"


def test_missing_config_named_on_the_command_line_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["snapshot", "--config", str(tmp_path / "none.toml")]) == 2
    assert (
        capsys.readouterr().err
        == f"envtui snapshot: error: {tmp_path / 'none.toml'}: config file does not exist\n"
    )


def test_config_lookup_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    default = tmp_path / "xdg" / "envtui" / "config.toml"
    default.parent.mkdir(parents=True)
    default.write_text("")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("ENVTUI_CONFIG", str(tmp_path / "env.toml"))
    assert locate_config("cli.toml").path == Path("cli.toml")
    assert locate_config(None).path == tmp_path / "env.toml"
    monkeypatch.delenv("ENVTUI_CONFIG")
    assert locate_config(None).path == default
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty"))
    assert locate_config(None).path is None


def test_envtui_config_variable_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "c.toml"
    path.write_text('profile = "codex-0.150"\n')
    monkeypatch.setenv("ENVTUI_CONFIG", str(path))
    assert load_config(None).codex_profile is Profile.CODEX_0150


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '[[environments]]\nid = "x"\nkind = "exec-server"\ncwd = "/r"\n',
            "c.toml:1: environments[0]: an exec-server needs exactly one of program and url",
        ),
        (
            '[[environments]]\nid = "x"\nkind = "exec-server"\ncwd = "/r"\nurl = "ws://h:1"\nargs = ["a"]\n',
            "c.toml:6: environments[0].args: only taken with program, not with url",
        ),
        (
            '[[environments]]\nid = "x"\nkind = "exec-server"\ncwd = "/r"\nurl = "http://h"\n',
            "c.toml:5: environments[0].url: must be ws:// or wss:// followed by a host, without spaces",
        ),
    ],
)
def test_exec_server_config_rules(text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "c.toml")
    assert str(caught.value) == expected


def test_exec_server_url_takes_a_connect_timeout() -> None:
    (env,) = parse_config(
        '[[environments]]\nid = "x"\nkind = "exec-server"\ncwd = "/r"\nurl = "ws://h:1"\nconnect_timeout = 3\n'
    ).environments
    assert isinstance(env, ExecServerEnvironmentConfig)
    assert env.connect_timeout == 3


def test_a_default_config_that_is_not_a_regular_file_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    folder = tmp_path / "envtui"
    folder.mkdir()
    os.mkfifo(folder / "config.toml")  # found, not named: must not block every command
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    with pytest.raises(ConfigError, match=r"config\.toml: not a regular file"):
        load_config()
