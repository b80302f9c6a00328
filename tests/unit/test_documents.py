"""The quick checks of a state document and the pydantic schema accept the same documents.

``envtui render`` reads a document with the standard-library checks of
``envtui.context.documents`` and only asks pydantic (``document_schema``) to word the error
of a document those checks refuse. Were the checks looser, a bad document would be
rendered; were they stricter, a good one would still render, but only after the slow
import. These tests hold the two to the same answer on the golden vectors, on hand-made
near misses and on mutated documents.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.support.data.mutations import fuzz_settings, mutated_json
from tests.support.data.vector_inputs import load_vectors
from tests.support.files import EXAMPLE_STATE

from envtui.context.document_schema import check_state_document
from envtui.context.documents import DocumentError, conforms, parse_state_document

FUZZ = fuzz_settings("ENVTUI_FUZZ_EXAMPLES", 25)
"""The quick count; tests/integration/test_properties_thorough.py runs the mutations 300 times."""
STATE = json.loads(EXAMPLE_STATE.read_text())
UNRESTRICTED = {
    "environments": [{"id": "a", "cwd": "/a", "status": "failed", "error": "gone"}],
    "network": {"allowed": []},
    "filesystem": {
        "permission_profile": {"type": "managed", "file_system": {"type": "unrestricted"}}
    },
}


def schema_accepts(document: object) -> bool:
    try:
        check_state_document(document)
    except DocumentError:
        return False
    return True


def state_documents(value: object) -> list[dict[str, Any]]:
    """Every object inside ``value`` whose ``environments`` is a list."""
    found = []
    if isinstance(value, dict):
        if isinstance(value.get("environments"), list):
            found.append(value)
        for child in value.values():
            found += state_documents(child)
    elif isinstance(value, list):
        for child in value:
            found += state_documents(child)
    return found


def test_every_state_document_of_the_vectors_passes_the_quick_checks() -> None:
    documents = state_documents(load_vectors())
    assert len(documents) > 20
    for document in documents:
        assert conforms(document), document
        assert schema_accepts(document), document


def _with(path: str, value: object, seed: dict[str, Any] | None = None) -> dict[str, Any]:
    """``seed`` (the example state) with the value at dotted ``path`` set (``...``: removed)."""
    document: dict[str, Any] = json.loads(json.dumps(STATE if seed is None else seed))
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    target: Any = document
    for part in parents:
        target = target[part]
    if value is ...:
        del target[last]
    else:
        target[last] = value
    return document


FS = "filesystem.permission_profile"
NEAR_MISSES = [
    STATE,
    UNRESTRICTED,
    {"environments": []},
    _with("environments.0.primary", 1),
    _with("environments.0.primary", None),
    _with("environments.1.primary", True),
    _with("environments.0.status", None),
    _with("environments.0.status", "ready"),
    _with("environments.0.shell", None),
    _with("environments.0.shell", 5),
    _with("environments.0.id", "build-box"),
    _with("environments.0.id", ...),
    _with("environments.3.error", None),
    _with("environments.3.error", ...),
    _with("environments.2.error", "not failed"),
    _with("environments.0.colour", "red"),
    _with("environments.0", ["local"]),
    _with("environments", ()),
    _with("current_date", 20261130),
    _with("subagents", None),
    _with("network", None),
    _with("network.allowed", None),
    _with("network.allowed", ["a", 1]),
    _with("network.denied", "x"),
    _with("network.other", []),
    _with("filesystem", None),
    _with("filesystem.workspace_roots", ...),
    _with("filesystem.workspace_roots", [None]),
    _with("filesystem.permission_profile", ...),
    _with(f"{FS}.type", "disabled"),
    _with(f"{FS}.type", "external"),
    _with(f"{FS}.type", 1),
    _with(f"{FS}.type", ...),
    _with(f"{FS}.file_system", ...),
    _with(f"{FS}.file_system.type", "unrestricted"),
    _with(f"{FS}.file_system.type", ...),
    _with(f"{FS}.file_system.glob_scan_max_depth", -1),
    _with(f"{FS}.file_system.glob_scan_max_depth", 0),
    _with(f"{FS}.file_system.glob_scan_max_depth", 10**30),
    _with(f"{FS}.file_system.glob_scan_max_depth", True),
    _with(f"{FS}.file_system.glob_scan_max_depth", 4.0),
    _with(f"{FS}.file_system.glob_scan_max_depth", None),
    _with(f"{FS}.file_system.entries", ...),
    _with(f"{FS}.file_system.entries", None),
    _with(f"{FS}.file_system.entries.0.access", "exec"),
    _with(f"{FS}.file_system.entries.0.access", ...),
    _with(f"{FS}.file_system.entries.0.path", None),
    _with(f"{FS}.file_system.entries.0.missing_path_behavior", "skip"),
    _with(f"{FS}.file_system.entries.0.missing_path_behavior", 0),
    _with(f"{FS}.file_system.entries.0.mode", "x"),
    _with(f"{FS}.file_system.entries.0", "write"),
    _with(f"{FS}.file_system.extra", 1, UNRESTRICTED),
    _with(f"{FS}.other", 1, UNRESTRICTED),
    _with("environments.0.id", "\ud800"),
]


@pytest.mark.parametrize("document", NEAR_MISSES)
def test_near_misses_get_the_same_answer(document: dict[str, Any]) -> None:
    assert conforms(document) == schema_accepts(document)


@FUZZ
@given(data=st.data())
def test_mutated_documents_get_the_same_answer(data: st.DataObject) -> None:
    seed = data.draw(st.sampled_from([STATE, UNRESTRICTED]))
    try:
        document = json.loads(data.draw(mutated_json(seed)))
    except (ValueError, RecursionError):
        assume(False)
    assert conforms(document) == schema_accepts(document)


def test_a_document_the_checks_refuse_gets_the_schemas_words() -> None:
    document = _with("environments.0.primary", "yes", _with("environments.1.cwd", 3))
    with pytest.raises(DocumentError) as caught:
        parse_state_document(document)
    assert str(caught.value) == (
        "environments[0].primary: Input should be a valid boolean (and 1 more error)"
    )
