"""The persisted JSON snapshot of the environments section, and restoring one.

Codex diffs snapshots, never rendered text, and writes them into rollout ``world_state``
items. Keys come in Codex's declaration order (``environments, current_date, timezone,
network, filesystem, subagents`` and ``cwd, status, shell, is_primary``; ``error`` for a
failed environment as codex 0.171 writes it); readers must not depend on that order.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final, cast

from envtui.context.errors import FieldError
from envtui.context.model import EnvironmentsState, EnvironmentState, Status
from envtui.context.render import filesystem_element, network_element

JSONObject = dict[str, Any]

TURN_VALUE_KEYS: Final = ("current_date", "timezone", "network", "filesystem")
"""The values every non-empty diff repeats; subagents are stored but never trigger a diff."""

_STRING_KEYS: Final = (*TURN_VALUE_KEYS, "subagents")
_STATUSES_0150: Final = frozenset({"available", "starting"})
_STATUSES_0171: Final = frozenset({"available", "starting", "failed"})


SnapshotError = FieldError
"""A snapshot that does not have the shape Codex can restore; ``field`` says where."""


def environment_entry(env: EnvironmentState, *, multi: bool) -> JSONObject:
    """One environment's snapshot entry; ``is_primary`` only as true, only with several."""
    entry: JSONObject = {"cwd": env.cwd, "status": env.status}
    if env.shell is not None:
        entry["shell"] = env.shell
    if multi and env.is_primary:
        entry["is_primary"] = True
    if env.error is not None:
        entry["error"] = env.error
    return entry


def snapshot(state: EnvironmentsState) -> JSONObject:
    """The section snapshot: missing values are omitted, network and filesystem rendered."""
    multi = state.is_multi
    envs = state.environments
    snap: JSONObject = {
        "environments": {i: environment_entry(envs[i], multi=multi) for i in state.sorted_ids}
    }
    if state.current_date is not None:
        snap["current_date"] = state.current_date
    if state.timezone is not None:
        snap["timezone"] = state.timezone
    if state.network is not None:
        snap["network"] = network_element(state.network)
    if state.filesystem is not None:
        snap["filesystem"] = filesystem_element(state.filesystem)
    if state.subagents is not None:
        snap["subagents"] = state.subagents
    return snap


def restore_snapshot(raw: object, *, allow_failed: bool = True) -> EnvironmentsState | None:
    """A stored snapshot as a state, or None when Codex could not restore it (``Unknown``)."""
    try:
        return state_from_snapshot(raw, allow_failed=allow_failed)
    except SnapshotError:
        return None


def state_from_snapshot(raw: object, *, allow_failed: bool = True) -> EnvironmentsState:
    """Restore a stored snapshot, or raise :class:`SnapshotError` naming the field.

    The checks are Codex's: ``environments`` is required; each entry needs a string ``cwd``
    and a known ``status``; ``shell`` is a string or missing; ``is_primary`` a boolean or
    missing (an explicit null is an error); the turn values are strings or null. Unknown keys
    are ignored, because newer Codex versions add fields. ``failed`` (with ``error``) is what
    codex 0.171 persists; ``allow_failed=False`` restores as codex 0.150 does.

    A single environment never stores ``is_primary``: it is the primary exactly when it is
    available, since it is then the first ready environment.
    """
    if not isinstance(raw, dict):
        raise SnapshotError("(snapshot)", "expected a JSON object")
    raw_envs = raw.get("environments")
    if not isinstance(raw_envs, dict):
        raise SnapshotError("environments", "expected an object keyed by environment id")
    statuses = _STATUSES_0171 if allow_failed else _STATUSES_0150
    envs: dict[str, EnvironmentState] = {}
    for env_id, entry in raw_envs.items():
        envs[env_id] = _restore_entry(env_id, entry, statuses)
    if len(envs) == 1:
        (only_id,) = envs
        only = envs[only_id]
        envs[only_id] = replace(only, is_primary=only.status == "available")
    values: dict[str, str | None] = {}
    for key in _STRING_KEYS:
        value = raw.get(key)
        if value is not None and not isinstance(value, str):
            raise SnapshotError(key, "expected a string or null")
        values[key] = value
    return EnvironmentsState(environments=envs, **values)


def _restore_entry(env_id: str, entry: object, statuses: frozenset[str]) -> EnvironmentState:
    where = f"environments.{env_id}"
    if not isinstance(entry, dict):
        raise SnapshotError(where, "expected an object")
    cwd = entry.get("cwd")
    status = entry.get("status")
    shell = entry.get("shell")
    error = entry.get("error")
    is_primary = entry.get("is_primary", False)
    if not isinstance(cwd, str):
        raise SnapshotError(f"{where}.cwd", "expected a string")
    if not isinstance(status, str) or status not in statuses:
        allowed = ", ".join(sorted(statuses))
        raise SnapshotError(f"{where}.status", f"expected one of {allowed}, got {status!r}")
    if shell is not None and not isinstance(shell, str):
        raise SnapshotError(f"{where}.shell", "expected a string")
    if error is not None and not isinstance(error, str):
        raise SnapshotError(f"{where}.error", "expected a string")
    if not isinstance(is_primary, bool):
        raise SnapshotError(f"{where}.is_primary", "expected true or false")
    if status != "failed":
        error = None  # only a failed environment carries its error
    try:
        return EnvironmentState(
            cwd=cwd, status=cast(Status, status), shell=shell, is_primary=is_primary, error=error
        )
    except ValueError as exc:
        # The words are those the pydantic model gave, which readers may have matched.
        raise SnapshotError(where, f"Value error, {exc}") from None
