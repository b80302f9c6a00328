"""``envtui serve`` raises its soft descriptor limit to the hard one: every connection holds a
descriptor, and the usual soft 1,024 would run out first."""

from __future__ import annotations

import resource
import subprocess
import sys

RAISE_AND_SHOW = (
    "import resource\n"
    "from envtui.commands.serve.web_server import raise_descriptor_limit\n"
    "print(raise_descriptor_limit(), *resource.getrlimit(resource.RLIMIT_NOFILE))\n"
)


def _low_soft_limit() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))


def test_the_soft_descriptor_limit_is_raised_to_the_hard_one() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    shown = subprocess.run(
        [sys.executable, "-c", RAISE_AND_SHOW],
        preexec_fn=_low_soft_limit,  # a child of this test alone
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.split()
    assert shown == [str(hard)] * 3
