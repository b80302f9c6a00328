"""The wheel carries the package, the themes and the licence, and a plain install finds them."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.files import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("hatchling", reason="hatchling (in the test extra) builds the wheel")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("envtui-*.whl")
    return built


def test_wheel_contains_package_themes_and_license(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "envtui/context/render.py" in names
    assert "envtui/themes/envtui-dark.toml" in names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    entry_points = next(name for name in names if name.endswith("entry_points.txt"))
    assert "envtui = envtui.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_installed_wheel_finds_its_themes(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(target)  # what a non-editable install puts in site-packages
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(target)!r})\n"
        "import envtui.settings.theme_files as t\n"
        f"assert t.__file__.startswith({str(target)!r}), t.__file__\n"
        "themes, problems = t.load_themes(t.builtin_theme_dir())\n"
        "assert not problems and 'envtui-okabe-ito' in [x.name for x in themes], (themes, problems)\n"
        "print(t.builtin_theme_dir())\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == str(target / "envtui" / "themes")
