"""Each divergence code: one case that raises it, and a near miss that must not."""

from __future__ import annotations

from envtui.steps.plan import ToolFeatures, plan_tools
from envtui.steps.rules import check_step, selected_never_resolved
from envtui.steps.tools import ToolSpec
from envtui.steps.values import StepView, ToolCall
from envtui.vocabulary.profiles import Profile

P150, P171 = Profile.CODEX_0150, Profile.CODEX_0171


def view(
    ready: tuple[str, ...] = (),
    starting: tuple[str, ...] = (),
    failed: tuple[str, ...] = (),
    **kw: object,
) -> StepView:
    selection = kw.pop("selection", ready + starting + failed)
    marked = kw.pop("marked", ready[:1])
    return StepView(1, ready, starting, failed, selection, marked, **kw)  # type: ignore[arg-type]


def tools(*specs: str) -> list[ToolSpec]:
    """``"exec_command+"``: with an optional environment_id; ``"wait_for_environment!"``: required."""
    out = []
    for spec in specs:
        if spec.endswith("+"):
            out.append(ToolSpec(spec[:-1], "optional"))
        elif spec.endswith("!"):
            out.append(ToolSpec(spec[:-1], "required"))
        elif spec.endswith("?"):
            out.append(ToolSpec(spec[:-1], "unknown"))
        else:
            out.append(ToolSpec(spec))
    return out


def codes(
    step: StepView, offered: list[ToolSpec] | None, profile: Profile = P171, **kw: object
) -> list[str]:
    return [f.code for f in check_step(step, offered, profile, connection={}, **kw).findings]  # type: ignore[arg-type]


BASIC = ("exec_command", "write_stdin", "apply_patch", "view_image")


def test_tools_without_environment() -> None:
    assert codes(view(), tools(*BASIC)) == ["tools-without-environment"]
    assert codes(view(failed=("x",)), tools(*BASIC)) == [
        "tools-without-environment"
    ]  # failed counts as none
    assert codes(view(starting=("r",)), tools(*BASIC)) == []  # 0.171 offers them for a starting one
    assert "tools-without-environment" in codes(view(starting=("r",)), tools(*BASIC), P150)
    assert codes(view(), tools("wait_for_environment!")) == []  # near miss: not an environment tool


def test_missing_environment_id() -> None:
    two = view(("local", "devbox"))
    assert codes(two, tools("exec_command", "write_stdin", "apply_patch", "view_image+")) == [
        "missing-environment-id"
    ]
    assert codes(two, tools("exec_command+", "write_stdin", "apply_patch", "view_image+")) == []
    # 0.171 counts the starting one too; 0.150 does not
    one_and_starting = view(("local",), ("devbox",))
    assert codes(
        one_and_starting, tools("exec_command", "write_stdin", "apply_patch", "view_image")
    ) == ["missing-environment-id"]
    assert (
        codes(
            one_and_starting,
            tools("exec_command", "write_stdin", "apply_patch", "view_image"),
            P150,
        )
        == []
    )


def test_missing_environment_id_on_the_apply_patch_grammar_under_0150() -> None:
    two = view(("local", "devbox"))
    finding = check_step(
        two,
        tools("exec_command+", "write_stdin", "apply_patch", "view_image+"),
        P150,
        connection={},
    ).findings
    assert [(f.code, f.tool) for f in finding] == [("missing-environment-id", "apply_patch")]
    result = check_step(
        two,
        tools("exec_command+", "write_stdin", "apply_patch?", "view_image+"),
        P150,
        connection={},
    )
    assert result.findings == []
    assert [(n.code, n.text) for n in result.notes] == [
        (
            "tool-parameter-unknown",
            "apply_patch: whether it takes an environment cannot be told (code mode)",
        )
    ]


def test_unexpected_environment_id() -> None:
    one = view(("local",))
    assert codes(one, tools("exec_command+", "write_stdin", "apply_patch", "view_image")) == [
        "unexpected-environment-id"
    ]
    assert codes(one, tools(*BASIC)) == []
    two = view(("local", "devbox"))
    assert codes(two, tools("exec_command+", "write_stdin+", "apply_patch", "view_image+")) == [
        "unexpected-environment-id"
    ]  # never on write_stdin


def test_shell_command_not_single_local() -> None:
    with_shell = (*BASIC, "shell_command")
    assert "shell-command-not-single-local" in codes(
        view(("devbox",), local_ids=frozenset({"local"})), tools(*with_shell)
    )
    assert "shell-command-not-single-local" in codes(
        view(("local",), ("devbox",)), tools(*with_shell), P150
    )
    assert "shell-command-not-single-local" not in codes(view(("local",)), tools(*with_shell), P150)


def test_wait_without_starting_only_under_0150() -> None:
    offered = tools(*BASIC, "wait_for_environment!")
    assert codes(view(("local",)), offered, P150) == ["wait-without-starting"]
    assert codes(view(("local",)), offered, P171) == []
    assert (
        codes(
            view(("local",), ("devbox",)),
            tools(
                "exec_command", "write_stdin", "apply_patch", "view_image", "wait_for_environment!"
            ),
            P150,
        )
        == []
    )


