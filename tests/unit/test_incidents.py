"""The store's incident fold: one incident per episode of a condition, whatever the stream.

The properties compare the fold with a plain reference written from the definition: for
each (code, environment), the steps that evaluated its rule, split into runs of steps
that raised it; each run is one incident, resolved at the first evaluated step after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from envtui.dashboard.store import Store
from envtui.incidents.fold import IncidentFold, acknowledgement
from envtui.vocabulary.events import Event, FindingReported, StepRecorded, thread_event

CODES = ("stale-available", "primary-mismatch")
ENVIRONMENTS = ("flaky", "ghost")
KEYS = [(code, env) for code in CODES for env in ENVIRONMENTS]
START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
EXAMPLES = settings(max_examples=25, deadline=None)
"""The quick count; tests/integration/test_properties_thorough.py folds 160 streams each."""


@dataclass(frozen=True)
class Step:
    unchecked: frozenset[str]
    raised: frozenset[tuple[str, str]]
    acknowledge: bool
    """The operator acknowledges every active incident after this step."""


@st.composite
def steps(draw: st.DrawFn) -> Step:
    unchecked = frozenset(draw(st.sets(st.sampled_from(CODES), max_size=1)))
    raised = draw(st.sets(st.sampled_from(KEYS)))
    return Step(
        unchecked,
        frozenset(k for k in raised if k[0] not in unchecked),
        draw(st.booleans()),
    )


def at(number: int) -> datetime:
    return START + timedelta(seconds=10 * number)


def finding(code: str, env: str, number: int) -> FindingReported:
    return FindingReported(
        code=code, severity="error", step=number, environment_id=env, message=f"{code} {env}"
    )


def events_of(step: Step, number: int, *, announced: bool) -> list[Event]:
    """The step's record and findings; ``announced`` False is a recording from before steps
    said how many findings follow (and which rules did not run)."""
    record = StepRecorded(
        step=number,
        unchecked=sorted(step.unchecked) if announced else None,
        findings=len(step.raised) if announced else None,
    )
    out = [thread_event(record, at=at(number))]
    out += [thread_event(finding(c, e, number), at=at(number)) for c, e in sorted(step.raised)]
    return out


@dataclass
class Episode:
    first: int
    last: int
    steps: int
    resolved: int | None = None


def reference(stream: list[Step]) -> dict[tuple[str, str], list[Episode]]:
    """The episodes by definition: runs of raising among the steps that evaluated the rule."""
    out: dict[tuple[str, str], list[Episode]] = {key: [] for key in KEYS}
    for number, step in enumerate(stream, start=1):
        for key in KEYS:
            if key[0] in step.unchecked:
                continue
            episodes = out[key]
            current = episodes[-1] if episodes and episodes[-1].resolved is None else None
            if key in step.raised:
                if current is None:
                    episodes.append(Episode(number, number, 1))
                else:
                    current.last, current.steps = number, current.steps + 1
            elif current is not None:
                current.resolved = number
    return out


def fold_stream(stream: list[Step], *, announced: bool) -> Store:
    store = Store()
    for number, step in enumerate(stream, start=1):
        store.apply_all(events_of(step, number, announced=announced))
        if step.acknowledge:
            for incident in list(store.incidents.active()):
                store.apply(thread_event(acknowledgement(incident), at=at(number)))
    store.incidents.settle()  # the end of the stream ends the last step
    return store


@EXAMPLES
@given(st.lists(steps(), max_size=25))
def test_one_incident_per_episode_with_its_steps_and_resolution(stream: list[Step]) -> None:
    store = fold_stream(stream, announced=True)
    expected = reference(stream)
    for key in KEYS:
        got = sorted(
            (i for i in store.incidents.incidents() if (i.code, i.environment_id) == (key)),
            key=lambda i: i.number,
        )
        assert [(i.first_step, i.last_step, i.steps, i.resolved_step) for i in got] == [
            (e.first, e.last, e.steps, e.resolved) for e in expected[key]
        ]
        for incident in got:
            assert (incident.state == "resolved") == (incident.resolved_step is not None)
            assert incident.first_at == at(incident.first_step or 0)


@EXAMPLES
@given(st.lists(steps(), max_size=25))
def test_acknowledgement_never_hides_a_new_episode(stream: list[Step]) -> None:
    store = fold_stream(stream, announced=True)
    acked_at: dict[tuple[str, str], int] = {}
    for number, step in enumerate(stream, start=1):
        if step.acknowledge:
            for key in KEYS:
                acked_at[key] = number
    for incident in store.incidents.incidents():
        if incident.state == "resolved":
            continue
        key = (incident.code, incident.environment_id or "")
        ack = acked_at.get(key)
        # acknowledged exactly when an acknowledgement came after this episode opened
        was_acked = ack is not None and ack >= (incident.first_step or 0)
        assert incident.state == ("acknowledged" if was_acked else "active")
    active = store.incidents.active()
    assert all(i.state == "active" for i in active)
    last = stream[-1] if stream else None
    if last is not None and not last.acknowledge:
        # an episode opened at the last step was never acknowledged: it shows
        opened_now = [i for i in store.incidents.incidents() if i.first_step == len(stream)]
        assert all(i in active for i in opened_now)


@EXAMPLES
@given(st.lists(steps(), max_size=20))
def test_an_old_recording_folds_to_the_same_incidents(stream: list[Step]) -> None:
    """Without the count of findings, a step settles at the next event that is not one of
    its findings; without ``unchecked``, every rule counts as run."""
    every_rule_ran = [Step(frozenset(), s.raised, s.acknowledge) for s in stream]
    new = fold_stream(every_rule_ran, announced=True)
    old = fold_stream(every_rule_ran, announced=False)

    def shape(store: Store) -> list[tuple[object, ...]]:
        return [
            (i.code, i.environment_id, i.first_step, i.last_step, i.steps, i.state)
            for i in store.incidents.incidents()
        ]

    assert shape(old) == shape(new)


@EXAMPLES
@given(st.lists(steps(), max_size=25))
def test_a_fold_without_messages_holds_the_same_incidents_and_says_nothing(
    stream: list[Step],
) -> None:
    """The sessions index asks the fold, never reads its messages: it makes none, and its
    incidents, episodes and version are those of a fold that does."""
    talking, quiet = IncidentFold(), IncidentFold(messages=False)
    said: list[object] = []
    for number, step in enumerate(stream, start=1):
        for event in events_of(step, number, announced=True):
            said += talking.apply(event)
            assert quiet.apply(event) == []
    said += talking.settle()
    assert quiet.settle() == []

    def shape(fold: IncidentFold) -> list[tuple[object, ...]]:
        return [
            (i.code, i.environment_id, i.first_step, i.last_step, i.steps, i.state)
            for i in fold.incidents()
        ]

    assert shape(quiet) == shape(talking)
    assert quiet.open_codes() == talking.open_codes()
    assert quiet.episodes == talking.episodes
    assert quiet.version == talking.version
    assert len(said) == len(talking.incidents()) + sum(
        1 for i in talking.incidents() if i.state == "resolved"
    )  # the talking fold did say each opening and each resolution


def test_a_flapping_condition_is_one_incident_per_episode_and_the_store_says_so() -> None:
    raised = frozenset({("stale-available", "flaky")})
    stream = [
        Step(frozenset(), raised if n in (1, 2, 4, 5) else frozenset(), False) for n in range(1, 7)
    ]
    store = fold_stream(stream, announced=True)
    got = [(i.state, i.first_step, i.resolved_step) for i in store.incidents.incidents()]
    assert got == [("resolved", 4, 6), ("resolved", 1, 3)]
    assert store.incidents.active() == []
    opened = [a for a in store.alerts.take() if a.kind.startswith("incident")]
    assert [(a.kind, a.step) for a in opened] == [
        ("incident_opened", 1),
        ("incident_resolved", 3),
        ("incident_opened", 4),
        ("incident_resolved", 6),
    ]


def test_a_rule_that_could_not_run_neither_raises_nor_resolves() -> None:
    raised = frozenset({("stale-available", "flaky")})
    skipped = Step(frozenset({"stale-available"}), frozenset(), False)
    store = fold_stream([Step(frozenset(), raised, False), skipped, skipped], announced=True)
    (incident,) = store.incidents.incidents()
    assert (incident.state, incident.last_step, incident.steps) == ("active", 1, 1)


def test_a_finding_that_names_two_environments_counts_for_each() -> None:
    fold = IncidentFold()
    fold.step(1, at(1), [], 1)
    both = finding("stale-available", "flaky, ghost", 1)
    opened = fold.finding(both, at(1))
    assert [(m.environment_id, m.first_step) for m in opened] == [("flaky", 1), ("ghost", 1)]
    fold.step(2, at(2), [], 1)
    fold.finding(finding("stale-available", "flaky", 2), at(2))
    fold.settle()
    states = {i.environment_id: (i.state, i.steps) for i in fold.incidents()}
    assert states == {"flaky": ("active", 2), "ghost": ("resolved", 1)}


def test_step_numbers_going_back_start_the_incidents_over() -> None:
    store = fold_stream([Step(frozenset(), frozenset({KEYS[0]}), False)] * 3, announced=True)
    assert len(store.incidents.incidents()) == 1
    store.apply_all(events_of(Step(frozenset(), frozenset(), False), 1, announced=True))
    assert store.incidents.incidents() == []


def test_an_acknowledgement_of_an_earlier_episode_does_not_touch_the_new_one() -> None:
    key = frozenset({KEYS[0]})
    store = fold_stream(
        [Step(frozenset(), key, False), Step(frozenset(), frozenset(), False)], announced=True
    )
    (old,) = store.incidents.incidents()
    stale_ack = acknowledgement(old)
    store.apply_all(events_of(Step(frozenset(), key, False), 3, announced=True))
    store.apply(thread_event(stale_ack, at=at(3)))
    assert [i.state for i in store.incidents.incidents()] == ["active", "resolved"]


def test_memory_is_bounded() -> None:
    fold = IncidentFold(max_incidents=3, history=2)
    for number in range(1, 40):
        fold.step(number, at(number), [], 1)
        fold.finding(finding("stale-available", f"env-{number % 5}", number), at(number))
    assert len(fold.open) <= 3
    assert len(fold.resolved) <= 3
    assert all(len(i.raises) <= 2 for i in fold.incidents())
