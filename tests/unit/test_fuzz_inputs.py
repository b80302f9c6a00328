"""Properties of every input-reading command, on mutated documents, streams, configs, themes.

Through the real entry point (``envtui.cli.main``): the exit code is one of those the
command documents, bad input is exactly one line on standard error that names the file,
and there is never a traceback or an internal error. ``ENVTUI_FUZZ_EXAMPLES`` raises the
number of cases (the default keeps ``pytest tests/unit`` fast; the heavier run is in
``tests/integration/test_fuzz_commands.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.data.handmade_rollouts import RolloutWriter
from tests.support.data.mutations import fuzz_settings, mutated_json, mutated_toml
from tests.support.files import EXAMPLE_SNAPSHOT, EXAMPLE_STATE
from tests.support.scenarios.scripted_stream import scripted_events

from envtui.cli import main
from envtui.context.model import EnvironmentsState, EnvironmentState
from envtui.dashboard.store import Store
from envtui.settings.theme_files import builtin_theme_dir, load_themes
from envtui.tui.format import row_values
from envtui.vocabulary.events import DecodeError, decode_lines, encode_event

FUZZ = fuzz_settings("ENVTUI_FUZZ_EXAMPLES", 25)
STATE = json.loads(EXAMPLE_STATE.read_text())
SNAPSHOT = json.loads(EXAMPLE_SNAPSHOT.read_text())


def write(path: Path, text: str) -> str:
    path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    return str(path)


def assert_clean(code: int, err: str, codes: set[int], named: str) -> None:
    """The exit code is one of ``codes``; an error is one line naming the file."""
    assert code in codes, err
    assert "Traceback" not in err
    assert "internal error" not in err, err
    if code == 2:
        assert err.count("\n") == 1, err
        assert named in err, err


@FUZZ
@given(data=st.data())
def test_render_answers_any_mutated_document_with_0_or_2(
    data: st.DataObject, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    seed = data.draw(st.sampled_from([STATE, SNAPSHOT]))
    state = write(tmp_path / "state.json", data.draw(mutated_json(seed)))
    previous = write(tmp_path / "prev.json", data.draw(mutated_json(SNAPSHOT)))
    extra = data.draw(st.sampled_from([[], ["--json"], ["--diff", "--previous", previous]]))
    code = main(["render", state, *extra])
    # read as bytes: a lone surrogate escaped in the document (``"\\udc80"``) is a value
    # the render keeps, written as its WTF-8 bytes, which a strict UTF-8 reader refuses
    out, err = (b.decode("utf-8", "surrogatepass") for b in capsysbinary.readouterr())
    assert_clean(code, err, {0, 2}, "state.json" if "prev.json" not in err else "prev.json")
    if code == 0 and "--json" in extra:
        json.loads(out)


def event_lines() -> list[str]:
    return [encode_event(event) for event in scripted_events()]


@st.composite
def mutated_stream(draw: st.DrawFn) -> list[str]:
    seeds = event_lines()
    lines = list(seeds)
    for _ in range(draw(st.integers(1, 4))):
        index = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["mutate", "mutate", "drop", "double", "swap"]))
        if action == "mutate":  # always from a valid line, so the seed itself is never deep
            lines[index] = draw(mutated_json(json.loads(seeds[index % len(seeds)])))
        elif action == "drop" and len(lines) > 1:
            del lines[index]
        elif action == "double":
            lines.insert(index, lines[index])
        else:
            other = draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
    return lines


def _rollout(tmp_path: Path) -> Path:
    writer = RolloutWriter()
    writer.turn()
    local = EnvironmentState(cwd="/repo", shell="bash", is_primary=True)
    writer.step(
        EnvironmentsState(environments={"local": local, "devbox": EnvironmentState(cwd="/r")})
    )
    return writer.save(tmp_path)


@FUZZ
@given(lines=mutated_stream())
def test_check_events_and_the_dashboards_reducer_take_any_mutated_stream(
    lines: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = write(tmp_path / "events.jsonl", "\n".join(lines) + "\n")
    code = main(["check", str(_rollout(tmp_path)), "--events", events])
    _, err = capsys.readouterr()
    assert_clean(code, err, {0, 1, 2}, "events.jsonl")
    store = Store()  # what replay does with the same lines, down to the table's cells
    for item in decode_lines(lines):
        if isinstance(item, DecodeError):
            continue
        store.apply(item)
    for row in store.environments.values():
        row_values(row, scripted_events()[0].at or store_time())
        if row.changed_at is not None:
            assert row.changed_at.utcoffset() is not None  # always comparable


def store_time() -> Any:
    from tests.support.scenarios.scripted_stream import clock

    return clock()


CONFIG = "\n".join(
    [
        'timezone = "Etc/UTC"',
        "step_interval = 1",
        'keymap = { pause = "space" }',
        '[network]\nallowed = ["a.example"]',
        '[[environments]]\nid = "local"\nkind = "local"\ncwd = "/tmp"',
        '[[environments]]\nid = "other"\nkind = "local"\ncwd = "file:///tmp"',
    ]
)


@FUZZ
@given(text=mutated_toml(CONFIG))
def test_a_mutated_config_is_exit_0_or_one_line_and_2(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write(tmp_path / "config.toml", text)
    code = main(["snapshot", "--config", config, "--timeout", "0.5", "--json"])
    _, err = capsys.readouterr()
    assert_clean(code, err, {0, 2}, "config.toml")


THEME = (builtin_theme_dir() / "envtui-okabe-ito.toml").read_text()


@FUZZ
@given(text=mutated_toml(THEME))
def test_a_mutated_theme_is_a_theme_or_one_problem(text: str, tmp_path: Path) -> None:
    from envtui.tui.themes import to_textual

    (tmp_path / "themes").mkdir(exist_ok=True)
    write(tmp_path / "themes" / "t.toml", text)
    themes, problems = load_themes(tmp_path / "themes")
    assert len(themes) + len(problems) == 1
    for theme in themes:
        to_textual(theme)  # Textual takes every theme that validated
    for problem in problems:
        assert str(tmp_path / "themes" / "t.toml") in problem.reason
