"""``envtui check`` on many damaged copies of real rollouts: exit 0 or 1 (2 for
one damaged beyond any rollout item), never a traceback.

The unit tests run a few dozen mutations; this runs hundreds, over every real rollout.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from tests.support.data.rollout_mutations import mutated_rollout
from tests.support.main_in_process import run_check


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(mutated_rollout())
def test_hundreds_of_damaged_rollouts_never_give_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes
) -> None:
    path = tmp_path / "rollout-2026-11-30T00-00-00-damaged.jsonl"
    path.write_bytes(data)
    code, out, err = run_check(path, "--json", capture=capsys)
    assert "Traceback" not in err
    if code == 2:  # damaged beyond any rollout item: one line, no report
        assert out == ""
        assert err.startswith(f"envtui check: error: {path}: not a Codex rollout: ")
        assert err.count("\n") == 1
    else:
        assert code in (0, 1), err
