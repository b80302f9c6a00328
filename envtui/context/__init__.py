"""The ``<environment_context>`` engine: model, render, diff, snapshot, merge patch, paths.

Everything here is pure and headless (standard library and pydantic only), so the
command line, the runtime and tests use it without paying for Textual or asyncio I/O.
"""

from envtui.context.diff import render_diff
from envtui.context.documents import DocumentError, detect_form, parse_document
from envtui.context.escape import esc
from envtui.context.local_time import current_date, detect_timezone
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
from envtui.context.patch import (
    apply_merge_patch,
    apply_world_patch,
    create_merge_patch,
    json_equal,
    remove_null_object_fields,
    world_merge_patch,
)
from envtui.context.paths import native, normalize_file_uri, path_text
from envtui.context.render import render_full
from envtui.context.snapshot import SnapshotError, restore_snapshot, snapshot, state_from_snapshot

SECTION_ID = "environments"
"""The world-state section id of the environments section."""

__all__ = [
    "SECTION_ID",
    "DisabledProfile",
    "DocumentError",
    "EnvironmentState",
    "EnvironmentsState",
    "ExternalProfile",
    "FileSystemContext",
    "FileSystemEntry",
    "ManagedProfile",
    "NetworkContext",
    "RestrictedFileSystem",
    "SnapshotError",
    "UnrestrictedFileSystem",
    "apply_merge_patch",
    "apply_world_patch",
    "create_merge_patch",
    "current_date",
    "detect_form",
    "detect_timezone",
    "esc",
    "json_equal",
    "native",
    "normalize_file_uri",
    "parse_document",
    "path_text",
    "remove_null_object_fields",
    "render_diff",
    "render_full",
    "restore_snapshot",
    "snapshot",
    "state_from_snapshot",
    "world_merge_patch",
]
