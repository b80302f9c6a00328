"""The event log as read: folded lines with counts, filters by environment and type, search."""

from __future__ import annotations

import gc

from tests.support.scenarios.scripted_stream import at, scripted_events, status

from envtui.dashboard.log_lines import LogEntry, log_entry
from envtui.dashboard.store import Store
from envtui.tui.format import use_ascii
from envtui.tui.log_fold import FoldedLog, LogFilter
from envtui.vocabulary.events import (
    EnvironmentDisconnected,
    StepRecorded,
    WarningMessage,
    thread_event,
)


def entries(events: list) -> list[LogEntry]:  # type: ignore[type-arg]
    store = Store()
    store.apply_all(events)
    return list(store.log)


def refusing_host(retries: int) -> list:  # type: ignore[type-arg]
    """ghost's host refuses every retry: starting and unavailable take turns every 2.5 s."""
    events = [status("ghost", "starting", 0)]
    for retry in range(retries):
        events.append(status("ghost", "unavailable", 5 * retry + 1, error="refused"))
        events.append(status("ghost", "starting", 5 * retry + 3.5))
    return events


def test_identical_consecutive_lines_are_one_line_with_a_count_and_a_span() -> None:
    warning = WarningMessage(message="disk almost full")
    log = FoldedLog(limit=100)
    kept, lines = log.add(
        [log_entry(thread_event(warning, at=at(second))) for second in range(0, 30, 2)]
    )
    assert (kept, lines) == (
        0,
        ["12:00:28 warning disk almost full \N{MULTIPLICATION SIGN}15 in 28 s"],
    )
    kept, lines = log.add([log_entry(thread_event(warning, at=at(40)))])
    assert (kept, lines) == (
        0,
        ["12:00:40 warning disk almost full \N{MULTIPLICATION SIGN}16 in 40 s"],
    )  # rewritten


def test_a_host_that_refuses_every_retry_is_one_line() -> None:
    log = FoldedLog(limit=100)
    _, lines = log.add(entries(refusing_host(12)))
    assert lines == [
        "12:00:00 environment_status ghost starting",
        "12:00:58 environment_status ghost starting → unavailable: refused \N{MULTIPLICATION SIGN}12 in 57 s"
        " · with environment_status ghost unavailable → starting \N{MULTIPLICATION SIGN}12",
    ]


def test_a_different_line_ends_a_fold_and_lines_keep_their_order() -> None:
    log = FoldedLog(limit=100)
    log.add(entries(refusing_host(3)))
    kept, lines = log.add(entries([status("local", "ready", 20)]))
    assert kept == 2  # the lines already shown stay
    assert lines == ["12:00:20 environment_status local ready"]


def test_connection_events_keep_their_empty_id_and_envtuis_own_leave_it_out() -> None:
    lines = [e.line for e in entries(scripted_events())]
    assert '12:00:04 id "" environment_connected build' in lines
    assert "12:00:04 environment_status build starting → ready primary" in lines
    assert not any(
        line.startswith("12:00:04 id") and "environment_status" in line for line in lines
    )
    disconnected = thread_event(EnvironmentDisconnected(environment_id="x\x1b[2J"), at=at(0))
    assert log_entry(disconnected).line == '12:00:00 id "" environment_disconnected x\\x1b[2J'


def test_filter_by_environment_type_and_words() -> None:
    shown = entries(scripted_events())
    log = FoldedLog(limit=100, filter=LogFilter.parse("env:build type:status"))
    lines = log.rebuild(shown)
    assert len(lines) == 3
    assert all("environment_status build" in line for line in lines)
    log.filter = LogFilter.parse("type:connection")
    connections = log.rebuild(shown)
    assert len(connections) == 2
    assert all("_connected" in line or "_disconnected" in line for line in connections)
    log.filter = LogFilter.parse("env:legacy mismatch")
    assert len(log.rebuild(shown)) == 1
    log.filter = LogFilter.parse("")
    assert len(log.rebuild(shown)) == len(shown)
    assert not log.filter


def test_a_filter_finds_lines_never_read_and_shows_them_as_they_read() -> None:
    """The store writes a line's words only when it is read: a filter reads the lines it
    has to, and finds the same ones as in lines read before."""
    states = ("starting", "ready", "unavailable")
    events = [status(f"env-{i % 7}", states[i % 3], i, error=f"event {i}") for i in range(300)]
    unread, read = entries(events), entries(events)
    every_line = [entry.line for entry in read]
    held = [item for entry in unread for item in gc.get_referents(entry)]
    assert not any(isinstance(item, str) and " env-" in item for item in held)  # none written
    log = FoldedLog(limit=1_000, filter=LogFilter.parse("env:env-3 type:status EVENT 1"))
    found = log.rebuild(unread)
    # words match anywhere in the line: "event" is in each, "1" in the events' numbers
    assert found == [line for i, line in enumerate(every_line) if i % 7 == 3 and "1" in str(i)]
    assert found == [
        line for entry, line in zip(read, every_line, strict=True) if log.filter.matches(entry)
    ]
    assert found[0] == "12:00:10 environment_status env-3 starting → ready: event 10"


def test_search_finds_lines_oldest_first() -> None:
    log = FoldedLog(limit=100)
    log.rebuild(entries(scripted_events()))
    found = log.search("BUILD")
    assert found == sorted(found)
    assert len(found) >= 3
    assert all("build" in log.folds[i].line() for i in found)


def test_the_bound_drops_the_oldest_lines() -> None:
    log = FoldedLog(limit=5)
    many = [log_entry(thread_event(WarningMessage(message=f"w{i}"), at=at(i))) for i in range(8)]
    kept, lines = log.add(many)
    assert (kept, len(lines)) == (0, 5)
    assert [fold.first.text for fold in log.folds] == [f"warning w{i}" for i in range(3, 8)]


