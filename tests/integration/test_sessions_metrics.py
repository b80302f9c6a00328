"""``envtui sessions --json --metrics`` as a process: it serves every thread's series until
SIGTERM, prints a line for each thread that changes, and frees its port on the way out."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.support.data.session_trees import (
    copy_real,
    thread_id,
    with_wrong_last_context,
)
from tests.support.real.ssh_servers import free_port
from tests.support.waiting import poll_until

from envtui.sources.sessions.session_files import default_sessions_dir


def _thread_of(rollout: Path) -> str:
    """The thread id a rollout's name ends with (a UUID, 36 characters)."""
    return rollout.stem[-36:]


def _scrape(port: int) -> str:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as answer:
            return str(answer.read().decode())
    except OSError:
        return ""


def test_sessions_serves_each_threads_series_until_sigterm(tmp_path: Path) -> None:
    copied = copy_real(tmp_path)
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "envtui",
            "sessions",
            str(tmp_path),
            "--json",
            "--metrics",
            f"127.0.0.1:{port}",
            "--poll-interval",
            "0.2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        poll_until(lambda: "envtui_environment_status" in _scrape(port), what="the series")
        with_wrong_last_context(tmp_path, ago=0.0)
        active = f'envtui_incidents_active{{code="context-mismatch",thread="{thread_id(999)}"}} 1.0'
        scraped = [""]  # the last body: the one that showed the incident is the one read

        def incident_served() -> bool:
            scraped[-1] = _scrape(port)  # "" for a scrape that failed or timed out
            return active in scraped[-1]

        poll_until(incident_served, what="the incident in the series")
        body = scraped[-1]
        assert f'envtui_source_up{{source="{tmp_path}"}} 1.0' in body
        assert 'status="ready"' in body
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 1, err  # a live thread has an active incident
    printed = [json.loads(line)["thread"] for line in out.splitlines() if line.startswith("{")]
    # each thread once: the three copied and the new one (while the first listing still
    # prints, the new file may be listed before the last of the three)
    assert sorted(printed) == sorted([*(_thread_of(path) for path in copied), thread_id(999)])
    assert _scrape(port) == ""
    assert default_sessions_dir({"CODEX_HOME": "/x"}) == Path("/x/sessions")
