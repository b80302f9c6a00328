"""The hosts ``envtui sessions`` reads: from the config's ``[[hosts]]``, or a quick look.

A configured host without ``[hosts.ssh]`` is this machine; its tree is
``codex_home/sessions`` (``~`` expanded here). One with ``[hosts.ssh]`` is reached as an
SSH environment is (the same keys, known_hosts always checked) and its tree read over SFTP,
``~/`` being its login directory. ``--ssh HOST`` (as often as wanted) looks at hosts by
name, with ``~/.ssh/config`` deciding the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from envtui.sources.sessions.fleet import SessionsHost

if TYPE_CHECKING:
    from envtui.settings.config import HostConfig
    from envtui.sources.sessions.session_files import SessionFiles
    from envtui.sources.sessions.sessions_index import SessionsIndex

IndexMaker = Callable[["SessionFiles", str], "SessionsIndex"]
"""An index of a host's files, its rows carrying the host's name."""


def configured_host(config: HostConfig, index: IndexMaker) -> SessionsHost:
    """One ``[[hosts]]`` entry, its tree ready to be opened."""
    tree = config.codex_home.rstrip("/") + "/sessions"
    files: SessionFiles
    if config.ssh is None:
        from envtui.sources.sessions.session_files import LocalSessionFiles

        files = LocalSessionFiles(Path(tree).expanduser())
    else:
        from envtui.environments.factory import ssh_settings
        from envtui.sources.sessions.sessions_sftp import SftpSessionFiles, remote_root

        files = SftpSessionFiles(ssh_settings(config.ssh), remote_root(tree))
    return SessionsHost(config.name, files, index(files, config.name), codex=config.codex)


def ssh_host(name: str, directory: str | None, index: IndexMaker) -> SessionsHost:
    """``--ssh NAME``: the host as ``~/.ssh/config`` names it, its tree at ``directory``
    (default ``.codex/sessions`` in the login directory)."""
    from envtui.environments.ssh import SshSettings
    from envtui.sources.sessions.sessions_sftp import SftpSessionFiles, remote_root

    files = SftpSessionFiles(SshSettings(host=name), remote_root(directory))
    return SessionsHost(name, files, index(files, name))
