"""envtui's TOML configuration, validated with pydantic; errors name file, line and key.

Environments are listed in selection order: the first is the intended primary. Every kind
takes ``id``, ``kind``, ``cwd`` and ``workspace_roots``; ``ssh`` adds the connection keys;
``exec-server`` adds ``program``, ``args``, ``env`` and, when it runs on a host, the ssh
keys. A key a kind does not take is an error, and types are strict (``port = "22"`` is an
error). tomllib gives no positions, so the line of a key is found by scanning the text.

Lookup: ``--config`` wins over ``$ENVTUI_CONFIG``, which wins over the default
(``envtui.settings.locations.default_config_file``: ``$XDG_CONFIG_HOME/envtui/config.toml`` on
Linux). With no config at all, envtui watches one local environment in the current
directory.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from envtui.context.paths import path_text
from envtui.settings.alerts_config import AlertsConfig
from envtui.settings.locations import CONFIG_VARIABLE, default_config_file
from envtui.settings.suggestions import keys_at
from envtui.vocabulary.limits import TooLargeError, load_toml, read_text_bounded
from envtui.vocabulary.profiles import DEFAULT_PROFILE, Profile
from envtui.vocabulary.safe_text import one_line
from envtui.vocabulary.suggest import did_you_mean
from envtui.vocabulary.terms import LOCAL_ID
from envtui.vocabulary.validation import FirstError, Seconds, every_error, key_path

ENVIRONMENT_KINDS = ("local", "ssh", "exec-server")

_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _valid_id(value: str) -> str:
    if not _ID.fullmatch(value):
        raise ValueError("must be 1 to 64 ASCII letters, digits, - or _")
    return value


EnvironmentId = Annotated[str, AfterValidator(_valid_id)]
NonBlank = Annotated[str, StringConstraints(min_length=1, pattern=r"\S")]


def _valid_cwd(value: str) -> str:
    path_text(value)  # a file:// URI must parse; its ValueError names the problem
    return value


def websocket_url_problem(url: str) -> str | None:
    """Why ``url`` is not a ``ws://`` or ``wss://`` address envtui can connect to, or None."""
    if not re.fullmatch(r"wss?://\S+", url):
        return "must be ws:// or wss:// followed by a host, without spaces"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises for a port out of range
    except ValueError as exc:
        return f"not a valid url: {exc}"
    return None if parts.hostname else "has no host"


def _valid_url(value: str) -> str:
    problem = websocket_url_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def _visible(value: str) -> str:
    if one_line(value) != value:
        raise ValueError("must not contain control or invisible characters")
    return value


VisibleText = Annotated[str, AfterValidator(_visible)]
"""Text shown as it is (key names in the footer, a theme name): nothing to escape in it."""

Cwd = Annotated[str, StringConstraints(min_length=1, pattern=r"\S"), AfterValidator(_valid_cwd)]


class ConfigError(Exception):
    """One line: ``FILE:LINE: KEY: message`` (LINE and KEY when they are known)."""

    def __init__(self, path: str, message: str, *, line: int | None = None, key: str | None = None):
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {key}: {message}" if key else f"{where}: {message}")
        self.path = path
        self.line = line
        self.key = key
        self.message = message


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _EnvironmentBase(_Strict):
    id: EnvironmentId
    cwd: Cwd
    workspace_roots: list[str] = []


class _SshKeys(_Strict):
    """Connection keys. Unset ones are not passed, so ``~/.ssh/config`` decides."""

    port: Annotated[int, Field(ge=1, le=65535)] | None = None
    user: NonBlank | None = None
    identity_files: list[str] | None = None
    known_hosts: str | list[str] | None = None
    accept_new_host_keys: bool = False
    connect_timeout: Seconds = 10.0
    keepalive_interval: Seconds = 5.0
    keepalive_count_max: Annotated[int, Field(ge=1)] = 3
    backoff_initial: Seconds = 1.0
    backoff_max: Seconds = 60.0

    @model_validator(mode="after")
    def _backoff_order(self) -> _SshKeys:
        if self.backoff_max < self.backoff_initial:
            raise ValueError("backoff_max must not be smaller than backoff_initial")
        return self

    def known_hosts_files(self) -> tuple[str, ...] | None:
        if self.known_hosts is None:
            return None
        return (self.known_hosts,) if isinstance(self.known_hosts, str) else tuple(self.known_hosts)


