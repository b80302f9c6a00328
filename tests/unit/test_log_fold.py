"""The event log as read: folded lines with their count first, pairs that take turns, a
window of steps as one line, filters by environment and type, search. Pure: no screen."""

from __future__ import annotations

import gc

from tests.support.scenarios.scripted_stream import at, scripted_events, status

from envtui.dashboard.log_fold import (
    LOOKBACK,
    STEP_WINDOW_STEPS,
    TURN_KEYS,
    FoldedLog,
    LogFilter,
)
from envtui.dashboard.log_lines import LogEntry, log_entry
from envtui.dashboard.store import Store
from envtui.steps.emit import finding_event
from envtui.steps.rules import check_calls
from envtui.steps.values import StepView, ToolCall
from envtui.vocabulary.events import (
    EnvironmentDisconnected,
    FindingReported,
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
        ["12:00:28 \N{MULTIPLICATION SIGN}15 warning disk almost full · over 28 s"],
    )
    kept, lines = log.add([log_entry(thread_event(warning, at=at(40)))])
    assert (kept, lines) == (
        0,
        ["12:00:40 \N{MULTIPLICATION SIGN}16 warning disk almost full · over 40 s"],
    )  # rewritten


def test_a_host_that_refuses_every_retry_is_one_line() -> None:
    log = FoldedLog(limit=100)
    _, lines = log.add(entries(refusing_host(12)))
    assert lines == [
        "12:00:00 environment_status ghost starting",
        "12:00:58 \N{MULTIPLICATION SIGN}12+12 environment_status ghost starting → unavailable:"
        " refused · with unavailable → starting · over 57 s",
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
    assert len(log.rebuild(shown)) == len(shown) - 1  # its two steps are one window
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
    log = FoldedLog(limit=10, ascii=True)
    _, lines = log.add(entries(refusing_host(2)))
    assert lines[1] == (
        "12:00:08 x2+2 environment_status ghost starting -> unavailable: refused"
        " · with unavailable -> starting · over 7 s"
    )


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
        "12:00:03 \N{MULTIPLICATION SIGN}2 warning a · over 3 s",
    ]
    distinct = [warning(f"w{i}", 10 + i) for i in range(120)]  # more than LOOKBACK between
    log.add([*distinct, warning("b", 200)])
    assert log.folds[-1].line() == "12:03:20 warning b"  # too far back: a line of its own


def step(number: int, second: float | None, *, sent: bool = False) -> LogEntry:
    """A step's log line: one that sent a context change, or one that changed nothing."""
    diff = "<environment_context>\n</environment_context>" if sent else None
    when = at(second) if second is not None else None
    return log_entry(thread_event(StepRecorded(step=number, diff=diff), at=when))


def test_the_steps_of_a_minute_are_one_line_that_counts_what_they_sent() -> None:
    log = FoldedLog(limit=100)
    _, lines = log.add([step(n, 2 * n - 1720, sent=n % 4 == 0) for n in range(860, 888)])
    assert lines == [
        "12:00:54 \N{MULTIPLICATION SIGN}28 steps #860\N{EN DASH}#887: 7 sent, 21 unchanged"
        " · over 54 s"
    ]
    _, lines = log.add([step(888, 56)])
    assert lines == [
        "12:00:56 \N{MULTIPLICATION SIGN}29 steps #860\N{EN DASH}#888: 7 sent, 22 unchanged"
        " · over 56 s"
    ]  # rewritten


def test_the_next_minute_of_steps_is_a_line_of_its_own() -> None:
    log = FoldedLog(limit=100)
    _, lines = log.add([step(n, 2 * n) for n in range(0, 35)])
    assert lines == [
        "12:00:58 \N{MULTIPLICATION SIGN}30 steps #0\N{EN DASH}#29: 30 unchanged · over 58 s",
        "12:01:08 \N{MULTIPLICATION SIGN}5 steps #30\N{EN DASH}#34: 5 unchanged · over 8 s",
    ]


def test_steps_without_a_time_make_windows_by_count() -> None:
    _, lines = FoldedLog(limit=100).add([step(n, None) for n in range(1, 2 * STEP_WINDOW_STEPS)])
    assert [line.split(" ")[1] for line in lines] == [
        f"\N{MULTIPLICATION SIGN}{STEP_WINDOW_STEPS}",
        f"\N{MULTIPLICATION SIGN}{STEP_WINDOW_STEPS - 1}",
    ]


