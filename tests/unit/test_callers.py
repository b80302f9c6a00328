"""Every function the package defines is used by the package, and every one ARCHITECTURE.md
names as the one home of a rule is too: a rule whose home nothing calls has a second home
somewhere, or none."""

from __future__ import annotations

import ast
import re
from collections import Counter
from functools import cache
from pathlib import Path

from tests.support.files import ROOT

PACKAGE = ROOT / "envtui"

PROBES = {"split_cells_fill", "ansi_styles_fill", "cache_fill", "watch_row_draws"}
"""How full Textual's and Rich's private caches are, and which rows a table draws: read by
the tests that bound them, never by the product (the caches are bounded by the shims that
install them)."""

TEST_SURFACE = {"notices"}
"""``EnvTuiApp.notices``: the dashboard's toasts as the tests read them (never Textual's own
list); ARCHITECTURE.md names it for that."""

NOT_WIRED_YET: set[str] = set()
"""Functions built ahead of their caller (pure, tested); none now."""


@cache
def _trees() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text())) for path in sorted(PACKAGE.rglob("*.py"))]


@cache
def _uses() -> Counter[str]:
    """Every name the package reads: a name, an attribute, a name imported from another
    module (an import ruff keeps is used), or a string naming it (``getattr``)."""
    used: Counter[str] = Counter()
    for _, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                used[node.id] += 1
            elif isinstance(node, ast.Attribute):
                used[node.attr] += 1
            elif isinstance(node, ast.ImportFrom):
                used.update(alias.name for alias in node.names)
            elif isinstance(node, ast.Constant) and str(node.value).isidentifier():
                used[str(node.value)] += 1  # a name (``getattr``), not a docstring naming one
    return used


def _defined_functions() -> dict[str, str]:
    """Each module-level function of the package, and where it is."""
    found = {}
    for path, tree in _trees():
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found[node.name] = f"{path.relative_to(ROOT)}:{node.lineno}"
    return found


def _defined_names() -> set[str]:
    """Every function, class and method the package defines."""
    names = set()
    for _, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
    return names


def _one_of_each() -> list[str]:
    """The names ARCHITECTURE.md's "One of each" gives in backticks (``Class.method``'s
    method), the files left out."""
    text = (ROOT / "ARCHITECTURE.md").read_text()
    section = text.split("## One of each", 1)[1].split("\n## ", 1)[0]
    quoted = re.findall(r"`([^`]+)`", section)
    names = [q.rsplit(".", 1)[-1] for q in quoted if "/" not in q and not q.endswith(".py")]
    return [n for n in names if n.isidentifier()]


def test_no_function_of_the_package_is_used_only_by_tests() -> None:
    used = _uses()
    unused = {
        name: where
        for name, where in _defined_functions().items()
        if name not in PROBES | NOT_WIRED_YET and used[name] == 0
    }
    assert unused == {}, "move these to tests/support, or give them a caller in envtui/"


def test_every_rule_named_under_one_of_each_has_a_caller_in_the_package() -> None:
    defined = _defined_names() - TEST_SURFACE
    named = [n for n in _one_of_each() if n in defined]
    assert {"section_for", "connection_change", "CheckedSteps", "step_record"} <= set(named)
    used = _uses()
    assert [n for n in named if used[n] == 0] == [], "named in ARCHITECTURE.md, never used"


def test_a_function_only_tests_call_is_found() -> None:
    """The finder itself: a name the package defines but never reads is reported."""
    assert _uses()["check_rollout"] == 0
    assert _uses()["read_line"] > 0
