"""The full render of an ``<environment_context>`` block and the body builder diffs share.

Every string is exact: two-space indentation steps, ``"\\n"`` line ends, no newline after
the close tag. The layouts (legacy single, ``<environments>`` with ``primary``, tombstones)
are decided by the caller; this module only writes them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from typing import Final

from envtui.context.escape import esc
from envtui.context.model import (
    DisabledProfile,
    EnvironmentsState,
    EnvironmentState,
    ExternalProfile,
    FileSystemContext,
    FileSystemEntry,
    ManagedProfile,
    NetworkContext,
    PermissionProfile,
    RestrictedFileSystem,
)

OPEN: Final = "<environment_context>"
CLOSE: Final = "</environment_context>"


class Unavailable(Enum):
    """The tombstone marker: an environment the previous snapshot had and this one lacks."""

    UNAVAILABLE = "unavailable"


UNAVAILABLE: Final = Unavailable.UNAVAILABLE

Update = EnvironmentState | Unavailable


def _raw(value: str) -> str:
    return value


def list_escape(codex_escaping: bool) -> Callable[[str], str]:
    """How network domains and subagent lines are written: escaped (envtui) or raw (Codex)."""
    return _raw if codex_escaping else esc


def render_full(state: EnvironmentsState, *, codex_escaping: bool = False) -> str:
    """Every environment as an update: what the model is told with no baseline at all.

    ``codex_escaping`` writes network domains and subagent lines raw, as Codex does, to
    compare with text Codex recorded; envtui's own output always escapes them.
    """
    return render_block(
        state,
        state.environments,
        legacy_single=state.is_legacy_single,
        include_primary=state.is_multi,
        codex_escaping=codex_escaping,
    )


def environment_values(env: EnvironmentState, indent: str) -> str:
    """``<cwd>``, then ``<status>`` unless available, then ``<error>`` or ``<shell>``."""
    out = f"{indent}<cwd>{esc(env.cwd)}</cwd>\n"
    if env.status == "starting":
        out += f"{indent}<status>starting</status>\n"
    elif env.status == "failed":
        out += f"{indent}<status>failed</status>\n"
        if env.error is not None:
            out += f"{indent}<error>{esc(env.error)}</error>\n"
        return out
    if env.shell is not None:
        out += f"{indent}<shell>{esc(env.shell)}</shell>\n"
    return out


def render_block(
    state: EnvironmentsState,
    updates: Mapping[str, Update],
    *,
    legacy_single: bool,
    include_primary: bool,
    codex_escaping: bool = False,
) -> str:
    """The block for ``updates`` plus every present turn value and the subagents of ``state``."""
    escape_item = list_escape(codex_escaping)
    parts = [OPEN, "\n"]
    if legacy_single:
        for env in updates.values():  # at most one update in this layout
            if isinstance(env, EnvironmentState):
                parts.append(environment_values(env, "  "))
    elif updates:
        parts.append("  <environments>\n")
        for env_id in sorted(updates):
            update = updates[env_id]
            if isinstance(update, Unavailable):
                parts.append(f'    <environment id="{esc(env_id)}" status="unavailable" />\n')
                continue
            if include_primary:
                primary = ' primary="true"' if update.is_primary else ' primary="false"'
            else:
                primary = ""
            parts.append(f'    <environment id="{esc(env_id)}"{primary}>\n')
            parts.append(environment_values(update, "      "))
            parts.append("    </environment>\n")
        parts.append("  </environments>\n")
    if state.current_date is not None:
        parts.append(f"  <current_date>{esc(state.current_date)}</current_date>\n")
    if state.timezone is not None:
        parts.append(f"  <timezone>{esc(state.timezone)}</timezone>\n")
    if state.network is not None:
        parts.append(f"  {network_element(state.network, codex_escaping=codex_escaping)}\n")
    if state.filesystem is not None:
        parts.append(f"  {filesystem_element(state.filesystem)}\n")
    if state.subagents is not None:
        parts.append("  <subagents>\n")
        parts.extend(f"    {escape_item(line)}\n" for line in rust_lines(state.subagents))
        parts.append("  </subagents>\n")
    parts.append(CLOSE)
    return "".join(parts)


def network_element(network: NetworkContext | str, *, codex_escaping: bool = False) -> str:
    """The one-line ``<network>`` element; a string is an element already rendered.

    ``enabled="true"`` is a constant in Codex. Domains are escaped one by one (Codex writes
    them raw); ``,`` is not escaped, so escaping before or after the join is the same.
    """
    if isinstance(network, str):
        return network
    escape_item = list_escape(codex_escaping)
    out = '<network enabled="true">'
    if network.allowed_domains:
        out += "<allowed>" + ",".join(map(escape_item, network.allowed_domains)) + "</allowed>"
    if network.denied_domains:
        out += "<denied>" + ",".join(map(escape_item, network.denied_domains)) + "</denied>"
    return out + "</network>"


def filesystem_element(filesystem: FileSystemContext | str) -> str:
    """The one-line ``<filesystem>`` element; a string is an element already rendered."""
    if isinstance(filesystem, str):
        return filesystem
    out = "<filesystem>"
    if filesystem.workspace_roots:
        roots = "".join(f"<root>{esc(root)}</root>" for root in filesystem.workspace_roots)
        out += f"<workspace_roots>{roots}</workspace_roots>"
    return out + _permission_profile(filesystem.permission_profile) + "</filesystem>"


def _permission_profile(profile: PermissionProfile) -> str:
    if isinstance(profile, DisabledProfile):
        return (
            '<permission_profile type="disabled"><file_system type="unrestricted" />'
            "</permission_profile>"
        )
    if isinstance(profile, ExternalProfile):
        return (
            '<permission_profile type="external"><file_system type="external" />'
            "</permission_profile>"
        )
    assert isinstance(profile, ManagedProfile)
    file_system = profile.file_system
    if not isinstance(file_system, RestrictedFileSystem):
        body = '<file_system type="unrestricted" />'
    else:
        body = _restricted_file_system(file_system)
    return f'<permission_profile type="managed">{body}</permission_profile>'


def _restricted_file_system(file_system: RestrictedFileSystem) -> str:
    if not file_system.entries and file_system.glob_scan_max_depth is None:
        return '<file_system type="restricted" />'
    out = '<file_system type="restricted"'
    if file_system.glob_scan_max_depth is not None:
        out += f' glob_scan_max_depth="{file_system.glob_scan_max_depth}"'
    out += ">"
    out += "".join(_entry(entry) for entry in file_system.entries)
    return out + "</file_system>"


def _entry(entry: FileSystemEntry) -> str:
    """``escalatable="false"`` is on every deny entry and only on deny entries."""
    escalatable = ' escalatable="false"' if entry.access == "deny" else ""
    if entry.path is not None:
        target = f"<path>{esc(entry.path)}</path>"
    elif entry.glob is not None:
        target = f"<glob>{esc(entry.glob)}</glob>"
    else:
        target = f"<special>{esc(entry.special or '')}</special>"
    return f'<entry access="{entry.access}"{escalatable}>{target}</entry>'


def rust_lines(text: str) -> list[str]:
    """Split like Rust's ``str::lines``: only ``\\n`` (and ``\\r\\n``) end a line.

    Python's ``splitlines`` also splits on ``\\v``, ``\\f``, ``\\x1c`` to ``\\x1e``, ``\\x85``,
    ``\\u2028`` and ``\\u2029``; Codex does not. A trailing ``\\n`` gives no final empty line,
    and a last line without ``\\n`` keeps a trailing ``\\r``.
    """
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
        return [line[:-1] if line.endswith("\r") else line for line in lines]
    last = lines.pop()
    out = [line[:-1] if line.endswith("\r") else line for line in lines]
    out.append(last)
    return out
