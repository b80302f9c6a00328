"""``envtui serve`` in a real Chromium: the page, the keys, downloads, the clipboard, the end.

Each scenario runs the server and the browser inside one ``unshare -n`` (see
``tests/support/scenarios/serve_browser.py``); the tests assert on what it saw. The
screenshot the browser takes is left in ``test-artifacts/`` (git-ignored) to look at.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

from tests.support.files import ROOT
from tests.support.real.browser import NEEDS_BROWSER_OFFLINE, UNSHARE

pytestmark = NEEDS_BROWSER_OFFLINE
ARTEFACTS = ROOT / "test-artifacts"


@cache
def scenario(mode: str) -> dict[str, Any]:
    """What the scenario saw; each mode runs once per test session (a browser is slow)."""
    assert UNSHARE is not None
    ARTEFACTS.mkdir(exist_ok=True)
    result = subprocess.run(
        [UNSHARE, "-n", sys.executable, "-m", "tests.support.scenarios.serve_browser", mode,
         str(ARTEFACTS)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    seen: dict[str, Any] = json.loads(result.stdout)
    return seen


def test_the_page_shows_the_environments_table_with_a_ready_environment() -> None:
    seen = scenario("use")
    screen = seen["ready_screen"]
    assert re.search(r"╭─ (▶ )?environments", screen)  # marked while it has the focus
    assert "● ready" in screen
    assert " envtui · demo" in screen
    print(  # how long a person waits (not asserted: the machine's load decides it)
        f"first frame {seen['first_frame_seconds']} s, a ready environment "
        f"{seen['ready_seconds']} s after the page was asked for"
    )


def test_the_printed_address_with_its_token_opens_the_page_and_leaves_the_token_out() -> None:
    seen = scenario("use")
    assert re.search(  # the address alone on its line: nothing glued to the token
        r"\(Ctrl\+C stops them all\); open:\nhttp://127\.0\.0\.1:\d+/#token=[\w-]{20,}\n",
        seen["server_log"],
    )
    assert "token" not in seen["page_url"]  # moved to the tab's sessionStorage, then left out
    assert seen["stored_token"]
    assert "environments" in seen["reload_screen"]  # a reload of the tab keeps it
    assert seen["server_log"].count("token=") == 1  # printed once, logged nowhere else


def test_the_page_gives_the_terminal_the_keys_on_load_without_a_click() -> None:
    """Nothing clicks or focuses the page in these scenarios: ``?`` right after the first
    frame opens the help only because the page focused the terminal when it loaded."""
    seen = scenario("use")
    assert "xterm-helper-textarea" in seen["focused_on_load"]
    assert "Keys" in seen["help_screen"]


def test_t_h_and_slash_open_the_themes_the_history_and_the_filter() -> None:
    seen = scenario("use")
    assert "Pick a theme" in seen["theme_screen"]
    assert "history ·" in seen["history_screen"]
    assert "filter environments" in seen["filter_screen"]


def test_question_mark_shows_the_help() -> None:
    screen = scenario("use")["help_screen"]
    assert "╭─ help" in screen
    assert "Keys, by where they act" in screen
    assert "Table (environments, when focused)" in screen


def test_e_downloads_the_step_in_the_browser_and_writes_nothing_on_the_server() -> None:
    seen = scenario("use")
    match = re.fullmatch(r"envtui-step-demo-thread-(\d+)\.json", seen["export_name"])
    assert match, seen["export_name"]
    exported = json.loads(seen["export_text"])
    assert exported["step"] == int(match.group(1))
    assert exported["thread"] == "demo-thread"
    assert set(exported) == {
        "step", "thread", "context", "diff", "snapshot", "patch", "tools", "findings",
    }  # fmt: skip
    assert exported["context"].startswith("<environment_context>\n")
    assert seen["server_files"] == ["serve.log"]  # the server's directory got no export


def test_y_copies_the_context_to_the_browsers_clipboard() -> None:
    clipboard = scenario("use")["clipboard"]
    assert clipboard.startswith("<environment_context>\n")
    assert clipboard.endswith("</environment_context>")


def test_the_palettes_screenshot_is_a_download_too() -> None:
    seen = scenario("use")
    assert re.fullmatch(r"envtui-screenshot-[\dT_-]+\.svg", seen["screenshot_name"])
    assert seen["screenshot_text"].startswith("<svg")
    assert "environments" in seen["screenshot_text"]
    assert Path(seen["artefact"]).stat().st_size > 10_000  # the page as the browser drew it


def test_closing_the_tab_ends_its_dashboard_process() -> None:
    seen = scenario("use")
    assert seen["first_tab"] == 1
    assert seen["closed_tab_ended"]


def test_ctrl_c_stops_the_server_and_every_dashboard_it_started() -> None:
    seen = scenario("use")
    assert seen["dashboards"] == 1
    assert seen["server_exit"] == 0
    assert seen["dashboards_ended"]
    assert "envtui serve: envtui demo, a dashboard per tab" in seen["server_log"]
    assert "; open:\nhttp://127.0.0.1:" in seen["server_log"]


def test_another_accounts_page_on_another_port_gets_nothing_to_drive_the_dashboard_with() -> None:
    """The user's browser has the dashboard open; a page served by another local account
    (``nobody``) on another port of 127.0.0.1 is opened in the same browser. The browser
    sends that server no credential (a cookie of 127.0.0.1 would go to every port of it,
    RFC 6265 §8.5), so replaying what it got, with an ``Origin`` of its choosing, is
    refused; in the browser its page can neither open the websocket nor frame the page,
    and the tab's ``sessionStorage`` is not its origin's."""
    seen = scenario("attack")
    replay = seen["replay"]
    assert replay["uid"] != 0  # another account
    assert seen["cookies"] == []  # the dashboard sets no cookie
    assert replay["cookies"] == []  # so the browser sent the attacker's port none
    assert " 401 " in replay["status"], replay  # without the token, no dashboard
    assert replay["bytes"] == 0  # not one byte of the screen
    assert seen["attack_storage"] == 0
    assert seen["attack_title"].startswith(("CLOSED", "ERROR")), seen["attack_title"]
    assert seen["attack_frames"] == 0
    assert seen["attack_text"] == "waiting"
    assert seen["frame_urls"] != ["http://127.0.0.1:47652/"]  # the frame shows an error
    assert seen["dashboards_before_attack"] == 1
    assert seen["dashboards_during_attack"] == 1  # nothing started for the attack
    assert seen["server_exit"] == 0
    assert seen["dashboards_ended"]


def test_sigterm_to_the_server_alone_ends_its_dashboards() -> None:
    seen = scenario("term")
    assert (seen["dashboards"], seen["server_exit"]) == (1, 0)
    assert seen["dashboards_ended"]


def test_a_dashboard_whose_server_was_killed_quits_by_itself() -> None:
    seen = scenario("kill")
    assert (seen["dashboards"], seen["server_exit"]) == (1, -9)
    assert seen["dashboards_ended"]


def test_a_tab_opened_late_shows_the_same_store_as_the_first() -> None:
    seen = scenario("late")
    assert seen["late_first_step"] >= seen["early_step"] >= 4  # not an empty screen
    print(f"first tab at step {seen['early_step']}, the late one from {seen['late_first_step']}")
    assert seen["same_store"], seen["late_rows"]
    assert len(seen["late_rows"]) == 6  # the demo's environments, each with its status
    assert seen["dashboards"] == 2
    assert seen["server_exit"] == 0
    assert seen["dashboards_ended"]
