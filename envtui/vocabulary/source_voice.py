"""What a source says of itself: a notice, or its own state (down, restarting, up).

Both Codex sources (``sources/codex_attach.py``, an app-server of envtui's own, and
``sources/daemon/attach.py``, the daemon) say these the same way, as thread events dated by
their clock; the store folds the state into the header, the metrics count the restarts.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from envtui.vocabulary.events import EventSink, SourceStatus, WarningMessage, thread_event
from envtui.vocabulary.terms import SourceState


class SourceVoice:
    """What a source says of itself, as thread events dated by its clock: a notice
    (:meth:`say`) or its own state (:meth:`status`). The one way the Codex sources (an
    app-server of envtui's own, the daemon) say that they went down, restart or are up."""

    def __init__(
        self, source: str, clock: Callable[[], datetime], sink: EventSink | None = None
    ) -> None:
        self.source = source
        self.clock = clock
        self.sink: EventSink = sink or (lambda event: None)
        """Where it is said: the source's sink, set when the source is given one."""

    def say(self, msg: WarningMessage | SourceStatus) -> None:
        self.sink(thread_event(msg, at=self.clock()))

    def status(
        self,
        state: SourceState,
        reason: str | None = None,
        *,
        thread: str | None = None,
        restarts: int = 0,
        retry_in: float = 0,
    ) -> None:
        """The source's state now; tried again ``retry_in`` seconds later (0: not scheduled)."""
        now = self.clock()
        retry = now + timedelta(seconds=retry_in) if retry_in else None
        msg = SourceStatus(
            source=self.source,
            state=state,
            reason=reason,
            thread=thread,
            restarts=restarts,
            next_retry_at=retry,
        )
        self.sink(thread_event(msg, at=now))
