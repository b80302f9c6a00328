"""The package stays in small pieces: no function over 50 lines, no module over 500.

Counted as a reader sees them, from ``def`` to the last line, docstring and comments
included. A function that grows past the cap is split where it does two things.
"""

from __future__ import annotations

import ast
from pathlib import Path

import envtui

PACKAGE_DIR = Path(envtui.__file__).parent
FUNCTION_LINES = 50
MODULE_LINES = 500


def _sources() -> list[tuple[str, str]]:
    return [
        (str(path.relative_to(PACKAGE_DIR.parent)), path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE_DIR.rglob("*.py"))
    ]


def test_no_function_is_longer_than_fifty_lines() -> None:
    long = [
        f"{name}:{node.lineno} {node.name}: {node.end_lineno - node.lineno + 1} lines"
        for name, text in _sources()
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > FUNCTION_LINES
    ]
    assert long == []


def test_no_module_is_longer_than_five_hundred_lines() -> None:
    long = [
        f"{name}: {len(text.splitlines())} lines"
        for name, text in _sources()
        if len(text.splitlines()) > MODULE_LINES
    ]
    assert long == []
