"""Every headless command writes its report to standard output and nothing else to
standard error: ``envtui COMMAND > report.txt`` keeps the whole report."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.support.files import EXAMPLE_STATE, ROLLOUTS

ENVTUI = [sys.executable, "-m", "envtui"]
ROLLOUT = sorted(ROLLOUTS.glob("rollout-*.jsonl"))[0]


def _json_lines(text: str) -> bool:
    return all(isinstance(json.loads(line), dict) for line in text.splitlines()) and bool(text)


Looks = Callable[[str], bool]
"""Whether a command's standard output is its report."""

REPORTS: dict[str, tuple[list[str], Looks]] = {
    "render": (["render", str(EXAMPLE_STATE)], lambda out: "<environment_context>" in out),
    "render --json": (["render", "--json", str(EXAMPLE_STATE)], _json_lines),
    "snapshot": (["snapshot"], lambda out: "<environment_context>" in out),
    "snapshot --json": (["snapshot", "--json"], _json_lines),
    "events": (["events", "--duration", "0.5"], _json_lines),
    "check": (["check", str(ROLLOUT)], lambda out: out.endswith("0 finding(s) in 3 step(s)\n")),
    "check with notes": (
        ["check", str(ROLLOUT), "--profile", "codex-0.150"],
        lambda out: "\nnote: " in out and out.endswith(" step(s)\n"),
    ),
    "check --json": (["check", "--json", str(ROLLOUT)], _json_lines),
    "sessions --json": (["sessions", "SESSIONS", "--json"], _json_lines),
    "info": (["info"], lambda out: out.startswith("envtui ")),
    "info --json": (["info", "--json"], _json_lines),
    "completion": (["completion", "bash"], lambda out: "complete" in out),
    "manpage": (["manpage"], lambda out: out.startswith(".TH") or "\n.TH" in out),
}


def _run(argv: list[str], tmp_path: Path, name: str) -> tuple[int, str, str]:
    report = tmp_path / f"{name.replace(' ', '_')}.txt"
    with report.open("w") as out:  # a file, as `> report.txt` gives it
        result = subprocess.run(
            [*ENVTUI, *argv],
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            cwd=tmp_path,
            env={**os.environ, "CODEX_HOME": str(tmp_path / "codex")},
        )
    return result.returncode, report.read_text(), result.stderr


def test_every_headless_report_is_on_standard_output(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions" / "2026" / "11" / "30"
    sessions.mkdir(parents=True)
    shutil.copy(ROLLOUT, sessions / ROLLOUT.name)
    runs = {
        name: [str(tmp_path / "sessions") if a == "SESSIONS" else a for a in argv]
        for name, (argv, _) in REPORTS.items()
    }
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = dict(zip(runs, pool.map(lambda n: _run(runs[n], tmp_path, n), runs), strict=True))
    wrong = {
        name: (code, out[-200:], err)
        for name, (code, out, err) in results.items()
        if code != 0 or err != "" or not REPORTS[name][1](out)
    }
    assert wrong == {}


@pytest.mark.parametrize("extra", [(), ("--json",)])
def test_a_check_error_is_on_standard_error_alone(tmp_path: Path, extra: tuple[str, ...]) -> None:
    garbage = tmp_path / "README.md"
    garbage.write_text("# not a rollout\n")
    code, out, err = _run(["check", *extra, str(garbage)], tmp_path, "garbage")
    assert (code, out) == (2, "")
    assert (
        err == f"envtui check: error: {garbage}: not a Codex rollout: no line is a rollout item\n"
    )
