"""SSH environments over asyncssh: connect, verify the host key, probe, keep alive, reconnect.

Host keys are always checked against known_hosts files passed explicitly, so a
``UserKnownHostsFile none`` in ``~/.ssh/config`` cannot switch checking off. An unknown
host and a mismatched key are told apart in the reason, and neither is retried: that
needs a change of known_hosts or config. Only ``accept_new_host_keys`` accepts a key, and
only for a host known_hosts has never seen; the key is then appended to the first file.
As in OpenSSH, a port other than 22 needs a ``[host]:port`` entry.

Settings left unset are not passed, so a ``~/.ssh/config`` alias keeps its own HostName,
port, user and keys. The probe reads ``$SHELL`` and checks cwd in one command, with the
path quoted so that a config value cannot inject shell commands.
"""

from __future__ import annotations

import asyncio
import contextlib
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import asyncssh

from envtui.environments.remote import PermanentError, RemoteEnvironment, RetryableError
from envtui.environments.remote_commands import run_bounded
from envtui.environments.ssh_probe import parse_probe, probe_command
from envtui.settings.locations import DEFAULT_KNOWN_HOSTS
from envtui.steps.selection import Readiness
from envtui.vocabulary import debug_log
from envtui.vocabulary.limits import MAX_INPUT_FILE, MAX_PROBE_OUTPUT, TooLargeError, size_text
from envtui.vocabulary.stopping import within

log = debug_log.logger(__name__)


@dataclass(frozen=True)
class SshSettings:
    """How to reach one host. None means "not set": asyncssh and ``~/.ssh/config`` decide."""

    host: str
    port: int | None = None
    user: str | None = None
    identity_files: tuple[str, ...] | None = None
    known_hosts: tuple[str, ...] = (DEFAULT_KNOWN_HOSTS,)
    accept_new_host_keys: bool = False
    connect_timeout: float = 10.0
    keepalive_interval: float = 5.0
    keepalive_count_max: int = 3
    backoff_initial: float = 1.0
    backoff_max: float = 60.0
    read_ssh_config: bool = True
    use_agent: bool = True

    @property
    def dead_link_bound(self) -> float:
        """A dead link is noticed within this many seconds."""
        return self.keepalive_interval * (self.keepalive_count_max + 1)

    def known_hosts_paths(self) -> list[Path]:
        return [Path(p).expanduser() for p in self.known_hosts]

    def target(self) -> str:
        return self.host if self.port is None else f"{self.host}:{self.port}"


class HostKeyError(PermanentError):
    """The server's key is unknown or does not match: not retried."""


class ProbeError(RetryableError):
    """Connected, but the shell or cwd check failed: retried with the backoff."""


def known_hosts_pattern(host: str, port: int | None) -> str:
    """``host`` for port 22, ``[host]:port`` otherwise, as OpenSSH writes known_hosts."""
    return host if port in (None, 22) else f"[{host}]:{port}"


