"""Several hosts' sessions trees as one view: every thread of every host, and each host's
freshness.

Each host is one :class:`SessionsIndex` over its files (this machine's tree, or a host's
over SFTP); :meth:`Fleet.poll` polls each in turn and merges their views, keyed by host and
thread. A host that cannot be reached keeps its rows as last read and says why; the others
go on. Each host's live feed (what its app-server daemon says of its loaded threads) is
handed in through :meth:`Fleet.set_daemon`: :meth:`Fleet.run_daemons` attaches to the
daemon of every host that names one (:mod:`envtui.sources.sessions.host_daemon`), and a
change wakes the next poll at once (:attr:`Fleet.woken`). A host nobody feeds shows its
files only, and says so (see :mod:`envtui.incidents.fleet_rows`). A thread a host's daemon
holds loaded whose rollout its index does not show (outside ``--since``, or not written
yet) has a row all the same, made from what the daemon lists of it.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from envtui.incidents.fleet_rows import HostFreshness, ThreadLive, daemon_row, mark_versions
from envtui.incidents.sessions_view import SessionsView

if TYPE_CHECKING:
    import asyncio

    from envtui.environments.daemon.client import ChannelOpener
    from envtui.incidents.thread_summary import ThreadSummary
    from envtui.sources.daemon.attach import DaemonOptions
    from envtui.sources.sessions.host_daemon import DaemonReport, HostDaemon
    from envtui.sources.sessions.session_files import SessionFiles
    from envtui.sources.sessions.sessions_index import SessionsIndex
    from envtui.vocabulary.events import Source


@dataclass
class SessionsHost:
    """One host: its name, its tree and its index, and how fresh what it said is."""

    name: str
    files: SessionFiles
    index: SessionsIndex
    codex: str | None = None  # the codex binary on the host (None: from its PATH)
    daemon: ChannelOpener | None = None  # how its daemon is reached (None: files only)
    attach: DaemonOptions | None = None
    """How a dashboard of one of its threads attaches to its daemon (the thread left out)."""
    freshness: HostFreshness = field(init=False)
    _versions: dict[str, tuple[float, str]] = field(default_factory=dict, init=False)
    daemon_rows: dict[str, ThreadSummary] = field(default_factory=dict, init=False)
    """The rows made from its daemon at the last poll (threads its files do not show)."""
    not_opened: str | None = field(default=None, init=False)
    """Why :meth:`Fleet.open` could not reach it: the first poll says so without a second
    wait for the same timeout (the polls after it try again)."""

    def __post_init__(self) -> None:
        self.freshness = HostFreshness(self.name)


class Fleet:
    """Every host's index, polled in turn, as one view (see the module)."""

    def __init__(
        self,
        hosts: list[SessionsHost],
        *,
        interval: float = 1.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.hosts = hosts
        self.interval = interval
        self.clock = clock
        self.name = ", ".join(host.name for host in hosts)
        self._woken: asyncio.Event | None = None
        self.daemons: dict[str, HostDaemon] = {}

    @property
    def woken(self) -> asyncio.Event:
        """Set when a daemon said something: the next poll need not wait its interval
        (made on first use: a one-shot listing loads no asyncio)."""
        if self._woken is None:
            import asyncio

            self._woken = asyncio.Event()
        return self._woken

    async def open(self) -> None:
        """Connect to each host; one that cannot be reached is marked so, never fatal."""
        for host in self.hosts:
            try:
                await host.files.open()
            except OSError as exc:
                host.freshness.state, host.freshness.reason = "unreachable", str(exc)
                host.not_opened = f"{host.files.name}: {exc}"

    async def aclose(self) -> None:
        for host in self.hosts:
            await host.files.aclose()

    def set_live(self, host: str, live: Mapping[str, ThreadLive] | None) -> None:
        """What ``host``'s daemon says of its loaded threads now; None: nobody feeds it."""
        for known in self.hosts:
            if known.name == host:
                known.freshness.live = dict(live) if live is not None else None

    def set_daemon(self, host: str, report: DaemonReport) -> None:
        """``host``'s daemon as it is reached now, and its loaded threads. A change wakes
        the next poll; the daemon only heard from again (its answer every interval) does
        not: with several hosts, that would poll every tree once per daemon per interval."""
        changed = False
        for known in self.hosts:
            if known.name == host:
                fresh = known.freshness
                said = (report.state, report.reason, report.version, report.live, report.facts)
                changed = said != (
                    fresh.daemon,
                    fresh.daemon_reason,
                    fresh.daemon_version,
                    fresh.live,
                    fresh.facts,
                )  # the facts are the same object while nothing in them changed: no walk
                fresh.daemon, fresh.daemon_reason = report.state, report.reason
                fresh.daemon_heard, fresh.daemon_version = report.heard, report.version
                fresh.facts = report.facts
        self.set_live(host, report.live)
        if changed:
            self.woken.set()

    async def run_daemons(self, stop: asyncio.Event) -> None:
        """Attach to every host's daemon (those that name one) until ``stop``."""
        from envtui.sources.daemon.attach import restart_backoff
        from envtui.sources.sessions.host_daemon import HostDaemon

        for host in self.hosts:
            if host.daemon is not None:
                host.freshness.daemon = "no daemon"
                ssh = host.attach.ssh if host.attach is not None else None
                self.daemons[host.name] = HostDaemon(
                    host.name,
                    host.daemon,
                    self.set_daemon,
                    interval=self.interval,
                    backoff=restart_backoff(ssh),  # over SSH, the host's own backoff
                )
        if self.daemons:
            import asyncio

            await asyncio.gather(*(daemon.run(stop) for daemon in self.daemons.values()))

    def poll(self) -> SessionsView:
        """Each host's index polled in turn; their views as one."""
        merged = SessionsView([], up=False)
        problems: list[str] = []
        for host in self.hosts:
            view = self._poll_host(host)
            self._daemon_rows(host, view)
            self._heard(host, view)
            merged.threads += view.threads
            merged.changed |= view.changed
            merged.gone |= view.gone
            merged.outside += view.outside
            merged.misnamed += view.misnamed
            merged.absent += view.absent
            merged.up = merged.up or view.up
            if view.problem:
                problems.append(f"{host.name}: {view.problem}")
        mark_versions(host.freshness for host in self.hosts)
        merged.problem = "; ".join(problems) or None
        # copies: the view is read on another thread while the next poll runs
        merged.hosts = [dataclasses.replace(host.freshness) for host in self.hosts]
        return merged

    def _poll_host(self, host: SessionsHost) -> SessionsView:
        if host.not_opened is not None:
            problem, host.not_opened = host.not_opened, None
            return SessionsView([], up=False, problem=problem)
        return host.index.poll()

    def _daemon_rows(self, host: SessionsHost, view: SessionsView) -> None:
        """A row for each thread the host's daemon holds loaded that its files do not show;
        such a row goes when the thread is no longer loaded (or its rollout is read)."""
        fresh = host.freshness
        live, facts = fresh.live or {}, fresh.facts or {}
        rows = {
            thread_id: daemon_row(host.name, thread_id, facts.get(thread_id))
            for thread_id in live
            if not host.index.shows(thread_id)
        }
        before, host.daemon_rows = host.daemon_rows, rows
        if not rows and not before:
            return  # the usual poll: every loaded thread has its rollout read
        for thread_id, row in rows.items():
            if before.get(thread_id) != row or row.key in view.gone:
                view.changed.add(row.key)
            view.gone.discard(row.key)  # its file row went: this row takes its place
        for thread_id in before.keys() - rows.keys():
            if not host.index.shows(thread_id):
                view.gone.add(before[thread_id].key)
        view.threads = [*view.threads, *rows.values()]

    def _heard(self, host: SessionsHost, view: SessionsView) -> None:
        fresh = host.freshness
        now = datetime.fromtimestamp(self.clock(), UTC)
        if view.up:
            fresh.state, fresh.reason, fresh.last_heard = "connected", None, now
        else:
            heard_lately = fresh.last_heard is not None and not fresh.stale(now, self.interval)
            fresh.state = "reconnecting" if heard_lately else "unreachable"
            fresh.reason = view.problem
        fresh.codex_version = _newest_version(host, view)

    def rollout_source(self, summary: ThreadSummary) -> Source:
        """The thread's rollout, followed on its own host."""
        host = next((h for h in self.hosts if h.name == summary.host), self.hosts[0])
        return host.files.rollout_source(summary.path)

    def thread_source(self, summary: ThreadSummary) -> Source:
        """The thread's dashboard source: through its host's daemon while the daemon holds
        it (its requests answered there), else its rollout followed."""
        host = next((h for h in self.hosts if h.name == summary.host), self.hosts[0])
        live = host.freshness.live
        if host.attach is None or live is None or summary.thread_id not in live:
            return self.rollout_source(summary)
        from envtui.sources.daemon.attach import DaemonSource

        return DaemonSource(dataclasses.replace(host.attach, thread=summary.thread_id))

    def daemons_settled(self) -> bool:
        """Whether every host's daemon was tried once, and every waiting thread of those
        attached has its request (``--json`` prints what the daemons say then)."""
        return not self.unsettled()

    def unsettled(self) -> dict[str, str]:
        """The hosts whose daemon has not said all yet, each with what it has not said:
        what ``--json`` tells on stderr when it stops waiting for them."""
        missing = {
            h.name: "its daemon not started yet"
            for h in self.hosts
            if h.daemon is not None and h.name not in self.daemons
        }
        for name, daemon in self.daemons.items():
            if not daemon.tried:
                missing[name] = "its daemon not reached yet"
                continue
            client = daemon.client if daemon.state == "attached" else None
            if client is None:
                continue
            asked = {r.thread for r in client.requests.pending.values()}
            if any(t.waiting and t.work and t.id not in asked for t in client.threads.values()):
                missing[name] = "the requests of its waiting threads not known yet"
        return missing


def _newest_version(host: SessionsHost, view: SessionsView) -> str | None:
    """The Codex version of the host's thread written last (its CLI as it runs now); a
    poll that changed no row keeps it (an idle poll does not walk the host's rows)."""
    versions = host._versions
    if not view.changed and not view.gone:
        return host.freshness.codex_version  # what the last poll that changed rows found
    for key in view.gone:
        versions.pop(key, None)
    for row in view.changed_threads():
        if row.cli_version is not None and row.last_written is not None:
            versions[row.key] = (row.last_written.timestamp(), row.cli_version)
    return max(versions.values())[1] if versions else host.freshness.codex_version