def test_a_step_alone_keeps_its_own_line() -> None:
    log = FoldedLog(limit=100)
    assert log.add([step(7, 0)])[1] == ["12:00:00 step #7 no context change"]
    assert FoldedLog(limit=100).add([step(8, 0, sent=True)])[1] == ["12:00:00 step #8 context sent"]


def test_other_lines_between_steps_stay_and_the_window_moves_below_them() -> None:
    log = FoldedLog(limit=100)
    warning = log_entry(thread_event(WarningMessage(message="disk almost full"), at=at(3)))
    _, lines = log.add(
        [step(1, 0), step(2, 2), warning, step(3, 4), step(4, 6, sent=True), step(5, 8)]
    )
    assert lines == [
        "12:00:03 warning disk almost full",
        "12:00:08 \N{MULTIPLICATION SIGN}5 steps #1\N{EN DASH}#5: 1 sent, 4 unchanged · over 8 s",
    ]


def test_steps_numbered_anew_start_a_window_of_their_own() -> None:
    log = FoldedLog(limit=100)
    _, lines = log.add([step(8, 0), step(9, 2), step(1, 4), step(2, 6)])
    assert lines == [
        "12:00:02 \N{MULTIPLICATION SIGN}2 steps #8\N{EN DASH}#9: 2 unchanged · over 2 s",
        "12:00:06 \N{MULTIPLICATION SIGN}2 steps #1\N{EN DASH}#2: 2 unchanged · over 2 s",
    ]


def test_a_window_of_steps_reads_in_ascii_too() -> None:
    _, lines = FoldedLog(limit=10, ascii=True).add([step(1, 0), step(2, 2, sent=True)])
    assert lines == ["12:00:02 x2 steps #1-#2: 1 sent, 1 unchanged · over 2 s"]


def test_a_window_too_far_back_is_not_gone_on() -> None:
    log = FoldedLog(limit=1_000)
    noise = [
        log_entry(thread_event(WarningMessage(message=f"w{i}"), at=at(1))) for i in range(LOOKBACK)
    ]
    _, lines = log.add([step(1, 0), *noise, step(2, 2)])
    assert lines[0] == "12:00:00 step #1 no context change"
    assert lines[-1] == "12:00:02 step #2 no context change"


def demo_host(retries: int) -> list:  # type: ignore[type-arg]
    """As the demo's ghost: refused every retry, its two lines with steps and findings
    between them, so they never follow each other."""
    events = [status("ghost", "starting", 0)]
    for retry in range(retries):
        second = 10 * retry
        events.append(status("ghost", "unavailable", second + 1, error="cannot connect"))
        events.append(status("local", "ready", second + 2, error=f"load {retry}"))
        events.append(status("ghost", "starting", second + 5))
        events.append(thread_event(WarningMessage(message=f"note {retry}"), at=at(second + 6)))
    return events


def test_two_lines_that_take_turns_with_others_between_are_one_line() -> None:
    log = FoldedLog(limit=100)
    _, lines = log.add(entries(demo_host(30)))
    ghost = [line for line in lines if "ghost" in line]
    assert ghost == [
        "12:00:00 environment_status ghost starting",
        "12:04:55 \N{MULTIPLICATION SIGN}30+30 environment_status ghost starting → unavailable:"
        " cannot connect · with unavailable → starting · over 4 min 54 s",
    ]
    assert lines[-1] == "12:04:56 warning note 29"
    assert lines[-2].startswith("12:04:55 \N{MULTIPLICATION SIGN}30+30 environment_status ghost")


def test_a_pair_begins_with_the_line_that_came_first() -> None:
    events = [status("ghost", "unavailable", 0, error="refused")]
    for retry in range(3):
        events.append(status("ghost", "starting", 2 * retry + 1))
        events.append(status("ghost", "unavailable", 2 * retry + 2, error="refused"))
    _, lines = FoldedLog(limit=100).add(entries(events))
    assert lines == [
        "12:00:00 environment_status ghost unavailable: refused",
        "12:00:06 \N{MULTIPLICATION SIGN}3+3 environment_status ghost unavailable → starting"
        " · with starting → unavailable: refused · over 5 s",
    ]


