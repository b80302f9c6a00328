"""The hosts ``envtui sessions`` reads: from the config's ``[[hosts]]``, or a quick look.

A configured host without ``[hosts.ssh]`` is this machine; its tree is
``codex_home/sessions`` (``~`` expanded here) and its daemon listens on the socket of that
``codex_home``. One with ``[hosts.ssh]`` is reached as an SSH environment is (the same
keys, known_hosts always checked): its tree is read over SFTP, ``~/`` being its login
directory, and its daemon reached through ``codex app-server proxy`` (the host's ``codex``)
over the same connection. ``--ssh HOST`` (as often as wanted) looks at hosts by name, with
``~/.ssh/config`` deciding the rest, each host's daemon that of its default ``CODEX_HOME``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from envtui.sources.sessions.fleet import SessionsHost

if TYPE_CHECKING:
    from envtui.environments.daemon.client import ChannelOpener
    from envtui.environments.jsonrpc import MessageChannel
    from envtui.settings.config import HostConfig
    from envtui.sources.daemon.attach import DaemonOptions
    from envtui.sources.sessions.session_files import SessionFiles
    from envtui.sources.sessions.sessions_index import SessionsIndex
    from envtui.sources.sessions.sessions_sftp import SftpSessionFiles

IndexMaker = Callable[["SessionFiles", str], "SessionsIndex"]
"""An index of a host's files, its rows carrying the host's name."""
DEFAULT_HOME = "~/.codex"


def configured_host(config: HostConfig, index: IndexMaker) -> SessionsHost:
    """One ``[[hosts]]`` entry, its tree ready to be opened."""
    tree = config.codex_home.rstrip("/") + "/sessions"
    files: SessionFiles
    daemon: ChannelOpener
    if config.ssh is None:
        from envtui.sources.sessions.session_files import LocalSessionFiles

        files = LocalSessionFiles(Path(tree).expanduser())
        home = Path(config.codex_home).expanduser()
        daemon, attach = local_daemon(home), local_attach(home)
    else:
        from envtui.environments.factory import ssh_settings
        from envtui.sources.sessions.sessions_sftp import SftpSessionFiles, remote_root

        files = SftpSessionFiles(ssh_settings(config.ssh), remote_root(tree))
        remote = None if config.codex_home.rstrip("/") == DEFAULT_HOME else config.codex_home
        daemon = proxied_daemon(files, config.codex or "codex", remote)
        attach = proxied_attach(files, config.codex or "codex", remote)
    return SessionsHost(config.name, files, index(files, config.name), config.codex, daemon, attach)


def ssh_host(name: str, directory: str | None, index: IndexMaker) -> SessionsHost:
    """``--ssh NAME``: the host as ``~/.ssh/config`` names it, its tree at ``directory``
    (default ``.codex/sessions`` in the login directory)."""
    from envtui.environments.ssh import SshSettings
    from envtui.sources.sessions.sessions_sftp import SftpSessionFiles, remote_root

    files = SftpSessionFiles(SshSettings(host=name), remote_root(directory))
    if directory is not None:  # a tree named by hand: its daemon is not known
        return SessionsHost(name, files, index(files, name))
    daemon, attach = proxied_daemon(files, "codex", None), proxied_attach(files, "codex", None)
    return SessionsHost(name, files, index(files, name), daemon=daemon, attach=attach)


def local_daemon(codex_home: Path) -> ChannelOpener:
    """How the daemon of ``codex_home`` on this machine is reached: its Unix socket."""

    async def open_socket() -> MessageChannel:
        from envtui.environments.daemon.address import DaemonAddress, open_channel
        from envtui.environments.daemon_socket import daemon_socket

        return await open_channel(DaemonAddress(path=daemon_socket(codex_home)))

    return open_socket


def local_attach(codex_home: Path) -> DaemonOptions:
    """How one thread's dashboard attaches to the daemon of ``codex_home`` here."""
    from envtui.environments.daemon.address import DaemonAddress
    from envtui.environments.daemon_socket import daemon_socket
    from envtui.sources.daemon.attach import DaemonOptions

    return DaemonOptions(address=DaemonAddress(path=daemon_socket(codex_home)))


def proxied_attach(files: SftpSessionFiles, codex: str, codex_home: str | None) -> DaemonOptions:
    """How one thread's dashboard attaches to an SSH host's daemon (a connection of its own,
    with the same settings and host-key rules)."""
    from envtui.environments.daemon.address import DaemonAddress
    from envtui.sources.daemon.attach import DaemonOptions

    home = Path(codex_home) if codex_home is not None else None
    return DaemonOptions(address=DaemonAddress(), ssh=files.settings, codex=codex, codex_home=home)


def proxied_daemon(files: SftpSessionFiles, codex: str, codex_home: str | None) -> ChannelOpener:
    """How an SSH host's daemon is reached: ``codex app-server proxy`` over the connection
    its tree is read over (a lost connection is connected again first)."""

    async def open_proxy() -> MessageChannel:
        from envtui.environments.daemon.ssh_proxy import SshProxyChannel
        from envtui.environments.remote import RetryableError

        try:
            connection = await files.connection()
        except OSError as exc:
            raise RetryableError(str(exc)) from None
        home = Path(codex_home) if codex_home is not None else None
        return await SshProxyChannel.over(connection, files.settings.host, codex, home)

    return open_proxy
