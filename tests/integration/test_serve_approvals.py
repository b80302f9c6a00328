"""A served ``codex`` in a real Chromium: bursts of keys in one packet approve nothing.

The scenario (``tests/support/scenarios/serve_approvals.py``) runs the server, the
scripted app-server and the browser inside one ``unshare -n``; the tests assert on what it
saw. The screenshot of the tab is left in ``test-artifacts/`` (git-ignored).
"""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from typing import Any

import pytest

from tests.support.files import ROOT
from tests.support.real.browser import NEEDS_BROWSER_OFFLINE, UNSHARE

pytestmark = NEEDS_BROWSER_OFFLINE
ARTEFACTS = ROOT / "test-artifacts"


@cache
def scenario() -> dict[str, Any]:
    """What the scenario saw; it runs once per test session (a browser is slow)."""
    assert UNSHARE is not None
    ARTEFACTS.mkdir(exist_ok=True)
    result = subprocess.run(
        [UNSHARE, "-n", sys.executable, "-m", "tests.support.scenarios.serve_approvals",
         str(ARTEFACTS)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    seen: dict[str, Any] = json.loads(result.stdout)
    return seen


@pytest.mark.parametrize("burst", ["'o\\r'", "'O\\r'", "'/foo\\r'"])
def test_a_burst_in_one_packet_to_a_served_tab_approves_nothing(burst: str) -> None:
    assert scenario()[f"answers after {burst}"] == []


def test_a_filter_typed_in_one_packet_goes_to_the_filter_not_to_the_details() -> None:
    shown = scenario()["filter_screen"]
    assert "filter: foo" in shown
    assert "shell path" not in shown


def test_a_request_swapped_just_before_the_keys_is_not_approved_in_a_tab() -> None:
    seen = scenario()
    assert seen["answers after the swap"] == []
    assert seen["answers"] == [[1, 1, {"decision": "decline"}]]  # only the deliberate answer
    assert seen["server_exit"] == 0
