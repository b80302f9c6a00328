"""Files tests use by path: the repository, the golden vectors, scripts run as processes."""

from __future__ import annotations

from pathlib import Path

SUPPORT = Path(__file__).parent
ROOT = SUPPORT.parent.parent
VECTORS_FILE = ROOT / "tests" / "vectors" / "context-vectors.json"
EXAMPLE_STATE = ROOT / "examples" / "turn-state.json"
EXAMPLE_SNAPSHOT = ROOT / "examples" / "previous-snapshot.json"

FAKE_EXEC_SERVER = SUPPORT / "fake_exec_server.py"
"""``python FAKE_EXEC_SERVER MODE``: the exec-server handshake, and ways to misbehave."""

FAKE_APP_SERVER = SUPPORT / "fake_app_server.py"
"""``python FAKE_APP_SERVER MODE app-server``: a ``codex app-server`` that misbehaves on purpose."""

NETNS_WEBSOCKET_SCENARIO = SUPPORT / "netns_websocket_scenario.py"
"""Run inside ``unshare -n`` with a codex binary: a websocket exec-server, then killed."""
