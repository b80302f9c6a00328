"""The readiness probe an SSH environment runs: its login shell and its resolved cwd.

One POSIX ``sh`` command, with the path quoted so that a config value cannot inject shell
commands; its output is read bounded by the caller (see ``environments.ssh``).
"""

from __future__ import annotations

import os
import shlex

from envtui.steps.selection import Readiness


def probe_command(cwd: str) -> str:
    """One POSIX ``sh`` command that prints ``$SHELL`` and the resolved cwd.

    The script goes through ``sh -c`` so it runs the same under any login shell (fish,
    csh), and cwd is quoted inside it; a leading ``~/`` is expanded by the remote shell.
    """
    if cwd == "~" or cwd.startswith("~/"):
        target = '"$HOME"' + (shlex.quote(cwd[1:]) if len(cwd) > 1 else "")
    else:
        target = shlex.quote(cwd)
    script = f'printf "%s\\n" "${{SHELL:-}}"; cd -- {target} && pwd'
    return "sh -c " + shlex.quote(script)


def parse_probe(stdout: str, cwd: str) -> Readiness:
    lines = stdout.splitlines()
    shell_path = lines[0].strip() if lines else ""
    shell_name = os.path.basename(shell_path.rstrip("/")) or None
    return Readiness(shell_name=shell_name, shell_path=shell_path or None, cwd=cwd)
