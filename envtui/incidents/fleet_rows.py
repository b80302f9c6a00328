"""Every host's threads in one table: each host's freshness, each thread's state, filters.

A row's state comes from two places. The rollout files say what each thread did (the
summary); a host's app-server daemon, when envtui is attached to it, says what each loaded
thread is doing now, in Codex's own ``ThreadStatus`` and the requests it waits on. That
second part is :class:`ThreadLive`, one per thread id, handed in per host
(:attr:`HostFreshness.live`): ``None`` means nobody feeds it (a host read from its files
only), and its rows say "no live status", never idle. A host that has a feed and does not
hold a thread that is being written runs it embedded (``codex exec``, a TUI started with
``-c``): "embedded", never idle either.

What a daemon lists of every thread, loaded or not (``thread/list``), is
:class:`ThreadFacts`, per host too (:attr:`HostFreshness.facts`): a row's name or preview
comes from there (Codex's preview, the first user message, lies past the head of a
rollout the index reads), and a thread the daemon holds loaded whose rollout the files do
not show (outside ``--since``, or not written yet) is a row of its own, from those facts
(:func:`daemon_row`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from envtui.incidents.thread_summary import ThreadSummary
    from envtui.vocabulary.thread_messages import WaitingReason

HostState = Literal["connected", "reconnecting", "unreachable"]
DaemonState = Literal["attached", "reconnecting", "unreachable", "no daemon"]
"""A host's daemon as envtui reaches it: ``no daemon`` until one has answered (the host
shows its files only, and is not down for it); once attached, a daemon lost is
``reconnecting`` and, past :data:`STALE_POLLS` poll intervals unheard, ``unreachable``."""
STALE_POLLS = 3
"""A host not heard from for this many poll intervals is stale."""

WAITING_ON_APPROVAL = "waiting on approval"
WAITING_ON_INPUT = "waiting on input"
NEEDS_YOU = frozenset({WAITING_ON_APPROVAL, WAITING_ON_INPUT})
NO_LIVE_STATUS = "no live status"
FILTERS = ("all", "needs you", "working", "idle")
"""The table's filters, as Codex's own fleet view names them."""


@dataclass(frozen=True)
class PendingRequest:
    """A request a thread waits on: Codex's method, the environment, the command or files."""

    method: str
    environment_id: str | None = None
    detail: str | None = None
    request_id: int | str | None = None  # Codex's id for it (said again with the same id)
    kind: str | None = None  # envtui's word for it: command, file_change, permissions …

    def as_json(self) -> dict[str, Any]:
        return {"method": self.method, "environment": self.environment_id, "detail": self.detail}


@dataclass(frozen=True)
class ThreadLive:
    """What a host's daemon says of one loaded thread: its ``ThreadStatus`` as Codex sent it
    (``{"type": "active", "activeFlags": [...]}`` …) and the requests it waits on."""

    status: Mapping[str, Any]
    pending: tuple[PendingRequest, ...] = ()


PREVIEW_CHARS = 200
"""Characters of a thread's preview kept (it is the first user message: any length)."""


@dataclass(frozen=True)
class ThreadFacts:
    """What a host's daemon lists of one thread, loaded or not: its name (``name``), its
    first words (``preview``, cut to :data:`PREVIEW_CHARS`), cwd, rollout, when it was
    last updated, the Codex that made it, a sub-agent's parent, who started it and when.
    All of it is the user's text, shown as text and never as markup."""

    name: str | None = None
    preview: str | None = None
    cwd: str | None = None
    path: str | None = None
    updated: datetime | None = None
    cli_version: str | None = None
    parent: str | None = None
    source: str | None = None
    started: datetime | None = None

    @property
    def title(self) -> str | None:
        """What a row shows in its name column: the name, else the preview."""
        return self.name or self.preview or None


def cut_preview(text: str | None) -> str | None:
    """A preview as kept: at most :data:`PREVIEW_CHARS` characters, marked when cut."""
    if not text:
        return None
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


