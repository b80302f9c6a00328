"""``envtui sessions`` over the config's hosts: this machine and a real sshd on 127.0.0.1.

The second host is an OpenSSH server of its own (its port, its host key in a test
known_hosts) whose tree is read over SFTP, as any host's would be.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.data.session_trees import copy_real
from tests.support.main_in_process import Capture, run_cli
from tests.support.real.ssh_servers import SSHD, OpenSshServer, free_port

pytestmark = pytest.mark.skipif(SSHD is None, reason="needs OpenSSH's sshd, which is missing")


@pytest.fixture
def sshd(tmp_path: Path) -> Iterator[OpenSshServer]:
    folder = tmp_path / "sshd"
    folder.mkdir()
    server = OpenSshServer(folder, free_port()).start()
    try:
        asyncio.run(server.accepting(timeout=30.0))
        yield server
    finally:
        server.stop()


def _host(name: str, codex_home: Path, ssh: dict[str, object] | None = None) -> str:
    text = f'[[hosts]]\nname = "{name}"\ncodex_home = "{codex_home}"\n'
    if ssh is not None:
        text += "[hosts.ssh]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in ssh.items())
    return text


def _ssh_keys(server: OpenSshServer, **overrides: object) -> dict[str, object]:
    entry = server.environment("unused", "/")
    keys = {k: v for k, v in entry.items() if k not in ("id", "kind", "cwd")}
    return {**keys, **overrides}


def _rows(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines()]


def test_this_machine_and_an_ssh_host_are_one_table(
    tmp_path: Path, sshd: OpenSshServer, capsys: Capture
) -> None:
    copy_real(tmp_path / "here" / "sessions")
    copy_real(tmp_path / "there" / "sessions")
    config = tmp_path / "config.toml"
    config.write_text(
        _host("here", tmp_path / "here") + _host("there", tmp_path / "there", _ssh_keys(sshd))
    )
    code, out, err = run_cli(["sessions", "--json", "--config", str(config)], capsys)
    assert code == 0, err
    rows = _rows(out)
    assert [r["host"] for r in rows] == ["here"] * 3 + ["there"] * 3
    assert {r["host_state"] for r in rows} == {"connected"}
    here = [r["thread"] for r in rows if r["host"] == "here"]
    there = [r["thread"] for r in rows if r["host"] == "there"]
    assert here == there  # the same rollouts on two hosts: a row on each
    assert all(str(r["path"]).startswith(str(tmp_path / "there")) for r in rows[3:])


def test_an_unreachable_host_is_said_and_the_other_is_unaffected(
    tmp_path: Path, sshd: OpenSshServer, capsys: Capture
) -> None:
    copy_real(tmp_path / "here" / "sessions")
    copy_real(tmp_path / "there" / "sessions")
    nobody = free_port()  # nothing listens there
    config = tmp_path / "config.toml"
    config.write_text(
        _host("here", tmp_path / "here")
        + _host("there", tmp_path / "there", _ssh_keys(sshd))
        + _host("gone", tmp_path / "there", _ssh_keys(sshd, port=nobody, connect_timeout=5.0))
    )
    code, out, err = run_cli(["sessions", "--json", "--config", str(config)], capsys)
    assert code == 1  # a host could not be read
    rows = _rows(out)
    assert [r["host"] for r in rows] == ["here"] * 3 + ["there"] * 3
    assert "gone: " in err
    assert f"127.0.0.1:{nobody}" in err


def test_a_host_key_not_in_known_hosts_is_refused(
    tmp_path: Path, sshd: OpenSshServer, capsys: Capture
) -> None:
    """The same host-key rules as an SSH environment: an unknown key is not accepted."""
    copy_real(tmp_path / "there" / "sessions")
    empty = tmp_path / "empty_known_hosts"
    empty.write_text("")
    config = tmp_path / "config.toml"
    config.write_text(_host("there", tmp_path / "there", _ssh_keys(sshd, known_hosts=str(empty))))
    code, out, err = run_cli(["sessions", "--json", "--config", str(config)], capsys)
    assert code == 1
    assert out == ""
    assert "unknown host key" in err
