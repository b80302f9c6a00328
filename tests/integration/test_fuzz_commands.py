"""The same mutated inputs as ``tests/unit/test_fuzz_inputs.py``, each run as its own process.

A process shows what an in-process run cannot: what reaches the real standard error on the
way out (a traceback at exit, "Exception ignored", a flush that fails), and the exit code
the shell sees. ``ENVTUI_FUZZ_PROCESSES`` sets the number of cases per command.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.support.data.handmade_rollouts import RolloutWriter
from tests.support.data.mutations import fuzz_settings, mutated_json, mutated_toml
from tests.support.files import EXAMPLE_STATE
from tests.support.scenarios.scripted_stream import scripted_events

from envtui.context.model import EnvironmentsState, EnvironmentState
from envtui.vocabulary.events import encode_event

PROCESSES = fuzz_settings("ENVTUI_FUZZ_PROCESSES", 25)
STATE = json.loads(EXAMPLE_STATE.read_text())
CONFIG = (
    '[[environments]]\nid = "local"\nkind = "local"\ncwd = "/tmp"\n[network]\nallowed = ["a"]\n'
)


def run(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envtui", *argv],
        capture_output=True, text=True, errors="replace", timeout=60, cwd=tmp_path,
    )  # fmt: skip


def assert_clean(result: subprocess.CompletedProcess[str], codes: set[int], named: str) -> None:
    assert result.returncode in codes, result.stderr
    for sign in ("Traceback", "Exception ignored", "internal error", "never retrieved"):
        assert sign not in result.stderr, result.stderr
    if result.returncode == 2:
        assert result.stderr.count("\n") == 1, result.stderr
        assert named in result.stderr


@PROCESSES
@given(text=mutated_json(STATE))
def test_render_as_a_process(text: str, tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    assert_clean(run(tmp_path, "render", str(state), "--json"), {0, 2}, "state.json")


@PROCESSES
@given(data=st.data())
def test_events_files_as_a_process(data: st.DataObject, tmp_path: Path) -> None:
    lines = [encode_event(event) for event in scripted_events()]
    index = data.draw(st.integers(0, len(lines) - 1))
    lines[index] = data.draw(mutated_json(json.loads(lines[index])))
    stream = tmp_path / "stream.jsonl"
    stream.write_bytes(("\n".join(lines) + "\n").encode("utf-8", errors="surrogatepass"))
    writer = RolloutWriter()
    writer.turn()
    writer.step(EnvironmentsState(environments={"local": EnvironmentState(cwd="/r")}))
    rollout = writer.save(tmp_path)
    result = run(tmp_path, "check", str(rollout), "--events", str(stream))
    assert_clean(result, {0, 1, 2}, "stream.jsonl")


@PROCESSES
@given(text=mutated_toml(CONFIG))
def test_configs_as_a_process(text: str, tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    result = run(tmp_path, "snapshot", "--config", str(config), "--timeout", "1")
    assert_clean(result, {0, 2}, "c.toml")
