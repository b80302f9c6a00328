"""Files tests use by path: the repository, the golden vectors, scripts run as processes."""

from __future__ import annotations

from pathlib import Path

SUPPORT = Path(__file__).parent
ROOT = SUPPORT.parent.parent
VECTORS_FILE = ROOT / "tests" / "vectors" / "context-vectors.json"
ROLLOUTS = ROOT / "tests" / "rollouts"
"""The rollouts the real Codex wrote (``tests.support.data.record_rollouts`` records them)."""
EXAMPLE_STATE = ROOT / "examples" / "turn-state.json"
EXAMPLE_SNAPSHOT = ROOT / "examples" / "previous-snapshot.json"

FAKE_EXEC_SERVER = SUPPORT / "fakes" / "fake_exec_server.py"
"""``python FAKE_EXEC_SERVER MODE``: the exec-server handshake, and ways to misbehave."""

FAKE_APP_SERVER = SUPPORT / "fakes" / "fake_app_server.py"
"""``python FAKE_APP_SERVER MODE app-server``: a ``codex app-server`` that misbehaves on purpose."""

MODEL_STUB = SUPPORT / "fakes" / "model_stub.py"
"""``unshare -n python MODEL_STUB DIR PORT -- COMMAND``: the model endpoint's stand-in."""

NETNS_WEBSOCKET_SCENARIO = SUPPORT / "scenarios" / "netns_websocket.py"
"""Run inside ``unshare -n`` with a codex binary: a websocket exec-server, then killed."""
