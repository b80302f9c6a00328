"""The core never imports Textual: checked in a fresh interpreter, as a user's import would."""

from __future__ import annotations

import subprocess
import sys

CORE_MODULES = ("envtui.context", "envtui.cli", "envtui.theme_files")
RUNTIME_MODULES = (
    "envtui.events",
    "envtui.config",
    "envtui.environments.manager",
    "envtui.environments.ssh",
    "envtui.sources.engine",
    "envtui.commands.snapshot",
    "envtui.commands.events",
    "envtui.commands.check",
    "envtui.steps.capture",
    "envtui.steps.check",
    "envtui.steps.live",
    "envtui.sources.rollout",
    "envtui.codex_environments",
    "envtui.environments.exec_server",
    "envtui.store",
    "envtui.sources.demo",
    "envtui.sources.live",
    "envtui.sources.replay",
    "envtui.sources.rollout_source",
    "envtui.commands.dashboard",
    "envtui.commands.codex",
    "envtui.sources.codex",
    "envtui.sources.processes",
)


def test_core_and_cli_do_not_import_textual() -> None:
    code = (
        "import sys\n"
        f"import {', '.join(CORE_MODULES)}\n"
        "from envtui.cli import main\n"
        "assert 'textual' not in sys.modules, sorted(m for m in sys.modules if m.startswith('textual'))\n"
        "assert 'asyncssh' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_building_the_command_line_loads_neither_textual_nor_asyncssh() -> None:
    code = (
        "import sys\n"
        "from envtui.cli import build_parser\n"
        "build_parser().parse_args(['render', 'x.json'])\n"
        "loaded = sorted(m for m in ('textual', 'asyncssh') if m in sys.modules)\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_runtime_does_not_import_textual() -> None:
    code = (
        "import sys\n"
        f"import {', '.join(RUNTIME_MODULES)}\n"
        "assert 'textual' not in sys.modules, sorted(m for m in sys.modules if m.startswith('textual'))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_envtui_render_runs_without_textual(tmp_path: object) -> None:
    code = (
        "import sys, io\n"
        "sys.modules['textual'] = None  # any import of textual now fails\n"
        "from envtui.cli import main\n"
        "sys.argv = ['envtui', 'render', '-']\n"
        "raise SystemExit(main(['render', '-']))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        input=b'{"environments": [{"id": "local", "cwd": "/r"}]}',
        capture_output=True,
        check=True,
    )
    assert result.stdout == b"<environment_context>\n  <cwd>/r</cwd>\n</environment_context>\n"
