"""A tab host under churn: browser tabs closed as their dashboards open (a page reloaded at
once), twenty real dashboards in a row, each quit at another moment of its start. A race
that showed in 8 of 30 such tabs, so it takes a run of them (seconds, so not in the quick
unit loop)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.fakes.tab_apps import Tabs, tab_host
from tests.support.fakes.tab_server import WAIT

from envtui.tui.app import EnvTuiApp


@pytest.fixture
def tabs() -> Iterator[Tabs]:
    with tab_host() as made:
        yield made


def test_a_dashboard_whose_tab_closes_as_it_opens_quits_without_an_error(
    tabs: Tabs, capfd: pytest.CaptureFixture[str]
) -> None:
    """A page reloaded at once: the quit comes while the dashboard mounts its widgets."""
    for pause in range(20):
        tab = tabs.open(lambda driver: EnvTuiApp(None, driver_class=driver))
        if pause % 4:
            tab.wait_for_bytes(100 * pause)  # some of its first frame
        tab.send_meta({"type": "quit"})
        tab.wait_closed()
    assert tabs.host.wait(WAIT)
    errors = capfd.readouterr().err
    assert "Traceback" not in errors, errors
    assert 1 not in [app.return_code for app in tabs.apps]  # Textual's code for an error
