"""Property tests: well-formed XML that round-trips, merge patches, and a reader of diffs."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from typing import Any, Literal

from hypothesis import example, given, settings
from hypothesis import strategies as st

from envtui.context.diff import render_diff
from envtui.context.model import (
    EnvironmentsState,
    EnvironmentState,
    FileSystemContext,
    FileSystemEntry,
    ManagedProfile,
    NetworkContext,
    RestrictedFileSystem,
    Status,
)
from envtui.context.patch import (
    apply_merge_patch,
    apply_world_patch,
    create_merge_patch,
    json_equal,
    remove_null_object_fields,
    world_merge_patch,
)
from envtui.context.render import render_full, rust_lines
from envtui.context.snapshot import snapshot

EXAMPLES = settings(max_examples=25, deadline=None)
"""The quick count of the inner loop; tests/integration/test_properties_thorough.py runs the
same properties with 400 examples (and the reader with 500)."""

# XML 1.0 carries tab, newline and everything from U+0020 up except surrogates, U+FFFE and
# U+FFFF. Parsers turn "\r" into "\n" in text and every whitespace character into a space in
# attributes, so "\r" is left out everywhere and tab and newline stay out of attribute values.
_SURROGATES: tuple[Literal["Cs"]] = ("Cs",)
_XML_CHAR = st.characters(
    min_codepoint=0x20, blacklist_categories=_SURROGATES, blacklist_characters="\ufffe\uffff"
)
_SPECIAL = st.sampled_from([*list("&<>\"'"), "é", "€", "𝄞", "日本", "&amp;", "]]>"])


def _joined(pieces: st.SearchStrategy[str], max_size: int) -> st.SearchStrategy[str]:
    return st.lists(pieces, max_size=max_size).map("".join)


ATTRIBUTE_TEXT = _joined(st.one_of(_SPECIAL, _XML_CHAR), 12)
ELEMENT_TEXT = _joined(st.one_of(_SPECIAL, _XML_CHAR, st.sampled_from("\t\n")), 12)
DOMAIN = _joined(st.one_of(_SPECIAL, _XML_CHAR.filter(lambda c: c != ",")), 10)
STATUSES: tuple[Status, ...] = ("available", "starting", "failed")
STATUS = st.sampled_from(STATUSES)


@st.composite
def environment(draw: st.DrawFn) -> EnvironmentState:
    status = draw(STATUS)
    return EnvironmentState(
        cwd=draw(ELEMENT_TEXT),
        status=status,
        shell=None if status == "failed" else draw(st.none() | ELEMENT_TEXT),
        error=draw(ELEMENT_TEXT) if status == "failed" else None,
    )


@st.composite
def states(draw: st.DrawFn) -> EnvironmentsState:
    envs = draw(st.dictionaries(ATTRIBUTE_TEXT, environment(), max_size=5))
    ready = [i for i, e in envs.items() if e.status == "available"]
    make_primary: bool = draw(st.booleans())
    if ready and make_primary:
        first = draw(st.sampled_from(ready))
        envs[first] = replace(envs[first], is_primary=True)
    entries = draw(
        st.lists(
            st.builds(
                FileSystemEntry,
                access=st.sampled_from(["read", "write", "deny"]),
                path=ELEMENT_TEXT,
            )
            | st.builds(
                FileSystemEntry, access=st.sampled_from(["read", "deny"]), glob=ELEMENT_TEXT
            )
            | st.builds(FileSystemEntry, access=st.just("write"), special=ELEMENT_TEXT),
            max_size=4,
        )
    )
    filesystem = FileSystemContext(
        workspace_roots=tuple(draw(st.lists(ELEMENT_TEXT, max_size=3))),
        permission_profile=ManagedProfile(
            file_system=RestrictedFileSystem(
                glob_scan_max_depth=draw(st.none() | st.integers(0, 9)), entries=tuple(entries)
            )
        ),
    )
    network = NetworkContext(
        allowed_domains=tuple(draw(st.lists(DOMAIN, max_size=3))),
        denied_domains=tuple(draw(st.lists(DOMAIN, max_size=3))),
    )
    return EnvironmentsState(
        environments=envs,
        current_date=draw(st.none() | ELEMENT_TEXT),
        timezone=draw(st.none() | ELEMENT_TEXT),
        network=draw(st.none() | st.just(network)),
        filesystem=draw(st.none() | st.just(filesystem)),
        subagents=draw(st.none() | ELEMENT_TEXT),
    )


def _text(element: ET.Element | None) -> str | None:
    return None if element is None else (element.text or "")


def _assert_environment(element: ET.Element, env: EnvironmentState) -> None:
    assert _text(element.find("cwd")) == env.cwd
    status = _text(element.find("status"))
    assert (status or "available") == env.status
    assert _text(element.find("error")) == env.error
    assert _text(element.find("shell")) == (None if env.status == "failed" else env.shell)


def _assert_values(root: ET.Element, state: EnvironmentsState) -> None:
    """Every turn value and subagent line of ``state`` comes back out of the parsed block."""
    assert _text(root.find("current_date")) == state.current_date
    assert _text(root.find("timezone")) == state.timezone
    network = root.find("network")
    if isinstance(state.network, NetworkContext):
        assert network is not None
        for tag, domains in (
            ("allowed", state.network.allowed_domains),
            ("denied", state.network.denied_domains),
        ):
            text = _text(network.find(tag))
            assert (text.split(",") if text is not None else []) == list(domains)
    else:
        assert network is None
    filesystem = root.find("filesystem")
    if isinstance(state.filesystem, FileSystemContext):
        assert filesystem is not None
        assert [r.text or "" for r in filesystem.iter("root")] == list(
            state.filesystem.workspace_roots
        )
        profile = state.filesystem.permission_profile
        assert isinstance(profile, ManagedProfile)
        assert isinstance(profile.file_system, RestrictedFileSystem)
        parsed = [(e.get("access"), e[0].tag, e[0].text or "") for e in filesystem.iter("entry")]
        expected = [
            (
                e.access,
                *next(
                    (t, v)
                    for t, v in (("path", e.path), ("glob", e.glob), ("special", e.special))
                    if v is not None
                ),
            )
            for e in profile.file_system.entries
        ]
        assert parsed == expected
    else:
        assert filesystem is None
    subagents = _text(root.find("subagents"))
    if state.subagents is None:
        assert subagents is None
    else:
        assert subagents is not None
        assert subagents.startswith("\n")
        assert subagents.endswith("\n  ")
        lines = subagents[1:-2].split("\n")[:-1]
        assert all(line.startswith("    ") for line in lines)
        assert [line[4:] for line in lines] == rust_lines(state.subagents)


@EXAMPLES
@given(states())
def test_full_render_is_well_formed_xml_that_round_trips(state: EnvironmentsState) -> None:
    root = ET.fromstring(render_full(state))
    assert root.tag == "environment_context"
    if state.is_legacy_single:
        (env,) = state.environments.values()
        _assert_environment(root, env)
    else:
        listed = root.find("environments")
        elements = [] if listed is None else listed.findall("environment")
        assert [e.get("id") for e in elements] == sorted(state.environments)
        for element in elements:
            env = state.environments[element.get("id") or ""]
            _assert_environment(element, env)
            expected_primary = ("true" if env.is_primary else "false") if state.is_multi else None
            assert element.get("primary") == expected_primary
    _assert_values(root, state)


@EXAMPLES
@given(states(), st.none() | states())
def test_diff_is_well_formed_xml_that_round_trips(
    current: EnvironmentsState, previous: EnvironmentsState | None
) -> None:
    text = render_diff(current, previous)
    if text is None:
        return
    root = ET.fromstring(text)
    before = previous.environments if previous is not None else {}
    listed = root.find("environments")
    for element in [] if listed is None else listed.findall("environment"):
        env_id = element.get("id") or ""
        if element.get("status") == "unavailable":
            assert env_id in before
            assert env_id not in current.environments
            assert element.get("primary") is None
            assert len(element) == 0
        else:
            _assert_environment(element, current.environments[env_id])
    if root.find("cwd") is not None:
        (env,) = current.environments.values()
        _assert_environment(root, env)
    _assert_values(root, current)


# --- merge patches ----------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=25,
)


@EXAMPLES
@given(JSON_VALUES, JSON_VALUES.filter(lambda v: v is not None))
def test_applying_the_patch_gives_the_current_value(previous: Any, current_raw: Any) -> None:
    # RFC 7386 cannot carry a null object member, so the current value is normalised first,
    # as every Codex snapshot is.
    current = remove_null_object_fields(current_raw)
    patch = create_merge_patch(previous, current)
    result = previous if patch is None else apply_merge_patch(previous, patch)
    assert json_equal(result, current)


# --- a reader that applies diffs in order ------------------------------------------------

IMPLICIT = object()
"""The reader's key for the one environment a legacy block describes without an id."""

