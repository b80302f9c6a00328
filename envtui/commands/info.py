"""``envtui info``: the version, the profile, and every path envtui reads or writes.

Nothing about where envtui keeps things should have to be guessed: which config it would
load and why, where themes, exports and screenshots, the remembered state and the debug log
go, which codex it would start, and which known_hosts files vouch for SSH hosts, each with
whether it exists. A file that looks like a config but is not where envtui looks is named
too. It never fails on a broken config: the error is one of the things it reports.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from envtui import __version__
from envtui.commands.options import Arg, Command, Group, switch
from envtui.settings.codex_binary import locate_codex
from envtui.settings.locations import (
    DEFAULT_KNOWN_HOSTS,
    default_config_file,
    expand,
    export_dir,
    log_file,
    lookalike_configs,
    theme_dir,
    ui_state_file,
)
from envtui.vocabulary.profiles import DEFAULT_PROFILE
from envtui.vocabulary.safe_text import dumps_json_line, for_terminal

if TYPE_CHECKING:  # the config and theme models load when the command runs, not for --help
    from envtui.settings.config import Config

COMMAND = "info"


INFO = Command(
    COMMAND,
    description="Print envtui's version, the Codex profile in force, and every path it "
    "reads or writes (config, themes, exports and screenshots, state, debug log, the codex "
    "binary, known_hosts files), each with whether it exists. Always exits 0.",
    options=Group(
        Arg(
            "--config",
            metavar="FILE",
            help="report on this config instead of the one envtui would find",
        ),
        switch("--json", "print one JSON object instead"),
    ),
)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    INFO.add_to(subparsers, handler=run)


@dataclass(frozen=True)
class Entry:
    """One thing envtui reads or writes."""

    name: str
    path: str | None
    exists: bool | None
    note: str


def _entry(name: str, path: Path | None, note: str) -> Entry:
    return Entry(name, str(path) if path else None, path.exists() if path else None, note)


def _known_hosts(config: Config | None) -> list[Entry]:
    from envtui.settings.config import ExecServerEnvironmentConfig, SshEnvironmentConfig

    users: dict[str, list[str]] = {}
    for env in config.selected() if config is not None else []:
        if isinstance(env, SshEnvironmentConfig | ExecServerEnvironmentConfig) and env.host:
            for file in env.known_hosts_files() or (DEFAULT_KNOWN_HOSTS,):
                users.setdefault(file, []).append(env.id)
    users.setdefault(DEFAULT_KNOWN_HOSTS, [])
    return [
        _entry(
            "known_hosts",
            expand(file),
            f"for {', '.join(ids)}" if ids else "the default for SSH hosts and --ssh",
        )
        for file, ids in users.items()
    ]


def collect(config_flag: str | None = None) -> tuple[list[Entry], list[str], dict[str, Any]]:
    """What ``info`` reports: the entries, notes, and the header facts."""
    from envtui.settings.config import ConfigError, load_config, locate_config
    from envtui.settings.theme_files import builtin_theme_dir

    notes: list[str] = []
    source = locate_config(config_flag)
    config: Config | None = None
    try:
        config = load_config(config_flag)
    except ConfigError as exc:
        notes.append(f"the config does not load: {exc}")
    profile = (config.codex_profile if config is not None else DEFAULT_PROFILE).value
    config_note = f"chosen by {source.reason}" if source.path else source.reason
    if source.path is None:
        config_note += "; without one envtui watches one local environment in the current directory"
    codex = locate_codex()
    entries = [
        _entry("config", source.path or default_config_file(), config_note),
        _entry("themes", theme_dir(), f"your themes (*.toml); built-in: {builtin_theme_dir()}"),
        _entry(
            "exports",
            export_dir(),
            "where `e` writes a step and the palette its screenshot; --export-dir replaces it",
        ),
        _entry("state", ui_state_file(), "what the dashboard remembers (the theme)"),
        _entry("debug log", log_file(), "written with --debug; --log-file replaces it"),
        Entry("recordings", None, None, "where --record FILE says; never overwritten silently"),
        _entry(
            "codex",
            codex.path,
            f"found by {codex.source}" if codex.path else (codex.problem or "not found"),
        ),
        *_known_hosts(config),
    ]
    notes += [
        f"{path} looks like a config file, but envtui reads {source.path or 'config.toml'}"
        for path in lookalike_configs()
        if path != source.path
    ]
    header = {"version": __version__, "python": sys.version.split()[0], "profile": profile}
    return entries, notes, header


def format_text(entries: list[Entry], notes: list[str], header: dict[str, Any]) -> str:
    width = max(len(e.name) for e in entries) + 1
    lines = [
        f"envtui {header['version']} (Python {header['python']})",
        f"{'profile':<{width}} {header['profile']}"
        + (" (the default)" if header["profile"] == DEFAULT_PROFILE.value else ""),
    ]
    for entry in entries:
        state = "" if entry.exists is None else (" [exists]" if entry.exists else " [missing]")
        lines.append(f"{entry.name + ':':<{width}} {entry.path or '-'}{state}")
        lines.append(f"{'':<{width}}   {entry.note}")
    lines += [f"note: {note}" for note in notes]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    entries, notes, header = collect(args.config)
    if args.json:
        data = {
            **header,
            "paths": [vars(e) for e in entries],
            "notes": notes,
        }
        sys.stdout.write(dumps_json_line(data) + "\n")
        return 0
    text = format_text(entries, notes, header)
    sys.stdout.write(for_terminal(text) if sys.stdout.isatty() else text)
    return 0