class LocalEnvironmentConfig(_EnvironmentBase):
    kind: Literal["local"]


class _RemoteEnvironmentBase(_EnvironmentBase, _SshKeys):
    """What every remote kind shares: the ssh keys, and an id other than ``local``."""

    @field_validator("id")
    @classmethod
    def _not_local(cls, value: str) -> str:
        if value == LOCAL_ID:
            raise ValueError(f'{LOCAL_ID!r} is reserved for kind = "local"')
        return value


class SshEnvironmentConfig(_RemoteEnvironmentBase):
    kind: Literal["ssh"]
    host: NonBlank


class ExecServerEnvironmentConfig(_RemoteEnvironmentBase):
    """A Codex exec-server: ``program`` (run locally, or on ``host``) or a ``ws://`` ``url``."""

    kind: Literal["exec-server"]
    program: NonBlank | None = None
    args: list[str] = []
    env: dict[str, str] = {}
    url: Annotated[str, AfterValidator(_valid_url)] | None = None
    host: NonBlank | None = None
    program_cwd: NonBlank | None = None  # where the program runs (locally); default: here
    initialize_timeout: Seconds = 10.0


_HOST_ONLY_KEYS = frozenset(_SshKeys.model_fields) - {
    "connect_timeout",
    "keepalive_interval",
    "backoff_initial",
    "backoff_max",
}


class HostSshConfig(_SshKeys):
    """How a host of ``envtui sessions`` is reached: an SSH environment's keys and rules."""

    host: NonBlank


class HostConfig(_Strict):
    """A machine whose Codex threads ``envtui sessions`` shows; no ``ssh``: this one."""

    name: Annotated[VisibleText, StringConstraints(min_length=1, max_length=64, pattern=r"\S")]
    ssh: HostSshConfig | None = None
    codex_home: NonBlank = "~/.codex"  # on that host; its rollouts are under sessions/
    codex: NonBlank | None = None  # the codex binary on that host; default: from PATH


AnyEnvironmentConfig = LocalEnvironmentConfig | SshEnvironmentConfig | ExecServerEnvironmentConfig

EnvironmentConfig = Annotated[
    LocalEnvironmentConfig | SshEnvironmentConfig | ExecServerEnvironmentConfig,
    Field(discriminator="kind"),
]


class NetworkConfig(_Strict):
    allowed: list[str] = []
    denied: list[str] = []


class Config(_Strict):
    timezone: str | None = None
    profile: Literal["codex-0.171", "codex-0.150"] = DEFAULT_PROFILE.value
    include_environment_context: bool = True
    theme: VisibleText | None = None  # the dashboard's theme; default envtui-dark
    keymap: dict[VisibleText, VisibleText] = {}  # binding id -> keys, e.g. { pause = "space" }
    event_log_lines: Annotated[int, Field(ge=10, le=1_000_000)] = 10_000
    step_history: Annotated[int, Field(ge=1, le=100_000)] = 1_000
    environment_events: Annotated[int, Field(ge=1, le=10_000)] = 50  # each one's own history
    status_history: Annotated[int, Field(ge=2, le=100_000)] = 500  # transitions each keeps
    ascii: bool = False  # the dashboard draws every glyph in ASCII
    step_interval: Seconds = 2.0  # seconds between the engine's own steps
    network: NetworkConfig | None = None
    alerts: AlertsConfig = AlertsConfig()
    environments: list[EnvironmentConfig] = []
    hosts: list[HostConfig] = []
    _keymap_where: dict[str, str] = PrivateAttr(default_factory=dict)

    @property
    def keymap_where(self) -> dict[str, str]:
        """Binding id → ``FILE:LINE`` where the config file sets it (for the dashboard's
        notice about an id no binding has); empty for a config not read from a file."""
        return dict(self._keymap_where)

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                ZoneInfo(value)
            except Exception:
                raise ValueError(f"unknown IANA time zone {value!r}") from None
        return value

    @property
    def codex_profile(self) -> Profile:
        return Profile(self.profile)

    def selected(self) -> list[AnyEnvironmentConfig]:
        """The environments in selection order; one local in the current directory if none."""
        if self.environments:
            return list(self.environments)
        return [LocalEnvironmentConfig(id=LOCAL_ID, kind="local", cwd=os.getcwd())]


