"""``envtui serve`` as a process, without a browser: its shutdown and its address errors."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap

STUBBORN_SERVER = textwrap.dedent(
    """
    import asyncio, json, os, subprocess, sys

    import psutil

    from envtui.commands.serve.web_server import end_dashboards

    SLEEP = [sys.executable, "-c", "import time; time.sleep(60)"]
    STUBBORN = (
        "import signal, subprocess, sys, time\\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\\n"
        f"child = subprocess.Popen({SLEEP!r}, start_new_session=True)\\n"
        "print(child.pid, flush=True)\\n"
        "time.sleep(60)\\n"
    )
    stubborn = subprocess.Popen([sys.executable, "-c", STUBBORN], stdout=subprocess.PIPE)
    grandchild = psutil.Process(int(stubborn.stdout.readline()))
    polite = subprocess.Popen(SLEEP)
    asyncio.run(end_dashboards(os.getpid(), grace=1.0))
    print(json.dumps({
        "polite": polite.wait(timeout=5),
        "stubborn": stubborn.wait(timeout=5),
        "grandchild_running": grandchild.is_running()
        and grandchild.status() != psutil.STATUS_ZOMBIE,
    }))
    """
)
"""A stand-in for the server (the processes are real): a dashboard that quits on SIGTERM,
one that ignores it and has started a process in a session of its own; then the shutdown."""


def test_the_shutdown_asks_dashboards_to_quit_then_kills_the_rest_and_what_they_started() -> None:
    result = subprocess.run(
        [sys.executable, "-c", STUBBORN_SERVER], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "polite": -15,  # SIGTERM: Textual's web driver quits the app on it
        "stubborn": -9,  # still there after the grace period
        "grandchild_running": False,  # remembered before its parent was killed
    }


def test_a_port_in_use_is_one_line_and_exit_1() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "envtui", "serve", "--port", str(port)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        f"envtui serve: error: cannot listen on 127.0.0.1:{port}: Address already in use"
    )


def test_a_metrics_address_in_use_is_the_shared_sources_one_line_and_exit_2() -> None:
    with socket.socket() as taken, socket.socket() as free:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        free.bind(("127.0.0.1", 0))
        metrics, port = taken.getsockname()[1], free.getsockname()[1]
        free.close()
        result = subprocess.run(
            [sys.executable, "-m", "envtui", "serve", "--port", str(port), "--", "watch",
             "--metrics", f"127.0.0.1:{metrics}"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == (
        f"envtui watch: error: --metrics 127.0.0.1:{metrics}: cannot listen: Address already in use"
    )
    assert "token=" not in result.stdout  # no address was printed: nothing was served


def test_a_remote_address_is_warned_about_once_before_serving() -> None:
    # 192.0.2.1 (TEST-NET-1) is on no interface here: the warning, then it cannot listen.
    result = subprocess.run(
        [sys.executable, "-m", "envtui", "serve", "--host", "192.0.2.1", "--allow-remote"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert sum("is reachable from other machines" in line for line in lines) == 1
    assert lines[0].startswith("envtui serve: warning: http://192.0.2.1:8000 is reachable")
    assert lines[-1].startswith("envtui serve: error: cannot listen on 192.0.2.1:8000: ")
    assert result.stdout == ""  # nothing claims it serves
