"""The packets between ``envtui serve`` and a tab's dashboard: textual-serve's framing.

Textual's web driver and textual-serve speak in packets over a dashboard process's standard
input and output: one byte for the kind, four for the payload's size (big-endian), then the
payload. A served tab here speaks the same over a socket of its own:

- ``D``: screen output (to the server) or what the browser typed (to the dashboard);
- ``M``: a JSON object, as textual-serve's ``meta`` messages (``resize``, ``focus``,
  ``blur``, ``quit``, ``deliver_chunk_request`` one way; ``exit``, ``open_url``,
  ``deliver_file_start`` the other);
- ``C``: a chunk of a download, ``delivery key size (2 bytes), key, bytes``. Textual's web
  driver packs it with its private binary encoder instead; a packet of its own needs none.

Only the standard library: the server side (:mod:`envtui.commands.serve.hosted_tabs`) reads the
same packets without Textual.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping

DATA, META, CHUNK = b"D", b"M", b"C"
HEADER = 5
"""Bytes before a payload: the kind and the size."""


class PacketError(ValueError):
    """A packet that cannot be one: an unknown kind, or larger than the bound."""


def packet(kind: bytes, payload: bytes) -> bytes:
    return kind + len(payload).to_bytes(4, "big") + payload


def meta_packet(message: Mapping[str, object]) -> bytes:
    return packet(META, json.dumps(dict(message)).encode())


def chunk_packet(key: str, chunk: bytes) -> bytes:
    encoded = key.encode()
    return packet(CHUNK, len(encoded).to_bytes(2, "big") + encoded + chunk)


def split_chunk(payload: bytes) -> tuple[str, bytes]:
    """A ``C`` packet's delivery key and bytes."""
    size = int.from_bytes(payload[:2], "big")
    return payload[2 : 2 + size].decode(errors="replace"), payload[2 + size :]


class PacketReader:
    """Packets out of a byte stream read in pieces, none larger than ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._buffer = bytearray()

    def feed(self, data: bytes) -> Iterator[tuple[bytes, bytes]]:
        """Each whole packet so far, as (kind, payload); :class:`PacketError` on a bad one."""
        self._buffer += data
        while len(self._buffer) >= HEADER:
            kind = bytes(self._buffer[:1])
            if kind not in (DATA, META, CHUNK):
                raise PacketError(f"unknown packet kind {kind!r}")
            size = int.from_bytes(self._buffer[1:HEADER], "big")
            if size > self.limit:
                raise PacketError(f"a packet of {size} bytes (at most {self.limit})")
            if len(self._buffer) < HEADER + size:
                return
            payload = bytes(self._buffer[HEADER : HEADER + size])
            del self._buffer[: HEADER + size]
            yield kind, payload
