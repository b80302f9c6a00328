"""envtui's theme files turned into Textual themes."""

from __future__ import annotations

from textual.theme import Theme

from envtui.settings.theme_files import (
    REQUIRED_VARIABLES,
    ThemeFile,
    ThemeProblem,
    builtin_theme_dir,
    load_themes,
    user_theme_dir,
)

DEFAULT_THEME = "envtui-dark"
STATUS_VARIABLES = REQUIRED_VARIABLES
"""The variables the CSS uses are the ones every theme file must set: one list, not two."""


def to_textual(theme: ThemeFile) -> Theme:
    fields = theme.model_dump(exclude={"variables"}, exclude_none=True)
    return Theme(**fields, variables=dict(theme.variables))


def available_themes() -> tuple[list[Theme], list[ThemeProblem]]:
    """The built-in themes, then the user's (which may replace a built-in one by name)."""
    files, problems = load_themes(builtin_theme_dir(), user_theme_dir())
    return [to_textual(theme) for theme in files], problems
