"""The event log as read: repeats folded into one line with its count first, a filter, a search.

A host that keeps failing writes the same line every few seconds, and the engine writes a
line per step; shown one by one they push everything else out of view. So:

Examples are written as with ``--ascii`` (``x`` for the multiplication sign, ``-`` for
the en dash):

- Lines whose text (all but the time) is the same are one :class:`Fold`, its count first so
  a line cut at the panel's edge still says how often: ``12:00:01 x12 environment_status
  ghost starting → unavailable: refused · over 30 s``. Identical lines that follow each
  other fold where they are; a line that comes again among the last :data:`LOOKBACK` lines
  (other events came between) folds into its earlier line, which moves down to where it
  was last seen, so the log's order stays the order of the last occurrences.
- Two lines about one environment that take turns (``A, B, A, B``, with other lines
  between or not) are one line with both counts: ``x12+11 environment_status ghost
  starting → unavailable: refused · with unavailable → starting · over 57 s``.
- Every step of one window (:data:`STEP_WINDOW` seconds from its first) is one line:
  ``x28 steps #860-#887: 7 sent, 21 unchanged · over 54 s``. A step numbered lower (a new
  thread) starts a window of its own.

The filter keeps the lines of some environments or event types; the search finds lines.
Pure and free of any screen: the log widget draws what these say, the tests check them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from envtui.dashboard.log_lines import LogEntry
from envtui.vocabulary.terms import duration_words

LOOKBACK = 100
"""How many lines back a repeated line is looked for: a host that fails every 30 s
repeats its line between a dozen steps and their findings, never right after itself."""
STEP_WINDOW = 60.0
"""Seconds of steps one line holds: the engine steps every 2 s, so a line a minute."""
STEP_WINDOW_STEPS = 30
"""Steps one line holds when the steps carry no time (a window by count instead)."""
TURN_KEYS = 256
"""How many (type, environment) pairs are watched for lines that take turns."""
TYPE_ALIASES = {
    "status": ("environment_status",),
    "connection": ("environment_connected", "environment_disconnected"),
    "connected": ("environment_connected",),
    "disconnected": ("environment_disconnected",),
    "removed": ("environment_removed",),
    "source": ("source_status",),
}
"""Short names for ``type:`` (a type matches by its start, so ``type:env`` works too)."""

TIMES, EN_DASH, ARROW = "\N{MULTIPLICATION SIGN}", "\N{EN DASH}", " \N{RIGHTWARDS ARROW} "
ASCII_GLYPHS = {TIMES: "x", EN_DASH: "-", ARROW: " -> "}
"""What the log's own glyphs become with ``--ascii``."""


@dataclass(slots=True)
class Fold:
    """One shown line: an entry and how often it came (the last one's time dates it).

    A fold may also be a pair of lines about one environment that take turns (its
    ``partner``), or a window of steps (``first`` is a step; ``sent`` counts those that
    sent a context change).
    """

    first: LogEntry
    count: int = 1
    last: LogEntry | None = None
    partner: LogEntry | None = None
    partner_count: int = 0
    sent: int = 0

    def __post_init__(self) -> None:
        self.sent = int(self.first.step_sent)

    @property
    def texts(self) -> tuple[str, ...]:
        """The texts of the lines this fold takes."""
        if self.partner is None:
            return (self.first.text,)
        return (self.first.text, self.partner.text)

    def takes(self, entry: LogEntry) -> bool:
        """Fold ``entry`` in if it is one of this fold's lines; False if it is not."""
        text = entry.text
        if text == self.first.text:
            self.count += 1
        elif self.partner is not None and text == self.partner.text:
            self.partner_count += 1
        else:
            return False
        self.last = entry
        return True

    def takes_step(self, entry: LogEntry) -> bool:
        """Fold ``entry``, a step, in if it goes on this fold's window of steps: numbered
        higher than the last, within :data:`STEP_WINDOW` seconds of the first."""
        last, first = self.last or self.first, self.first
        if entry.step is None or last.step is None or entry.step <= last.step:
            return False
        if entry.at is not None and first.at is not None:
            if (entry.at - first.at).total_seconds() >= STEP_WINDOW:
                return False
        elif self.count >= STEP_WINDOW_STEPS:
            return False
        self.count += 1
        self.sent += entry.step_sent
        self.last = entry
        return True

    def pair_with(self, other: Fold) -> None:
        """Take ``other``'s line as this one's partner: the two take turns."""
        self.partner, self.partner_count = other.first, other.count
        if other.first.at is not None and (self.first.at is None or other.first.at < self.first.at):
            # the pair began with the partner: the span is counted from there
            self.first, self.partner = other.first, self.first
            self.count, self.partner_count = self.partner_count, self.count

    def line(self, ascii: bool = False) -> str:
        """The line as shown: a single line as it came; a fold dated by its last
        occurrence (where it stands in the log), its count first, how long it lasted last."""
        if self.count == 1 and self.partner is None:
            return _glyphs(self.first.line, ascii)
        last = self.last or self.first
        if last.step is not None and self.first.step is not None:
            words = self._steps_words()
        elif self.partner is not None:
            counts = f"{TIMES}{self.count}+{self.partner_count}"
            partner = _rest(self.partner.text, self.first.text)
            words = f"{counts} {self.first.text} · with {partner}"
        else:
            words = f"{TIMES}{self.count} {self.first.text}"
        start = self.first.at
        if self.partner is not None and self.partner.at is not None and start is not None:
            start = min(start, self.partner.at)
        if last.at is not None and start is not None and last is not self.first:
            words += f" · over {duration_words((last.at - start).total_seconds())}"
        return _glyphs(f"{last.time} {words}", ascii)

    def _steps_words(self) -> str:
        last = self.last or self.first
        parts = [f"{self.sent} sent"] if self.sent else []
        if self.count > self.sent:
            parts.append(f"{self.count - self.sent} unchanged")
        steps = f"steps #{self.first.step}{EN_DASH}#{last.step}"
        return f"{TIMES}{self.count} {steps}: {', '.join(parts)}"