@dataclass
class HostFreshness:
    """How fresh one host's rows are: reached or not (and why), when it was last heard
    from, the Codex version its newest rollout was written by, and its live feed."""

    name: str
    state: HostState = "unreachable"
    reason: str | None = None
    last_heard: datetime | None = None
    codex_version: str | None = None
    live: dict[str, ThreadLive] | None = None  # None: no daemon feeds this host
    facts: dict[str, ThreadFacts] | None = None  # every thread its daemon lists (None: none)
    version_differs: bool = False  # another host runs another Codex version
    daemon: DaemonState | None = None  # None: no daemon is looked for on this host
    daemon_reason: str | None = None
    daemon_heard: datetime | None = None
    daemon_version: str | None = None  # the version the daemon said at ``initialize``

    def stale(self, now: datetime, interval: float) -> bool:
        if self.last_heard is None:
            return True
        return (now - self.last_heard).total_seconds() > STALE_POLLS * interval

    @property
    def daemon_differs(self) -> bool:
        """The daemon runs another Codex than the host's CLI last wrote its rollouts with."""
        return bool(self.daemon_version and self.codex_version) and (
            self.daemon_version != self.codex_version
        )

    def shown(self) -> tuple[HostState, str | None]:
        """The host's state and why: its files' when they cannot be read, else its daemon's
        when one was attached and is lost (its live statuses are then not known)."""
        if self.state != "connected" or self.daemon not in ("reconnecting", "unreachable"):
            return self.state, self.reason
        assert self.daemon in ("reconnecting", "unreachable")
        return self.daemon, f"daemon: {self.daemon_reason or 'lost'}"

    def heard(self) -> datetime | None:
        """When what :meth:`shown` says was last heard from: the daemon when it is the one
        lost, else the files."""
        return self.daemon_heard if self.shown()[0] != self.state else self.last_heard

    def as_json(self, now: datetime, interval: float) -> dict[str, Any]:
        state, reason = self.shown()
        return {
            "host": self.name,
            "state": state,
            "reason": reason,
            "last_heard": self.last_heard.isoformat() if self.last_heard else None,
            "stale": self.stale(now, interval),
            "codex_version": self.codex_version,
            "version_differs": self.version_differs,
            "live_status": self.live is not None,
            "daemon": self.daemon,
            "daemon_version": self.daemon_version,
            "daemon_last_heard": self.daemon_heard.isoformat() if self.daemon_heard else None,
            "daemon_differs": self.daemon_differs,
        }


def mark_versions(hosts: Iterable[HostFreshness]) -> None:
    """Mark each host whose Codex version is not the one most hosts run."""
    known = [h for h in hosts if (h.daemon_version or h.codex_version) is not None]
    versions = [h.daemon_version or h.codex_version for h in known]
    common = max(sorted(set(versions), key=str), key=versions.count) if versions else None
    for host in known:
        host.version_differs = (host.daemon_version or host.codex_version) != common


_STATUS_WORDS = {"idle": "idle", "notLoaded": "not loaded", "systemError": "system error"}


def status_words(status: Mapping[str, Any]) -> str:
    """Codex's ``ThreadStatus`` in the table's words."""
    kind = status.get("type")
    if kind == "active":
        flags = status.get("activeFlags")
        flags = flags if isinstance(flags, list) else []
        if "waitingOnApproval" in flags:
            return WAITING_ON_APPROVAL
        if "waitingOnUserInput" in flags:
            return WAITING_ON_INPUT
        return "working"
    return _STATUS_WORDS.get(str(kind), "unknown")


def row_state(summary: ThreadSummary, live: Mapping[str, ThreadLive] | None) -> str:
    """The thread's state: from its host's daemon when one feeds it (see the module)."""
    if live is None:
        return NO_LIVE_STATUS
    found = live.get(summary.thread_id)
    if found is not None:
        return status_words(found.status)
    return "embedded" if summary.live else "not loaded"


def live_changes(
    before: Iterable[HostFreshness], after: Iterable[HostFreshness], keys: Iterable[str]
) -> set[str]:
    """The keys (among ``keys``) of the rows whose live state may read otherwise now: the
    threads whose :class:`ThreadLive` changed, and every row of a host whose feed came or
    went."""
    from envtui.incidents.thread_summary import thread_key

    old = {host.name: host for host in before}
    changed: set[str] = set()
    whole: set[str] = set()
    for host in after:
        was = old.get(host.name)
        for said, says in (
            (was.live if was else None, host.live),
            (was.facts if was else None, host.facts),
        ):
            if said is says:
                continue  # the same report: nothing in it changed
            if said is None or says is None:
                whole.add(host.name)
                continue
            for thread_id in said.keys() | says.keys():
                if said.get(thread_id) != says.get(thread_id):
                    changed.add(thread_key(host.name, thread_id))
    for name in whole:
        changed |= {key for key in keys if not name or key.startswith(f"{name}/")}
    return changed


def waiting_of(
    rows: Iterable[ThreadSummary], hosts: Iterable[HostFreshness]
) -> dict[str, tuple[WaitingReason, ...]]:
    """Why each row whose host's daemon holds it waits on a person (by key; none: empty);
    a row no daemon holds is left out (its status is not known)."""
    feeds = {host.name: host.live for host in hosts}
    out: dict[str, tuple[WaitingReason, ...]] = {}
    for row in rows:
        live = feeds.get(row.host)
        found = live.get(row.thread_id) if live is not None else None
        if found is not None:
            state = status_words(found.status)
            out[row.key] = _REASONS.get(state, ())
    return out


_REASONS: dict[str, tuple[WaitingReason, ...]] = {
    WAITING_ON_APPROVAL: ("approval",),
    WAITING_ON_INPUT: ("input",),
}


