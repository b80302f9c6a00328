"""Why a program stopped, from its stderr: Codex's ``Error:`` line, never a backtrace frame."""

from __future__ import annotations

from envtui.environments.stderr_lines import error_line, exit_reason, stderr_text

UNTRUSTED = (
    'Error: approval_policy = "untrusted" is no longer supported; remove this setting\n'
    "\n"
    "Stack backtrace:\n" + "".join(f"   {n}: <unknown>\n" for n in range(7))
)
"""codex-cli 0.171.0's stderr, byte for byte, when its config says approval_policy =
"untrusted" and RUST_BACKTRACE=1 is set."""


def test_the_error_line_is_the_reason_and_not_the_last_backtrace_frame() -> None:
    lines = UNTRUSTED.splitlines()
    assert exit_reason(lines) == (
        'Error: approval_policy = "untrusted" is no longer supported; remove this setting'
    )


def test_without_an_error_line_the_last_line_that_is_not_a_frame_is_the_reason() -> None:
    lines = [
        "starting",
        "fatal: no config",
        "Stack backtrace:",
        "   0: main",
        "      at src/main.rs:3:5",
    ]
    assert exit_reason(lines) == "fatal: no config"
    assert exit_reason(["boom"]) == "boom"
    assert exit_reason(["", "   "]) is None


def test_the_error_line_is_found_among_many_lines_of_output() -> None:
    lines = [b"log line %d" % n for n in range(5000)]
    lines.insert(10, b"Error: it broke")
    assert error_line(lines) == "Error: it broke"
    assert error_line([b"no error here", b"  Error: not at the start"]) is None


def test_colour_is_not_part_of_a_stderr_line_but_other_escapes_stay_to_be_shown() -> None:
    coloured = b"\x1b[2m2026-12-02T00:04:52Z\x1b[0m \x1b[31mERROR\x1b[0m codex: failed"
    assert stderr_text(coloured) == "2026-12-02T00:04:52Z ERROR codex: failed"
    assert stderr_text(b"fatal: \x1b]2;TITLE\x07") == "fatal: \x1b]2;TITLE\x07"
