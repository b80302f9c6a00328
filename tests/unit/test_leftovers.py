"""The run's leak check finds a process the tests left behind, even one reparented to PID 1,
and ends it."""

from __future__ import annotations

import os
import subprocess

from tests.support.leftovers import RUN_MARKER, end_leftovers, leftover_processes, run_mark
from tests.support.waiting import poll_until


def test_a_detached_process_of_the_run_is_found_and_ended() -> None:
    mark = run_mark()
    env = {**os.environ, RUN_MARKER: mark}
    # sh starts sleep in the background and exits: sleep's parent becomes PID 1 (or a
    # subreaper), no longer below pytest; only its environment says whose it is
    subprocess.run(["sh", "-c", "sleep 60 >/dev/null 2>&1 &"], env=env, check=True)
    left = leftover_processes(mark, grace=0.5)
    assert len(left) == 1, left
    assert "sleep 60" in left[0]
    end_leftovers(mark)
    poll_until(lambda: not leftover_processes(mark, grace=0), timeout=5, what="sleep ended")


def test_a_process_that_ends_within_the_grace_is_not_left_behind() -> None:
    mark = run_mark()
    env = {**os.environ, RUN_MARKER: mark}
    subprocess.run(["sh", "-c", "sleep 0.3 >/dev/null 2>&1 &"], env=env, check=True)
    assert leftover_processes(mark, grace=10) == []
