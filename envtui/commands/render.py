"""``envtui render``: one environments section as Codex would send and persist it.

Given STATE (and optionally PREV) as JSON, in either form ``envtui.context.documents``
reads, it prints the full block, or with ``--diff`` the diff against PREV; with ``--json``
it prints the block, the section snapshot and the world-state merge patch on one line.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Final

from envtui.commands.inputs import InputError, display_name, read_json
from envtui.commands.options import Arg, Command, Group, switch
from envtui.commands.output import fail, write_output
from envtui.context.diff import render_diff
from envtui.context.documents import (
    DocumentError,
    detect_form,
    parse_document,
    parse_state_document,
)
from envtui.context.model import SECTION_ID, EnvironmentsState
from envtui.context.patch import JSON, remove_null_object_fields, world_merge_patch
from envtui.context.render import render_full
from envtui.context.snapshot import restore_snapshot, snapshot
from envtui.vocabulary.safe_text import dumps_json_line

COMMAND: Final = "render"


@dataclass(frozen=True)
class Previous:
    """PREV as the diff sees it (``state`` None: absent or unknown) and as the patch sees it."""

    state: EnvironmentsState | None
    section_json: JSON | None  # None: there was no section at all


@dataclass(frozen=True)
class RenderResult:
    text: str | None
    snapshot: JSON | None
    patch: JSON | None

    def as_json(self) -> dict[str, Any]:
        return {"text": self.text, "snapshot": self.snapshot, "patch": self.patch}


def read_previous(document: object) -> Previous:
    """PREV in either form. A snapshot that Codex could not restore counts as ``Unknown``.

    The patch is computed against the section as PREV wrote it (object nulls removed), so
    fields a newer Codex added are removed by the patch, as Codex's own patch would.
    """
    if document is None:
        return Previous(state=None, section_json=None)
    if detect_form(document) == "state":
        state = parse_state_document(document)
        return Previous(state=state, section_json=snapshot(state))
    return Previous(
        state=restore_snapshot(document), section_json=remove_null_object_fields(document)
    )


def render_documents(
    state_document: object, previous: Previous | None, *, diff: bool
) -> RenderResult:
    """The block, snapshot and patch for STATE, with PREV when given (None: not given)."""
    current = parse_document(state_document)
    current_json = snapshot(current) if current is not None else None
    if diff:
        text = render_diff(current, previous.state if previous is not None else None)
    else:
        text = render_full(current) if current is not None else None
    current_world = {SECTION_ID: current_json} if current_json is not None else {}
    if previous is None:
        patch: JSON | None = current_world or None
    else:
        previous_world = (
            {SECTION_ID: previous.section_json} if previous.section_json is not None else {}
        )
        patch = world_merge_patch(previous_world, current_world)
    return RenderResult(text=text, snapshot=current_json, patch=patch)


RENDER = Command(
    COMMAND,
    description=(
        "Print the <environment_context> block Codex would send for STATE: the full "
        "render, or with --diff the diff against PREV. STATE and PREV are JSON files "
        "(- for standard input), each a state document (environments as a list) or a "
        "persisted snapshot (environments as an object keyed by id). Values are "
        "XML-escaped everywhere, network domains and subagent lines included (Codex "
        "writes those two raw). On a terminal, control characters are shown escaped; "
        "pipe the output for the exact bytes."
    ),
    options=Group(
        Arg("state", metavar="STATE", help="the current state (JSON file or -)"),
        switch("--diff", "print the diff against PREV (or against nothing)"),
        Arg("--previous", metavar="PREV", help="the previous state or snapshot (JSON file or -)"),
        switch(
            "--json",
            'print {"text", "snapshot", "patch"} as one line of JSON',
        ),
    ),
)


def hint_for_extras(extras: list[str]) -> str:
    """What ``render STATE --diff PREV`` meant: one stray file is PREV without its option."""
    if len(extras) == 1 and not extras[0].startswith("-"):
        return f" (a previous state is given as `--previous {extras[0]}`)"
    return ""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    RENDER.add_to(subparsers, handler=run)


def run(args: argparse.Namespace) -> int:
    """Exit 0 on success, 2 on bad input with one line naming the file and the field."""
    if args.state == "-" and args.previous == "-":
        return _fail("<stdin>", "STATE and PREV cannot both be read from standard input")
    try:
        state_document = read_json(args.state)
        previous = None
        if args.previous is not None:
            previous_document = read_json(args.previous)
            try:
                previous = read_previous(previous_document)
            except DocumentError as exc:
                raise InputError(display_name(args.previous), str(exc)) from None
        try:
            result = render_documents(state_document, previous, diff=args.diff)
        except DocumentError as exc:
            raise InputError(display_name(args.state), str(exc)) from None
    except InputError as exc:
        return _fail(exc.source, exc.message)
    _write(result, as_json=args.json)
    return 0


def _write(result: RenderResult, *, as_json: bool) -> None:
    if as_json:
        write_output(dumps_json_line(result.as_json()) + "\n")
    elif result.text is not None:
        write_output(result.text + "\n")


def _fail(source: str, message: str) -> int:
    return fail(COMMAND, f"{source}: {message}")
