"""What the served stream keeps of the notifications envtui does not use.

The stream the tabs replay is written for as long as the server runs. Codex sends many
notifications envtui does not use (deltas, token counts, plans), some with large params; the
tabs only show such a notification's method in their log. So the stream keeps the method
alone (Codex's ``configWarning`` keeps its words, which the log shows), and at most
:data:`PER_METHOD` lines of any one method, then one line saying the rest are not kept.
What ``envtui events`` writes is not thinned: this is only the served tabs' stream.
"""

from __future__ import annotations

from collections import Counter

from envtui.vocabulary.events import Event, EventSink, UnknownMessage, WarningMessage

PER_METHOD = 1000
"""Unused notifications of one method kept in the served stream (each a line of ~150 bytes)."""
KEPT_WHOLE = frozenset({"configWarning"})
"""Notifications whose params the tabs show."""


def thinned(sink: EventSink) -> EventSink:
    """``sink``, given an unused notification's method only, and at most PER_METHOD of each."""
    counts: Counter[str] = Counter()

    def write(event: Event) -> None:
        message = event.msg
        if not isinstance(message, UnknownMessage) or message.type != "codex_notification":
            sink(event)
            return
        method = str(message.raw.get("method"))
        counts[method] += 1
        if counts[method] > PER_METHOD:
            if counts[method] == PER_METHOD + 1:
                note = f"further {method} notifications are not kept in the served stream"
                sink(event.model_copy(update={"msg": WarningMessage(message=note)}))
            return
        if method in KEPT_WHOLE:
            sink(event)
            return
        raw = {"type": message.type, "method": method}
        sink(event.model_copy(update={"msg": UnknownMessage(type=message.type, raw=raw)}))

    return write
