"""The app's own record of its toasts: what the operator was told, inert, bounded."""

from __future__ import annotations

import pytest

from tests.support.scenarios.scripted_stream import clock

from envtui.tui.app import MAX_NOTICES, DashboardOptions, EnvTuiApp, Notice

pytestmark = [pytest.mark.tui, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


def make_app() -> EnvTuiApp:
    return EnvTuiApp(None, DashboardOptions(source_name="test", clock=clock))


async def test_every_toast_is_kept_inert_with_its_severity_title_and_time() -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        app.notify("a \x1b[31mred\x1b[0m line", title="two\nlines", severity="warning")
        app.screen.notify("said by a screen")  # Textual's own notices take this way too
        await pilot.pause()
        assert app.notices == (
            Notice("a \\x1b[31mred\\x1b[0m line", "warning", "two lines", clock()),
            Notice("said by a screen", "information", "", clock()),
        )


async def test_only_the_latest_notices_are_kept_oldest_first() -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        for number in range(MAX_NOTICES + 50):
            app.notify(f"notice {number}", timeout=0.1)
        await pilot.pause()
        shown = [notice.message for notice in app.notices]
    assert shown == [f"notice {number}" for number in range(50, MAX_NOTICES + 50)]
