"""Codex exec-server environments: a stdio program, the same over SSH, or a websocket.

Whatever carries it, the handshake is the same newline-delimited JSON-RPC (codex-protocol
§8.3): ``initialize`` with a ``clientName``, the ``initialized`` notification, then
``environment/info``, whose ``shell`` and ``cwd`` make the readiness. As in Codex, an
``environment/info`` that fails leaves the environment ready, with no shell. The
environment stays ready until the channel closes: the process exits, the SSH channel or
connection goes, the socket closes. Then it is unavailable with that reason and retried
with the backoff.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from envtui.context.paths import path_text
from envtui.environments.channels import ProcessChannel, SshProcessChannel, WebSocketChannel
from envtui.environments.jsonrpc import ChannelClosedError, JsonRpcClient, MessageChannel, RpcError
from envtui.environments.remote import PermanentError, RemoteEnvironment, RetryableError
from envtui.environments.ssh import SshSettings, describe_ssh_error
from envtui.steps.selection import Readiness

CLIENT_NAME = "envtui"


@dataclass(frozen=True)
class ExecServerSettings:
    """Exactly one of ``program`` (run locally, or on ``ssh.host``) and ``url``."""

    program: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    program_cwd: str | None = None
    url: str | None = None
    ssh: SshSettings | None = None
    connect_timeout: float = 10.0
    initialize_timeout: float = 10.0
    info_timeout: float | None = None
    """The bound on ``environment/info``; None: ``initialize_timeout``. Separate because the
    ``initialize`` wait includes the program's start-up and this one does not."""
    keepalive_interval: float = 5.0
    backoff_initial: float = 1.0
    backoff_max: float = 60.0

    def __post_init__(self) -> None:
        if (self.program is None) == (self.url is None):
            raise ValueError("an exec-server needs exactly one of program and url")
        if self.url is not None and self.ssh is not None:
            raise ValueError("a websocket exec-server is not reached over ssh")

    def describe(self) -> str:
        if self.url is not None:
            return self.url
        where = f" on {self.ssh.host}" if self.ssh is not None else ""
        return f"{self.program}{where}"


def readiness_from_info(info: object, fallback_cwd: str) -> Readiness:
    """``EnvironmentInfo`` → readiness: ``shell.name``, ``shell.path`` and native ``cwd``."""
    shell: Any = info.get("shell") if isinstance(info, dict) else None
    name = shell.get("name") if isinstance(shell, dict) else None
    path = shell.get("path") if isinstance(shell, dict) else None
    cwd = info.get("cwd") if isinstance(info, dict) else None
    native_cwd = fallback_cwd
    if isinstance(cwd, str):
        with contextlib.suppress(ValueError):  # a URI that cannot be parsed: the config's cwd
            native_cwd = path_text(cwd)
    return Readiness(
        shell_name=name if isinstance(name, str) else None,
        shell_path=path if isinstance(path, str) else None,
        cwd=native_cwd,
    )


class ExecServerEnvironment(RemoteEnvironment[ExecServerSettings]):
    kind: ClassVar[str] = "exec-server"
    _channel: MessageChannel | None = None
    _rpc: JsonRpcClient | None = None
    info: object = None
    """The last ``EnvironmentInfo``, for whoever wants more than the shell."""

    @property
    def pid(self) -> int | None:
        """The local child's pid while it runs (stdio form only)."""
        return self._channel.pid if isinstance(self._channel, ProcessChannel) else None

    async def _open_channel(self) -> MessageChannel:
        settings = self.settings
        if settings.url is not None:
            return await WebSocketChannel.connect(
                settings.url,
                timeout=settings.connect_timeout,
                keepalive=settings.keepalive_interval,
            )
        assert settings.program is not None
        if settings.ssh is None:
            return await ProcessChannel.spawn(
                settings.program, settings.args, env=settings.env, cwd=settings.program_cwd
            )
        return await SshProcessChannel.open(
            settings.ssh,
            settings.program,
            settings.args,
            settings.env,
            client_keys=self._client_keys,
            on_note=self._note,
        )

    async def _establish(self) -> tuple[Readiness, asyncio.Future[str]]:
        self._channel = await self._open_channel()
        self._rpc = rpc = JsonRpcClient(self._channel)
        rpc.start()
        timeout = self.settings.initialize_timeout
        try:
            await rpc.request("initialize", {"clientName": CLIENT_NAME}, timeout=timeout)
        except TimeoutError:
            raise RetryableError(
                f"exec-server did not answer initialize within {timeout:g} s"
            ) from None
        except RpcError as exc:
            raise RetryableError(f"exec-server refused initialize: {exc}") from None
        except ChannelClosedError as exc:
            raise RetryableError(str(exc)) from None
        await rpc.notify("initialized")
        info_timeout = self.settings.info_timeout
        try:
            self.info = await rpc.request(
                "environment/info", {}, timeout=timeout if info_timeout is None else info_timeout
            )
        except (TimeoutError, RpcError):
            self.info = None  # Codex: still ready, with no shell
        except ChannelClosedError as exc:
            raise RetryableError(str(exc)) from None
        return readiness_from_info(self.info, self.cwd), rpc.closed

    async def _teardown(self) -> None:
        """Close the client and the channel; kept until closed, so a close that is cancelled
        half-way is done again by :meth:`aclose` (closing twice is harmless)."""
        if self._rpc is not None:
            await self._rpc.aclose()  # closes the channel too
        elif self._channel is not None:
            await self._channel.close()
        self._rpc = None
        self._channel = None

    def _describe(self, exc: BaseException) -> str:
        if isinstance(exc, RetryableError | PermanentError):
            return str(exc)
        if self.settings.ssh is not None:
            return describe_ssh_error(exc, self.settings.ssh)
        if isinstance(exc, OSError):
            return f"exec-server {self.settings.describe()}: {exc.strerror or exc}"
        return f"exec-server {self.settings.describe()}: {exc}"