POOL = ["a", "b&c", "é'\"", "z"]
SHELL_LESS = "z"  # this id never reports a shell, so no step pairs a known shell with None


BIASED_STATUS = st.sampled_from(("available", "available", *STATUSES))


@st.composite
def sequences(draw: st.DrawFn) -> list[EnvironmentsState]:
    """Steps that mostly repeat each environment, so unchanged ones and boundaries are common."""
    cwds = ["/repo", "/srv/a&b", "C:\\w"]
    shells = ["bash", "zsh", "pwsh <7>"]
    usual = {
        env_id: (draw(st.sampled_from(cwds)), draw(st.sampled_from(shells))) for env_id in POOL
    }
    steps = []
    for _ in range(draw(st.integers(1, 8))):
        ids = draw(st.lists(st.sampled_from(POOL), unique=True, max_size=3))
        envs: dict[str, EnvironmentState] = {}
        primary_taken = False
        for env_id in draw(st.permutations(ids)):
            status = draw(BIASED_STATUS)
            cwd, shell = usual[env_id]
            if draw(st.integers(0, 5)) == 0:
                cwd = draw(st.sampled_from(cwds))
            if draw(st.integers(0, 5)) == 0:
                shell = draw(st.sampled_from(shells))
            envs[env_id] = EnvironmentState(
                cwd=cwd,
                status=status,
                shell=shell if status == "available" and env_id != SHELL_LESS else None,
                is_primary=status == "available" and not primary_taken,
                error=draw(st.sampled_from(["refused", "timed <out>"]))
                if status == "failed"
                else None,
            )
            primary_taken = primary_taken or status == "available"
        steps.append(
            EnvironmentsState(
                environments=envs,
                current_date=draw(st.sampled_from(["2026-06-20", "2026-06-21"])),
                subagents=draw(st.none() | st.just("- w: <x>")),
            )
        )
    return steps