def _file_signature(path: Path) -> tuple[int, int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns


class KnownHostsCache:
    """known_hosts files read and parsed once per change of the files, not per connection.

    Connecting to N hosts that share one known_hosts file would otherwise parse it N
    times, a cost that grows with the square of the fleet. A file is read again as soon as
    its inode, size or modification time changes (an accepted key appends to it).
    """

    def __init__(self) -> None:
        self._parsed: dict[tuple[str, ...], tuple[object, asyncssh.SSHKnownHosts]] = {}

    def load(self, paths: list[Path]) -> asyncssh.SSHKnownHosts:
        key = tuple(str(p) for p in paths)
        signature = tuple(_file_signature(p) for p in paths)
        cached = self._parsed.get(key)
        if cached is not None and cached[0] == signature:
            return cached[1]
        known = asyncssh.read_known_hosts(list(key))
        if len(self._parsed) >= KNOWN_HOSTS_SETS:
            self._parsed.pop(next(iter(self._parsed)))
        self._parsed[key] = (signature, known)
        return known


KNOWN_HOSTS_SETS = 64
"""Different sets of known_hosts files remembered at once (one per distinct setting)."""
KNOWN_HOSTS = KnownHostsCache()


class _KnownHostsPolicy:
    """Matches the files as OpenSSH does, and decides whether a new key may be accepted."""

    def __init__(self, settings: SshSettings) -> None:
        self._settings = settings
        self.rejection: str | None = None
        self.accepted: str | None = None

    def _load(self) -> asyncssh.SSHKnownHosts:
        return KNOWN_HOSTS.load(self._settings.known_hosts_paths())

    def match(self, host: str, addr: str, port: int | None) -> Any:
        """asyncssh's known_hosts callable: only ``[host]:port`` entries for a non-22 port."""
        known = self._load()
        if port in (None, 22):
            return known.match(host, addr, None)
        # The bracketed name is matched as text; asyncssh would otherwise fall back to plain
        # ``host`` entries for any port, which OpenSSH does not.
        return known.match(known_hosts_pattern(host, port), "", None)

    def validate(self, host: str, addr: str, port: int, key: asyncssh.SSHKey) -> bool:
        """Called for a key known_hosts does not trust: accept only a new host, if allowed."""
        files = ", ".join(str(p) for p in self._settings.known_hosts_paths())
        where = known_hosts_pattern(host, port)
        if self.match(host, addr, port)[0]:
            self.rejection = (
                f"host key mismatch: the key {where} presented ({key.get_fingerprint()}) "
                f"differs from the one in known_hosts ({files}); not connecting"
            )
            return False
        if not self._settings.accept_new_host_keys:
            self.rejection = (
                f"unknown host key: {where} ({key.get_fingerprint()}) is not in known_hosts "
                f"({files}); add it, or set accept_new_host_keys = true"
            )
            return False
        if not self._append(where, key):
            return False
        self.accepted = f"accepted the new host key of {where} ({key.get_fingerprint()})"
        return True

    def _append(self, pattern: str, key: asyncssh.SSHKey) -> bool:
        """Add the key to the first file; False (and the reason kept) when that fails."""
        path = self._settings.known_hosts_paths()[0]
        algorithm, blob = key.export_public_key("openssh").decode("ascii").split()[:2]
        try:
            make_private_dirs(path.parent)
            with path.open("a", encoding="ascii") as handle:
                handle.write(f"{pattern} {algorithm} {blob}\n")
        except OSError as exc:
            self.rejection = (
                f"cannot add the new host key of {pattern} to {path}: "
                f"{exc.strerror or exc}; not connecting"
            )
            return False
        return True


class _Client(asyncssh.SSHClient):
    def __init__(self, policy: _KnownHostsPolicy, lost: asyncio.Future[str]) -> None:
        self._policy = policy
        self._lost = lost

    def validate_host_public_key(
        self, host: str, addr: str, port: int, key: asyncssh.SSHKey
    ) -> bool:
        return self._policy.validate(host, addr, port, key)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._lost.done():
            self._lost.set_result(str(exc) if exc else "closed")


def usable_known_hosts(settings: SshSettings) -> list[Path]:
    """The known_hosts paths, each existing one checked to be a readable known_hosts file.

    A file that cannot be used is a :class:`HostKeyError`, not retried: no retry can fix it,
    and connecting without it would skip the check it exists for.
    """
    try:
        paths = settings.known_hosts_paths()
    except RuntimeError as exc:  # ``~name`` of a user this machine does not have
        raise HostKeyError(f"known_hosts path cannot be expanded: {exc}") from None
    for path in paths:
        if not path.exists():
            continue
        problem = _not_a_small_file(path)
        if problem is not None:
            raise HostKeyError(f"known_hosts file {path} cannot be used: {problem}")
        try:
            KNOWN_HOSTS.load([path])  # parsed once per change of the file, as matching does
        except OSError as exc:
            raise HostKeyError(f"cannot read known_hosts file {path}: {exc.strerror}") from None
        except Exception as exc:  # not UTF-8, or lines asyncssh cannot parse
            raise HostKeyError(f"known_hosts file {path} cannot be used: {exc}") from None
    return paths


def _not_a_small_file(path: Path) -> str | None:
    """Why ``path`` is not a regular file of at most 64 MiB (asyncssh reads it whole)."""
    try:
        info = path.stat()
    except OSError as exc:
        return exc.strerror or str(exc)
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    return f"over {size_text(MAX_INPUT_FILE)}" if info.st_size > MAX_INPUT_FILE else None


def usable_identity_files(settings: SshSettings) -> list[str] | None:
    """The identity files given, each a regular file of bounded size; PermanentError if not."""
    if settings.identity_files is None:
        return None
    paths = [Path(p).expanduser() for p in settings.identity_files]
    for path in paths:
        if not path.exists():
            raise PermanentError(f"identity file {path} does not exist")
        problem = _not_a_small_file(path)
        if problem is not None:
            raise PermanentError(f"identity file {path} cannot be used: {problem}")
    return [str(path) for path in paths]


def make_private_dirs(directory: Path) -> None:
    """Create ``directory`` and any missing parent, each one 0700 (ssh's own folders are)."""
    missing = []
    while not directory.exists() and directory != directory.parent:
        missing.append(directory)
        directory = directory.parent
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)