def test_call_to_unknown_environment() -> None:
    two = view(("local", "devbox"), ("slow",))
    offered = tools(
        "exec_command+", "write_stdin", "apply_patch", "view_image+", "wait_for_environment!"
    )
    assert codes(two, offered, calls=[ToolCall("exec_command", "gone")]) == [
        "call-to-unknown-environment"
    ]
    assert codes(two, offered, calls=[ToolCall("exec_command", "slow")]) == [
        "call-to-unknown-environment"
    ]
    assert (
        codes(
            two,
            offered,
            calls=[ToolCall("exec_command", "devbox"), ToolCall("wait_for_environment", "slow")],
        )
        == []
    )
    assert codes(two, offered, calls=[ToolCall("wait_for_environment", "gone")]) == [
        "call-to-unknown-environment"
    ]


def test_stale_available() -> None:
    two = view(("local", "devbox"))
    offered = tools("exec_command+", "write_stdin", "apply_patch", "view_image+")
    stale = check_step(two, offered, P171, connection={"devbox": "disconnected"}).findings
    assert [(f.code, f.environment_id, f.severity) for f in stale] == [
        ("stale-available", "devbox", "error")
    ]
    assert check_step(two, offered, P171, connection={"devbox": "connected"}).findings == []
    assert (
        check_step(
            view(("local",), ("devbox",)),
            offered[:1] + tools("write_stdin", "apply_patch", "view_image+"),
            P171,
            connection={"devbox": "disconnected"},
        ).findings
        == []
    )


def test_primary_mismatch() -> None:
    offered = tools("exec_command+", "write_stdin", "apply_patch", "view_image+")
    assert codes(view(("a", "b"), marked=("b",)), offered) == ["primary-mismatch"]
    assert codes(view(("a", "b"), marked=()), offered) == ["primary-mismatch"]
    assert codes(view(("a", "b"), marked=("a",)), offered) == []
    # a rollout: no selection order; exactly one primary, and an available one
    assert codes(view(("a", "b"), selection=None, marked=("a", "b")), offered) == [
        "primary-mismatch"
    ]
    assert codes(view(("a",), ("b",), selection=None, marked=("b",)), offered) == [
        "primary-mismatch"
    ]
    assert codes(view(("a", "b"), selection=None, marked=("b",)), offered) == []
    # selection #0 still starting: falling back to the first ready one is normal
    assert codes(view(("b",), ("a",), selection=("a", "b"), marked=("b",)), offered) == []


def test_execution_routed_elsewhere() -> None:
    offered = tools("exec_command+", "write_stdin", "apply_patch", "view_image+")
    two = view(("local", "devbox"))
    assert codes(two, offered, calls=[ToolCall("exec_command", None, executed_in="devbox")]) == [
        "execution-routed-elsewhere"
    ]
    assert codes(two, offered, calls=[ToolCall("exec_command", "devbox", executed_in="local")]) == [
        "execution-routed-elsewhere"
    ]
    assert (
        codes(
            two,
            offered,
            calls=[
                ToolCall("exec_command", None, executed_in="local"),
                ToolCall("exec_command", "devbox", executed_in="devbox"),
            ],
        )
        == []
    )


def test_selected_never_resolved() -> None:
    steps = [view(("local",), ("devbox",)), view(("local",))]
    assert [
        (f.code, f.environment_id, f.step)
        for f in selected_never_resolved(["local", "devbox", "ghost"], steps)
    ] == [("selected-never-resolved", "ghost", None)]
    assert selected_never_resolved(["local", "devbox"], steps) == []


def test_environment_tools_missing() -> None:
    assert codes(view(("local",)), tools("write_stdin", "apply_patch", "view_image")) == [
        "environment-tools-missing"
    ]
    assert codes(view(("local",)), tools("exec_command", "write_stdin", "view_image")) == [
        "environment-tools-missing"
    ]
    assert (
        codes(
            view(("local",)),
            tools("exec_command", "write_stdin", "view_image"),
            features=ToolFeatures(apply_patch=False),
        )
        == []
    )
    assert codes(view(), tools(), P150) == []


def test_one_finding_per_code_per_step_listing_the_tools() -> None:
    two = view(("local", "devbox"))
    (only,) = check_step(
        two, tools("exec_command", "write_stdin", "apply_patch", "view_image"), P171, connection={}
    ).findings
    assert (only.code, only.tool) == ("missing-environment-id", "exec_command, view_image")


def test_tool_rules_are_skipped_without_a_tool_list() -> None:
    result = check_step(view(), None, P171, connection=None)
    assert result.findings == []
    assert [n.text for n in result.notes] == [
        "tool rules skipped: no tool list is known for this step",
        "stale-available not checked: no connection state is known",
    ]


def test_each_profiles_own_plan_raises_nothing_where_codex_is_healthy() -> None:
    cases = [
        view(("local",)),
        view(("local", "devbox")),
        view(("local",), ("devbox",)),
        view(("devbox",), ("local",), selection=("local", "devbox")),
    ]
    for profile in (P150, P171):
        for features in (
            ToolFeatures(),
            ToolFeatures(deferred_executor=True, request_permissions=True),
        ):
            for step in cases:
                plan = plan_tools(step, profile, features)
                assert (
                    check_step(step, plan, profile, connection={}, features=features).findings == []
                ), (profile, step, plan)