def host_named(hosts: Iterable[HostFreshness], name: str) -> HostFreshness | None:
    return next((h for h in hosts if h.name == name), None)


def row_facts(summary: ThreadSummary, host: HostFreshness | None) -> ThreadFacts | None:
    """What the row's host's daemon lists of its thread (None: no daemon lists it)."""
    facts = host.facts if host is not None else None
    return facts.get(summary.thread_id) if facts is not None else None


def daemon_row(host: str, thread_id: str, facts: ThreadFacts | None) -> ThreadSummary:
    """The row of a thread its host's daemon holds loaded and whose rollout was not read
    (outside ``--since``, or not written yet): what the daemon lists of it, its environments
    and incidents not known (:attr:`ThreadSummary.rollout_read` is false)."""
    from envtui.incidents.thread_summary import ThreadSummary

    said = facts if facts is not None else ThreadFacts()
    return ThreadSummary(
        thread_id,
        said.path or "",
        host=host,
        source=said.source,
        parent_thread_id=said.parent,
        cwd=said.cwd,
        cli_version=said.cli_version,
        started=said.started,
        last_written=said.updated,
        steps_exact=False,
        turns_exact=False,
        environments_known=False,
        rollout_read=False,
    )


def row_json(summary: ThreadSummary, host: HostFreshness | None) -> dict[str, Any]:
    """A row's ``--json`` line: the summary's, then its host's state and the thread's live
    state, its name and preview as the daemon lists them, Codex's ``ThreadStatus`` (null
    when no daemon says it) and pending requests."""
    live = host.live if host is not None else None
    found = live.get(summary.thread_id) if live is not None else None
    facts = row_facts(summary, host)
    return {
        **summary.as_json(),
        "rollout_read": summary.rollout_read,
        "host_state": host.shown()[0] if host is not None else None,
        "state": row_state(summary, live),
        "name": facts.title if facts is not None else None,
        "preview": facts.preview if facts is not None else None,
        "status": dict(found.status) if found is not None else _unheld_status(summary, live),
        "pending": [p.as_json() for p in found.pending] if found is not None else [],
    }


def _unheld_status(
    summary: ThreadSummary, live: Mapping[str, ThreadLive] | None
) -> dict[str, Any] | None:
    """Codex's status of a thread its host's daemon does not hold: not loaded, unless it
    is being written (embedded: no daemon says its status)."""
    return {"type": "notLoaded"} if live is not None and not summary.live else None


def matches(state: str, chosen: str) -> bool:
    """Whether a row in ``state`` is shown under the filter ``chosen``."""
    if chosen == "needs you":
        return state in NEEDS_YOU
    if chosen in ("working", "idle"):
        return state == chosen
    return True


def needs_you_first(state: str) -> int:
    """Sorts the rows that wait on a person before the rest."""
    return 0 if state in NEEDS_YOU else 1


def under_parents(rows: list[ThreadSummary]) -> list[tuple[ThreadSummary, int]]:
    """The rows in their order, each sub-agent moved under its parent (depth 1, 2 …) when
    the parent is among them on the same host; an orphan stays where it was."""
    by_key = {row.key: row for row in rows}
    children: dict[str, list[ThreadSummary]] = {}
    placed: set[str] = set()
    for row in rows:
        parent = _parent_key(row)
        if parent is not None and parent in by_key and parent != row.key:
            children.setdefault(parent, []).append(row)
            placed.add(row.key)
    out: list[tuple[ThreadSummary, int]] = []
    seen: set[str] = set()

    def add(row: ThreadSummary, depth: int) -> None:
        if row.key in seen:
            return  # a loop of parents: each row once
        seen.add(row.key)
        out.append((row, depth))
        for child in children.get(row.key, []):
            add(child, depth + 1)

    for row in rows:
        if row.key not in placed:
            add(row, 0)
    for row in rows:  # rows only reachable through a loop of parents
        add(row, 0)
    return out


def families(rows: list[ThreadSummary]) -> list[tuple[ThreadSummary, int]]:
    """:func:`under_parents` of rows in their sorted order, each family (a thread and its
    sub-agents) placed where its first member sorts: a sub-agent that waits on you brings
    its parent to the top with it."""
    rank = {row.key: index for index, row in enumerate(rows)}
    trees: list[list[tuple[ThreadSummary, int]]] = []
    for row, depth in under_parents(rows):
        if depth == 0 or not trees:
            trees.append([])
        trees[-1].append((row, depth))
    trees.sort(key=lambda tree: min(rank[row.key] for row, _ in tree))
    return [placed for tree in trees for placed in tree]


def _parent_key(row: ThreadSummary) -> str | None:
    from envtui.incidents.thread_summary import thread_key

    return thread_key(row.host, row.parent_thread_id) if row.parent_thread_id else None
