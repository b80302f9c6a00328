"""The README's commands install the versions CI tested: every package the install brings is
pinned in ``constraints.txt``, each pin inside pyproject.toml's range, and both commands use it.

A release of a dependency that nothing bounded (cryptography 51) turned a fresh install red;
with the pins, a new machine gets what passed, and the newest releases are a separate,
deliberate run (docs/development.md).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]


def _pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not name==version"
            pins[canonicalize_name(name)] = Version(version)
    return pins


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    listed = project["dependencies"] + project["optional-dependencies"]["test"]
    return [Requirement(text) for text in listed]


def test_every_dependency_is_pinned_inside_its_range() -> None:
    pins = _pins()
    wrong = {
        str(req): str(pins.get(canonicalize_name(req.name), "not pinned"))
        for req in _requirements()
        if canonicalize_name(req.name) not in pins
        or not req.specifier.contains(pins[canonicalize_name(req.name)], prereleases=True)
    }
    assert wrong == {}


def test_the_readmes_commands_install_with_the_pins() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"<!-- (?:start|test)-command -->\n```sh\n(.*)\n```", readme)
    assert len(commands) == 2
    assert all("pip install -q -c constraints.txt " in command for command in commands)
