"""A folder per feature in each layer it crosses, and rooms a newcomer can take in.

The caps count the modules directly in a package (``__init__.py`` included, its
sub-packages' modules not): a feature that grows gets a folder of its own (``serve`` in
``commands/serve/`` and ``tui/web/``, ``sessions`` in ``sources/sessions/`` and
``tui/sessions/``) instead of more neighbours in a flat list. A subcommand's module is what
the command line loads for one command (:data:`envtui.cli.COMMAND_MODULES`); what two
commands share lives in a module that is no command's (``common``, ``options``,
``dashboard_sources``, ...), so that no command loads another to run.
"""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

import pytest

import envtui
from envtui.cli import COMMAND_MODULES

PACKAGE_DIR = Path(envtui.__file__).parent

TOP_LEVEL_CAPS = {"tui": 22, "commands": 17, "sources": 15}
"""The most modules directly in each of the three biggest packages."""

FEATURE_FOLDERS = (
    "commands/serve",
    "tui/web",
    "tui/sessions",
    "tui/upstream",
    "tui/needs_you",
    "sources/sessions",
)


@pytest.mark.parametrize(("package", "cap"), sorted(TOP_LEVEL_CAPS.items()))
def test_a_package_holds_at_most_its_cap_of_top_level_modules(package: str, cap: int) -> None:
    modules = sorted(p.name for p in (PACKAGE_DIR / package).glob("*.py"))
    assert "__init__.py" in modules
    assert len(modules) <= cap, f"{package}/ holds {len(modules)} modules: {modules}"


@pytest.mark.parametrize("folder", FEATURE_FOLDERS)
def test_each_feature_folder_is_a_package_that_says_what_it_holds(folder: str) -> None:
    init = PACKAGE_DIR / folder / "__init__.py"
    docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
    assert docstring, f"{folder}/__init__.py says nothing of what the folder holds"
    assert len(list((PACKAGE_DIR / folder).glob("*.py"))) >= 3  # __init__ and two modules


def _commands_modules() -> list[tuple[str, Path]]:
    root = PACKAGE_DIR / "commands"
    found = []
    for info in pkgutil.walk_packages([str(root)], "envtui.commands."):
        relative = Path(*info.name.split(".")[2:])
        path = (
            root / relative / "__init__.py" if info.ispkg else (root / relative).with_suffix(".py")
        )
        found.append((info.name, path))
    return found


def _imported(module: str, path: Path) -> set[str]:
    """Every module ``module`` imports, lazily or not, with ``from a import b`` as ``a.b``
    too (``b`` may be a module)."""
    names: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def _feature(module: str) -> str:
    """The module's folder inside ``commands/`` (``envtui.commands.serve``), or the module
    itself when it lies directly in ``commands/``."""
    parts = module.split(".")
    return ".".join(parts[:3])


def test_the_walk_sees_the_subcommand_modules_and_the_serve_folder() -> None:
    walked = {name for name, _ in _commands_modules()}
    assert set(COMMAND_MODULES.values()) <= walked
    assert "envtui.commands.serve.command" in walked
    assert "envtui.commands.serve.web_server" in walked


def test_no_commands_module_imports_another_subcommands_module() -> None:
    subcommands = set(COMMAND_MODULES.values())
    wrong = []
    for module, path in _commands_modules():
        for target in sorted(_imported(module, path) & subcommands):
            if target != module and _feature(target) != _feature(module):
                wrong.append(f"{module} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_the_rule_would_see_a_subcommand_imported_by_another() -> None:
    """The check above is not vacuous: the shapes it reads are the shapes found in the code."""
    serve = PACKAGE_DIR / "commands" / "serve" / "command.py"
    imported = _imported("envtui.commands.serve.command", serve)
    assert "envtui.commands.dashboard_sources" in imported
    assert _feature("envtui.commands.serve.tab_process") == _feature(
        "envtui.commands.serve.command"
    )
    assert _feature("envtui.commands.events") != _feature("envtui.commands.dashboard")
