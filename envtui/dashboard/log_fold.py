"""The event log as read: identical lines folded into one with a count, a filter, a search.

A host that keeps failing writes the same line every few seconds; shown one by one they
push everything else out of view. Lines whose text (all but the time) is the same are one
:class:`Fold`: ``12:00:01 ghost starting → unavailable x12 in 30 s``. Identical lines that
follow each other fold where they are; a line that comes again among the last
:data:`LOOKBACK` lines (other events came between) folds into its earlier line, which
moves down to where it was last seen, so the log's order stays the order of the last
occurrences. A step that sent no context change is a line that differs from the last one
only by its number: a run of them with no other step between is one line too (``12:16:36
steps #980-#998: no context change x15 in 36 s`` in ASCII), and a step that sent a change ends
the run. The filter keeps the lines of some environments or event types; the search
finds lines.
Pure: the log widget draws what these say, the tests check them without a screen.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from envtui.dashboard.log_lines import LogEntry
from envtui.tui.format import ASCII, glyphs

LOOKBACK = 100
"""How many lines back a repeated line is looked for: a host that fails every 30 s
repeats its line between a dozen steps and their findings, never right after itself."""
TYPE_ALIASES = {
    "status": ("environment_status",),
    "connection": ("environment_connected", "environment_disconnected"),
    "connected": ("environment_connected",),
    "disconnected": ("environment_disconnected",),
    "removed": ("environment_removed",),
    "source": ("source_status",),
}
"""Short names for ``type:`` (a type matches by its start, so ``type:env`` works too)."""


@dataclass(slots=True)
class Fold:
    """Identical consecutive lines: the first, how many, and the last one's time.

    A fold may also be a cycle of two lines about one environment that keep taking turns
    (``starting → unavailable``, ``unavailable → starting``, as a host that refuses every
    retry writes them): one line, both counts.
    """

    first: LogEntry
    count: int = 1
    last: LogEntry | None = None
    partner: LogEntry | None = None
    partner_count: int = 0

    def takes(self, entry: LogEntry) -> bool:
        """Fold ``entry`` in if it is this fold's next line; False if it is not."""
        if self.partner is None:
            if entry.text != self.first.text:
                return False
            self.count += 1
        else:
            first_next = self.partner_count >= self.count
            expected = self.first if first_next else self.partner
            if entry.text != expected.text:
                return False
            if first_next:
                self.count += 1
            else:
                self.partner_count += 1
        self.last = entry
        return True

    def takes_step(self, entry: LogEntry) -> bool:
        """Fold ``entry``, a step that changed nothing, in if this fold is the run of such
        steps that it goes on (its number is higher: a new run of steps starts anew)."""
        last = self.last or self.first
        if (
            self.partner is not None
            or entry.quiet_step is None
            or last.quiet_step is None
            or entry.quiet_step <= last.quiet_step
        ):
            return False
        self.count += 1
        self.last = entry
        return True

    @property
    def expects(self) -> str:
        """The text of the line this fold takes next."""
        if self.partner is not None and self.partner_count < self.count:
            return self.partner.text
        return self.first.text

    def line(self) -> str:
        """The line as shown: with a count, it is dated by its last occurrence (where the
        fold stands in the log), and says how long the repetition has lasted."""
        if self.count == 1 and self.partner is None:
            return _ascii(self.first.line)
        last = self.last or self.first
        if last.quiet_step is not None and last is not self.first:
            dash = "-" if glyphs() == ASCII else "\N{EN DASH}"
            words = f"steps #{self.first.quiet_step}{dash}#{last.quiet_step}: no context change"
        else:
            words = self.first.text
        text = f"{last.time} {words}"
        span = ""
        if self.last is not None and self.last.at is not None and self.first.at is not None:
            span = f" in {_duration((self.last.at - self.first.at).total_seconds())}"
        text = f"{text} {glyphs().times}{self.count}{span}"
        if self.partner is not None:
            text += f" · with {self.partner.text} {glyphs().times}{self.partner_count}"
        return _ascii(text)


def _ascii(text: str) -> str:
    """The store writes the arrow; the ASCII glyph set has its own."""
    return text.replace(" → ", f" {ASCII.arrow} ") if glyphs() == ASCII else text


