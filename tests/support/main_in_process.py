"""``envtui``'s ``main()`` run in the test's own process: its input files, exit code and output."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from envtui.cli import main

Capture = pytest.CaptureFixture[str] | pytest.CaptureFixture[bytes]
"""``capsys`` or ``capsysbinary``; the binary one checks that the output is UTF-8."""


def write_json(path: Path, value: Any) -> str:
    """Write ``value`` as JSON (a ``str`` as it is, for broken input); return the path."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    return str(path)


def run_cli(argv: Sequence[str], capture: Capture) -> tuple[int, str, str]:
    """``main(argv)``: its exit code, then what it wrote to standard output and error."""
    code = main(argv)
    captured = capture.readouterr()
    return code, _text(captured.out), _text(captured.err)


def _text(output: str | bytes) -> str:
    return output.decode("utf-8") if isinstance(output, bytes) else output


def render_json(argv: Sequence[str], capture: Capture) -> dict[str, Any]:
    """``envtui render ARGV --json``: it exits 0 and prints one line, a JSON object."""
    code, out, _ = run_cli(["render", *argv, "--json"], capture)
    assert code == 0
    assert out.endswith("\n")
    assert out.count("\n") == 1
    result: dict[str, Any] = json.loads(out)
    return result


def run_check(rollout: Path, *args: str, capture: Capture) -> tuple[int, str, str]:
    """``envtui check ROLLOUT ARGS``: its exit code, standard output and error."""
    return run_cli(["check", str(rollout), *args], capture)


def clean_check(rollout: Path, capture: Capture) -> dict[str, Any]:
    """``envtui check ROLLOUT --json`` on a rollout that must check clean: its report."""
    code, out, _ = run_check(rollout, "--json", capture=capture)
    report: dict[str, Any] = json.loads(out)
    assert code == 0, report["findings"]
    return report


def finding_lines(report: str) -> list[str]:
    """The finding lines of ``check``'s text report, without its notes and summary."""
    lines = report.splitlines()
    assert lines, report
    assert lines[-1].endswith(" step(s)"), report  # the summary ends it
    return [line for line in lines[:-1] if not line.startswith("note: ")]
