"""known_hosts is parsed once per change of the files, not once per connection."""

from __future__ import annotations

from pathlib import Path

import asyncssh
import pytest

from envtui.environments.ssh import KnownHostsCache


def line(port: int) -> str:
    key = asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode()
    return f"[127.0.0.1]:{port} {' '.join(key.split()[:2])}\n"


def test_files_are_parsed_again_only_when_they_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: list[list[str]] = []
    read = asyncssh.read_known_hosts

    def counted(paths: list[str]) -> asyncssh.SSHKnownHosts:
        parsed.append(paths)
        return read(paths)

    monkeypatch.setattr(asyncssh, "read_known_hosts", counted)
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text(line(2201))
    cache = KnownHostsCache()
    first = cache.load([known_hosts])
    for _ in range(300):  # a fleet of hosts sharing one file
        assert cache.load([known_hosts]) is first
    assert len(parsed) == 1
    with known_hosts.open("a") as handle:  # an accepted key is appended
        handle.write(line(2202))
    second = cache.load([known_hosts])
    assert second is not first
    assert second.match("[127.0.0.1]:2202", "", None)[0]
    assert len(parsed) == 2
