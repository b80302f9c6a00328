"""The diff of the environments section against the previous sampling step.

Codex compares the current state with the previous *snapshot*: ``Absent`` (no baseline)
and ``Unknown`` (a stored snapshot that could not be restored) both mean an empty
previous state, so the result is a full restatement without tombstones. The rules are in
``environment-context.md`` §5; the comments below name the rule each branch implements.
"""

from __future__ import annotations

from envtui.context.model import EnvironmentsState, EnvironmentState
from envtui.context.render import (
    UNAVAILABLE,
    Update,
    filesystem_element,
    network_element,
    render_block,
)

_EMPTY = EnvironmentsState()


def same_diff_value(current: EnvironmentState, previous: EnvironmentState, *, multi: bool) -> bool:
    """Whether an environment is unchanged for the model.

    ``is_primary`` is only persisted with several environments, so it only counts then.
    Shells count only when both sides know one (the shell asymmetry, rule 4).
    """
    return (
        current.cwd == previous.cwd
        and current.status == previous.status
        and current.error == previous.error
        and (not multi or current.is_primary == previous.is_primary)
        and (current.shell is None or previous.shell is None or current.shell == previous.shell)
    )


def turn_values_changed(current: EnvironmentsState, previous: EnvironmentsState) -> bool:
    """Whether ``current_date``, ``timezone``, ``network`` or ``filesystem`` changed.

    Network and filesystem are compared as their rendered elements, as the snapshot holds them.
    """
    if current.current_date != previous.current_date or current.timezone != previous.timezone:
        return True
    return _network_text(current) != _network_text(previous) or _filesystem_text(
        current
    ) != _filesystem_text(previous)


def _network_text(state: EnvironmentsState) -> str | None:
    return None if state.network is None else network_element(state.network)


def _filesystem_text(state: EnvironmentsState) -> str | None:
    return None if state.filesystem is None else filesystem_element(state.filesystem)


def environment_updates(
    current: EnvironmentsState, previous: EnvironmentsState
) -> dict[str, Update]:
    """Added and changed environments (live state) and tombstones for removed ones."""
    multi = current.is_multi
    crossed = multi != previous.is_multi  # rule 5: single <-> multi restates everything
    before = previous.environments
    updates: dict[str, Update] = {}
    for env_id, env in current.environments.items():
        old = before.get(env_id)
        if old is None or crossed or not same_diff_value(env, old, multi=multi):
            updates[env_id] = env
    now = current.environments
    for env_id in before:
        if env_id not in now:
            updates[env_id] = UNAVAILABLE  # rule 6
    return updates


def render_diff(
    current: EnvironmentsState | None,
    previous: EnvironmentsState | None,
    *,
    codex_escaping: bool = False,
) -> str | None:
    """The block to send, or None when nothing is sent.

    ``current`` None means there is no environments section at all (the switch is off),
    so nothing is ever sent. ``previous`` None means ``Absent`` or ``Unknown``.
    """
    if current is None:
        return None
    prev = previous if previous is not None else _EMPTY
    updates = environment_updates(current, prev)
    if not updates and not turn_values_changed(current, prev):
        return None  # rule 1
    legacy_single = current.is_legacy_single and UNAVAILABLE not in updates.values()
    return render_block(
        current,
        updates,
        legacy_single=legacy_single,
        include_primary=current.is_multi or prev.is_multi,
        codex_escaping=codex_escaping,
    )