def _prepare_known_hosts(settings: SshSettings) -> None:
    """Every known_hosts file exists before the first key is checked: a missing one is an
    error, unless new keys may be accepted, when it is created (private, 0600)."""
    missing = [p for p in usable_known_hosts(settings) if not p.exists()]
    if missing and not settings.accept_new_host_keys:
        raise HostKeyError(
            f"known_hosts file {missing[0]} does not exist; create it or set "
            "accept_new_host_keys = true"
        )
    for path in missing:
        try:
            make_private_dirs(path.parent)
            path.touch(mode=0o600)
        except OSError as exc:
            raise HostKeyError(f"cannot create known_hosts file {path}: {exc.strerror}") from None


def _connect_options(
    settings: SshSettings,
    policy: _KnownHostsPolicy,
    client_keys: Sequence[asyncssh.SSHKey] | None,
    identities: list[str] | None,
) -> dict[str, Any]:
    """asyncssh's options for ``settings``: only what is set, so ~/.ssh/config keeps the rest."""
    options: dict[str, Any] = {
        "known_hosts": policy.match,
        "connect_timeout": settings.connect_timeout,
        "login_timeout": settings.connect_timeout,
        "keepalive_interval": settings.keepalive_interval,
        "keepalive_count_max": settings.keepalive_count_max,
    }
    if settings.port is not None:
        options["port"] = settings.port
    if settings.user is not None:
        options["username"] = settings.user
    if client_keys is not None:
        options["client_keys"] = list(client_keys)
    elif settings.identity_files is not None:
        options["client_keys"] = identities
    if not settings.read_ssh_config:
        options["config"] = None
    if not settings.use_agent:
        options["agent_path"] = None
    return options


