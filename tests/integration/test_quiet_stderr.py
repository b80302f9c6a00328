"""Standard error carries envtui's own lines and nothing else, whatever the dependencies'
versions: every subcommand run without a terminal, and every module imported with Python's
warnings made errors.

cryptography 51 made asyncssh print ten lines of deprecation warnings at import; those went
to the terminal of every command that loads it. The first test catches the next such release
(it imports everything with ``-W error``), the second what would reach a person.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.support.files import EXAMPLE_STATE, ROLLOUTS

from envtui.cli import COMMAND_MODULES

ENVTUI = [sys.executable, "-m", "envtui"]
ROLLOUT = sorted(ROLLOUTS.glob("rollout-*.jsonl"))[0]


def test_every_module_imports_with_warnings_as_errors() -> None:
    code = (
        "import importlib, pkgutil, envtui\n"
        "for m in pkgutil.walk_packages(envtui.__path__, 'envtui.'):\n"
        "    if not m.name.endswith('__main__'):\n"
        "        importlib.import_module(m.name)\n"
    )
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stderr) == (0, "")


def _argv(tmp_path: Path) -> dict[str, tuple[list[str], int, str]]:
    """Each command as a script would run it: argv, exit code, and its whole stderr."""
    config = tmp_path / "local.toml"
    config.write_text(f'[[environments]]\nid = "local"\nkind = "local"\ncwd = "{tmp_path}"\n')
    bad = tmp_path / "bad.toml"
    bad.write_text('[[environments]]\nid = "x"\nkind = "local"\ncwdd = "/"\n')
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    not_a_terminal = "standard output is not a terminal"
    return {
        "render": (["render", str(EXAMPLE_STATE)], 0, ""),
        "snapshot": (["snapshot", "--config", str(config)], 0, ""),
        "snapshot bad config": (
            ["snapshot", "--config", str(bad)],
            2,
            f"envtui snapshot: error: {bad}:4: environments[0].cwdd: unknown key; "
            "did you mean 'cwd'?\n",
        ),
        "events": (["events", "--config", str(config), "--duration", "2"], 0, ""),
        "check": (["check", str(ROLLOUT)], 0, ""),
        "check engine": (
            ["check", "--config", str(config), "--steps", "1", "--interval", "0"],
            0,
            "",
        ),
        "sessions": (["sessions", str(sessions), "--json"], 0, ""),
        "info": (["info"], 0, ""),
        "completion": (["completion", "bash"], 0, ""),
        "manpage": (["manpage"], 0, ""),
        "serve": (["serve", "--help"], 0, ""),
        **{
            name: ([name, *extra], 2, not_a_terminal)
            for name, extra in (
                ("demo", []),
                ("watch", ["--config", str(config)]),
                ("codex", ["--codex", sys.executable]),
                ("replay", [str(ROLLOUT)]),
                ("rollout", [str(ROLLOUT)]),
            )
        },
    }


def _run(argv: list[str], tmp_path: Path) -> tuple[int, str]:
    done = subprocess.run(
        [*ENVTUI, *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "CODEX_HOME": str(tmp_path / "codex"), "HOME": str(tmp_path)},
    )
    return done.returncode, done.stderr


def test_every_command_says_only_its_own_lines_on_standard_error(tmp_path: Path) -> None:
    runs = _argv(tmp_path)
    assert {argv[0] for argv, _, _ in runs.values()} == set(COMMAND_MODULES)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = dict(zip(runs, pool.map(lambda n: _run(runs[n][0], tmp_path), runs), strict=True))
    wrong = {}
    for name, (code, err) in results.items():
        _, want_code, want_err = runs[name]
        one_line_refusal = want_code == 2 and want_err == "standard output is not a terminal"
        if one_line_refusal:
            ok = code == 2 and err.count("\n") == 1 and want_err in err
        else:
            ok = (code, err) == (want_code, want_err)
        if not ok:
            wrong[name] = (code, err)
    assert wrong == {}