def _cycle(before: Fold, after: Fold, entry: LogEntry) -> bool:
    """Whether ``entry`` turns the last two single lines into a two-line cycle."""
    return (
        before.partner is None
        and after.partner is None
        and before.count == 1
        and after.count == 1
        and before.first.text == entry.text
        and entry.environment_id is not None
        and before.first.environment_id == after.first.environment_id == entry.environment_id
    )


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
        environments: list[str] = []
        types: list[str] = []
        words: list[str] = []
        for word in text.split():
            lowered = word.lower()
            if lowered.startswith("env:") and len(word) > 4:
                environments.append(lowered[4:])
            elif lowered.startswith("type:") and len(word) > 5:
                types.extend(TYPE_ALIASES.get(lowered[5:], (lowered[5:],)))
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
        if not self.words:  # nor is the line written to be filtered
            return True
        text = entry.text.lower()
        return all(word in text for word in self.words)


@dataclass
class FoldedLog:
    """The lines shown: folds of the entries the filter lets through, at most ``limit``."""

    limit: int
    filter: LogFilter = field(default_factory=LogFilter)
    folds: list[Fold] = field(default_factory=list)
    _quiet_run: Fold | None = None
    """The fold of the latest run of steps that changed nothing, while no other step came."""

    def add(self, entries: list[LogEntry]) -> tuple[int, list[str]]:
        """Fold ``entries`` in: (how many lines shown before stay as they are, the lines
        that follow them now). Usually all stay and new lines follow; a count that grew
        rewrites the last line, a cycle that formed the last two. Lines beyond the bound
        leave from the top, as they do from a log widget with the same bound."""
        kept = len(self.folds)
        # The texts that a fold among the last LOOKBACK may take next, and more (a fold
        # that leaves the window stays in it): a line whose text is not here is a line of
        # its own, found without asking every recent fold.
        wanted = {fold.expects for fold in self.folds[-LOOKBACK:]}
        for entry in entries:
            if not self.filter.matches(entry):
                continue
            if len(self.folds) >= 2 and _cycle(self.folds[-2], self.folds[-1], entry):
                before, after = self.folds[-2], self.folds.pop()
                before.partner, before.partner_count = after.first, 1
                before.count, before.last = 2, entry
                wanted.add(before.expects)
                kept = min(kept, len(self.folds) - 1)
                continue
            if entry.kind == "step":
                index = self._quiet_run_takes(entry)
            else:
                index = self._recent(entry) if entry.text in wanted else None
            if index is None:
                fold = Fold(entry)
                self.folds.append(fold)
                wanted.add(entry.text)
                if entry.quiet_step is not None:
                    self._quiet_run = fold
            else:  # the line comes again: its fold moves down to where it was last seen
                kept = min(kept, index)
                self.folds.append(self.folds.pop(index))
                wanted.add(self.folds[-1].expects)
        pruned = max(0, len(self.folds) - self.limit)
        if pruned:  # the log widget, bounded alike, drops as many lines from its top
            del self.folds[:pruned]
        return kept, [fold.line() for fold in self.folds[max(0, kept - pruned) :]]

    def _quiet_run_takes(self, entry: LogEntry) -> int | None:
        """The index of the run of steps that changed nothing that ``entry`` goes on, if
        it is such a step and the run is among the last :data:`LOOKBACK` lines; any other
        step ends the run."""
        run, self._quiet_run = self._quiet_run, None
        if run is None or entry.quiet_step is None:
            return None
        for index in range(len(self.folds) - 1, max(-1, len(self.folds) - LOOKBACK - 1), -1):
            if self.folds[index] is run:
                if not run.takes_step(entry):
                    return None
                self._quiet_run = run
                return index
        return None

    def _recent(self, entry: LogEntry) -> int | None:
        """The index of a fold among the last :data:`LOOKBACK` that takes ``entry``."""
        for index in range(len(self.folds) - 1, max(-1, len(self.folds) - LOOKBACK - 1), -1):
            if self.folds[index].takes(entry):
                return index
        return None

    def rebuild(self, entries: list[LogEntry]) -> list[str]:
        """Every line again (the filter changed): the folds of all ``entries``."""
        self.folds = []
        self._quiet_run = None
        return self.add(entries)[1]

    def search(self, needle: str) -> list[int]:
        """The indices of the lines that contain ``needle`` (ignoring case), oldest first."""
        wanted = needle.lower()
        return [i for i, fold in enumerate(self.folds) if wanted in fold.first.line.lower()]