def test_ascii_glyphs_fold_with_x_and_an_ascii_arrow() -> None:
    use_ascii(True)
    try:
        log = FoldedLog(limit=10)
        _, lines = log.add(entries(refusing_host(2)))
        assert lines[1].startswith("12:00:08 environment_status ghost starting -> unavailable")
        assert " x2 in 7 s" in lines[1]
    finally:
        use_ascii(False)


def test_a_line_that_comes_again_between_others_moves_down_with_its_count() -> None:
    def warning(text: str, second: int) -> LogEntry:
        return log_entry(thread_event(WarningMessage(message=text), at=at(second)))

    log = FoldedLog(limit=100)
    log.add([warning("a", 0), warning("b", 1), warning("c", 2)])
    kept, lines = log.add([warning("a", 3)])
    assert kept == 0  # "a" left the first line: everything from there is written again
    assert lines == [
        "12:00:01 warning b",
        "12:00:02 warning c",
        "12:00:03 warning a \N{MULTIPLICATION SIGN}2 in 3 s",
    ]
    distinct = [warning(f"w{i}", 10 + i) for i in range(120)]  # more than LOOKBACK between
    log.add([*distinct, warning("b", 200)])
    assert log.folds[-1].line() == "12:03:20 warning b"  # too far back: a line of its own


def step(number: int, second: int, *, sent: bool = False) -> LogEntry:
    """A step's log line: one that sent a context change, or one that changed nothing."""
    diff = "<environment_context>\n</environment_context>" if sent else None
    return log_entry(thread_event(StepRecorded(step=number, diff=diff), at=at(second)))


def test_a_run_of_steps_that_changed_nothing_is_one_line_with_its_range() -> None:
    log = FoldedLog(limit=100)
    _, lines = log.add([step(n, 2 * n) for n in range(980, 995)])
    assert lines == [
        "12:33:08 steps #980\N{EN DASH}#994: no context change \N{MULTIPLICATION SIGN}15 in 28 s"
    ]
    _, lines = log.add([step(995, 1990)])
    assert lines == [
        "12:33:10 steps #980\N{EN DASH}#995: no context change \N{MULTIPLICATION SIGN}16 in 30 s"
    ]  # rewritten


def test_a_step_that_changed_nothing_alone_keeps_its_own_line() -> None:
    log = FoldedLog(limit=100)
    assert log.add([step(7, 0)])[1] == ["12:00:00 step #7 no context change"]


def test_a_step_that_sent_a_change_ends_the_run_and_other_lines_do_not() -> None:
    log = FoldedLog(limit=100)
    warning = log_entry(thread_event(WarningMessage(message="disk almost full"), at=at(3)))
    _, lines = log.add(
        [step(1, 0), step(2, 2), warning, step(3, 4), step(4, 6, sent=True), step(5, 8)]
    )
    assert lines == [
        "12:00:03 warning disk almost full",
        "12:00:04 steps #1\N{EN DASH}#3: no context change \N{MULTIPLICATION SIGN}3 in 4 s",
        "12:00:06 step #4 context sent",
        "12:00:08 step #5 no context change",
    ]


def test_steps_numbered_anew_start_a_run_of_their_own() -> None:
    log = FoldedLog(limit=100)
    _, lines = log.add([step(8, 0), step(9, 2), step(1, 4), step(2, 6)])
    assert lines == [
        "12:00:02 steps #8\N{EN DASH}#9: no context change \N{MULTIPLICATION SIGN}2 in 2 s",
        "12:00:06 steps #1\N{EN DASH}#2: no context change \N{MULTIPLICATION SIGN}2 in 2 s",
    ]


def test_a_run_of_steps_reads_in_ascii_too() -> None:
    use_ascii(True)
    try:
        _, lines = FoldedLog(limit=10).add([step(1, 0), step(2, 2)])
        assert lines == ["12:00:02 steps #1-#2: no context change x2 in 2 s"]
    finally:
        use_ascii(False)


def test_distinct_lines_never_fold_and_repeats_still_find_their_line() -> None:
    """The texts a recent fold may take are looked up before the folds are asked: a line
    whose text none of them takes is a line of its own, a repeat still moves down."""
    log = FoldedLog(limit=1_000)
    first = [log_entry(thread_event(WarningMessage(message=f"w{i}"), at=at(i))) for i in range(50)]
    log.add(first)
    again = log_entry(thread_event(WarningMessage(message="w10"), at=at(60)))
    kept, lines = log.add([again])
    assert kept == 10
    assert lines[-1] == "12:01:00 warning w10 \N{MULTIPLICATION SIGN}2 in 50 s"
    assert len(log.folds) == 50


def test_each_line_has_its_own_second_in_its_zone_however_the_burst_comes() -> None:
    from datetime import timedelta, timezone
    from zoneinfo import ZoneInfo

    warning = WarningMessage(message="w")
    berlin, plus_five = ZoneInfo("Europe/Berlin"), timezone(timedelta(hours=5))
    moments = [at(0.1), at(0.9), at(1.0), at(0.5).astimezone(plus_five), at(59.99), at(3600)]
    shown = [log_entry(thread_event(warning, at=when)).time for when in moments]
    assert shown == ["12:00:00", "12:00:00", "12:00:01", "12:00:00", "12:00:59", "13:00:00"]
    in_berlin = [log_entry(thread_event(warning, at=when), berlin).time for when in moments[:3]]
    assert in_berlin == ["13:00:00", "13:00:00", "13:00:01"]  # the same seconds, another zone
    assert log_entry(thread_event(warning, at=at(0.2))).time == "12:00:00"  # and back
    assert log_entry(thread_event(warning)).time == "--:--:--"
