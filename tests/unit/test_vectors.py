"""Every golden vector, byte for byte, through the Python API and through ``envtui render``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.data.vector_inputs import (
    load_vectors,
    previous_document,
    previous_snapshot,
    previous_state,
    sorted_json,
    state,
)
from tests.support.main_in_process import render_json, write_json

from envtui.context.diff import render_diff
from envtui.context.patch import (
    apply_world_patch,
    json_equal,
    remove_null_object_fields,
    world_merge_patch,
)
from envtui.context.paths import native
from envtui.context.render import render_full
from envtui.context.snapshot import snapshot

VECTORS = load_vectors()


def _ids(vectors: list[dict[str, Any]]) -> list[str]:
    return [v["name"] for v in vectors]


def test_all_vectors_are_known_kinds() -> None:
    assert len(VECTORS) == 32
    assert {v["kind"] for v in VECTORS} == {"render", "diff", "patch", "normalize", "path"}


# --- the Python API -------------------------------------------------------------------


@pytest.mark.parametrize("vector", VECTORS, ids=_ids(VECTORS))
def test_vector_through_the_api(vector: dict[str, Any]) -> None:
    kind, data, expected = vector["kind"], vector["input"], vector["expected"]
    if kind == "render":
        current = state(data["state"])
        assert current is not None
        assert render_full(current) == expected
    elif kind == "diff":
        current = state(data["current"])
        assert render_diff(current, previous_state(data["previous"])) == expected
        if "expected_current_snapshot" in vector:
            assert current is not None
            assert sorted_json(snapshot(current)) == vector["expected_current_snapshot"]
        if "expected_previous_snapshot" in vector:
            assert (
                sorted_json(previous_snapshot(data["previous"]))
                == vector["expected_previous_snapshot"]
            )
    elif kind == "patch":
        if "previous_states" in data:
            before = {k: snapshot(_present(state(s))) for k, s in data["previous_states"].items()}
            after = {k: snapshot(_present(state(s))) for k, s in data["current_states"].items()}
        else:
            before, after = data["previous"], data["current"]
        patch = world_merge_patch(before, after)
        assert patch == expected
        assert json_equal(apply_world_patch(before, patch or {}), after)
    elif kind == "normalize":
        assert remove_null_object_fields(data["sections"]) == expected
    else:
        assert native(data["uri"]) == expected


def _present(value: Any) -> Any:
    assert value is not None
    return value


# --- the command line -----------------------------------------------------------------

CLI_KINDS = ("render", "diff", "patch", "path")
"""``normalize`` and world-level ``patch`` vectors concern other world-state sections,
which ``envtui render`` does not take; the API test above covers them."""

CLI_VECTORS = [
    v
    for v in VECTORS
    if v["kind"] in CLI_KINDS and not (v["kind"] == "patch" and "previous" in v["input"])
]


@pytest.mark.parametrize("vector", CLI_VECTORS, ids=_ids(CLI_VECTORS))
def test_vector_through_envtuirender_json(
    vector: dict[str, Any], tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    kind, data, expected = vector["kind"], vector["input"], vector["expected"]
    if kind == "render":
        result = render_json([write_json(tmp_path / "state.json", data["state"])], capsysbinary)
        assert result["text"] == expected
    elif kind == "diff":
        argv = [write_json(tmp_path / "state.json", data["current"]), "--diff"]
        prev = previous_document(data["previous"])
        if prev is not ...:
            argv += ["--previous", write_json(tmp_path / "prev.json", prev)]
        result = render_json(argv, capsysbinary)
        assert result["text"] == expected
        if "expected_current_snapshot" in vector:
            assert sorted_json(result["snapshot"]) == vector["expected_current_snapshot"]
    elif kind == "patch":
        (prev,) = data["previous_states"].values()
        (cur,) = data["current_states"].values()
        argv = [
            write_json(tmp_path / "state.json", cur),
            "--previous",
            write_json(tmp_path / "prev.json", prev),
        ]
        assert render_json(argv, capsysbinary)["patch"] == expected
    else:
        doc = {"environments": [{"id": "local", "cwd": data["uri"], "shell": "bash"}]}
        result = render_json([write_json(tmp_path / "state.json", doc)], capsysbinary)
        assert result["snapshot"]["environments"]["local"]["cwd"] == expected