def test_lines_of_two_environments_never_pair() -> None:
    events = []
    for retry in range(4):
        events.append(status("a", "ready", 2 * retry, error="x"))
        events.append(status("b", "ready", 2 * retry + 1, error="x"))
    _, lines = FoldedLog(limit=100).add(entries(events))
    assert lines == [
        "12:00:06 \N{MULTIPLICATION SIGN}4 environment_status a ready: x · over 6 s",
        "12:00:07 \N{MULTIPLICATION SIGN}4 environment_status b ready: x · over 6 s",
    ]


def test_a_cut_line_still_says_its_count_and_what_it_is() -> None:
    """Cut where an 80-column log cuts it, a long line keeps its count and its subject."""
    long_error = "cannot connect to 127.0.0.1:34995: Connection refused " * 3
    events = [status("ghost", "starting", 0)]
    for retry in range(5):
        events.append(status("ghost", "unavailable", 4 * retry + 1, error=long_error.strip()))
        events.append(status("ghost", "starting", 4 * retry + 3))
    _, lines = FoldedLog(limit=100).add(entries(events))
    assert lines[-1][:78].startswith(
        "12:00:19 \N{MULTIPLICATION SIGN}5+5 environment_status ghost starting → unavailable"
    )


def finding_line(**fields: object) -> str:
    finding = FindingReported(code="x", severity="error", message="m", **fields)
    return log_entry(thread_event(finding, at=at(0))).text


def test_a_finding_leads_with_its_environment_or_tool() -> None:
    assert finding_line(environment_id="ghost") == "finding ghost · x: m"
    assert finding_line(tool="exec_command") == "finding exec_command · x: m"
    assert finding_line() == "finding x: m"


def test_a_finding_about_a_call_that_ran_elsewhere_leads_with_both_places() -> None:
    """Its words come from the rule itself, so the two stay in step."""
    two = StepView(1, ("local", "build"), (), (), ("local", "build"), ("local",))
    routed = check_calls(two, [ToolCall("exec_command", None, executed_in="build")])
    named = check_calls(two, [ToolCall("exec_command", "local", executed_in="build")])
    lines = [log_entry(thread_event(finding_event(f[0]), at=at(0))).text for f in (routed, named)]
    assert lines == [
        "finding build → local · execution-routed-elsewhere: exec_command ran in 'build',"
        " but the step routed to the step's primary 'local'",
        "finding build → local · execution-routed-elsewhere: exec_command ran in 'build',"
        " but the step named 'local'",
    ]


def test_distinct_lines_never_fold_and_repeats_still_find_their_line() -> None:
    """The texts a recent fold may take are looked up before the folds are asked: a line
    whose text none of them takes is a line of its own, a repeat still moves down."""
    log = FoldedLog(limit=1_000)
    first = [log_entry(thread_event(WarningMessage(message=f"w{i}"), at=at(i))) for i in range(50)]
    log.add(first)
    again = log_entry(thread_event(WarningMessage(message="w10"), at=at(60)))
    kept, lines = log.add([again])
    assert kept == 10
    assert lines[-1] == "12:01:00 \N{MULTIPLICATION SIGN}2 warning w10 · over 50 s"
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


def test_ten_thousand_steps_keep_the_log_and_what_it_watches_bounded() -> None:
    """Under load (10,000 steps, each with a host's two lines taking turns and a status of
    one of 40 environments), the lines shown grow with the minutes, not the steps, and
    what is watched for lines taking turns stays within its bound."""
    log = FoldedLog(limit=10_000)
    for number in range(10_000):
        second = 2 * number
        batch = [step(number, second)]
        batch += entries_of(status("ghost", ("unavailable", "starting")[number % 2], second))
        batch += entries_of(status(f"e{number % 40}", "ready", second + 1, error="load"))
        log.add(batch)
    assert len(log._turns) <= TURN_KEYS
    steps = [fold for fold in log.folds if fold.first.step is not None]
    assert len(steps) == 334  # 20,000 s of steps, one line a minute
    ghost = [fold for fold in log.folds if fold.first.environment_id == "ghost"]
    assert len(ghost) <= 2  # its first line, and the pair
    assert len(log.folds) <= 334 + 40 + 2  # each environment's repeats are one line


def entries_of(event: object) -> list[LogEntry]:
    return [log_entry(event)]  # type: ignore[arg-type]