def _read_entry(element: ET.Element) -> dict[str, Any]:
    return {
        "cwd": _text(element.find("cwd")),
        "status": _text(element.find("status")) or "available",
        "shell": _text(element.find("shell")),
        "error": _text(element.find("error")),
        "primary": element.get("primary"),
    }


def _apply_block(reader: dict[Any, dict[str, Any]], block: str) -> None:
    root = ET.fromstring(block)
    listed = root.find("environments")
    if listed is not None:
        for element in listed.findall("environment"):
            env_id = element.get("id")
            if env_id not in reader:
                # A block that names environments while the reader holds an id-less one
                # restates or removes that one: it can no longer stand on its own.
                reader.pop(IMPLICIT, None)
            if element.get("status") == "unavailable":
                reader.pop(env_id, None)
            else:
                reader[env_id] = _read_entry(element)
    elif root.find("cwd") is not None:
        assert len(reader) <= 1
        key = next(iter(reader), IMPLICIT)
        reader[key] = _read_entry(root)


_A = EnvironmentState(cwd="/repo", shell="bash", is_primary=True)
_B = EnvironmentState(cwd="/b", shell="zsh")
_ONE = EnvironmentsState(environments={"a": _A})
_TWO = EnvironmentsState(environments={"a": _A, "b": _B})


@EXAMPLES
@given(sequences())
@example([_ONE, _TWO])  # crossing into several: the unchanged one is restated
@example([_TWO, _ONE, _TWO])  # and back
def test_a_reader_of_the_diffs_ends_with_the_last_state(sequence: list[EnvironmentsState]) -> None:
    reader: dict[Any, dict[str, Any]] = {}
    world: dict[str, Any] = {}
    previous: EnvironmentsState | None = None
    for state in sequence:
        block = render_diff(state, previous)
        if block is not None:
            _apply_block(reader, block)
        patch = world_merge_patch(world, {"environments": snapshot(state)})
        world = apply_world_patch(world, patch or {})
        assert world == {"environments": snapshot(state)}
        previous = state
    final = sequence[-1].environments
    if IMPLICIT in reader:
        assert len(reader) == 1
        assert len(final) == 1
        (env,) = final.values()
        seen = reader[IMPLICIT]
    else:
        assert set(reader) == set(final)
    for env_id, env in final.items():
        seen = reader[IMPLICIT] if IMPLICIT in reader else reader[env_id]
        assert (seen["cwd"], seen["status"], seen["shell"], seen["error"]) == (
            env.cwd,
            env.status,
            env.shell,
            env.error,
        )
        if len(final) > 1:
            assert seen["primary"] == ("true" if env.is_primary else "false")
