"""Diff rules (environment-context.md §5.3), one test per rule, whole blocks where it matters."""

from __future__ import annotations

from envtui.context.diff import render_diff
from envtui.context.model import EnvironmentsState, EnvironmentState, NetworkContext

LOCAL = EnvironmentState(cwd="/local", shell="bash", is_primary=True)
REMOTE = EnvironmentState(cwd="/remote", shell="zsh")


def _state(**envs: EnvironmentState) -> EnvironmentsState:
    return EnvironmentsState(environments=envs)


def test_no_section_sends_nothing_whatever_came_before() -> None:
    assert render_diff(None, None) is None
    assert render_diff(None, _state(local=LOCAL)) is None


def test_empty_state_against_absent_sends_nothing() -> None:
    assert render_diff(EnvironmentsState(), None) is None


def test_subagent_change_alone_sends_nothing() -> None:
    before = EnvironmentsState(environments={"local": LOCAL}, subagents="- a")
    after = EnvironmentsState(environments={"local": LOCAL}, subagents="- a\n- b")
    assert render_diff(after, before) is None


def test_subagents_ride_along_with_an_unrelated_change() -> None:
    before = EnvironmentsState(
        environments={"local": LOCAL}, current_date="2026-01-01", subagents="- a"
    )
    after = EnvironmentsState(
        environments={"local": LOCAL}, current_date="2026-01-02", subagents="- b"
    )
    assert render_diff(after, before) == (
        "<environment_context>\n"
        "  <current_date>2026-01-02</current_date>\n"
        "  <subagents>\n    - b\n  </subagents>\n"
        "</environment_context>"
    )


def test_shell_asymmetry_hides_zsh_unknown_bash() -> None:
    zsh = _state(local=EnvironmentState(cwd="/r", shell="zsh"))
    unknown = _state(local=EnvironmentState(cwd="/r"))
    bash = _state(local=EnvironmentState(cwd="/r", shell="bash"))
    assert render_diff(unknown, zsh) is None
    assert render_diff(bash, unknown) is None
    assert render_diff(bash, zsh) is not None


def test_cleared_value_is_silent_and_the_block_can_be_empty() -> None:
    before = EnvironmentsState(environments={"local": LOCAL}, network=NetworkContext())
    after = EnvironmentsState(environments={"local": LOCAL})
    assert render_diff(after, before) == "<environment_context>\n</environment_context>"


def test_starting_to_available_resends_in_the_legacy_layout() -> None:
    before = _state(local=EnvironmentState(cwd="/r", status="starting"))
    after = _state(local=EnvironmentState(cwd="/r", shell="bash", is_primary=True))
    assert render_diff(after, before) == (
        "<environment_context>\n  <cwd>/r</cwd>\n  <shell>bash</shell>\n</environment_context>"
    )


def test_unchanged_single_environment_with_turn_change_has_no_cwd() -> None:
    before = EnvironmentsState(environments={"local": LOCAL}, timezone="Etc/UTC")
    after = EnvironmentsState(environments={"local": LOCAL}, timezone="Europe/Berlin")
    assert render_diff(after, before) == (
        "<environment_context>\n  <timezone>Europe/Berlin</timezone>\n</environment_context>"
    )


def test_error_text_change_alone_is_a_change() -> None:
    before = _state(local=LOCAL, probe=EnvironmentState(cwd="/p", status="failed", error="refused"))
    after = _state(
        local=LOCAL, probe=EnvironmentState(cwd="/p", status="failed", error="timed out")
    )
    assert render_diff(after, before) == (
        "<environment_context>\n"
        "  <environments>\n"
        '    <environment id="probe" primary="false">\n'
        "      <cwd>/p</cwd>\n"
        "      <status>failed</status>\n"
        "      <error>timed out</error>\n"
        "    </environment>\n"
        "  </environments>\n"
        "</environment_context>"
    )


def test_failed_environment_counts_towards_several() -> None:
    before = _state(local=LOCAL)
    after = _state(local=LOCAL, probe=EnvironmentState(cwd="/p", status="failed", error="x"))
    text = render_diff(after, before)
    assert text is not None
    assert '<environment id="local" primary="true">' in text  # restated: single -> multi


def test_tombstone_forces_the_environments_layout_and_has_no_primary() -> None:
    before = _state(local=LOCAL, remote=REMOTE)
    after = _state(local=LOCAL)
    assert render_diff(after, before) == (
        "<environment_context>\n"
        "  <environments>\n"
        '    <environment id="local" primary="true">\n'
        "      <cwd>/local</cwd>\n"
        "      <shell>bash</shell>\n"
        "    </environment>\n"
        '    <environment id="remote" status="unavailable" />\n'
        "  </environments>\n"
        "</environment_context>"
    )


def test_unchanged_environments_in_a_multi_set_are_not_restated() -> None:
    before = _state(local=LOCAL, remote=REMOTE)
    after = _state(local=LOCAL, remote=EnvironmentState(cwd="/elsewhere", shell="zsh"))
    text = render_diff(after, before)
    assert text is not None
    assert 'id="local"' not in text
    assert "<cwd>/elsewhere</cwd>" in text


def test_cwd_comparison_is_case_sensitive() -> None:
    before = _state(w=EnvironmentState(cwd="C:\\Repo"))
    after = _state(w=EnvironmentState(cwd="C:\\repo"))
    assert render_diff(after, before) is not None


def test_identical_states_send_nothing() -> None:
    state = EnvironmentsState(
        environments={"local": LOCAL, "remote": REMOTE},
        current_date="2026-01-01",
        timezone="Etc/UTC",
    )
    assert render_diff(state, state) is None
