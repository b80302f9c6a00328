"""The help screen's text: every key in force, grouped by where it acts.

A flat list of 29 keys named ``/`` twice and ``esc`` three times left the reader to guess
which panel each one meant. Here each binding (by its stable id, so a keymap that moves a
key moves it here) is listed once, under the part of the dashboard it acts on; the keys
Textual itself gives (Tab, Shift+Tab, the palette) are listed too. Pure: bindings and the
keymap in, text out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich.cells import cell_len
from textual.binding import Binding

from envtui.tui.keymap import keys_in_force

Row = tuple[str, str]
"""(keys as typed, what they do)."""

SECTIONS: tuple[tuple[str, tuple[tuple[str, str | None], ...]], ...] = (
    (
        "Table (environments, when focused)",
        (
            ("filter", "Filter the rows"),
            ("clear_filter", "Clear the filter"),
            ("sort", "Sort by the next column"),
            ("sort_reverse", "Reverse the sort"),
            ("details", "Details of the environment"),
        ),
    ),
    (
        "Log (events, when focused)",
        (
            ("log_search", "Search the log"),
            ("log_older_match", "Older match"),
            ("log_newer_match", "Newer match"),
            ("log_filter", "Filter the log (env:ID, type:TYPE, text)"),
            ("log_clear", "Clear the search and the filter"),
            ("follow_log", "Follow the newest line, and back to live"),
        ),
    ),
    (
        "Context (when focused)",
        (("view", "Full, diff, snapshot, patch"),),
    ),
    (
        "Incidents (when focused)",
        (
            ("acknowledge", "Acknowledge the incident"),
            ("details", "Its history; of a fold, each episode"),
            ("toggle_resolved", "Hide or show the resolved ones"),
        ),
    ),
    (
        "Needs you (while Codex waits, envtui codex)",
        (
            ("approve_once", "Approve the marked request once (y confirms, after 0.5 s)"),
            ("approve_session", "Approve it for the session (where Codex offers it)"),
            ("decline", "Decline it"),
            ("reply", "Answer Codex's questions"),
            ("next_request", "Mark the next request"),
        ),
    ),
    (
        "History",
        (
            ("history", "Open: every timeline on one axis"),
            ("history_span", "Span: whole session, 30, 10, 5 min"),
            ("history_close", "Close (also help and details)"),
            ("close", "Close help and details"),
        ),
    ),
    (
        "Panels (the focused one is marked ▶; narrow: the tabs)",
        (
            ("panel_table", "The table"),
            ("panel_log", "The events"),
            ("panel_context", "The context"),
            ("panel_tools", "The tools"),
            ("panel_findings", "The incidents"),
        ),
    ),
    (
        "Global",
        (
            ("help", "These keys"),
            ("pause", "Pause or resume the view"),
            ("previous_step", "Previous step"),
            ("next_step", "Next step"),
            ("live", "Back to live: the latest step"),
            ("copy", "Copy the context text"),
            ("export", "Export the step as JSON"),
            ("theme", "Pick a theme (the one chosen is kept for the next run)"),
            ("threads", "The daemon's threads; enter opens one (envtui codex)"),
            ("quit", "Quit"),
        ),
    ),
)
"""Each section's bindings by id, with what they do there; a binding named in no section
is listed under Global with its own description."""
TEXTUAL_KEYS: tuple[Row, ...] = (
    ("tab, shift+tab", "Next / previous panel (narrow: to the tab bar, then ←/→)"),
    ("ctrl+p", "Command palette: every action, sort, go to, theme"),
)
"""Keys Textual gives every screen, listed under Global."""
MERGED = {
    "close_q": "close",
    "quit_ctrl_c": "quit",
    "table_live": "live",
    "filter_any_panel": "filter",
}
"""Bindings shown on the row of another (the same action on a second key)."""


def help_sections(
    bindings: Iterable[Binding], keymap: Mapping[str, str]
) -> list[tuple[str, list[Row]]]:
    """The sections with the keys in force (the keymap applied), each binding once per
    section; those no section names go to Global."""
    keys: dict[str, str] = {}
    described: dict[str, str] = {}
    for binding in bindings:
        if not binding.id:
            continue
        typed = keys_in_force([binding], keymap)[0][0]
        owner = MERGED.get(binding.id, binding.id)
        if owner in keys and typed in keys[owner].split(", "):
            continue  # the same key for the same thing on two panels (enter: details)
        keys[owner] = f"{keys[owner]}, {typed}" if owner in keys else typed
        described.setdefault(owner, binding.description)
    named = {binding_id for _, rows in SECTIONS for binding_id, _ in rows}
    named.add("close")
    if keys.get("close") == keys.get("history_close"):
        del keys["close"]  # the same keys close every screen over the dashboard: one row
    sections = []
    for title, rows in SECTIONS:
        listed = [(keys[i], text or described[i]) for i, text in rows if i in keys]
        if title == "Global":
            listed += [(keys[i], described[i]) for i in keys if i not in named]
            listed += TEXTUAL_KEYS
        sections.append((title, listed))
    return [(title, rows) for title, rows in sections if rows]


HEADING = "Keys, by where they act"


def sectioned_help(sections: list[tuple[str, list[Row]]]) -> str:
    """The sections as text: a heading, then a key column as wide as the widest keys."""
    width = max((cell_len(keys) for _, rows in sections for keys, _ in rows), default=0)
    blocks = [HEADING]
    for title, rows in sections:
        lines = [title]
        lines += [f"  {keys}{' ' * (width - cell_len(keys))}  {text}" for keys, text in rows]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
