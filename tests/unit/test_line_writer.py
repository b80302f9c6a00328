"""Lines written off the event loop: whole lines at once, a failure said once, never a block."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

from tests.support.waiting import DEFAULT_TIMEOUT, poll_until

from envtui.sources.line_writer import LineWriter


def test_each_line_reaches_the_file_at_once_whole(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    writer = LineWriter.open(str(path))
    writer.write('{"n":1}')
    # on disk without a close or a flush: a process killed now keeps it
    poll_until(lambda: path.read_text() == '{"n":1}\n', what="the line on disk")
    for n in range(2, 1001):
        writer.write(json.dumps({"n": n}))
    assert writer.close(timeout=DEFAULT_TIMEOUT)
    lines = path.read_text().splitlines()
    assert [json.loads(line)["n"] for line in lines] == list(range(1, 1001))
    assert writer.written == 1000


def test_a_write_error_stops_writing_once_with_the_reason() -> None:
    failures: list[str] = []
    writer = LineWriter(os.open("/dev/full", os.O_WRONLY), "/dev/full", failures.append)
    writer.write("{}")
    poll_until(lambda: writer.failure is not None, what="the write error")
    writer.write("{}")  # dropped: nothing more is tried
    assert not writer.close(timeout=DEFAULT_TIMEOUT)
    assert failures == ["/dev/full: cannot write: No space left on device"]
    assert writer.failure == failures[0]


def returns(call: Callable[[], object]) -> object:
    """What ``call`` returns, run on a thread of its own while the test's pipe stays unread:
    a call that waited on the blocked write would never return (the bound is a hang guard)."""
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(call()), daemon=True)
    thread.start()
    thread.join(DEFAULT_TIMEOUT)
    assert not thread.is_alive(), "the call waited on the blocked write"
    return result[0]


def test_an_output_nobody_reads_fails_instead_of_growing_or_blocking() -> None:
    read_end, write_end = os.pipe()  # a pipe whose reader never reads
    failures: list[str] = []
    writer = LineWriter(write_end, "standard output", failures.append, max_waiting=1 << 20)
    line = "x" * 1023
    for _ in range(128):  # 128 KiB: more than the pipe holds, so the thread's write blocks
        writer.write(line)
    poll_until(lambda: writer._waiting == 0, what="the writer to take the lines")

    def more() -> None:
        for _ in range(2048):  # 2 MiB more: the queue's limit, not memory, decides
            writer.write(line)

    returns(more)  # the caller never waited on the blocked write: nothing reads the pipe
    assert failures == ["standard output: the output is blocked (1 MiB unwritten)"]
    assert returns(lambda: writer.close(timeout=0.1)) is False  # close gave up after its time
    assert writer._thread.is_alive()  # still blocked in its write
    os.close(read_end)  # now the write fails, and the thread ends
    poll_until(lambda: not writer._thread.is_alive(), what="the writer to end")
    os.close(write_end)


def test_lone_surrogates_are_written_without_an_error(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    writer = LineWriter.open(str(path))
    writer.write('{"a":"\\ud800"}')
    assert writer.close(timeout=DEFAULT_TIMEOUT)
    assert json.loads(path.read_text()) == {"a": "\ud800"}
