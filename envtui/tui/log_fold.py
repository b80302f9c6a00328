"""The event log as read: identical lines folded into one with a count, a filter, a search.

A host that keeps failing writes the same line every few seconds; shown one by one they
push everything else out of view. Consecutive lines whose text (all but the time) is the
same are one :class:`Fold`: ``12:00:01 ghost starting → unavailable x12 in 30 s``. The
filter keeps the lines of some environments or event types; the search finds lines.
Pure: the log widget draws what these say, the tests check them without a screen.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from envtui.log_lines import LogEntry
from envtui.tui.format import ASCII, glyphs

TYPE_ALIASES = {
    "status": "environment_status",
    "connection": "environment_",
    "connected": "environment_connected",
    "disconnected": "environment_disconnected",
    "removed": "environment_removed",
    "source": "source_status",
}
"""Short names for ``type:`` (a type matches by its start, so ``type:env`` works too)."""


@dataclass
class Fold:
    """Identical consecutive lines: the first, how many, and when the last came."""

    first: LogEntry
    count: int = 1
    last: LogEntry | None = None

    def add(self, entry: LogEntry) -> None:
        self.count += 1
        self.last = entry

    def line(self) -> str:
        text = self.first.line
        if glyphs() == ASCII:  # the store writes the arrow; ASCII has its own
            text = text.replace(" → ", f" {ASCII.arrow} ")
        if self.count == 1:
            return text
        span = ""
        if self.last is not None and self.last.at is not None and self.first.at is not None:
            span = f" in {_duration((self.last.at - self.first.at).total_seconds())}"
        return f"{text} {glyphs().times}{self.count}{span}"


def _duration(seconds: float) -> str:
    whole = int(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s" if whole % 60 else f"{whole // 60} min"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


@dataclass(frozen=True)
class LogFilter:
    """What the log shows: ``env:ID`` (part of an id), ``type:TYPE`` (the start of a type,
    or an alias), and plain words that every shown line contains. Several ``env:`` (or
    ``type:``) words are alternatives; the kinds of word must all match."""

    environments: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    text: str = ""

    @classmethod
    def parse(cls, text: str) -> LogFilter:
        environments, types, words = [], [], []
        for word in text.split():
            lowered = word.lower()
            if lowered.startswith("env:") and len(word) > 4:
                environments.append(lowered[4:])
            elif lowered.startswith("type:") and len(word) > 5:
                types.append(TYPE_ALIASES.get(lowered[5:], lowered[5:]))
            else:
                words.append(lowered)
        return cls(tuple(environments), tuple(types), tuple(words), text.strip())

    def __bool__(self) -> bool:
        return bool(self.environments or self.types or self.words)

    def matches(self, entry: LogEntry) -> bool:
        if self.environments:
            about = (entry.environment_id or "").lower()
            if not any(wanted in about for wanted in self.environments):
                return False
        if self.types and not any(entry.kind.startswith(t) for t in self.types):
            return False
        text = entry.text.lower()
        return all(word in text for word in self.words)


@dataclass
class FoldedLog:
    """The lines shown: folds of the entries the filter lets through, at most ``limit``."""

    limit: int
    filter: LogFilter = field(default_factory=LogFilter)
    folds: list[Fold] = field(default_factory=list)

    def add(self, entries: list[LogEntry]) -> tuple[bool, list[str]]:
        """Fold ``entries`` in: (whether the last line shown changed, the new lines)."""
        last_changed = False
        new: list[Fold] = []
        for entry in entries:
            if not self.filter.matches(entry):
                continue
            tail = self.folds[-1] if self.folds else None
            if tail is not None and tail.first.text == entry.text:
                tail.add(entry)
                last_changed |= not new  # a fold drawn before this batch changed
            else:
                self.folds.append(Fold(entry))
                new.append(self.folds[-1])
        if len(self.folds) > self.limit:
            del self.folds[: len(self.folds) - self.limit]
        return last_changed, [fold.line() for fold in new]

    def rebuild(self, entries: list[LogEntry]) -> list[str]:
        """Every line again (the filter changed): the folds of all ``entries``."""
        self.folds = []
        self.add(entries)
        return [fold.line() for fold in self.folds]

    def search(self, needle: str) -> list[int]:
        """The indices of the lines that contain ``needle`` (ignoring case), oldest first."""
        wanted = needle.lower()
        return [i for i, fold in enumerate(self.folds) if wanted in fold.first.line.lower()]