async def open_connection(
    settings: SshSettings,
    lost: asyncio.Future[str],
    *,
    client_keys: Sequence[asyncssh.SSHKey] | None = None,
) -> tuple[asyncssh.SSHClientConnection, str | None]:
    """Connect with envtui's host-key policy; also returns a note when a new key was accepted.

    ``lost`` completes with the reason when the connection goes away later.
    """
    log.debug("connecting to %s", settings.target())
    identities = usable_identity_files(settings) if client_keys is None else None
    _prepare_known_hosts(settings)
    policy = _KnownHostsPolicy(settings)
    options = _connect_options(settings, policy, client_keys, identities)
    connecting = asyncio.ensure_future(
        asyncssh.create_connection(lambda: _Client(policy, lost), settings.host, **options)
    )
    try:
        # Shielded: asyncssh bounds the connect with Python 3.11's asyncio.wait_for, which
        # drops a cancellation that arrives as the login completes. The caller then went on,
        # connected, as if never cancelled, and whoever waited for it to end waited for ever.
        # Here the cancellation always reaches the caller, and a connection that is made
        # all the same is closed.
        connection, _ = await asyncio.shield(connecting)
    except asyncio.CancelledError:
        connecting.cancel()
        connecting.add_done_callback(_abort_when_connected)
        raise
    except asyncssh.HostKeyNotVerifiable as exc:
        raise HostKeyError(policy.rejection or f"host key not verifiable: {exc}") from None
    return connection, policy.accepted


def _abort_when_connected(
    connecting: asyncio.Future[tuple[asyncssh.SSHClientConnection, asyncssh.SSHClient]],
) -> None:
    """Close the connection of a connect that was cancelled and completed all the same."""
    if connecting.cancelled() or connecting.exception() is not None:
        return
    connection, _ = connecting.result()
    connection.abort()


async def close_connection(connection: asyncssh.SSHClientConnection | None) -> None:
    if connection is not None:
        connection.abort()
        with contextlib.suppress(Exception):
            await within(5, connection.wait_closed())


class SshEnvironment(RemoteEnvironment[SshSettings]):
    kind: ClassVar[str] = "ssh"
    _connection: asyncssh.SSHClientConnection | None = None

    async def _establish(self) -> tuple[Readiness, asyncio.Future[str]]:
        lost: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._connection, accepted = await open_connection(
            self.settings, lost, client_keys=self._client_keys
        )
        if accepted:
            self._note(accepted)
        readiness = await self._probe(self._connection)
        return readiness, _lost_reason(lost)

    async def _probe(self, connection: asyncssh.SSHClientConnection) -> Readiness:
        try:
            result = await run_bounded(
                connection,
                probe_command(self.cwd),
                limit=MAX_PROBE_OUTPUT,
                timeout=self.settings.connect_timeout,
                what="probe output",
            )
        except TooLargeError as exc:
            raise ProbeError(f"{self.settings.host}: {exc}") from None
        if result.exit_status != 0:
            stderr = result.stderr.strip()
            detail = stderr.splitlines()[-1] if stderr else "cd failed"
            raise ProbeError(f"cwd {self.cwd} is not usable on {self.settings.host}: {detail}")
        return parse_probe(result.stdout, self.cwd)

    async def _teardown(self) -> None:
        connection, self._connection = self._connection, None
        await close_connection(connection)

    def _describe(self, exc: BaseException) -> str:
        return describe_ssh_error(exc, self.settings)


def _lost_reason(lost: asyncio.Future[str]) -> asyncio.Future[str]:
    """The loss future, worded for the status line."""
    reason: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def done(future: asyncio.Future[str]) -> None:
        if not reason.done():
            reason.set_result(f"connection lost: {future.result()}")

    lost.add_done_callback(done)
    return reason


def describe_ssh_error(exc: BaseException, settings: SshSettings) -> str:
    """One line for the status: what failed, where, and why."""
    target = settings.target()
    if isinstance(exc, ProbeError | RetryableError | PermanentError):
        return str(exc)
    if isinstance(exc, asyncssh.PermissionDenied):
        who = f"{settings.user}@" if settings.user else ""
        return f"authentication failed for {who}{target}: {exc.reason or exc}"
    if isinstance(exc, TimeoutError):
        return f"connecting to {target} timed out after {settings.connect_timeout:g} s"
    if isinstance(exc, asyncssh.Error):
        return f"ssh error from {target}: {exc.reason or exc}"
    return (
        f"cannot connect to {target}: {exc.strerror or exc}"
        if isinstance(exc, OSError)
        else str(exc)
    )
