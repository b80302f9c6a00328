"""Each environment's status history: bounded, dated by its events, strips, availability, flaps."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.support.scenarios.scripted_stream import T0, at, scripted_events, status

from envtui.dashboard.status_history import Cell, StatusHistory, Transition, strip_end
from envtui.dashboard.status_tally import MAX_BUCKETS
from envtui.dashboard.store import Store
from envtui.sources.replay import replay
from envtui.vocabulary.events import (
    EnvironmentConnected,
    EnvironmentDisconnected,
    EnvironmentRemoved,
    encode_event,
    thread_event,
)

STATUSES = st.sampled_from(["ready", "starting", "unavailable"])
NOT_KNOWN = Cell(None, 0.0, False)
READY = Cell("ready", 1.0, False)


def rounded(cells: list[Cell]) -> list[Cell]:
    """The cells with their shares to 3 places, to compare with exact ones."""
    return [Cell(c.worst, round(c.ready, 3), c.flapped) for c in cells]


def flapping(history: StatusHistory, cycles: int, every: float = 10.0) -> None:
    """ready, then ``cycles`` times: unavailable for ``every`` s, ready for ``every`` s."""
    history.record("ready", at(0))
    for cycle in range(cycles):
        history.record("unavailable", at(every * (2 * cycle + 1)))
        history.record("ready", at(every * (2 * cycle + 2)))


def test_only_changes_are_transitions_and_the_bound_drops_the_oldest() -> None:
    history = StatusHistory(limit=3)
    assert history.record("starting", at(0))
    assert not history.record("starting", at(1))  # the same status again: no transition
    for second, state in enumerate(["ready", "unavailable", "starting", "ready"], start=2):
        assert history.record(state, at(second))  # type: ignore[arg-type]
    assert [t.status for t in history.transitions] == ["unavailable", "starting", "ready"]
    assert history.dropped == 2


def test_an_event_older_than_the_last_transition_is_placed_at_its_time() -> None:
    history = StatusHistory()
    history.record("ready", at(10))
    history.record("unavailable", at(5))  # sources interleave: never out of order
    assert list(history.transitions) == [
        Transition(at(10), "ready"),
        Transition(at(10), "unavailable"),
    ]


def test_flaps_and_availability_over_a_window() -> None:
    history = StatusHistory()
    flapping(history, cycles=3)  # down 10-20, 30-40, 50-60; ready otherwise
    assert history.flaps(at(0), at(60)) == 3
    assert history.flaps(at(25), at(60)) == 2  # the first drop is before the window
    assert history.availability(at(0), at(60)) == pytest.approx(0.5)
    assert history.availability(at(60), at(120)) == 1.0
    assert history.availability(T0 - timedelta(minutes=5), T0) is None  # nothing known yet


def test_a_strip_cell_shows_its_worst_status_its_ready_share_and_a_drop_with_its_return() -> None:
    history = StatusHistory()
    history.record("ready", at(0))
    history.record("unavailable", at(61))  # one second down in the fifth 30 s cell
    history.record("ready", at(62))
    history.record("starting", at(140))  # then starting from 20 s into the last cell
    cells = history.strip(at(150), cells=6, interval=timedelta(seconds=30))
    assert rounded(cells) == [
        NOT_KNOWN,  # before the first transition: never seen
        READY,
        READY,
        Cell("unavailable", round(29 / 30, 3), True),  # it dropped and came back
        READY,
        Cell("starting", round(20 / 30, 3), False),  # one change: a share, not a flap
    ]


def test_a_history_past_its_bound_still_knows_its_oldest_minutes() -> None:
    """The transitions let go are kept as sums: the first minutes of an hour of flapping
    are drawn as they were (not as "not known"), and what the window adds up to is the
    same as with every transition held."""
    capped, whole = StatusHistory(limit=20), StatusHistory(limit=100_000)
    for history in (capped, whole):
        flapping(history, cycles=180, every=10.0)  # an hour: down 10 s of every 20
        history.record("unavailable", at(3600))
        history.record("unavailable", at(3700))  # the same: not a transition
    assert capped.dropped == len(whole.transitions) - 20
    end, interval = at(3720), timedelta(minutes=2)
    shown, exact = capped.window(end, 32, interval), whole.window(end, 32, interval)
    assert shown.cells[0] == NOT_KNOWN  # the two minutes before it started: never seen
    assert all(cell.worst is not None for cell in shown.cells[1:])
    assert rounded(shown.cells) == rounded(exact.cells)
    assert shown.availability == pytest.approx(exact.availability)
    assert shown.flaps == exact.flaps == 181
    assert capped.first_at == whole.first_at == at(0)


def test_a_long_history_keeps_bounded_sums_that_cover_all_of_it() -> None:
    history = StatusHistory(limit=10)
    flapping(history, cycles=20_000, every=3.0)  # 33 hours of a drop every 6 s
    assert len(history.transitions) == 10
    assert len(history.summary.buckets) <= MAX_BUCKETS
    window = history.window(at(120_001), 10, timedelta(hours=4))
    assert window.cells[0] == NOT_KNOWN  # the axis begins before the first transition
    assert all(cell.flapped for cell in window.cells[1:])  # drops all along, never unknown
    assert window.flaps == 20_000
    assert window.availability == pytest.approx(0.5, abs=1e-3)


def test_a_finished_stream_strips_end_at_its_last_event() -> None:
    window = timedelta(minutes=5)
    assert strip_end(at(1000), at(10), window) == at(10)  # an old replay: its last minutes
    assert strip_end(at(100), at(10), window) == at(100)  # live: now


@given(st.lists(st.tuples(STATUSES, st.integers(0, 30)), max_size=60))
def test_properties_of_any_stream(changes: list[tuple[str, int]]) -> None:
    """Transitions are the changes; flaps never exceed them; availability is a share."""
    history = StatusHistory()
    seconds = 0
    previous = None
    expected = 0
    for state, gap in changes:
        seconds += gap
        expected += state != previous
        previous = state
        history.record(state, at(seconds))  # type: ignore[arg-type]
    assert len(history.transitions) == expected
    assert [t.at for t in history.transitions] == sorted(t.at for t in history.transitions)
    assert history.flaps(T0, at(seconds + 1)) <= expected
    share = history.availability(T0, at(seconds + 1))
    assert share is None or 0.0 <= share <= 1.0
    strip = history.strip(at(seconds + 1), cells=8, interval=timedelta(seconds=20))
    assert len(strip) == 8
    assert all(0.0 <= cell.ready <= 1.0 for cell in strip)
    if previous is not None:
        assert strip[-1].worst is not None


def _as_read(history: StatusHistory, seconds: int) -> object:
    """Everything a reader can ask of ``history`` near ``seconds``."""
    summary = history.summary
    buckets = [(b.lo, b.hi, b.known, b.ready, b.worst, b.changes, b.drops) for b in summary.buckets]
    return (
        history.transitions,
        history.held,
        history.dropped,
        history.first_at,
        (summary.width, summary.start, buckets),
        history.status_at(at(seconds - 7)),
        history.strip(at(seconds + 1), cells=8, interval=timedelta(seconds=20)),
        history.recent(at(seconds + 1), 10, timedelta(seconds=30)),
        history.availability(T0, at(seconds + 1)),
        history.flaps(T0, at(seconds + 1)),
    )


@given(
    st.lists(st.tuples(STATUSES, st.integers(0, 30)), max_size=300),
    st.integers(2, 12),
    st.sets(st.integers(0, 299), max_size=4),
)
@example([(state, 5) for _ in range(100) for state in ("ready", "unavailable")], 2, set())
def test_transitions_past_the_bound_read_as_if_each_had_left_as_it_came(
    changes: list[tuple[str, int]], limit: int, reads: set[int]
) -> None:
    """Past its bound a history lets transitions go together, later: read at any moment,
    it reads as one that let each go as soon as it came."""
    at_once, together = StatusHistory(limit=limit), StatusHistory(limit=limit)
    seconds = 0
    for index, (state, gap) in enumerate(changes):
        seconds += gap
        at_once.record(state, at(seconds))  # type: ignore[arg-type]
        assert at_once.held <= limit  # read, so each goes as it came
        together.record(state, at(seconds))  # type: ignore[arg-type]
        if index in reads:
            assert _as_read(together, seconds) == _as_read(at_once, seconds)
    assert _as_read(together, seconds) == _as_read(at_once, seconds)


@given(st.lists(st.tuples(STATUSES, st.integers(0, 30)), max_size=80), st.integers(2, 12))
def test_a_capped_history_adds_up_to_what_the_whole_one_does(
    changes: list[tuple[str, int]], limit: int
) -> None:
    """Over a window around the whole run, the sums of what was let go plus what is held
    give the same flaps and availability, and the same known cells, as every transition."""
    capped, whole = StatusHistory(limit=limit), StatusHistory(limit=10_000)
    seconds = 0
    for state, gap in changes:
        seconds += gap
        for history in (capped, whole):
            history.record(state, at(seconds))  # type: ignore[arg-type]
    end, interval = at(seconds + 10), timedelta(seconds=(seconds + 20) / 6)
    shown, exact = capped.window(end, 6, interval), whole.window(end, 6, interval)
    assert shown.flaps == exact.flaps
    assert shown.availability == pytest.approx(exact.availability)
    assert [c.worst is None for c in shown.cells] == [c.worst is None for c in exact.cells]


def test_the_store_records_statuses_and_lost_connections_with_the_events_times() -> None:
    store = Store(status_history=4)
    store.apply_all(scripted_events())
    build = store.environments["build"].history
    assert [(t.at, t.status) for t in build.transitions] == [
        (at(0), "starting"),
        (at(4), "ready"),
        (at(6), "unavailable"),
    ]
    store.apply(thread_event(EnvironmentConnected(environment_id="raw"), at=at(7)))
    store.apply(status("raw", "ready", 8))
    store.apply(thread_event(EnvironmentDisconnected(environment_id="raw"), at=at(9)))
    raw = store.environments["raw"].history  # a lost connection alone makes it unavailable
    assert [(t.at, t.status) for t in raw.transitions] == [(at(8), "ready"), (at(9), "unavailable")]
    for second in range(10, 20):
        store.apply(status("raw", "ready" if second % 2 else "starting", second))
    assert len(raw.transitions) == 4  # the config's bound
    assert store.latest_at == at(19)


def test_a_replay_rebuilds_the_same_history_whatever_the_pace(tmp_path: Path) -> None:
    """Dated by the events, not by their arrival: a recording replayed at full speed, long
    after, gives the history the live run had."""
    events = [*scripted_events()]
    for cycle in range(5):
        events.append(status("flaky", "ready", 40 + 20 * cycle))
        events.append(status("flaky", "unavailable", 50 + 20 * cycle, error="dropped"))
    live = Store()
    live.apply_all(events)
    path = tmp_path / "recording.jsonl"
    path.write_text("".join(encode_event(e) + "\n" for e in events), encoding="utf-8")
    replayed = Store()
    asyncio.run(replay(path, replayed.apply, asyncio.Event(), speed=0))

    def histories(store: Store) -> dict[str, list[Transition]]:
        return {i: list(r.history.transitions) for i, r in store.environments.items()}

    assert histories(replayed) == histories(live)
    flaky = replayed.environments["flaky"].history
    assert flaky.flaps(T0, at(200)) == 5
    end = strip_end(at(10_000), replayed.latest_at, timedelta(minutes=5))
    assert end == at(130)  # the replay is over: its strip ends at its last event


def test_the_strip_of_the_last_minutes_is_aligned_on_the_clock_and_kept_until_it_changes() -> None:
    history = StatusHistory()
    flapping(history, cycles=3)  # down 10-20, 30-40, 50-60
    interval = timedelta(seconds=30)
    recent = history.recent(at(75), cells=4, interval=interval)
    # three whole intervals before 60 s (0-30, 30-60 and the unknown -30-0), then 60-75
    assert rounded(recent.cells) == [
        NOT_KNOWN,
        Cell("unavailable", round(20 / 30, 3), True),  # down 10-20, back, down again at 30
        Cell("unavailable", round(10 / 30, 3), True),
        READY,
    ]
    assert recent.flaps == 3
    assert recent.availability == pytest.approx(45 / 75)
    assert history.recent(at(76), cells=4, interval=interval).flaps == 3  # from the cache
    history.record("starting", at(77))  # a new transition: the cache is not used
    assert history.recent(at(78), cells=4, interval=interval).cells[-1].worst == "starting"


@given(
    st.lists(st.tuples(STATUSES, st.integers(0, 40)), max_size=40),
    st.integers(0, 600),
    st.integers(0, 600),
)
def test_the_kept_intervals_give_what_a_fresh_count_gives(
    changes: list[tuple[str, int]], first: int, second: int
) -> None:
    history = StatusHistory()
    seconds = 0
    for state, gap in changes:
        seconds += gap
        history.record(state, at(seconds))  # type: ignore[arg-type]
    interval = timedelta(seconds=30)
    for now in (at(first), at(max(first, second))):  # the second call may use the cache
        recent = history.recent(now, cells=6, interval=interval)
        fresh = StatusHistory()
        for transition in history.transitions:
            fresh.record(transition.status, transition.at)
        again = fresh.recent(now, cells=6, interval=interval)
        assert (rounded(recent.cells), recent.flaps) == (rounded(again.cells), again.flaps)
        assert recent.availability == pytest.approx(again.availability)


def test_an_environment_that_leaves_and_comes_back_keeps_its_history() -> None:
    store = Store()
    store.apply(status("build", "ready", 0))
    store.apply(thread_event(EnvironmentRemoved(environment_id="build"), at=at(10)))
    assert "build" not in store.environments
    store.apply(status("build", "starting", 40))
    history = store.environments["build"].history
    assert [t.status for t in history.transitions] == ["ready", "removed", "starting"]
    cells = history.strip(at(60), cells=6, interval=timedelta(seconds=10))
    starting = Cell("starting", 0.0, False)
    assert cells == [READY, NOT_KNOWN, NOT_KNOWN, NOT_KNOWN, starting, starting]
    assert history.flaps(T0, at(60)) == 0  # leaving the selection is not a drop
    assert history.availability(T0, at(60)) == pytest.approx(10 / 30)  # only the known part


@settings(deadline=None)  # machines are noisy: no timing in a pass/fail test
@given(
    st.lists(st.tuples(STATUSES, st.integers(0, 20), st.integers(0, 25)), max_size=40),
    st.integers(2, 8),
)
# transitions let go while the interval under way is drawn, one in the same second as the
# next, and changes on the boundary that only the let-go sums still hold
@example([("ready", 0, 0), ("starting", 1, 0), ("ready", 0, 0)], 2)
@example([("ready", 10, 0), ("starting", 20, 0), ("unavailable", 1, 1), ("ready", 1, 0)], 2)
@example([("ready", 10, 0), ("starting", 20, 0), ("ready", 1, 1), ("starting", 1, 0)], 2)
def test_a_strip_drawn_every_second_as_transitions_come_is_a_fresh_count(
    changes: list[tuple[str, int, int]], limit: int
) -> None:
    """The strip keeps its whole intervals and goes on with the one under way as
    transitions come between two draws (and leave past the bound): each draw is what the
    window gives when counted afresh."""
    history = StatusHistory(limit=limit)
    interval = timedelta(seconds=30)
    seconds = 0
    recorded: list[tuple[str, int]] = []
    for state, gap, wait in changes:
        seconds += gap
        history.record(state, at(seconds))  # type: ignore[arg-type]
        recorded.append((state, seconds))
        for now in (seconds, seconds + wait):
            drawn = history.recent(at(now), cells=4, interval=interval)
            fresh = StatusHistory(limit=limit)  # the same records, never drawn before
            for earlier, when in recorded:
                fresh.record(earlier, at(when))  # type: ignore[arg-type]
            again = fresh.recent(at(now), cells=4, interval=interval)
            assert rounded(drawn.cells) == rounded(again.cells)
            assert drawn.flaps == again.flaps
            assert drawn.availability == pytest.approx(again.availability)
