"""``envtui render``: output forms, PREV handling, and one clear line for every bad input."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.support.main_in_process import run_cli, write_json

TWO = {
    "environments": [
        {"id": "local", "cwd": "file:///repo", "shell": "bash", "primary": True},
        {"id": "remote", "cwd": "/srv/app", "status": "starting"},
    ],
    "current_date": "2026-06-20",
    "timezone": "Etc/UTC",
}
TWO_TEXT = (
    "<environment_context>\n"
    "  <environments>\n"
    '    <environment id="local" primary="true">\n'
    "      <cwd>/repo</cwd>\n"
    "      <shell>bash</shell>\n"
    "    </environment>\n"
    '    <environment id="remote" primary="false">\n'
    "      <cwd>/srv/app</cwd>\n"
    "      <status>starting</status>\n"
    "    </environment>\n"
    "  </environments>\n"
    "  <current_date>2026-06-20</current_date>\n"
    "  <timezone>Etc/UTC</timezone>\n"
    "</environment_context>"
)
TWO_SNAPSHOT = {
    "environments": {
        "local": {"cwd": "/repo", "status": "available", "shell": "bash", "is_primary": True},
        "remote": {"cwd": "/srv/app", "status": "starting"},
    },
    "current_date": "2026-06-20",
    "timezone": "Etc/UTC",
}


def test_text_is_the_block_and_one_newline(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert run_cli(["render", write_json(tmp_path / "s.json", TWO)], capsysbinary) == (
        0,
        TWO_TEXT + "\n",
        "",
    )


def test_diff_without_update_prints_nothing(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    state = write_json(tmp_path / "s.json", TWO)
    assert run_cli(["render", state, "--diff", "--previous", state], capsysbinary) == (0, "", "")


def test_a_snapshot_is_accepted_as_state(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert run_cli(["render", write_json(tmp_path / "s.json", TWO_SNAPSHOT)], capsysbinary) == (
        0,
        TWO_TEXT + "\n",
        "",
    )


def test_json_without_prev_patches_in_the_whole_section(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, _ = run_cli(["render", write_json(tmp_path / "s.json", TWO), "--json"], capsysbinary)
    assert code == 0
    assert json.loads(out) == {
        "text": TWO_TEXT,
        "snapshot": TWO_SNAPSHOT,
        "patch": {"environments": TWO_SNAPSHOT},
    }
    assert out.index('"local"') < out.index('"remote"')


def test_json_patch_against_prev_even_without_diff(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    moved = json.loads(json.dumps(TWO_SNAPSHOT))
    moved["environments"]["remote"] = {"cwd": "/srv/app", "status": "available", "shell": "zsh"}
    argv = [
        write_json(tmp_path / "s.json", moved),
        "--previous",
        write_json(tmp_path / "p.json", TWO),
        "--json",
    ]
    code, out, _ = run_cli(["render", *argv], capsysbinary)
    assert code == 0
    result = json.loads(out)
    assert result["patch"] == {
        "environments": {"environments": {"remote": {"status": "available", "shell": "zsh"}}}
    }
    assert result["text"].count("<environment ") == 2  # the full render, since --diff is absent


def test_unchanged_json_patch_is_null(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    state = write_json(tmp_path / "s.json", TWO)
    code, out, _ = run_cli(["render", state, "--diff", "--previous", state, "--json"], capsysbinary)
    assert code == 0
    assert json.loads(out) == {"text": None, "snapshot": TWO_SNAPSHOT, "patch": None}


def test_null_state_is_no_section(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    null = write_json(tmp_path / "n.json", "null")
    assert run_cli(["render", null], capsysbinary) == (0, "", "")
    _code, out, _ = run_cli(
        ["render", null, "--diff", "--previous", write_json(tmp_path / "p.json", TWO), "--json"],
        capsysbinary,
    )
    assert json.loads(out) == {"text": None, "snapshot": None, "patch": {"environments": None}}


def test_null_prev_is_absent(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    argv = [
        write_json(tmp_path / "s.json", TWO),
        "--diff",
        "--previous",
        write_json(tmp_path / "p.json", "null"),
        "--json",
    ]
    _code, out, _ = run_cli(["render", *argv], capsysbinary)
    assert json.loads(out) == {
        "text": TWO_TEXT,
        "snapshot": TWO_SNAPSHOT,
        "patch": {"environments": TWO_SNAPSHOT},
    }


def test_unreadable_snapshot_prev_is_unknown(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    old = {"environments": {"gone": {"cwd": "file:///gone", "extra": None}}, "network": None}
    argv = [
        write_json(tmp_path / "s.json", TWO),
        "--diff",
        "--previous",
        write_json(tmp_path / "p.json", old),
        "--json",
    ]
    code, out, _ = run_cli(["render", *argv], capsysbinary)
    result = json.loads(out)
    assert code == 0
    assert result["text"] == TWO_TEXT  # restated in full, no tombstone for "gone"
    assert result["patch"] == {
        "environments": {
            "environments": {"gone": None, **TWO_SNAPSHOT["environments"]},  # type: ignore[dict-item]
            "current_date": "2026-06-20",
            "timezone": "Etc/UTC",
        }
    }


def test_state_from_stdin(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    with open(write_json(tmp_path / "s.json", TWO), "rb") as stdin:
        monkeypatch.setattr(sys, "stdin", type("Stdin", (), {"buffer": stdin})())
        assert run_cli(["render", "-"], capsysbinary) == (0, TWO_TEXT + "\n", "")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            "{",
            "s.json: line 1, column 2: invalid JSON: Expecting property name enclosed in double quotes",
        ),
        ('{"environments": [NaN]}', "s.json: invalid JSON: NaN is not JSON"),
        ("[]", "s.json: (document): expected a JSON object or null"),
        ("{}", "s.json: environments: missing: a list (state document) or an object (snapshot)"),
        (
            '{"environments": "x"}',
            "s.json: environments: expected a list (state document) or an object (snapshot), got a string",
        ),
        ('{"environments": [{"id": "a"}]}', "s.json: environments[0].cwd: Field required"),
        (
            '{"environments": [{"id": "a", "cwd": "/", "colour": 1}]}',
            "s.json: environments[0].colour: Extra inputs are not permitted",
        ),
        (
            '{"environments": [{"id": "a", "cwd": "/", "primary": "yes"}]}',
            "s.json: environments[0].primary: Input should be a valid boolean",
        ),
        (
            '{"environments": [{"id": "a", "cwd": "/", "status": "ready"}]}',
            "s.json: environments[0].status: Input should be 'available', 'starting' or 'failed'",
        ),
        (
            '{"environments": [{"id": "a", "cwd": "/"}, {"id": "a", "cwd": "/b"}]}',
            "s.json: environments: duplicate environment id 'a'",
        ),
        (
            '{"environments": [{"id": "a", "cwd": "/", "primary": true}, {"id": "b", "cwd": "/", "primary": true}]}',
            "s.json: environments: more than one primary: 'a', 'b'",
        ),
        (
            '{"environments": [{"id": "a", "cwd": "/", "status": "starting", "primary": true}]}',
            "s.json: environments[0]: environment 'a' is primary but not available",
        ),
        (
            '{"environments": [{"id": "a", "cwd": "/", "status": "failed"}]}',
            "s.json: environments[0]: failed environment 'a' needs an error",
        ),
        (
            '{"environments": [], "filesystem": {"permission_profile": {"type": "managed", "file_system": {"type": "restricted", "entries": [{"access": "exec", "path": "/"}]}}}}',
            "s.json: filesystem.permission_profile.file_system.entries[0].access: Input should be 'read', 'write' or 'deny'",
        ),
        (
            '{"environments": {"a": {"cwd": "/", "status": "ready"}}}',
            "s.json: environments.a.status: expected one of available, failed, starting, got 'ready'",
        ),
        (
            '{"environments": {"a": {"cwd": "/", "status": "available", "is_primary": null}}}',
            "s.json: environments.a.is_primary: expected true or false",
        ),
        ('{"environments": {}, "timezone": 5}', "s.json: timezone: expected a string or null"),
        # rules of the model that a document check did not repeat: an error of the input
        (
            '{"environments":[{"id":"a","cwd":"/x","status":"available","error":"e"}]}',
            "s.json: environments[0]: error is only allowed on a failed environment",
        ),
        (
            '{"environments":[{"id":"a","cwd":"/x","shell":"bash","status":"failed","error":"e"}]}',
            "s.json: environments[0]: a failed environment has no shell",
        ),
        (
            '{"environments":[{"id":"a","cwd":"/x"}],"filesystem":{"workspace_roots":[],"permission_profile":{"type":"managed","file_system":{"type":"restricted","entries":[{"access":"read","path":"/a","glob":"*"}]}}}}',
            "s.json: filesystem.permission_profile.file_system.entries[0]: an entry needs exactly one of path, glob and special",
        ),
        (
            '{"environments":[{"id":"a","cwd":"file://[x/foo"}]}',
            "s.json: environments[0].cwd: not a valid file URI: Invalid IPv6 URL",
        ),
        (
            '{"environments":[{"id":"a","cwd":"/"}],"filesystem":{"workspace_roots":["file://[::1/x"],"permission_profile":{"type":"disabled"}}}',
            "s.json: filesystem.workspace_roots[0]: not a valid file URI: Invalid IPv6 URL",
        ),
        (
            '{"environments":{"a":{"cwd":"/x","status":[]}}}',
            "s.json: environments.a.status: expected one of available, failed, starting, got []",
        ),
        (
            '{"environments":{"a":{"cwd":"/x","status":{}}}}',
            "s.json: environments.a.status: expected one of available, failed, starting, got {}",
        ),
        (
            '{"environments":{"a":{"cwd":"/x","x":' + "[" * 600 + "]" * 600 + "}}}",
            "s.json: invalid JSON: nested deeper than 100 levels",
        ),
        (
            "9" * 5000,
            "s.json: invalid JSON: Exceeds the limit (4300 digits) for integer string "
            "conversion: value has 5000 digits; use sys.set_int_max_str_digits() to increase the limit",
        ),
    ],
)
def test_bad_state_is_one_line_naming_file_and_field(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], content: str, expected: str
) -> None:
    path = write_json(tmp_path / "s.json", content)
    code, out, err = run_cli(["render", path], capsysbinary)
    assert (code, out) == (2, "")
    assert err == f"envtui render: error: {tmp_path}/{expected}\n"


def test_missing_file(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    missing = str(tmp_path / "nope.json")
    assert run_cli(["render", missing], capsysbinary) == (
        2,
        "",
        f"envtui render: error: {missing}: cannot read: No such file or directory\n",
    )


def test_not_utf8(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(b'{"environments": [{"id": "\xff"}]}')
    assert (
        run_cli(["render", str(path)], capsysbinary)[2]
        == f"envtui render: error: {path}: not UTF-8 (invalid byte at offset 26)\n"
    )


def test_malformed_state_document_prev_is_an_error(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    prev = write_json(tmp_path / "p.json", {"environments": [{"cwd": "/"}]})
    code, _, err = run_cli(
        ["render", write_json(tmp_path / "s.json", TWO), "--diff", "--previous", prev], capsysbinary
    )
    assert code == 2
    assert err == f"envtui render: error: {prev}: environments[0].id: Field required\n"


def test_prev_of_neither_form_is_an_error(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    prev = write_json(tmp_path / "p.json", {"environments": 3})
    code, _, err = run_cli(
        ["render", write_json(tmp_path / "s.json", TWO), "--diff", "--previous", prev], capsysbinary
    )
    assert code == 2
    assert err.startswith(f"envtui render: error: {prev}: environments: expected a list")


def test_both_from_stdin_is_an_error(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    code, _, err = run_cli(["render", "-", "--previous", "-"], capsysbinary)
    assert code == 2
    assert (
        err
        == "envtui render: error: <stdin>: STATE and PREV cannot both be read from standard input\n"
    )


def test_json_output_escapes_terminal_controls_but_keeps_the_value(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    doc = {"environments": [{"id": "a\x9b31m", "cwd": "/é\u202e\x1b"}]}
    code, out, _ = run_cli(["render", write_json(tmp_path / "s.json", doc), "--json"], capsysbinary)
    assert code == 0
    assert "\x9b" not in out
    assert "\x1b" not in out
    assert "\u202e" not in out
    assert "é" in out
    assert json.loads(out)["snapshot"]["environments"] == {
        "a\x9b31m": {"cwd": "/é\u202e\x1b", "status": "available"}
    }


def test_no_command_starts_the_demo() -> None:
    from envtui.cli import build_parser, with_default_command

    args = build_parser().parse_args(with_default_command([]))
    assert (args.command, args.mode) == ("demo", "demo")


def test_a_deep_prev_is_one_line_naming_it(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    deep = '{"environments": {}, "x": ' + '{"k": ' * 600 + "1" + "}" * 600 + "}"
    prev = write_json(tmp_path / "p.json", deep)
    code, out, err = run_cli(
        ["render", write_json(tmp_path / "s.json", TWO), "--previous", prev], capsysbinary
    )
    assert (code, out) == (2, "")
    assert err == f"envtui render: error: {prev}: invalid JSON: nested deeper than 100 levels\n"


def test_endless_standard_input_is_cut_at_the_limit(
    capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    import envtui.commands.inputs as inputs

    monkeypatch.setattr(inputs, "MAX_INPUT_FILE", 1024)
    with open("/dev/zero", "rb") as zero:
        monkeypatch.setattr(sys, "stdin", type("Stdin", (), {"buffer": zero})())
        code, out, err = run_cli(["render", "-"], capsysbinary)
    assert (code, out) == (2, "")
    assert err == "envtui render: error: <stdin>: the input is over 1 KiB\n"


def test_a_special_file_over_the_limit_is_refused(
    capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    import envtui.vocabulary.limits

    monkeypatch.setattr(envtui.vocabulary.limits.read_file_bounded, "__defaults__", (1024,))
    code, out, err = run_cli(["render", "/dev/zero"], capsysbinary)
    assert (code, out) == (2, "")
    assert err == "envtui render: error: /dev/zero: the file is over 1 KiB\n"


@pytest.mark.parametrize("args", [["--json"], []])
def test_output_that_cannot_be_written_is_one_line_and_exit_1(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
) -> None:
    import io

    from envtui.cli import main

    state = write_json(tmp_path / "s.json", TWO)
    with open("/dev/full", "wb") as full:
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(full))
        code = main(["render", state, *args])
    assert code == 1
    assert capsys.readouterr().err == (
        "envtui render: error: standard output: cannot write: No space left on device\n"
    )


def test_lone_surrogates_are_exact_bytes_in_a_pipe_and_escaped_json(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    state = write_json(tmp_path / "s.json", '{"environments": [{"id": "a", "cwd": "/x\\ud800"}]}')
    code, out, _ = run_cli(["render", state, "--json"], capsysbinary)
    assert code == 0
    assert "\\ud800" in out
    assert json.loads(out)["snapshot"]["environments"]["a"]["cwd"] == "/x\ud800"
