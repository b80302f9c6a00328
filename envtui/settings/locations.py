"""Where envtui reads and writes, in one place: the config, themes, exports, logs, state.

The directories follow each platform's convention through ``platformdirs`` (already
installed with Textual): on Linux ``$XDG_CONFIG_HOME/envtui`` (``~/.config/envtui``) for
what a person writes, ``$XDG_STATE_HOME/envtui`` (``~/.local/state/envtui``) for what envtui
writes and a person may want back (exports and screenshots, the remembered theme, the debug
log). ``envtui info`` prints every one of them, so nobody has to guess.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "envtui"
CONFIG_VARIABLE = "ENVTUI_CONFIG"
"""An environment variable that names the config file, between ``--config`` and the default."""
DEFAULT_KNOWN_HOSTS = "~/.ssh/known_hosts"


def config_dir() -> Path:
    """Where a person keeps envtui's config and themes."""
    return Path(platformdirs.user_config_dir(APP, appauthor=False))


def default_config_file() -> Path:
    return config_dir() / "config.toml"


def theme_dir() -> Path:
    """User themes: every ``*.toml`` here is loaded after the built-in ones."""
    return config_dir() / "themes"


def state_dir() -> Path:
    """What envtui writes for a person to find later."""
    return Path(platformdirs.user_state_dir(APP, appauthor=False))


def export_dir() -> Path:
    """Where ``e`` writes a step's export and the palette its screenshot (``--export-dir``
    replaces it)."""
    return state_dir() / "exports"


def ui_state_file() -> Path:
    """What the dashboard remembers between runs (the chosen theme)."""
    return state_dir() / "dashboard.json"


def log_file() -> Path:
    """The debug log's default place (``--debug``; ``--log-file`` replaces it)."""
    return Path(platformdirs.user_log_dir(APP, appauthor=False)) / "envtui.log"


def lookalike_configs(directory: Path | None = None) -> list[Path]:
    """Files near the config that look meant as one, but that envtui does not read.

    ``envtui.toml`` beside ``config.toml``, or a ``config.toml`` misspelt: a person who put
    their settings there would otherwise wonder why nothing changed.
    """
    folder = directory or config_dir()
    if not folder.is_dir():
        return []
    expected = default_config_file().name
    found = []
    for path in sorted(folder.iterdir()):
        name = path.name.lower()
        if path.name == expected or not path.is_file():
            continue
        if name.endswith((".toml", ".tml", ".conf", ".cfg")) or name.startswith("config"):
            found.append(path)
    return found


def expand(path: str) -> Path:
    """A path as a person wrote it: ``~`` and ``$VARIABLES`` expanded."""
    return Path(os.path.expandvars(path)).expanduser()
