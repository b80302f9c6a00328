"""The packets between ``envtui serve`` and a tab's dashboard: textual-serve's framing, read
whole however the bytes are cut, and bounded."""

from __future__ import annotations

import json

import pytest

from envtui.tui.web.tab_packets import (
    CHUNK,
    DATA,
    META,
    PacketError,
    PacketReader,
    chunk_packet,
    meta_packet,
    packet,
    split_chunk,
)


def test_a_packet_is_its_kind_its_size_big_endian_and_its_payload() -> None:
    assert packet(DATA, b"hi") == b"D\x00\x00\x00\x02hi"  # as Textual's web driver writes it
    kind, payload = next(PacketReader(100).feed(meta_packet({"type": "quit"})))
    assert (kind, json.loads(payload)) == (META, {"type": "quit"})


def test_packets_come_out_whole_however_the_bytes_are_cut() -> None:
    stream = packet(DATA, b"\x1b[A") + meta_packet({"type": "blur"}) + chunk_packet("k", b"xy")
    reader = PacketReader(100)
    got = [found for byte in range(len(stream)) for found in reader.feed(stream[byte : byte + 1])]
    assert [kind for kind, _ in got] == [DATA, META, CHUNK]
    assert got[0][1] == b"\x1b[A"
    assert split_chunk(got[2][1]) == ("k", b"xy")


def test_a_download_chunk_keeps_its_key_apart_from_its_bytes() -> None:
    (kind, payload), *_ = PacketReader(100).feed(chunk_packet("key-ü", b"\x00key-\n"))
    assert kind == CHUNK
    assert split_chunk(payload) == ("key-ü", b"\x00key-\n")
    assert split_chunk(next(PacketReader(100).feed(chunk_packet("k", b"")))[1]) == ("k", b"")


def test_a_packet_larger_than_the_bound_or_of_no_known_kind_is_an_error() -> None:
    with pytest.raises(PacketError, match="a packet of 101 bytes"):
        list(PacketReader(100).feed(packet(DATA, b"x" * 101)))
    with pytest.raises(PacketError, match="unknown packet kind"):
        list(PacketReader(100).feed(b"Z\x00\x00\x00\x00"))
