"""Reading Codex's own ``CODEX_HOME/environments.toml`` with Codex's validation rules.

The file configures exec-server environments (``codex-protocol.md`` §8.1): a ``url``
(``ws://`` or ``wss://``) or a ``program`` with ``args``, ``env`` and ``cwd`` (relative to
CODEX_HOME). Selection order is Codex's: the default first, then ``local`` unless
``include_local = false``, then the others in file order (Codex's own order for those is
not deterministic). ``default = "none"`` selects nothing; no default with
``include_local = false`` selects nothing too.

Every rule that fails is one :class:`~envtui.settings.config.ConfigError`: file, line, key, message.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from envtui.settings.config import (
    ConfigError,
    ExecServerEnvironmentConfig,
    LocalEnvironmentConfig,
    find_line,
    websocket_url_problem,
)
from envtui.vocabulary.limits import TooLargeError, load_toml, read_text_bounded
from envtui.vocabulary.terms import LOCAL_ID
from envtui.vocabulary.validation import Seconds, first_error, key_path

_ID = re.compile(r"[A-Za-z0-9_-]+")
RESERVED_IDS = (LOCAL_ID, "none")


class CodexEnvironment(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    id: str
    url: str | None = None
    program: str | None = None
    args: list[str] | None = None
    env: dict[str, str] | None = None
    cwd: str | None = None
    connect_timeout_sec: Seconds | None = None
    initialize_timeout_sec: Seconds | None = None


class CodexEnvironmentsFile(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    default: str | None = None
    include_local: bool = True
    environments: list[CodexEnvironment] = []


def _environment_problem(
    env: CodexEnvironment, index: int, seen: set[str]
) -> tuple[list[Any], str] | None:
    at: list[Any] = ["environments", index]
    if not env.id:
        return [*at, "id"], "must not be empty"
    if env.id != env.id.strip():
        return [*at, "id"], "must not have surrounding whitespace"
    if len(env.id) > 64:
        return [*at, "id"], "must be at most 64 characters"
    if not _ID.fullmatch(env.id):
        return [*at, "id"], "may only contain ASCII letters, digits, - and _"
    if env.id.lower() in RESERVED_IDS:
        return [*at, "id"], f"{env.id!r} is reserved"
    if env.id in seen:
        return [*at, "id"], f"duplicate environment id {env.id!r}"
    seen.add(env.id)
    if (env.url is None) == (env.program is None):
        return at, "set exactly one of url and program"
    if env.url is not None:
        problem = websocket_url_problem(env.url)
        if problem is not None:
            return [*at, "url"], problem
        for key in ("args", "env", "cwd"):
            if getattr(env, key) is not None:
                return [*at, key], "requires program"
    elif env.program is not None:
        if not env.program.strip():
            return [*at, "program"], "must not be blank"
        if env.connect_timeout_sec is not None:
            return [*at, "connect_timeout_sec"], "requires url"
    return None


def _check(parsed: CodexEnvironmentsFile) -> tuple[list[Any], str] | None:
    seen: set[str] = set()
    for index, env in enumerate(parsed.environments):
        problem = _environment_problem(env, index, seen)
        if problem is not None:
            return problem
    default = parsed.default
    if default is not None and default.lower() != "none":
        if default == LOCAL_ID and not parsed.include_local:
            return ["default"], "names local, but include_local = false leaves it out"
        if default != LOCAL_ID and default not in seen:
            return ["default"], f"{default!r} is not a configured environment"
    return None


def selection_order(parsed: CodexEnvironmentsFile) -> list[str]:
    """Codex's order of the selected ids (the non-default ones in file order)."""
    default = parsed.default
    if default is not None and default.lower() == "none":
        return []
    if default is None:
        if not parsed.include_local:
            return []
        default = LOCAL_ID
    order = [default]
    if parsed.include_local and default != LOCAL_ID:
        order.append(LOCAL_ID)
    order += [env.id for env in parsed.environments if env.id not in order]
    return order


def parse_codex_environments(text: str, name: str = "environments.toml") -> CodexEnvironmentsFile:
    try:
        data = load_toml(text)
    except ValueError as exc:
        raise ConfigError(name, f"invalid TOML: {exc}") from None
    try:
        parsed = CodexEnvironmentsFile.model_validate(data)
    except ValidationError as exc:
        error = first_error(exc, messages={"extra_forbidden": "unknown key"})
        raise ConfigError(
            name, error.message, line=find_line(text, error.loc), key=error.key or None
        ) from None
    problem = _check(parsed)
    if problem is not None:
        loc, message = problem
        raise ConfigError(name, message, line=find_line(text, loc), key=key_path(loc))
    return parsed


def read_codex_environments(path: Path) -> CodexEnvironmentsFile:
    try:
        text = read_text_bounded(path)
    except FileNotFoundError:
        raise ConfigError(str(path), "file does not exist") from None
    except OSError as exc:
        raise ConfigError(str(path), f"cannot read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, TooLargeError) as exc:
        raise ConfigError(str(path), f"cannot read: {exc}") from None
    return parse_codex_environments(text, str(path))


def codex_environment_configs(
    path: Path, *, thread_cwd: str | None = None
) -> list[LocalEnvironmentConfig | ExecServerEnvironmentConfig]:
    """The environments Codex's file selects, in selection order, as envtui config entries.

    ``thread_cwd`` (default: the current directory) is the cwd every selected environment
    reports, as a Codex thread started here would; a program's relative ``cwd`` is resolved
    against CODEX_HOME (``$CODEX_HOME``, else the file's folder).
    """
    parsed = read_codex_environments(path)
    cwd = thread_cwd or os.getcwd()
    codex_home = os.environ.get("CODEX_HOME") or str(path.parent)
    by_id = {env.id: env for env in parsed.environments}
    environments: list[LocalEnvironmentConfig | ExecServerEnvironmentConfig] = []
    for env_id in selection_order(parsed):
        if env_id == LOCAL_ID:
            environments.append(LocalEnvironmentConfig(id=LOCAL_ID, kind="local", cwd=cwd))
            continue
        values = _exec_server_values(by_id[env_id], cwd, codex_home)
        try:
            environments.append(ExecServerEnvironmentConfig.model_validate(values))
        except ValidationError as exc:  # a rule of envtui's config that Codex's file lacks
            error = first_error(exc)
            raise ConfigError(
                str(path), f"environment {env_id!r}: {error.key}: {error.message}"
            ) from None
    return environments


def _exec_server_values(env: CodexEnvironment, cwd: str, codex_home: str) -> dict[str, Any]:
    """One of Codex's exec-server entries as the values of envtui's own config entry."""
    values: dict[str, Any] = {"id": env.id, "kind": "exec-server", "cwd": cwd}
    if env.url is not None:
        values["url"] = env.url
        if env.connect_timeout_sec is not None:
            values["connect_timeout"] = env.connect_timeout_sec
    else:
        values.update(program=env.program, args=env.args or [], env=env.env or {})
        if env.cwd is not None:
            values["program_cwd"] = (
                env.cwd if os.path.isabs(env.cwd) else os.path.join(codex_home, env.cwd)
            )
    if env.initialize_timeout_sec is not None:
        values["initialize_timeout"] = env.initialize_timeout_sec
    return values
