"""Codex's own shapes for parts of a section envtui takes as given: the managed network
table and the sub-agent lines. envtui never builds these (the config gives the network
lists, and no source knows sub-agents); tests build them as Codex does, to render."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from envtui.context.model import NetworkContext
from envtui.steps.section import network_context


def network_from_domains(domains: Mapping[str, str]) -> NetworkContext:
    """Codex's managed ``[network]`` table: pattern → ``allow``/``deny``, each list sorted."""
    return network_context(
        sorted(p for p, rule in domains.items() if rule == "allow"),
        sorted(p for p, rule in domains.items() if rule == "deny"),
    )


def format_subagents(agents: Iterable[tuple[str, str | None]]) -> str | None:
    """One ``- ref: nickname`` line per sub-agent (``- ref`` without a nickname); None if none."""
    lines = [f"- {ref}: {nickname}" if nickname else f"- {ref}" for ref, nickname in agents]
    return "\n".join(lines) if lines else None
