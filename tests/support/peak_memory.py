"""The most memory this process has held since a mark, read from Linux's own counters.

``tracemalloc`` counts each Python allocation exactly but makes a busy test four times
slower; the kernel keeps the process's peak resident size anyway (``VmHWM``), and writing
``5`` to ``/proc/self/clear_refs`` sets that peak back to the present size. The growth of
the peak over the size at the mark is what the code under test held at its worst,
allocator overheads included (so a bound on it is no looser than one on tracemalloc's).
"""

from __future__ import annotations

import re
from pathlib import Path

_STATUS = Path("/proc/self/status")


def _kib(field: str) -> int:
    found = re.search(rf"^{field}:\s+(\d+) kB$", _STATUS.read_text(), re.MULTILINE)
    assert found is not None, f"no {field} in {_STATUS}"
    return int(found.group(1))


class PeakGrowth:
    """``with PeakGrowth() as growth: ...``; then ``growth.bytes`` is the peak's growth."""

    def __init__(self) -> None:
        self._start = 0
        self.bytes = 0

    def __enter__(self) -> PeakGrowth:
        Path("/proc/self/clear_refs").write_text("5")  # the peak is now the present size
        self._start = _kib("VmRSS")
        return self

    def __exit__(self, *exc: object) -> None:
        self.bytes = (_kib("VmHWM") - self._start) * 1024
