"""The ``tui`` marker is on every unit test that runs a Textual app, so ``pytest tests/unit -m
"not tui"`` is the quick loop and leaves out exactly the slow kind, however tests are added.

A test runs an app when it, a helper or fixture of its module it names, or a function nested
in it calls ``run_test`` or ``run_async``, or when it takes the ``snap_compare`` fixture. It
carries the marker from its module's ``pytestmark`` or its own ``@pytest.mark.tui``.
"""

from __future__ import annotations

import ast
from pathlib import Path

UNIT = Path(__file__).parent
RUNNERS = {"run_test", "run_async"}
"""How a test runs an App headless (``App.run_test``, ``App.run_async``)."""
SNAPSHOT_FIXTURE = "snap_compare"

Function = ast.FunctionDef | ast.AsyncFunctionDef


def _has_tui_mark(node: ast.AST) -> bool:
    """``pytest.mark.tui`` (or ``mark.tui``) anywhere in ``node``: a decorator, a list."""
    return any(
        isinstance(n, ast.Attribute)
        and n.attr == "tui"
        and isinstance(n.value, ast.Attribute)
        and n.value.attr == "mark"
        for n in ast.walk(node)
    )


def _runs_an_app_itself(function: Function) -> bool:
    arguments = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    calls = (n for n in ast.walk(function) if isinstance(n, ast.Attribute))
    return SNAPSHOT_FIXTURE in arguments or any(n.attr in RUNNERS for n in calls)


def _names_used(function: Function) -> set[str]:
    """The names a function calls or passes on, and its parameters (fixtures by name)."""
    names = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
    return names | {a.arg for a in (*function.args.posonlyargs, *function.args.args)}


def unmarked_app_tests(source: str) -> list[str]:
    """The tests in a module's ``source`` that run a Textual app without the ``tui`` marker."""
    tree = ast.parse(source)
    module_marked = any(
        isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets)
        and _has_tui_mark(node.value)
        for node in tree.body
    )
    functions = {n.name: n for n in tree.body if isinstance(n, Function)}
    running = {name for name, function in functions.items() if _runs_an_app_itself(function)}
    grown = True
    while grown:  # helpers that use helpers that run an app run one too
        more = {name for name, f in functions.items() if _names_used(f) & running} - running
        running |= more
        grown = bool(more)
    return [
        name
        for name, function in functions.items()
        if name.startswith("test_")
        and name in running
        and not module_marked
        and not any(_has_tui_mark(d) for d in function.decorator_list)
    ]


def test_every_unit_test_that_runs_a_textual_app_is_marked_tui() -> None:
    unmarked = {
        path.name: tests
        for path in sorted(UNIT.glob("test_*.py"))
        if (tests := unmarked_app_tests(path.read_text(encoding="utf-8")))
    }
    assert unmarked == {}, "mark these pytest.mark.tui (or the module's pytestmark)"


SAMPLE = """
import pytest

async def _drive(app):
    async with app.run_test() as pilot:
        await pilot.pause()

@pytest.fixture
def driven(app):
    return _drive(app)

async def test_runs_it_itself(app):
    await app.run_async(headless=True)

async def test_runs_it_through_a_helper(app):
    await _drive(app)

def test_runs_it_through_a_fixture(driven):
    pass

def test_takes_a_snapshot(snap_compare):
    assert snap_compare(None)

async def test_runs_it_in_a_nested_function(app):
    async def inner():
        async with app.run_test():
            pass

def test_is_pure_logic():
    assert 1 + 1 == 2

@pytest.mark.tui
async def test_is_marked_itself(app):
    await _drive(app)
"""


def test_a_test_runs_an_app_itself_through_a_helper_a_fixture_or_a_snapshot() -> None:
    assert unmarked_app_tests(SAMPLE) == [
        "test_runs_it_itself",
        "test_runs_it_through_a_helper",
        "test_runs_it_through_a_fixture",
        "test_takes_a_snapshot",
        "test_runs_it_in_a_nested_function",
    ]


def test_a_module_marked_tui_marks_every_test_in_it() -> None:
    assert unmarked_app_tests("import pytest\npytestmark = [pytest.mark.tui]\n" + SAMPLE) == []
    assert unmarked_app_tests("import pytest\npytestmark = pytest.mark.tui\n" + SAMPLE) == []
