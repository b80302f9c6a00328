"""``envtui info``: every path envtui reads or writes, whether it exists, and why."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.files import ROOT
from tests.support.main_in_process import run_cli

from envtui.commands.info import collect


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of its own, with XDG folders inside it and no codex to be found."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.delenv("ENVTUI_CODEX", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _paths(out: str) -> dict[str, tuple[str, str]]:
    """``name: path [exists|missing]`` lines as name → (path, state)."""
    found = {}
    for line in out.splitlines():
        match = re.match(r"^([a-z_ ]+):\s+(\S+)(?: \[(exists|missing)\])?$", line)
        if match:
            found[match.group(1)] = (match.group(2), match.group(3) or "")
    return found


def test_info_names_every_place_and_whether_it_exists(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (home / "state" / "envtui" / "exports").mkdir(parents=True)
    code, out, err = run_cli(["info"], capsys)
    assert (code, err) == (0, "")
    paths = _paths(out)
    assert paths["config"] == (str(home / "config" / "envtui" / "config.toml"), "missing")
    assert paths["themes"] == (str(home / "config" / "envtui" / "themes"), "missing")
    assert paths["exports"] == (str(home / "state" / "envtui" / "exports"), "exists")
    assert "screenshots" not in paths  # they go with the exports
    assert paths["state"][0] == str(home / "state" / "envtui" / "dashboard.json")
    assert paths["debug log"][0].startswith(str(home / "state" / "envtui"))
    assert paths["known_hosts"] == (str(home / ".ssh" / "known_hosts"), "missing")
    assert paths["codex"] == ("-", "")
    assert "codex not found" in out
    assert "without one envtui watches one local environment" in out


def test_the_config_is_named_with_the_reason_it_was_chosen(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    named = home / "mine.toml"
    named.write_text('profile = "codex-0.150"\n')
    monkeypatch.setenv("ENVTUI_CONFIG", str(named))
    code, out, _ = run_cli(["info"], capsys)
    assert code == 0
    assert _paths(out)["config"] == (str(named), "exists")
    assert "chosen by $ENVTUI_CONFIG" in out
    assert re.search(r"^profile\s+codex-0\.150$", out, re.MULTILINE)
    flagged = home / "flag.toml"
    flagged.write_text("")
    _, out, _ = run_cli(["info", "--config", str(flagged)], capsys)
    assert _paths(out)["config"] == (str(flagged), "exists")
    assert "chosen by --config" in out


def test_a_lookalike_config_where_envtui_does_not_look_is_mentioned(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = home / "config" / "envtui"
    folder.mkdir(parents=True)
    (folder / "envtui.toml").write_text('profile = "codex-0.150"\n')
    _, out, _ = run_cli(["info"], capsys)
    assert f"note: {folder / 'envtui.toml'} looks like a config file" in out


def test_a_broken_config_is_reported_not_fatal(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = home / "broken.toml"
    broken.write_text("colour = 1\n")
    code, out, _ = run_cli(["info", "--config", str(broken)], capsys)
    assert code == 0
    assert f"note: the config does not load: {broken}:1: colour: unknown key" in out


def test_known_hosts_of_configured_hosts_are_listed_with_their_users(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = home / "c.toml"
    hosts = home / "hosts"
    hosts.write_text("")
    config.write_text(
        f'[[environments]]\nid = "box"\nkind = "ssh"\ncwd = "/w"\nhost = "h"\nknown_hosts = "{hosts}"\n'
    )
    _, out, _ = run_cli(["info", "--config", str(config), "--json"], capsys)
    data = json.loads(out)
    known = [p for p in data["paths"] if p["name"] == "known_hosts"]
    assert {"name": "known_hosts", "path": str(hosts), "exists": True, "note": "for box"} in known
    assert any(p["path"] == str(home / ".ssh" / "known_hosts") for p in known)


def test_a_codex_found_on_path_is_named_with_where_it_came_from(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = home / "bin" / "codex"
    binary.parent.mkdir()
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    monkeypatch.setenv("PATH", f"{binary.parent}:/usr/bin:/bin")
    _, out, _ = run_cli(["info"], capsys)
    assert _paths(out)["codex"] == (str(binary), "exists")
    assert "found by PATH" in out


def test_the_locations_page_lists_what_info_prints(home: Path) -> None:
    page = (ROOT / "docs" / "locations.md").read_text(encoding="utf-8")
    section = page.split("# Where envtui keeps things", 1)[1].split("\n## ", 1)[0]
    entries, _, _ = collect(None)
    for name in dict.fromkeys(entry.name for entry in entries):
        assert f"| {name} |" in section, f"docs/locations.md does not say where {name} is"
    listed = re.findall(r"^\| ([a-z_ ]+) \|", section, re.MULTILINE)
    assert set(listed) - {"what"} == {entry.name for entry in entries}
