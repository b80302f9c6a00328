"""Full renders: each layout and element, asserted as the whole expected block."""

from __future__ import annotations

from typing import Any

from envtui.context.model import (
    DisabledProfile,
    EnvironmentsState,
    EnvironmentState,
    ExternalProfile,
    FileSystemContext,
    FileSystemEntry,
    ManagedProfile,
    NetworkContext,
    RestrictedFileSystem,
    UnrestrictedFileSystem,
)
from envtui.context.render import render_full, rust_lines


def _one(env: EnvironmentState, **values: Any) -> EnvironmentsState:
    return EnvironmentsState(environments={"local": env}, **values)


def test_single_starting_environment_uses_the_environments_layout_without_primary() -> None:
    state = _one(EnvironmentState(cwd="/repo", status="starting"))
    assert render_full(state) == (
        "<environment_context>\n"
        "  <environments>\n"
        '    <environment id="local">\n'
        "      <cwd>/repo</cwd>\n"
        "      <status>starting</status>\n"
        "    </environment>\n"
        "  </environments>\n"
        "</environment_context>"
    )


def test_failed_environment_renders_status_and_escaped_error_and_never_a_shell() -> None:
    state = EnvironmentsState(
        environments={
            "local": EnvironmentState(cwd="/repo", shell="bash", is_primary=True),
            "probe": EnvironmentState(
                cwd="/home/me/repo", status="failed", error="closed <by> peer & co"
            ),
        }
    )
    assert render_full(state) == (
        "<environment_context>\n"
        "  <environments>\n"
        '    <environment id="local" primary="true">\n'
        "      <cwd>/repo</cwd>\n"
        "      <shell>bash</shell>\n"
        "    </environment>\n"
        '    <environment id="probe" primary="false">\n'
        "      <cwd>/home/me/repo</cwd>\n"
        "      <status>failed</status>\n"
        "      <error>closed &lt;by&gt; peer &amp; co</error>\n"
        "    </environment>\n"
        "  </environments>\n"
        "</environment_context>"
    )


def test_single_failed_environment_uses_the_environments_layout() -> None:
    state = _one(EnvironmentState(cwd="/r", status="failed", error="boom"))
    assert '<environment id="local">\n' in render_full(state)


def test_environments_are_sorted_by_id_in_byte_order() -> None:
    ids = ["local", "alpha", "_x", "Zeta", "B-2", "9", "10", "-y"]
    state = EnvironmentsState(environments={i: EnvironmentState(cwd="/") for i in ids})
    text = render_full(state)
    order = [line.split('"')[1] for line in text.splitlines() if "<environment id=" in line]
    assert order == ["-y", "10", "9", "B-2", "Zeta", "_x", "alpha", "local"]


def test_empty_state_is_the_tags_around_one_newline() -> None:
    assert render_full(EnvironmentsState()) == "<environment_context>\n</environment_context>"


def test_ids_cwd_and_shell_are_escaped() -> None:
    state = EnvironmentsState(
        environments={
            'a"&b': EnvironmentState(cwd="/it's <here>", shell="fi&sh", is_primary=True),
            "c": EnvironmentState(cwd="/c"),
        }
    )
    text = render_full(state)
    assert '<environment id="a&quot;&amp;b" primary="true">' in text
    assert "<cwd>/it&apos;s &lt;here&gt;</cwd>" in text
    assert "<shell>fi&amp;sh</shell>" in text


def test_network_domains_are_escaped_unlike_codex() -> None:
    state = _one(
        EnvironmentState(cwd="/repo"),
        network=NetworkContext(
            allowed_domains=("a&b.example", "ok.example"), denied_domains=("<x>",)
        ),
    )
    assert (
        '  <network enabled="true"><allowed>a&amp;b.example,ok.example</allowed>'
        "<denied>&lt;x&gt;</denied></network>\n"
    ) in render_full(state)


def test_empty_network_lists_leave_only_the_network_tags() -> None:
    state = _one(EnvironmentState(cwd="/repo"), network=NetworkContext())
    assert '  <network enabled="true"></network>\n' in render_full(state)


def test_subagent_lines_are_escaped_unlike_codex() -> None:
    state = _one(EnvironmentState(cwd="/repo"), subagents="- worker: <fast>\n- b")
    assert render_full(state).endswith(
        "  <subagents>\n    - worker: &lt;fast&gt;\n    - b\n  </subagents>\n</environment_context>"
    )


def test_filesystem_disabled_and_external_profiles() -> None:
    disabled = _one(
        EnvironmentState(cwd="/r"),
        filesystem=FileSystemContext(permission_profile=DisabledProfile()),
    )
    external = _one(
        EnvironmentState(cwd="/r"),
        filesystem=FileSystemContext(permission_profile=ExternalProfile()),
    )
    assert (
        '  <filesystem><permission_profile type="disabled"><file_system type="unrestricted" />'
        "</permission_profile></filesystem>\n"
    ) in render_full(disabled)
    assert (
        '  <filesystem><permission_profile type="external"><file_system type="external" />'
        "</permission_profile></filesystem>\n"
    ) in render_full(external)


def test_filesystem_managed_unrestricted_and_empty_restricted() -> None:
    unrestricted = FileSystemContext(
        workspace_roots=("/w",),
        permission_profile=ManagedProfile(file_system=UnrestrictedFileSystem()),
    )
    restricted = FileSystemContext(
        permission_profile=ManagedProfile(file_system=RestrictedFileSystem())
    )
    assert (
        '<filesystem><workspace_roots><root>/w</root></workspace_roots><permission_profile type="managed">'
        '<file_system type="unrestricted" /></permission_profile></filesystem>'
    ) in render_full(_one(EnvironmentState(cwd="/r"), filesystem=unrestricted))
    assert (
        '<filesystem><permission_profile type="managed"><file_system type="restricted" />'
        "</permission_profile></filesystem>"
    ) in render_full(_one(EnvironmentState(cwd="/r"), filesystem=restricted))


def test_restricted_entries_with_depth_special_and_glob() -> None:
    entries = (
        FileSystemEntry(access="read", special=":root"),
        FileSystemEntry(access="write", path="/tmp/a&b"),
        FileSystemEntry(access="deny", glob="**/*.key"),
    )
    fs = FileSystemContext(
        permission_profile=ManagedProfile(
            file_system=RestrictedFileSystem(glob_scan_max_depth=3, entries=entries)
        )
    )
    assert (
        '<file_system type="restricted" glob_scan_max_depth="3">'
        '<entry access="read"><special>:root</special></entry>'
        '<entry access="write"><path>/tmp/a&amp;b</path></entry>'
        '<entry access="deny" escalatable="false"><glob>**/*.key</glob></entry>'
        "</file_system>"
    ) in render_full(_one(EnvironmentState(cwd="/r"), filesystem=fs))


def test_duplicate_entries_are_dropped_but_missing_path_behavior_keeps_them_apart() -> None:
    same = FileSystemEntry(access="read", path="/a")
    other = FileSystemEntry(access="read", path="/a", missing_path_behavior="ignore")
    restricted = RestrictedFileSystem(entries=(same, same, other, same))
    assert restricted.entries == (same, other)


def test_rust_lines_splits_only_on_newline() -> None:
    assert rust_lines("") == []
    assert rust_lines("a\n") == ["a"]
    assert rust_lines("a\r\nb") == ["a", "b"]
    assert rust_lines("a\n\nb") == ["a", "", "b"]
    assert rust_lines("a\rb\r") == ["a\rb\r"]
    assert rust_lines("x\x0by\u2028z\x85w") == ["x\x0by\u2028z\x85w"]
    assert rust_lines("\n") == [""]
