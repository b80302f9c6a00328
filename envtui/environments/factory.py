"""Environment instances from configuration entries."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from envtui.context.local_time import system_clock
from envtui.environments.base import Environment
from envtui.environments.exec_server import ExecServerEnvironment, ExecServerSettings
from envtui.environments.local import LocalEnvironment
from envtui.environments.ssh import SshEnvironment, SshSettings
from envtui.settings.config import (
    AnyEnvironmentConfig,
    ExecServerEnvironmentConfig,
    HostSshConfig,
    LocalEnvironmentConfig,
    SshEnvironmentConfig,
)
from envtui.settings.locations import DEFAULT_KNOWN_HOSTS


def ssh_settings(
    config: SshEnvironmentConfig | ExecServerEnvironmentConfig | HostSshConfig,
    *,
    hermetic: bool = False,
) -> SshSettings:
    assert config.host is not None
    return SshSettings(
        host=config.host,
        port=config.port,
        user=config.user,
        identity_files=tuple(config.identity_files) if config.identity_files is not None else None,
        known_hosts=config.known_hosts_files() or (DEFAULT_KNOWN_HOSTS,),
        accept_new_host_keys=config.accept_new_host_keys,
        connect_timeout=config.connect_timeout,
        keepalive_interval=config.keepalive_interval,
        keepalive_count_max=config.keepalive_count_max,
        backoff_initial=config.backoff_initial,
        backoff_max=config.backoff_max,
        read_ssh_config=not hermetic,
        use_agent=not hermetic,
    )


def build_environment(
    config: AnyEnvironmentConfig,
    *,
    clock: Callable[[], datetime] = system_clock,
    hermetic: bool = False,
) -> Environment:
    if isinstance(config, LocalEnvironmentConfig):
        return LocalEnvironment(config.id, config.cwd)
    if isinstance(config, SshEnvironmentConfig):
        return SshEnvironment(
            config.id, config.cwd, ssh_settings(config, hermetic=hermetic), clock=clock
        )
    return ExecServerEnvironment(
        config.id, config.cwd, exec_server_settings(config, hermetic=hermetic), clock=clock
    )


def exec_server_settings(
    config: ExecServerEnvironmentConfig, *, hermetic: bool = False
) -> ExecServerSettings:
    """``hermetic`` keeps an exec-server's SSH host away from ``~/.ssh/config`` and the agent."""
    return ExecServerSettings(
        program=config.program,
        args=tuple(config.args),
        env=dict(config.env),
        program_cwd=config.program_cwd,
        url=config.url,
        ssh=ssh_settings(config, hermetic=hermetic) if config.host is not None else None,
        connect_timeout=config.connect_timeout,
        initialize_timeout=config.initialize_timeout,
        keepalive_interval=config.keepalive_interval,
        backoff_initial=config.backoff_initial,
        backoff_max=config.backoff_max,
    )
