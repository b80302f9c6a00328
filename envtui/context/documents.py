"""Reading an environments section from JSON: a state document or a persisted snapshot.

Two forms are accepted, told apart by the type of ``environments``:

* a **state document** (the form of the golden vectors): ``environments`` is a list of
  ``{id, cwd, shell, status, primary, error}``, ``cwd`` a ``file://`` URI or native path
  text. It is strict: unknown keys, duplicate ids, several primaries or a primary that is
  not available are errors, because they are typos or states Codex cannot produce;
* a **snapshot** as Codex writes it in rollout ``world_state`` items: ``environments`` is
  an object keyed by id. It is lenient, as Codex is: unknown keys are ignored.

Errors are :class:`DocumentError` values carrying the field path, so a command line can
say which field of which file is wrong in one line.
"""

from __future__ import annotations

from typing import Any, Final, Literal, TypeGuard, TypeVar

from envtui.context.errors import FieldError
from envtui.context.model import (
    DisabledProfile,
    EnvironmentsState,
    EnvironmentState,
    ExternalProfile,
    FileSystemContext,
    FileSystemEntry,
    ManagedProfile,
    NetworkContext,
    RestrictedFileSystem,
    UnrestrictedFileSystem,
)
from envtui.context.paths import path_text
from envtui.context.snapshot import state_from_snapshot

DocumentForm = Literal["state", "snapshot"]
JSONObject = dict[str, Any]


DocumentError = FieldError
"""A document that is neither form, or a wrong field in one; ``field`` says where."""


def detect_form(document: object) -> DocumentForm:
    """``state`` when ``environments`` is a list, ``snapshot`` when it is an object."""
    if not isinstance(document, dict):
        raise DocumentError("(document)", "expected a JSON object or null")
    if "environments" not in document:
        raise DocumentError(
            "environments", "missing: a list (state document) or an object (snapshot)"
        )
    environments = document["environments"]
    if isinstance(environments, list):
        return "state"
    if isinstance(environments, dict):
        return "snapshot"
    raise DocumentError(
        "environments",
        f"expected a list (state document) or an object (snapshot), got {_json_type(environments)}",
    )


def parse_document(document: object) -> EnvironmentsState | None:
    """The section a document describes; JSON ``null`` means there is no section."""
    if document is None:
        return None
    if detect_form(document) == "snapshot":
        return state_from_snapshot(document)  # its SnapshotError is a DocumentError
    return parse_state_document(document)


def parse_state_document(document: object) -> EnvironmentsState:
    """Validate a state document and convert it: URIs become native path text.

    A well-formed document passes :func:`conforms` (standard library only, so rendering
    imports no pydantic); any other goes to pydantic, which names its first error in the
    words every input of envtui uses, or accepts it after all.
    """
    if not conforms(document):
        from envtui.context.document_schema import check_state_document

        check_state_document(document)
    assert isinstance(document, dict)
    return _convert(document)


_STATE_KEYS: Final = frozenset(
    {"environments", "current_date", "timezone", "network", "filesystem", "subagents"}
)
_ENVIRONMENT_KEYS: Final = frozenset({"id", "cwd", "shell", "status", "primary", "error"})
_ENTRY_KEYS: Final = frozenset({"access", "path", "glob", "special", "missing_path_behavior"})
_STATUSES: Final = frozenset({"available", "starting", "failed"})
_ACCESSES: Final = frozenset({"read", "write", "deny"})
_PLAIN_PROFILES: Final = frozenset({"disabled", "external"})


def conforms(document: object) -> bool:
    """Whether ``document`` is a valid state document, by the rules of ``document_schema``.

    It only answers yes or no; the error of a document that fails is pydantic's to word.
    """
    if not _object_of(document, _STATE_KEYS) or not _list_of(document.get("environments")):
        return False
    environments = document["environments"]
    if not all(_environment_conforms(env) for env in environments):
        return False
    ids = {env["id"] for env in environments}
    primaries = sum(1 for env in environments if env.get("primary", False))
    network, filesystem = document.get("network"), document.get("filesystem")
    return (
        len(ids) == len(environments)
        and primaries <= 1
        and all(_optional_text(document, key) for key in _STRING_KEYS)
        and (network is None or _network_conforms(network))
        and (filesystem is None or _filesystem_conforms(filesystem))
    )


_STRING_KEYS: Final = ("current_date", "timezone", "subagents")


def _object_of(value: object, keys: frozenset[str]) -> TypeGuard[JSONObject]:
    return type(value) is dict and keys.issuperset(value)


def _list_of(value: object, item: type | None = None) -> TypeGuard[list[Any]]:
    return type(value) is list and (item is None or all(type(v) is item for v in value))


def _optional_text(value: JSONObject, key: str) -> bool:
    return value.get(key) is None or type(value[key]) is str


def _environment_conforms(env: object) -> bool:
    if not _object_of(env, _ENVIRONMENT_KEYS):
        return False
    status = env.get("status", "available")
    primary = env.get("primary", False)
    return (
        type(env.get("id")) is str
        and type(env.get("cwd")) is str
        and _optional_text(env, "shell")
        and _optional_text(env, "error")
        and type(status) is str
        and status in _STATUSES
        and type(primary) is bool
        and (not primary or status == "available")
        and (status != "failed" or env.get("error") is not None)
    )


