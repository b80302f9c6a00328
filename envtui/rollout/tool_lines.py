"""An ``additional_tools`` line of a rollout, parsed once for every thread that wrote it.

The threads of one Codex set-up (the same version, the same MCP servers) write the same
tools line, tens of kilobytes of tool schemas each; a sessions tree of thousands of them
then parses it once, and the threads share the (frozen) tool specs.
"""

from __future__ import annotations

import functools

from envtui.rollout.lines import TOOLS_TYPE, item_of, parse_line
from envtui.steps.tools import ToolSpec, tool_groups

TOOL_LINES_KEPT = 32
"""Distinct tools lines whose parse is kept."""


@functools.lru_cache(maxsize=TOOL_LINES_KEPT)
def tools_of_line(raw: str) -> dict[tuple[str | None, str], list[ToolSpec]] | None:
    """The tools of an ``additional_tools`` line; None for a line of another shape."""
    try:
        item = item_of(parse_line(raw))
    except (ValueError, RecursionError):
        return None
    if item is None or item.kind != "response_item" or item.inner != TOOLS_TYPE:
        return None
    entries = item.payload.get("tools")
    return tool_groups(entries if isinstance(entries, list) else [])
