"""The alerts of a view of many hosts: each request a thread waits on, once, wherever it is.

Each host's live feed (:class:`~envtui.incidents.fleet_rows.ThreadLive`) lists the requests
a loaded thread waits on. A request is alerted the first time any poll shows it, naming
its host, its thread and its environment; the same request shown again (the next poll,
or asked again after envtui reconnected to the daemon, under the same id) is not a new
one. What was said is remembered up to a bound, oldest forgotten first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from datetime import datetime

from envtui.incidents.alert_items import Alert
from envtui.incidents.fleet_rows import HostFreshness, PendingRequest

REMEMBERED = 10_000
"""Requests remembered as said; a view with more pending at once would alert some again."""

RequestKey = tuple[str, str, str, str, str]


class FleetAlerts:
    """Remembers which requests were alerted; see the module."""

    def __init__(self, limit: int = REMEMBERED) -> None:
        self._said: OrderedDict[RequestKey, None] = OrderedDict()
        self._limit = limit

    def new(self, hosts: Iterable[HostFreshness], at: datetime | None) -> list[Alert]:
        """The alerts of the requests no earlier call saw, host by host."""
        alerts = []
        for host in hosts:
            for thread_id, live in (host.live or {}).items():
                for request in live.pending:
                    key = _key(host.name, thread_id, request)
                    if key in self._said:
                        continue
                    self._said[key] = None
                    if len(self._said) > self._limit:
                        self._said.popitem(last=False)
                    alerts.append(request_alert(host.name, thread_id, request, at))
        return alerts


def _key(host: str, thread_id: str, request: PendingRequest) -> RequestKey:
    return (host, thread_id, str(request.request_id), request.method, request.detail or "")


def request_alert(host: str, thread_id: str, request: PendingRequest, at: datetime | None) -> Alert:
    """A request's alert: what it asks (command or files), where, on which host's thread."""
    kind = request.kind or request.method.rsplit("/", 1)[-1]
    return Alert(
        "request_pending",
        at,
        request.environment_id,
        code=kind,
        tool=f"#{request.request_id}" if request.request_id is not None else None,
        message=request.detail or kind,
        severity="warning",
        host=host or None,
        thread=thread_id,
    )
