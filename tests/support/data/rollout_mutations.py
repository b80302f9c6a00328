"""Mutated copies of real rollouts, for property tests that feed them to ``envtui check``.

The mutations are the ones a damaged or hostile file shows: flipped bytes, lines deleted,
duplicated or swapped, a write cut short, and a value somewhere in a line replaced by one
of another type (a list for a string, an object nested deeper than Python can walk, …).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.support.files import ROLLOUTS

REAL_ROLLOUTS = sorted(ROLLOUTS.glob("rollout-*.jsonl"))
"""Rollouts the real Codex 0.171 and 0.150 wrote (``tests/support/data/record_rollouts.py``)."""

ODD_VALUES: list[Any] = [
    None, 5, -1, 1.5, True, "", "x" * 300, [], {}, [1, "a", None], {"type": []},
    {"k": {"k": {"k": None}}}, "9" * 5000,
]  # fmt: skip


def _deep(kind: str) -> Any:
    return json.loads("[" * 700 + "]" * 700) if kind == "list" else {"k": 1}


def _retype(line: str, choice: int, value: Any) -> str:
    """``line`` with the ``choice``-th value (in a walk of its JSON) replaced by ``value``."""
    try:
        data = json.loads(line)
    except ValueError:
        return line
    slots: list[tuple[Any, Any]] = []
    stack: list[Any] = [data]
    while stack and len(slots) < 2000:
        node = stack.pop()
        items = (
            node.items()
            if isinstance(node, dict)
            else enumerate(node)
            if isinstance(node, list)
            else ()
        )
        for key, child in items:
            slots.append((node, key))
            stack.append(child)
    if not slots:
        return line
    node, key = slots[choice % len(slots)]
    node[key] = value
    return json.dumps(data)


@st.composite
def mutated_rollout(draw: st.DrawFn, sources: list[Path] = REAL_ROLLOUTS) -> bytes:
    """One real rollout with one to four mutations applied."""
    lines = draw(st.sampled_from(sources)).read_text().splitlines()
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "delete", "duplicate", "swap", "truncate", "retype"]))
        index = draw(st.integers(0, len(lines) - 1)) if lines else 0
        if not lines:
            break
        if kind == "delete":
            del lines[index]
        elif kind == "duplicate":
            lines.insert(index, lines[index])
        elif kind == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
        elif kind == "retype":
            value = draw(st.sampled_from([*ODD_VALUES, "deep"]))
            lines[index] = _retype(
                lines[index],
                draw(st.integers(0, 10**6)),
                _deep("list") if value == "deep" else value,
            )
        elif kind == "truncate":
            text = "\n".join(lines)
            lines = text[: draw(st.integers(0, len(text)))].split("\n")
        else:  # flip one byte of one line
            raw = bytearray(lines[index].encode())
            if raw:
                raw[draw(st.integers(0, len(raw) - 1))] = draw(st.integers(0, 255))
            lines[index] = raw.decode("utf-8", errors="replace")
    return ("\n".join(lines) + "\n").encode()
