"""What an approval grants, in plain words, and a command shown so nothing in it hides.

Approving a command grants more than the command: Codex's command approvals may carry the
network host the command reaches (``networkApprovalContext``), more permissions for it
(``additionalPermissions``: network, files to read or write), and amendments that would let
later commands through without asking (``proposedExecpolicyAmendment``,
``proposedNetworkPolicyAmendments``); a file change may ask for writes under a root for the
session (``grantRoot``). Each becomes one line of words here, never a dict's repr, so the
confirmation can show everything an ``o`` would grant (the shapes are those of
``codex app-server generate-json-schema --experimental``, 0.171.0).

A command is shown whole when it is short; a long one as its head and its tail with
``… N characters …`` between, so what it ends with is always seen; and a run of
whitespace (a padding of 5,000 spaces, a tab, a newline) is shown as words, so it can
neither push the rest of the command out of sight nor pass for one space. Pure, so the
runtime that reads Codex's requests and the panel that draws them share it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_BLANKS = re.compile(r"\s+")
_NAMES = {" ": "space", "\t": "tab", "\n": "newline", "\r": "carriage return"}
LONG_SPACES = 4
"""Spaces in a row from which the run is shown as words (fewer are shown as they are)."""


def _blank_words(run: str) -> str:
    """A run of whitespace in words: ``⟨5000 spaces⟩``, ``⟨newline⟩``, ``⟨2 blanks⟩``."""
    kinds = set(run)
    if kinds == {" "} and len(run) < LONG_SPACES:
        return run
    if len(kinds) == 1:
        char = run[0]
        name = _NAMES.get(char, f"U+{ord(char):04X}")
        return f"⟨{name}⟩" if len(run) == 1 else f"⟨{len(run):,} {name}s⟩"
    return f"⟨{len(run):,} blanks⟩"


def _pieces(text: str) -> list[tuple[str, int]]:
    """``text`` as shown pieces, each with how many characters of ``text`` it stands for."""
    pieces: list[tuple[str, int]] = []
    at = 0
    for match in _BLANKS.finditer(text):
        pieces += [(char, 1) for char in text[at : match.start()]]
        pieces.append((_blank_words(match.group()), len(match.group())))
        at = match.end()
    pieces += [(char, 1) for char in text[at:]]
    return pieces


def visible_command(text: str, budget: int) -> str:
    """``text`` with whitespace runs in words, whole if it fits ``budget`` characters, else
    its head and tail with ``… N characters …`` (N counts the characters of ``text`` left
    out) between them."""
    pieces = _pieces(text)
    if sum(len(shown) for shown, _ in pieces) <= budget:
        return "".join(shown for shown, _ in pieces)
    half = max(1, budget // 2)
    head: list[tuple[str, int]] = []
    used = 0
    for shown, stands in pieces:
        if used + len(shown) > half and head:
            break
        head.append((shown, stands))
        used += len(shown)
    tail: list[tuple[str, int]] = []
    used = 0
    for shown, stands in reversed(pieces[len(head) :]):
        if used + len(shown) > half and tail:
            break
        tail.insert(0, (shown, stands))
        used += len(shown)
    left_out = len(text) - sum(s for _, s in head) - sum(s for _, s in tail)
    middle = f" … {left_out:,} characters … " if left_out else ""
    return "".join(s for s, _ in head) + middle + "".join(s for s, _ in tail)


def cut_middle(text: str, keep: int) -> str:
    """``text`` whole if it has at most ``keep`` characters, else its first and last
    ``keep // 2`` with ``… N characters …`` between (what a recording keeps of it)."""
    if len(text) <= keep:
        return text
    half = keep // 2
    return f"{text[:half]} … {len(text) - 2 * half:,} characters … {text[-half:]}"


def _path_words(path: object) -> str:
    """A ``FileSystemPath`` in words: a path, ``files matching <glob>``, or a special one."""
    if isinstance(path, str):
        return path
    if not isinstance(path, Mapping):
        return "(a path envtui cannot read)"
    kind = path.get("type")
    if kind == "path":
        return str(path.get("path"))
    if kind == "glob_pattern":
        return f"files matching {path.get('pattern')}"
    value = path.get("value")
    if kind == "special" and isinstance(value, Mapping):
        special = str(value.get("kind"))
        where = value.get("subpath") or value.get("path")
        named = {
            "root": "the whole file system (/)",
            "minimal": "the minimal system paths",
            "project_roots": "the project roots",
            "tmpdir": "the temporary folder ($TMPDIR)",
            "slash_tmp": "/tmp",
        }.get(special, f"special path {special}")
        return f"{named} {where}" if isinstance(where, str) else named
    return "(a path envtui cannot read)"


ACCESS_WORDS = {"read": "read", "write": "write", "deny": "no access to"}


def permission_words(profile: object) -> list[str]:
    """A permission profile (``network``, ``fileSystem``) as lines of words, each grant
    once."""
    if not isinstance(profile, Mapping):
        return []
    words: list[str] = []
    network = profile.get("network")
    if isinstance(network, Mapping) and network.get("enabled") is True:
        words.append("network access")
    files = profile.get("fileSystem")
    if isinstance(files, Mapping):
        for access in ("read", "write"):
            paths = files.get(access)
            for path in paths if isinstance(paths, list) else []:
                words.append(f"{access} {_path_words(path)}")
        entries = files.get("entries")
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, Mapping):
                access = ACCESS_WORDS.get(str(entry.get("access")), str(entry.get("access")))
                words.append(f"{access} {_path_words(entry.get('path'))}")
    return list(dict.fromkeys(words))  # Codex lists a grant twice (write: [P], an entry): once


def command_grants(params: Mapping[str, Any]) -> list[str]:
    """What approving a command grants besides running it, one line each."""
    grants: list[str] = []
    network = params.get("networkApprovalContext")
    if isinstance(network, Mapping):
        grants.append(
            f"network: reach {network.get('host')} over {network.get('protocol')} "
            "(a managed-network approval)"
        )
    extra = permission_words(params.get("additionalPermissions"))
    grants += [f"also grants: {words}" for words in extra]
    if isinstance(params.get("additionalPermissions"), Mapping) and not extra:
        grants.append("also grants: additional permissions envtui cannot read")
    amendment = params.get("proposedExecpolicyAmendment")
    if isinstance(amendment, list) and amendment:
        prefix = " ".join(str(part) for part in amendment)
        grants.append(
            f"Codex proposes an exec-policy rule (approving does not apply it): allow "
            f"commands starting {prefix}"
        )
    for rule in params.get("proposedNetworkPolicyAmendments") or []:
        if isinstance(rule, Mapping):
            grants.append(
                f"Codex proposes a network rule (approving does not apply it): "
                f"{rule.get('action')} {rule.get('host')}"
            )
    return grants


def file_change_grants(params: Mapping[str, Any]) -> list[str]:
    """What approving a file change grants besides the change (a root for the session)."""
    root = params.get("grantRoot")
    return [f"asks to write anywhere under {root} for the session"] if isinstance(root, str) else []
