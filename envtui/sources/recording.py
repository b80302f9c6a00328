"""Recording a source: every event it emits is also written to a JSONL file.

``envtui replay`` reads such a file back. The recording is a wrapper around any source, so
the dashboard only ingests events and never opens a file: the file is opened when the
source starts (not when the wrapper is built, so nothing is truncated for a run that never
begins) and closed when the source returns, fails or is cancelled.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from envtui.events import Event, EventSink, Source, encode_event


def recorded(source: Source, path: Path, *, append: bool = False) -> Source:
    """``source``, with each event also written to ``path`` as one line of JSON.

    ``append`` adds to an existing file instead of replacing it.

    The events reach the sink first, then the file, in the order the source emitted them.
    An event emitted after the source returned (a late callback) still reaches the sink; it
    is not written, because the file is already closed.
    """

    async def run(sink: EventSink, stop: asyncio.Event) -> None:
        with path.open("a" if append else "w", encoding="utf-8") as handle:

            def tee(event: Event) -> None:
                sink(event)
                if not handle.closed:
                    handle.write(encode_event(event) + "\n")

            await source(tee, stop)

    return run
