"""File URI → native path text (environment-context.md §3)."""

from __future__ import annotations

import base64

import pytest

from envtui.context.paths import BAD_PATH_PREFIX, native, normalize_file_uri, path_text


def _opaque(raw: bytes) -> str:
    return BAD_PATH_PREFIX + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        ("file:///", "/"),
        ("file:///a/", "/a/"),
        ("file:///a%252Fb", "/a%2Fb"),
        ("file:///a%2Fb", "/a/b"),
        ("file:///caf%C3%A9", "/café"),
        ("file:///bad%FF", "/bad\ufffd"),
        ("file:///C:", "C:\\"),
        ("file:///C:/", "C:\\"),
        ("file:///c:/x", "C:\\x"),
        ("file://server/share", "\\\\server\\share"),
        ("file://SERVER/share/a%20b", "\\\\server\\share\\a b"),
    ],
)
def test_native(uri: str, expected: str) -> None:
    assert native(uri) == expected


def test_opaque_posix_bytes_are_lossy_utf8() -> None:
    assert native(_opaque(b"/tmp/\xffx")) == "/tmp/\ufffdx"


def test_opaque_windows_wide_string_is_utf16() -> None:
    assert native(_opaque("C:\\x".encode("utf-16-le"))) == "C:\\x"
    assert native(_opaque("\\\\s\\h".encode("utf-16-le"))) == "\\\\s\\h"


def test_opaque_payload_that_is_not_canonical_is_decoded_as_a_posix_uri() -> None:
    uri = BAD_PATH_PREFIX + "YQ=="
    assert native(uri) == "/\x00/bad/path/YQ=="


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        ("FILE:///repo", "file:///repo"),
        ("file://localhost/repo", "file:///repo"),
        ("file://LOCALHOST/repo", "file:///repo"),
        ("file:///a/./b/../c", "file:///a/c"),
        ("file:///a/b/..", "file:///a/"),
        ("file:///a/%2e%2E/b", "file:///b"),
        ("file:///c:/x/../../y", "file:///C:/y"),
        ("file:///repo?query#fragment", "file:///repo"),
        ("file://Server/share/x", "file://server/share/x"),
    ],
)
def test_normalize_file_uri(uri: str, expected: str) -> None:
    assert normalize_file_uri(uri) == expected


def test_path_text_takes_native_text_as_is() -> None:
    assert path_text("/a/./b") == "/a/./b"
    assert path_text("C:\\x") == "C:\\x"
    assert path_text("File:///a/./b") == "/a/b"
