"""Tool specs, as Codex advertises them, reduced to what the divergence rules need.

Three shapes are understood:

* **function tools** ``{"type": "function", "name", "parameters": {JSON schema}}``: the
  environment parameter is ``parameters.properties.environment_id`` (required when listed
  in ``parameters.required``);
* **freeform apply_patch** ``{"type": "custom", "name": "apply_patch", "format":
  {"type": "grammar", "definition"}}``: it takes an environment when the grammar has the
  ``*** Environment ID:`` line;
* **code mode**: one custom tool ``exec`` whose description holds each nested tool as a
  ``### `name``` section with a TypeScript declaration; ``environment_id?: string`` is
  optional, ``environment_id: string`` required. ``apply_patch(input: string)`` there has no
  grammar, so whether it takes an environment cannot be told.

Tools may be nested in ``{"type": "namespace", "name", "tools": [...]}`` entries.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from envtui.vocabulary.limits import JsonInputError, TooLargeError, load_json, read_text_bounded

EnvironmentParameter = Literal["absent", "optional", "required", "unknown"]

EXEC_COMMAND = "exec_command"
WRITE_STDIN = "write_stdin"
SHELL_COMMAND = "shell_command"
APPLY_PATCH = "apply_patch"
VIEW_IMAGE = "view_image"
REQUEST_PERMISSIONS = "request_permissions"
WAIT_FOR_ENVIRONMENT = "wait_for_environment"

ENVIRONMENT_TOOLS = (
    EXEC_COMMAND,
    WRITE_STDIN,
    SHELL_COMMAND,
    APPLY_PATCH,
    VIEW_IMAGE,
    REQUEST_PERMISSIONS,
)
"""The tools that run in an environment (``wait_for_environment`` waits for one)."""

CALL_TOOLS_WITH_ENVIRONMENT = (EXEC_COMMAND, VIEW_IMAGE, APPLY_PATCH, REQUEST_PERMISSIONS)
"""The tools whose calls can name the environment they run in."""

CODE_MODE_TOOL = "exec"
_SECTION = re.compile(r"^### `([A-Za-z0-9_]+)`[ \t]*$", re.MULTILINE)
_OPTIONAL_ID = re.compile(r"\benvironment_id\?\s*:\s*string\b")
_REQUIRED_ID = re.compile(r"\benvironment_id\s*:\s*string\b")
GRAMMAR_ENVIRONMENT_LINE = "Environment ID"


@dataclass(frozen=True)
class ToolSpec:
    """One advertised tool: its name, where it came from, and its environment parameter."""

    name: str
    environment_id: EnvironmentParameter = "absent"
    namespace: str | None = None
    shape: Literal["function", "freeform", "code-mode", "planned"] = "function"

    @property
    def takes_environment(self) -> bool | None:
        """True or False; None when the shape cannot say (code-mode apply_patch)."""
        if self.environment_id == "unknown":
            return None
        return self.environment_id != "absent"


def _function_parameter(tool: Mapping[str, Any]) -> EnvironmentParameter:
    parameters = tool.get("parameters")
    if not isinstance(parameters, dict):
        return "absent"
    properties = parameters.get("properties")
    if not isinstance(properties, dict) or "environment_id" not in properties:
        return "absent"
    required = parameters.get("required")
    return "required" if isinstance(required, list) and "environment_id" in required else "optional"


def _freeform_parameter(tool: Mapping[str, Any]) -> EnvironmentParameter:
    fmt = tool.get("format")
    definition = fmt.get("definition") if isinstance(fmt, dict) else None
    if not isinstance(definition, str):
        return "unknown"
    return "optional" if GRAMMAR_ENVIRONMENT_LINE in definition else "absent"


def code_mode_tools(description: str, namespace: str | None = None) -> list[ToolSpec]:
    """The tools nested in a code-mode ``exec`` description, one per ``### `name``` section.

    Codex repeats the same description (tens of kilobytes) in every ``additional_tools``
    item, so the last few are remembered and each is parsed once.
    """
    return list(_code_mode_tools(description, namespace))


@functools.lru_cache(maxsize=8)
def _code_mode_tools(description: str, namespace: str | None) -> tuple[ToolSpec, ...]:
    headings = list(_SECTION.finditer(description))
    tools = []
    for index, heading in enumerate(headings):
        end = headings[index + 1].start() if index + 1 < len(headings) else len(description)
        section = description[heading.end() : end]
        name = heading.group(1)
        parameter: EnvironmentParameter
        if _OPTIONAL_ID.search(section):
            parameter = "optional"
        elif _REQUIRED_ID.search(section):
            parameter = "required"
        elif name == APPLY_PATCH:
            parameter = "unknown"  # declared as apply_patch(input: string): no grammar to read
        else:
            parameter = "absent"
        tools.append(ToolSpec(name, parameter, namespace, "code-mode"))
    return tuple(tools)


def _walk(entries: Iterable[Any], namespace: str | None) -> Iterator[ToolSpec]:
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        kind, name = entry.get("type"), entry.get("name")
        if kind == "namespace" and isinstance(entry.get("tools"), list):
            yield from _walk(entry["tools"], name if isinstance(name, str) else namespace)
        elif not isinstance(name, str):
            continue
        elif kind == "function":
            yield ToolSpec(name, _function_parameter(entry), namespace, "function")
        elif (
            kind == "custom"
            and name == CODE_MODE_TOOL
            and isinstance(entry.get("description"), str)
        ):
            yield ToolSpec(name, "absent", namespace, "function")
            yield from code_mode_tools(entry["description"], namespace)
        elif kind == "custom":
            yield ToolSpec(name, _freeform_parameter(entry), namespace, "freeform")


def parse_tools(entries: Iterable[Any]) -> list[ToolSpec]:
    """Every tool in a list of Codex tool specs (namespaces and code mode unfolded)."""
    return list(_walk(entries, None))


def by_name(tools: Iterable[ToolSpec]) -> dict[str, ToolSpec]:
    """The tools keyed by name (a later spec of the same name wins)."""
    return {tool.name: tool for tool in tools}


def tool_groups(entries: Iterable[Any]) -> dict[tuple[str | None, str], list[ToolSpec]]:
    """Tools keyed by (namespace, name) of the entry that declares them.

    A later ``additional_tools`` item replaces the entries it names and keeps the others;
    a code-mode ``exec`` entry carries all of its nested tools with it.
    """
    groups: dict[tuple[str | None, str], list[ToolSpec]] = {}
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        if entry.get("type") == "namespace" and isinstance(entry.get("tools"), list):
            for nested in entry["tools"]:
                if isinstance(nested, dict) and isinstance(nested.get("name"), str):
                    groups[(entry["name"], nested["name"])] = list(_walk([nested], entry["name"]))
        else:
            groups[(None, entry["name"])] = list(_walk([entry], None))
    return groups


def read_tool_file(path: Path) -> list[ToolSpec]:
    """Tool specs from a JSON file: a list of Codex tool specs, or ``{"tools": [...]}``.

    Raises ValueError with a message that names the problem.
    """
    try:
        data = load_json(read_text_bounded(path))
    except OSError as exc:
        raise ValueError(f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 (invalid byte at offset {exc.start})") from None
    except JsonInputError as exc:
        raise ValueError(exc.describe()) from None
    except TooLargeError as exc:
        raise ValueError(str(exc)) from None
    entries = data.get("tools") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise ValueError('expected a list of tool specs or {"tools": [...]}')
    try:
        tools = parse_tools(entries)
    except RecursionError:
        raise ValueError("tool namespaces nested too deeply") from None
    if entries and not tools:
        raise ValueError("no tool spec with a type and a name")
    return tools
