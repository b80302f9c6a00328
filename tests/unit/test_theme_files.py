"""Theme files: the built-in one validates, broken ones are reported, not raised."""

from __future__ import annotations

from pathlib import Path

import pytest

from envtui.settings.theme_files import (
    builtin_theme_dir,
    load_theme_file,
    load_themes,
    user_theme_dir,
)

GOOD = """
name = "mine"
primary = "#112233"
[variables]
status-ready = "#00ff00"
status-starting = "#ffff00"
status-unavailable = "#ff0000"
status-primary = "#0000ff"
"""


def test_builtin_themes_validate() -> None:
    themes, problems = load_themes(builtin_theme_dir())
    assert problems == []
    assert {theme.name for theme in themes} == {
        "envtui-dark",
        "envtui-light",
        "envtui-high-contrast",
        "envtui-okabe-ito",
    }


def test_user_theme_dir_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert user_theme_dir() == tmp_path / "envtui" / "themes"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("name = ", "Invalid value"),
        ('name = "x"\nprimary = "red"', "primary: String should match pattern"),
        ('sparkle = "#000000"\n' + GOOD, "sparkle: Extra inputs are not permitted"),
        ("a = " + "[" * 50_000 + "]" * 50_000, "nested too deeply"),
        ("a = " + "9" * 5000, "Exceeds the limit (4300 digits)"),
        (
            GOOD + '"x\\u001b]2;THEME-TITLE\\u0007" = "#000000"\n',
            "variables.x\x1b]2;THEME-TITLE\x07.[key]: String should match pattern",
        ),
    ],
)
def test_broken_theme_is_a_problem_naming_file_and_key(
    tmp_path: Path, content: str, reason: str
) -> None:
    (tmp_path / "good.toml").write_text(GOOD, encoding="utf-8")
    broken = tmp_path / "broken.toml"
    broken.write_text(content, encoding="utf-8")
    themes, problems = load_themes(tmp_path)
    assert [theme.name for theme in themes] == ["mine"]
    assert len(problems) == 1
    assert problems[0].path == broken
    assert str(broken) in problems[0].reason
    assert reason in problems[0].reason


def test_a_theme_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_bytes(b'name = "\xff"')
    with pytest.raises(ValueError, match=r"t\.toml"):
        load_theme_file(path)


def test_special_files_are_problems_and_never_read(tmp_path: Path) -> None:
    import os

    (tmp_path / "good.toml").write_text(GOOD, encoding="utf-8")
    os.mkfifo(tmp_path / "fifo.toml")  # reading it would wait for a writer for ever
    (tmp_path / "dir.toml").mkdir()
    (tmp_path / "loop.toml").symlink_to(tmp_path / "loop.toml")
    themes, problems = load_themes(tmp_path)
    assert [theme.name for theme in themes] == ["mine"]
    assert sorted(p.reason.removeprefix(str(tmp_path) + "/") for p in problems) == [
        "dir.toml: not a regular file",
        "fifo.toml: not a regular file",
        "loop.toml: cannot read: Too many levels of symbolic links",
    ]


def test_a_user_theme_may_leave_out_the_status_variables(tmp_path: Path) -> None:
    (tmp_path / "plain.toml").write_text(
        GOOD.replace('status-ready = "#00ff00"\n', ""), encoding="utf-8"
    )
    themes, problems = load_themes(tmp_path)
    assert problems == []
    assert [t.name for t in themes] == ["mine"]
    assert themes[0].missing_variables() == ["status-ready"]


def test_every_built_in_theme_sets_its_status_colours() -> None:
    themes, problems = load_themes(builtin_theme_dir())
    assert problems == []
    assert all(theme.missing_variables() == [] for theme in themes)
