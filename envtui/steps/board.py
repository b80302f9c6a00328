"""The live status board: which environment is in which state, and which one is primary.

Two producers report live statuses: envtui's own environment manager and the client of a
real ``codex app-server``. Both must follow the same contract, which is subtle enough to
have one implementation:

* the primary is the first **ready** environment in selection order; while an environment
  earlier in the order has no known status yet, nothing after it is primary (it may yet be
  ready itself: an attach hears a remote's connection before local's first status);
* a change reports the changed environment, and, when the primary moves, the old and the
  new primary too (their ``primary`` flag changed although their status did not);
* nothing is reported twice: each report is compared with the last one of that id, so
  observers that notice the same change in a different order still emit it once.

The board does not store statuses itself: it reads each environment's current state
through ``state`` (and its whole status through ``describe``, only for what it reports)
whenever it decides, so the primary is always computed from every environment's present
value, not from the order in which changes were noticed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from envtui.vocabulary.events import EnvironmentStatus
from envtui.vocabulary.terms import LiveState

Describe = Callable[[str], EnvironmentStatus]
"""An environment's current status as a message; its ``primary`` flag is ignored."""
State = Callable[[str], LiveState | None]
"""An environment's current state alone (None: not known yet): cheap, asked for every id in
order."""


class StatusBoard:
    """Selection order, the last report per environment, and the primary they imply."""

    def __init__(self, state: State, describe: Describe) -> None:
        self._state = state
        self._describe = describe
        self.order: list[str] = []
        self._reported: dict[str, EnvironmentStatus] = {}
        self._primary: str | None = None

    def primary(self) -> str | None:
        """The first ready environment in selection order, as things stand now.

        None while an environment before the first ready one has no known status.
        """
        for environment_id in self.order:
            state = self._state(environment_id)
            if state is None:
                return None
            if state == "ready":
                return environment_id
        return None

    def forget(self, environment_id: str) -> None:
        """The next report of ``environment_id`` is made even if it equals the last one."""
        self._reported.pop(environment_id, None)

    def set_order(self, order: Iterable[str]) -> None:
        """A new selection: ids no longer selected are forgotten."""
        self.order = list(dict.fromkeys(order))
        for gone in set(self._reported) - set(self.order):
            del self._reported[gone]

    def report(self, *changed: str) -> list[EnvironmentStatus]:
        """The messages for ``changed`` and for a primary that moved, each only if new."""
        before, self._primary = self._primary, self.primary()
        ids = [i for i in changed if i in self.order]
        if before != self._primary:
            ids += [i for i in (before, self._primary) if i is not None and i in self.order]
        out = []
        for env_id in dict.fromkeys(ids):
            msg = self._describe(env_id).model_copy(update={"primary": env_id == self._primary})
            if self._reported.get(env_id) != msg:
                self._reported[env_id] = msg
                out.append(msg)
        return out