# --- finding and reading the file -----------------------------------------------------------


@dataclass(frozen=True)
class ConfigSource:
    """Where the config came from; ``path`` None means the built-in default."""

    path: Path | None
    reason: str


def locate_config(cli_path: str | None) -> ConfigSource:
    """Which config envtui reads, and why: ``--config``, ``$ENVTUI_CONFIG``, the default."""
    if cli_path:
        return ConfigSource(Path(cli_path), "--config")
    named = os.environ.get(CONFIG_VARIABLE)
    if named:
        return ConfigSource(Path(named), f"${CONFIG_VARIABLE}")
    default = default_config_file()
    if default.exists():
        return ConfigSource(default, "the default location")
    return ConfigSource(None, f"no config file ({default} does not exist)")


def load_config(cli_path: str | None = None) -> Config:
    source = locate_config(cli_path)
    if source.path is None:
        return Config()
    if source.reason == "the default location" and not source.path.is_file():
        # found, not named: a FIFO or a device there must not block every command
        raise ConfigError(str(source.path), "not a regular file")
    return read_config(source.path)


def read_config(path: Path) -> Config:
    name = str(path)
    try:
        text = read_text_bounded(path)
    except FileNotFoundError:
        raise ConfigError(name, "config file does not exist") from None
    except OSError as exc:
        raise ConfigError(name, f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(name, f"not UTF-8 (invalid byte at offset {exc.start})") from None
    except TooLargeError as exc:
        raise ConfigError(name, str(exc)) from None
    return parse_config(text, name)


_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


def parse_config(text: str, name: str = "<config>") -> Config:
    try:
        data = load_toml(text)
    except ValueError as exc:
        match = _TOML_POSITION.search(str(exc))
        message = _TOML_POSITION.sub("", str(exc)).strip()
        raise ConfigError(
            name, f"invalid TOML: {message}", line=int(match.group(1)) if match else None
        ) from None
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise _config_error(exc, text, name) from None
    problem = _cross_check(config)
    if problem is not None:
        loc, message = problem
        raise ConfigError(name, message, line=find_line(text, loc), key=key_path(loc))
    for binding_id in config.keymap:
        line = find_line(text, ["keymap", binding_id])
        if line is not None:
            config._keymap_where[binding_id] = f"{name}:{line}"
    return config


def _exec_server_problem(env: ExecServerEnvironmentConfig) -> tuple[str | None, str] | None:
    given = env.model_fields_set
    if (env.program is None) == (env.url is None):
        return None, "an exec-server needs exactly one of program and url"
    if env.url is not None:
        for key in ("args", "env", "host", "program_cwd"):
            if key in given:
                return key, "only taken with program, not with url"
    if env.host is None:
        used = sorted(given & _HOST_ONLY_KEYS)
        if used:
            return used[0], "only taken when the exec-server runs on a host (set host)"
    return None


def _cross_check(config: Config) -> tuple[list[Any], str] | None:
    """Rules that span keys or environments, reported at the key that breaks them."""
    seen: set[str] = set()
    for index, env in enumerate(config.environments):
        if env.id in seen:
            return ["environments", index, "id"], f"duplicate environment id {env.id!r}"
        seen.add(env.id)
        if isinstance(env, ExecServerEnvironmentConfig):
            problem = _exec_server_problem(env)
            if problem is not None:
                key, message = problem
                return ["environments", index, *([key] if key else [])], message
    names: set[str] = set()
    for index, host in enumerate(config.hosts):
        if host.name in names:
            return ["hosts", index, "name"], f"duplicate host name {host.name!r}"
        names.add(host.name)
    return None


_KIND_TAGS = frozenset(ENVIRONMENT_KINDS)


CONFIG_MESSAGES = {
    "extra_forbidden": "unknown key",
    "missing": "required key is missing",
    "union_tag_not_found": f"missing; one of {', '.join(ENVIRONMENT_KINDS)}",
}
"""How config errors read: in the words of someone editing a TOML file."""


def _config_error(exc: ValidationError, text: str, name: str) -> ConfigError:
    errors = [replace(e, loc=_written(e.loc)) for e in every_error(exc, messages=CONFIG_MESSAGES)]
    typo = next((e for e in errors if _suggestion(e) is not None), None)
    error = typo or errors[0]  # a mistyped key says more than the required key it stands for
    loc, message = error.loc, error.message
    suggestion = _suggestion(error)
    if suggestion is not None:
        message = f"{message}; {suggestion}"
    if error.kind in ("union_tag_not_found", "union_tag_invalid"):
        loc = [*loc, "kind"]
    if error.kind == "union_tag_invalid" and isinstance(error.input, dict):
        kinds = ", ".join(ENVIRONMENT_KINDS)
        message = f"expected one of {kinds}, got {error.input.get('kind')!r}"
    return ConfigError(name, message, line=find_line(text, loc), key=key_path(loc) or None)


def _written(loc: list[Any]) -> list[Any]:
    """``loc`` as the file writes it: an environment's kind tag (a step of the union, not
    a key) left out; a host's ``ssh`` is a key and stays."""
    if len(loc) > 2 and loc[0] == "environments" and loc[2] in _KIND_TAGS:
        return [*loc[:2], *loc[3:]]
    return loc


def _suggestion(error: FirstError) -> str | None:
    """ "did you mean …" for an unknown key near one its table takes."""
    if error.kind != "extra_forbidden" or not error.loc:
        return None
    return did_you_mean(str(error.loc[-1]), keys_at(Config, error.loc[:-1]))


_TABLE = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\"'-]+)\s*\]\]?\s*(#.*)?$")


