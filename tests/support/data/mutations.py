"""Hypothesis strategies that break valid inputs the way a fuzzer or a hostile file would.

A valid seed (a state document, an event stream, a config, a theme) is changed in a few
places: a value replaced by one of any JSON type (hostile strings, huge numbers, deep
nesting included), a key removed or added, a line duplicated, dropped or cut, a byte
flipped. The properties then say what the real entry point must do with it.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st


def fuzz_settings(variable: str, default: int) -> settings:
    """Hypothesis settings for a fuzz test: ``default`` cases, or ``$variable`` of them."""
    return settings(
        max_examples=int(os.environ.get(variable, str(default))),
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


HOSTILE_TEXT = [
    "\x1b]2;TITLE\x07",
    "\x1b]52;c;Q0xJUA==\x1b\\",
    "\x9b31m",
    "\u202e",
    "\u200b",
    "[bold red]x[/]",
    "\ud800",
    "\x00",
    "file://[x/foo",
    "file://[::1/x",
    "~nosuchuser/x",
    "ws://",
    "ws://[::1",
    "9" * 5000,
    "2026-11-30T12:00:01",
    "0001-01-01T00:00:00+14:00",
    "9999-12-31T23:59:59-14:00",
    "",
    " ",
    "x" * 300,
]
"""Strings that have broken envtui before, or would break a careless reader."""

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([10**30, -(10**30), 2**63, 1e300, -1e300, 0.0, 0.1]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(HOSTILE_TEXT),
)


def deep(depth: int) -> object:
    value: object = 1
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


_NESTED = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=6,
)
_DEEP = st.builds(deep, st.sampled_from([150, 1000]))  # a fresh one each time: never shared
JSON_VALUES = st.integers(0, 19).flatmap(
    lambda n: _DEEP if n == 0 else SCALARS if n < 12 else _NESTED
)
"""Any JSON value: mostly scalars, sometimes small structures, now and then a very deep one."""


def _containers(value: object, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a list or object inside ``value`` (the root included), down to 8 levels."""
    found = [path] if isinstance(value, dict | list) else []
    if len(path) >= 8:
        return found
    children = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else []
    )
    for key, child in children:
        found += _containers(child, (*path, key))
    return found


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


@st.composite
def mutated_json(draw: st.DrawFn, seed: object) -> str:
    """``seed`` with one to three structural changes, as JSON text, sometimes cut or flipped."""
    document = copy.deepcopy(seed)
    for _ in range(draw(st.integers(1, 3))):
        containers = _containers(document)
        if not containers:
            document = draw(JSON_VALUES)
            continue
        target = _at(document, draw(st.sampled_from(containers)))
        keys = list(target) if isinstance(target, dict) else list(range(len(target)))
        action = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if action == "add" or not keys:
            if isinstance(target, dict):
                target[draw(st.sampled_from(["x", "error", "status", "at", "primary", ""]))] = draw(
                    JSON_VALUES
                )
            else:
                target.append(draw(JSON_VALUES))
        elif action == "delete":
            del target[draw(st.sampled_from(keys))]
        else:
            target[draw(st.sampled_from(keys))] = draw(JSON_VALUES)
    return draw(text_damage(json.dumps(document, ensure_ascii=draw(st.booleans()))))


@st.composite
def text_damage(draw: st.DrawFn, text: str) -> str:
    """Mostly ``text`` as it is; sometimes cut short, or with one character changed."""
    kind = draw(st.sampled_from(["keep", "keep", "keep", "cut", "flip"]))
    if kind == "keep" or not text:
        return text
    where = draw(st.integers(0, len(text) - 1))
    if kind == "cut":
        return text[:where]
    return (
        text[:where]
        + draw(st.sampled_from(["\x00", "{", "]", '"', "\\", "\xff", "\n"]))
        + text[where + 1 :]
    )


TOML_VALUES = [
    '"\\u001b]2;T\\u0007"',
    '"\\u202e"',
    '"file://[x/foo"',
    '"~nosuchuser/x"',
    '"ws://"',
    '"ws://[::1"',
    "inf",
    "nan",
    "-1",
    "0",
    "1e300",
    "1" * 5000,
    "true",
    "[1, 2]",
    "{ a = 1 }",
    "[" * 2000 + "]" * 2000,
    "1979-05-27T07:32:00",
    '"x"',
    '""',
]


@st.composite
def mutated_toml(draw: st.DrawFn, seed: str) -> str:
    """``seed`` TOML with one to three lines changed: a value, a dropped or doubled line."""
    lines = seed.splitlines()
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["value", "value", "drop", "double", "header"]))
        line = lines[index]
        if action == "value" and "=" in line:
            lines[index] = line.split("=", 1)[0] + "= " + draw(st.sampled_from(TOML_VALUES))
        elif action == "drop":
            del lines[index]
            lines = lines or [""]
        elif action == "double":
            lines.insert(index, line)
        else:
            lines.insert(
                index, draw(st.sampled_from(["[[environments]]", "[network]", "[x]", "[[x.y]]"]))
            )
    return draw(text_damage("\n".join(lines) + "\n"))