def _network_conforms(network: object) -> bool:
    return (
        _object_of(network, frozenset({"allowed", "denied"}))
        and _list_of(network.get("allowed", []), str)
        and _list_of(network.get("denied", []), str)
    )


def _filesystem_conforms(filesystem: object) -> bool:
    if not _object_of(filesystem, frozenset({"workspace_roots", "permission_profile"})):
        return False
    profile = filesystem.get("permission_profile")
    if not _list_of(filesystem.get("workspace_roots", []), str) or type(profile) is not dict:
        return False
    kind = profile.get("type")
    if type(kind) is str and kind in _PLAIN_PROFILES:
        return _object_of(profile, frozenset({"type"}))
    if kind != "managed" or not _object_of(profile, frozenset({"type", "file_system"})):
        return False
    file_system = profile.get("file_system")
    if type(file_system) is not dict:
        return False
    if file_system.get("type") == "unrestricted":
        return _object_of(file_system, frozenset({"type"}))
    depth = file_system.get("glob_scan_max_depth")
    entries = file_system.get("entries", [])
    return (
        file_system.get("type") == "restricted"
        and _object_of(file_system, frozenset({"type", "glob_scan_max_depth", "entries"}))
        and (depth is None or (type(depth) is int and depth >= 0))
        and _list_of(entries)
        and all(_entry_conforms(entry) for entry in entries)
    )


def _entry_conforms(entry: object) -> bool:
    access = entry.get("access") if type(entry) is dict else None
    return (
        _object_of(entry, _ENTRY_KEYS)
        and type(access) is str
        and access in _ACCESSES
        and all(_optional_text(entry, key) for key in _ENTRY_KEYS - {"access"})
    )


def _convert(doc: JSONObject) -> EnvironmentsState:
    """The state of a document that is known to be valid (so every key read has its type)."""
    environments = {
        env["id"]: _model(
            f"environments[{index}]",
            EnvironmentState,
            cwd=_path(f"environments[{index}].cwd", env["cwd"]),
            status=env.get("status", "available"),
            shell=env.get("shell"),
            is_primary=env.get("primary", False),
            error=env.get("error"),
        )
        for index, env in enumerate(doc["environments"])
    }
    network = doc.get("network")
    filesystem = doc.get("filesystem")
    return EnvironmentsState(
        environments=environments,
        current_date=doc.get("current_date"),
        timezone=doc.get("timezone"),
        network=None
        if network is None
        else NetworkContext(
            allowed_domains=tuple(network.get("allowed", ())),
            denied_domains=tuple(network.get("denied", ())),
        ),
        filesystem=None if filesystem is None else _convert_filesystem(filesystem),
        subagents=doc.get("subagents"),
    )


_ENTRIES = "filesystem.permission_profile.file_system.entries"


def _convert_filesystem(doc: JSONObject) -> FileSystemContext:
    profile_doc = doc["permission_profile"]
    profile: DisabledProfile | ExternalProfile | ManagedProfile
    if profile_doc["type"] in _PLAIN_PROFILES:
        profile = DisabledProfile() if profile_doc["type"] == "disabled" else ExternalProfile()
    elif profile_doc["file_system"]["type"] == "unrestricted":
        profile = ManagedProfile(file_system=UnrestrictedFileSystem())
    else:
        restricted = profile_doc["file_system"]
        entries = tuple(
            _model(
                f"{_ENTRIES}[{index}]",
                FileSystemEntry,
                access=entry["access"],
                path=None
                if entry.get("path") is None
                else _path(f"{_ENTRIES}[{index}].path", entry["path"]),
                glob=entry.get("glob"),
                special=entry.get("special"),
                missing_path_behavior=entry.get("missing_path_behavior"),
            )
            for index, entry in enumerate(restricted.get("entries", ()))
        )
        profile = ManagedProfile(
            file_system=RestrictedFileSystem(
                glob_scan_max_depth=restricted.get("glob_scan_max_depth"), entries=entries
            )
        )
    roots = tuple(
        _path(f"filesystem.workspace_roots[{index}]", root)
        for index, root in enumerate(doc.get("workspace_roots", ()))
    )
    return FileSystemContext(workspace_roots=roots, permission_profile=profile)


ModelT = TypeVar("ModelT")


def _model(where: str, cls: type[ModelT], **values: Any) -> ModelT:
    """``cls(**values)``; a combination the model refuses is a :class:`DocumentError` there.

    The document's own checks come first; this keeps a rule of the model that a document
    check does not repeat (an ``error`` on an environment that did not fail, an entry with
    two targets) an error of the input, never a crash.
    """
    try:
        return cls(**values)
    except ValueError as exc:
        raise DocumentError(where, str(exc)) from None


def _path(where: str, value: str) -> str:
    """Native path text for ``value``; a ``file://`` URI that cannot be parsed is an error."""
    try:
        return path_text(value)
    except ValueError as exc:
        raise DocumentError(where, str(exc)) from None


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"