def find_line(text: str, loc: list[Any]) -> int | None:
    """The 1-based line of the key at ``loc``, else of its table, else None.

    Handles what envtui's config uses: top-level keys, ``[network]``, ``[[environments]]``
    and ``[[hosts]]`` tables (with a ``[hosts.ssh]`` table of the latest host) with
    ``key = value`` lines.
    """
    lines = text.splitlines()
    table: tuple[Any, ...] = ()
    counts: dict[str, int] = {}
    headers: dict[tuple[Any, ...], int] = {}
    keys: dict[tuple[Any, ...], int] = {}
    for number, line in enumerate(lines, start=1):
        header = _TABLE.match(line)
        if header:
            name = header.group(2).strip("\"'")
            if header.group(1) == "[[":
                index = counts.get(name, 0)
                counts[name] = index + 1
                table = (name, index)
                headers.setdefault((name,), number)  # an unknown array of tables is here
            else:
                first, _, rest = name.partition(".")
                within = (first, counts[first] - 1) if rest and first in counts else (name,)
                table = (*within, *rest.split(".")) if len(within) == 2 else within
            headers.setdefault(table, number)
            continue
        key = re.match(r"^\s*([\"']?)([A-Za-z0-9_-]+)\1\s*=", line)
        if key:
            keys.setdefault((*table, key.group(2)), number)
    path = tuple(loc)
    for end in range(len(path), 0, -1):
        prefix = path[:end]
        if prefix in keys:
            return keys[prefix]
        if prefix in headers:
            return headers[prefix]
    return None