def _rest(text: str, shared_with: str) -> str:
    """``text`` without the words it begins with in common with ``shared_with`` (the pair's
    type and environment, said once)."""
    words, others = text.split(" "), shared_with.split(" ")
    same = 0
    while same < min(len(words), len(others)) - 1 and words[same] == others[same]:
        same += 1
    return " ".join(words[same:])


def _glyphs(text: str, ascii: bool) -> str:
    """The text with the log's own glyphs, or their ASCII forms."""
    if ascii:
        for glyph, plain in ASCII_GLYPHS.items():
            text = text.replace(glyph, plain)
    return text


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
    """The lines shown: folds of the entries the filter lets through, at most ``limit``.
    ``ascii``: the log's own glyphs in ASCII (``x12``, ``->``, ``#1-#9``)."""

    limit: int
    filter: LogFilter = field(default_factory=LogFilter)
    ascii: bool = False
    folds: list[Fold] = field(default_factory=list)
    _steps: Fold | None = None
    """The window of steps that the next step may go on."""
    _turns: dict[tuple[str, str], tuple[Fold | None, Fold]] = field(default_factory=dict)
    """Per type and environment, the folds that took its last two lines (older, newer):
    a line that the older takes again means the two take turns."""

    def add(self, entries: list[LogEntry]) -> tuple[int, list[str]]:
        """Fold ``entries`` in: (how many lines shown before stay as they are, the lines
        that follow them now). Usually all stay and new lines follow; a count that grew
        rewrites its line, moved down to the end. Lines beyond the bound leave from the
        top, as they do from a log widget with the same bound."""
        kept = len(self.folds)
        # The texts that a fold among the last LOOKBACK may take next, and more (a fold
        # that leaves the window stays in it): a line whose text is not here is a line of
        # its own, found without asking every recent fold.
        wanted = {text for fold in self.folds[-LOOKBACK:] for text in fold.texts}
        for entry in entries:
            if not self.filter.matches(entry):
                continue
            if entry.step is not None:
                index = self._step_window_takes(entry)
            else:
                index = self._recent(entry) if entry.text in wanted else None
            if index is None:
                fold = Fold(entry)
                self.folds.append(fold)
                wanted.add(entry.text)
                if entry.step is not None:
                    self._steps = fold
            else:  # the line comes again: its fold moves down to where it was last seen
                kept = min(kept, index)
                self.folds.append(self.folds.pop(index))
            kept = min(kept, self._taking_turns(entry, wanted))
        pruned = max(0, len(self.folds) - self.limit)
        if pruned:  # the log widget, bounded alike, drops as many lines from its top
            del self.folds[:pruned]
        return kept, [fold.line(self.ascii) for fold in self.folds[max(0, kept - pruned) :]]

    def _step_window_takes(self, entry: LogEntry) -> int | None:
        """The index of the window of steps that ``entry`` goes on, if it is among the
        last :data:`LOOKBACK` lines and takes it."""
        window = self._steps
        if window is None:
            return None
        index = self._index_of(window)
        if index is None or not window.takes_step(entry):
            return None
        return index

    def _taking_turns(self, entry: LogEntry, wanted: set[str]) -> int:
        """Pair the last fold with the one before it of the same type and environment if
        ``entry`` made them take turns (A, B, A); the index from which lines changed (the
        number of folds when none did)."""
        newest = self.folds[-1]
        if entry.environment_id is None or entry.step is not None:
            return len(self.folds)
        key = (entry.kind, entry.environment_id)
        older, newer = self._turns.pop(key, (None, newest))
        if newer is newest:  # the same line again (or the first one)
            self._remember(key, older, newest)
            return len(self.folds)
        if older is not newest or newer.partner is not None or newest.partner is not None:
            self._remember(key, newer, newest)
            return len(self.folds)
        index = self._index_of(newer)
        if index is None:  # too far back to join
            self._remember(key, newer, newest)
            return len(self.folds)
        del self.folds[index]
        newest.pair_with(newer)
        wanted.update(newest.texts)
        self._remember(key, None, newest)
        return index

    def _remember(self, key: tuple[str, str], older: Fold | None, newer: Fold) -> None:
        self._turns[key] = (older, newer)  # the newest last
        if len(self._turns) > TURN_KEYS:
            del self._turns[next(iter(self._turns))]

    def _index_of(self, fold: Fold) -> int | None:
        """Where ``fold`` stands, if it is among the last :data:`LOOKBACK` lines."""
        for index in range(len(self.folds) - 1, max(-1, len(self.folds) - LOOKBACK - 1), -1):
            if self.folds[index] is fold:
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
        self._steps = None
        self._turns = {}
        return self.add(entries)[1]

    def search(self, needle: str) -> list[int]:
        """The indices of the lines that contain ``needle`` (ignoring case), oldest first."""
        wanted = needle.lower()
        return [i for i, fold in enumerate(self.folds) if wanted in fold.first.line.lower()]
