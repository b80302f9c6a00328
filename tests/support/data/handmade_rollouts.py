"""Small hand-written Codex rollouts, in the shape codex 0.171 writes them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from envtui.context.diff import render_diff
from envtui.context.model import EnvironmentsState
from envtui.context.patch import create_merge_patch
from envtui.context.snapshot import snapshot


class RolloutWriter:
    def __init__(self, cli_version: str | None = "0.171.0") -> None:
        self.lines: list[str] = []
        self._ordinal = 0
        self._appended = 0  # lines already appended to a file by append_to
        self._section: dict[str, Any] | None = None
        self._state: EnvironmentsState | None = None
        meta: dict[str, Any] = {"id": "01a22a73-bda3-7d50-96a2-a5269a5918d4", "cwd": "/repo"}
        if cli_version is not None:
            meta["cli_version"] = cli_version
        self.item("session_meta", meta)

    def item(
        self, kind: str, payload: dict[str, Any], *, at: str = "2026-11-30T03:16:01.000Z"
    ) -> None:
        self.lines.append(
            json.dumps(
                {"timestamp": at, "ordinal": self._ordinal, "type": kind, "payload": payload}
            )
        )
        self._ordinal += 1

    def turn(self) -> None:
        self.item("event_msg", {"type": "task_started"})

    def end_turn(self) -> None:
        self.item("event_msg", {"type": "task_complete"})

    def tools(self, *tools: dict[str, Any]) -> None:
        self.item(
            "response_item",
            {
                "type": "additional_tools",
                "tools": [{"type": "namespace", "name": "functions", "tools": list(tools)}],
            },
        )

    def context(self, text: str | None, *, at: str = "2026-11-30T03:16:01.000Z") -> None:
        if text is not None:
            self.item(
                "response_item",
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": text}],
                },
                at=at,
            )

    def step(
        self,
        state: EnvironmentsState,
        *,
        at: str = "2026-11-30T03:16:01.000Z",
        text: str | bool | None = True,
    ) -> None:
        """A sampling request: the context Codex sends (or ``text``), then the world_state."""
        block = render_diff(state, self._state, codex_escaping=True) if text is True else text
        self.context(block if isinstance(block, str) else None, at=at)
        section = snapshot(state)
        if self._section is None:
            self.item(
                "world_state",
                {"full": True, "state": {"permissions": {"x": 1}, "environments": section}},
                at=at,
            )
        else:
            patch = create_merge_patch(self._section, section)
            if patch is not None:
                self.item("world_state", {"full": False, "state": {"environments": patch}}, at=at)
        self._section, self._state = section, state
        self.item("turn_context", {"cwd": "/repo"}, at=at)

    def call(self, name: str, arguments: dict[str, Any]) -> None:
        self.item(
            "response_item",
            {
                "type": "function_call",
                "name": name,
                "arguments": json.dumps(arguments),
                "call_id": "c1",
            },
        )

    def output(self) -> None:
        self.item(
            "response_item", {"type": "function_call_output", "call_id": "c1", "output": "ok"}
        )

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)

    def append_to(self, path: Path, *, forget: bool = False) -> int:
        """Append the lines written since the last call to ``path``, as Codex appends; the
        number of bytes appended. ``forget`` drops them here (a writer that runs for long)."""
        new = "".join(line + "\n" for line in self.lines[self._appended :])
        self._appended = len(self.lines)
        if forget:
            self.lines.clear()
            self._appended = 0
        with path.open("a", encoding="utf-8") as handle:
            handle.write(new)
        return len(new.encode())

    def save(self, directory: Path) -> Path:
        """Write the rollout as ``directory/rollout.jsonl`` (over an earlier save); its path."""
        path = directory / "rollout.jsonl"
        path.write_text(self.text())
        return path


def function_tool(
    name: str, *, environment_id: bool = False, required: bool = False
) -> dict[str, Any]:
    properties: dict[str, Any] = {"cmd": {"type": "string"}}
    if environment_id:
        properties["environment_id"] = {
            "type": "string",
            "description": "Environment id from <environment_context>. Omit to use the primary environment.",
        }
    return {
        "type": "function",
        "name": name,
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": ["environment_id"] if required else [],
        },
    }


def code_mode_exec(*nested: tuple[str, str]) -> dict[str, Any]:
    """The code-mode ``exec`` tool whose description declares ``nested`` (name, args)."""
    sections = [
        f"### `{name}`\nA tool.\n\nexec tool declaration:\n```ts\ndeclare const tools: {{ {name}({args}): Promise<unknown>; }};\n```\n"
        for name, args in nested
    ]
    return {
        "type": "custom",
        "name": "exec",
        "description": "Run JavaScript code to orchestrate/compose tool calls\n\n"
        + "\n".join(sections),
        "format": {"type": "grammar", "syntax": "lark", "definition": "start: SOURCE"},
    }
