"""Theme files: TOML data validated with pydantic, with no Textual import.

Built-in themes live in the ``themes/`` folder of the source tree, which the wheel ships
as ``envtui/themes``; user themes come from ``$XDG_CONFIG_HOME/envtui/themes``. The
dashboard turns a :class:`ThemeFile` into a Textual theme; everything here stays headless
so a broken file becomes a notice, and the core never pays for Textual.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from envtui.settings.locations import theme_dir
from envtui.vocabulary.limits import load_toml, read_text_bounded
from envtui.vocabulary.validation import first_error

Colour = Annotated[str, StringConstraints(pattern=r"^#[0-9a-fA-F]{6}$")]
VariableName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]*$")]

REQUIRED_VARIABLES = ("status-ready", "status-starting", "status-unavailable", "status-primary")
"""Status colours are theme variables, so a colour-blind or high-contrast theme sets them."""

_PACKAGED_DIR = Path(__file__).parent.parent / "themes"
_SOURCE_DIR = Path(__file__).parent.parent.parent / "themes"


class ThemeFile(BaseModel):
    """One theme as written in a ``.toml`` file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]*$")]
    dark: bool = True
    primary: Colour
    secondary: Colour | None = None
    accent: Colour | None = None
    foreground: Colour | None = None
    background: Colour | None = None
    surface: Colour | None = None
    panel: Colour | None = None
    success: Colour | None = None
    warning: Colour | None = None
    error: Colour | None = None
    variables: dict[VariableName, Colour] = Field(default_factory=dict)

    def missing_variables(self) -> list[str]:
        """The status variables the file leaves out: the dashboard derives them from the
        theme's success, warning, error and primary colours."""
        return [name for name in REQUIRED_VARIABLES if name not in self.variables]


@dataclass(frozen=True)
class ThemeProblem:
    """A theme file that could not be used, and why, for one notice listing them all."""

    path: Path
    reason: str


def builtin_theme_dir() -> Path:
    """The packaged themes (a wheel install), else the source tree's ``themes/``."""
    return _PACKAGED_DIR if _PACKAGED_DIR.is_dir() else _SOURCE_DIR


def user_theme_dir() -> Path:
    """``$XDG_CONFIG_HOME/envtui/themes`` on Linux (see :mod:`envtui.settings.locations`)."""
    return theme_dir()


def _read_toml(path: Path) -> dict[str, Any]:
    """The TOML data of a regular file, bounded; ValueError says what is wrong with it."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a FIFO would block the dashboard's start
            raise ValueError("not a regular file")
        return load_toml(read_text_bounded(path))
    except OSError as exc:
        raise ValueError(f"cannot read: {exc.strerror or exc}") from None


def load_theme_file(path: Path) -> ThemeFile:
    """Parse and validate one theme file; raise ValueError naming the file and the key."""
    try:
        data = _read_toml(path)
    except ValueError as exc:  # the kind of file, TOML, UTF-8, size or nesting
        raise ValueError(f"{path}: {exc}") from None
    try:
        theme = ThemeFile.model_validate(data)
    except ValidationError as exc:
        error = first_error(exc)
        raise ValueError(f"{path}: {error.key or '(file)'}: {error.message}") from None
    return theme


def load_themes(*directories: Path) -> tuple[list[ThemeFile], list[ThemeProblem]]:
    """Every ``*.toml`` theme in ``directories``, in order; later names replace earlier ones."""
    themes: dict[str, ThemeFile] = {}
    problems: list[ThemeProblem] = []
    for directory in directories:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.toml")):
            try:
                theme = load_theme_file(path)
            except ValueError as exc:
                problems.append(ThemeProblem(path=path, reason=str(exc)))
                continue
            themes[theme.name] = theme
    return list(themes.values()), problems
