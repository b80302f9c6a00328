"""What one poll of a sessions tree found, as the sessions table reads it.

The index that polls the tree (:mod:`envtui.sources.sessions.sessions_index`) publishes a
:class:`SessionsView`; the table and ``envtui sessions --json`` only read it. It sits beside
the thread summary it carries (:mod:`envtui.incidents.thread_summary`), below the sources,
so the front ends read it without importing the poller.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from envtui.vocabulary.safe_text import for_terminal

if TYPE_CHECKING:  # the rollout reader it needs loads with the first summary, not before
    from envtui.incidents.fleet_rows import HostFreshness
    from envtui.incidents.thread_summary import ThreadSummary


@dataclass
class SessionsView:
    """What one poll found: every thread shown, and whether the tree could be listed."""

    threads: list[ThreadSummary]
    up: bool
    problem: str | None = None
    changed: set[str] = field(default_factory=set)  # keys of the threads whose summary changed
    gone: set[str] = field(default_factory=set)  # keys of the threads no longer shown
    outside: list[str] = field(default_factory=list)  # links out of the tree, not read
    misnamed: list[str] = field(default_factory=list)  # .jsonl files not named as rollouts
    hosts: list[HostFreshness] = field(default_factory=list)  # each host's, when several
    absent: list[str] = field(default_factory=list)  # trees not made yet: shown as empty

    def changed_threads(self) -> list[ThreadSummary]:
        if not self.changed:
            return []  # an idle poll: not a walk of every row
        return [t for t in self.threads if t.key in self.changed]


def outside_note(outside: list[str]) -> str | None:
    """The words for the links out of the tree that were skipped, or None."""
    if not outside:
        return None
    shown = ", ".join(for_terminal(path) for path in outside[:3])
    more = f" and {len(outside) - 3} more" if len(outside) > 3 else ""
    return f"{len(outside)} link(s) out of the tree skipped (not read): {shown}{more}"


def misnamed_note(misnamed: list[str]) -> str | None:
    """The words for the files that look like rollouts and are not named as Codex names
    them (``rollout-<time>-<thread id>.jsonl``): counted and said, not read."""
    if not misnamed:
        return None
    shown = ", ".join(for_terminal(path) for path in misnamed[:3])
    more = f" and {len(misnamed) - 3} more" if len(misnamed) > 3 else ""
    return (
        f"{len(misnamed)} .jsonl file(s) not named rollout-<time>-<thread id>.jsonl "
        f"(not read): {shown}{more}"
    )


def absent_note(absent: list[str]) -> str | None:
    """The words for the trees that do not exist yet where a daemon runs or hosts are
    configured (Codex makes a tree with its first rollout): shown as empty, said once."""
    if not absent:
        return None
    shown = ", ".join(for_terminal(name) for name in absent)
    return (
        f"no sessions folder yet (Codex makes it with its first rollout), shown as empty: {shown}"
    )


def notes(view: SessionsView) -> list[str]:
    """Every note of a view: links out of the tree, misnamed files, trees not made yet."""
    said = (
        outside_note(view.outside),
        misnamed_note(view.misnamed),
        absent_note(view.absent),
    )
    return [note for note in said if note is not None]
