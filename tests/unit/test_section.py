"""Assembling a step's section: the include switch, the date, the primary's filesystem."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.support.codex_shapes import format_subagents, network_from_domains

from envtui.context.diff import render_diff
from envtui.context.model import EnvironmentState, ExternalProfile, FileSystemContext
from envtui.steps.section import build_section

NOW = datetime(2026, 6, 20, 7, 0, tzinfo=UTC)
FS = FileSystemContext(permission_profile=ExternalProfile())


def test_switch_off_means_no_section_and_no_block() -> None:
    envs = {"local": EnvironmentState(cwd="/r", shell="bash", is_primary=True)}
    section = build_section(envs, now=NOW, timezone="Etc/UTC", include_environment_context=False)
    assert section is None
    assert render_diff(section, None) is None


def test_date_and_timezone_are_filled_from_the_clock() -> None:
    section = build_section({}, now=NOW, timezone="Pacific/Kiritimati")
    assert section is not None
    assert (section.current_date, section.timezone) == ("2026-06-20", "Pacific/Kiritimati")


def test_filesystem_needs_a_ready_environment() -> None:
    starting = {"r": EnvironmentState(cwd="/r", status="starting")}
    ready = {"r": EnvironmentState(cwd="/r", is_primary=True)}
    without = build_section(starting, now=NOW, timezone="Etc/UTC", filesystem=FS)
    with_primary = build_section(ready, now=NOW, timezone="Etc/UTC", filesystem=FS)
    assert without is not None
    assert without.filesystem is None
    assert with_primary is not None
    assert with_primary.filesystem == FS


def test_subagent_lines() -> None:
    assert format_subagents([]) is None
    assert format_subagents([("agent-1", "atlas"), ("agent-2", None), ("t3", "")]) == (
        "- agent-1: atlas\n- agent-2\n- t3"
    )


def test_network_lists_are_sorted_by_pattern() -> None:
    network = network_from_domains(
        {"z.example": "allow", "a.example": "allow", "b.example": "deny"}
    )
    assert network.allowed_domains == ("a.example", "z.example")
    assert network.denied_domains == ("b.example",)
