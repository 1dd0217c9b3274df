"""One length prefix for the sandbox's pipes and socket: wire frames and zygote messages share it."""

from __future__ import annotations

import os
import socket

import pytest
import torch

from grader.sandbox import framing, wire, zygote


def test_prefix_round_trip():
    body = b'{"op": "run"}'
    data = framing.prefixed(body)
    assert framing.length_of(data[: framing.LENGTH.size]) == len(body) and data.endswith(body)


def test_wire_frames_and_control_messages_start_the_same_way():
    frame = wire.Frame("reply", {"id": "x", "ok": True}, {"t": torch.ones(2)})
    data = wire.encode(frame)
    head = framing.length_of(data[: framing.LENGTH.size])
    assert data[framing.LENGTH.size: framing.LENGTH.size + head].startswith(b"{")
    a, b = socket.socketpair()
    with a, b:
        zygote.send(a, {"op": "kill", "pid": 1})
        raw = b.recv(1 << 16)
    assert framing.length_of(raw[: framing.LENGTH.size]) == len(raw) - framing.LENGTH.size


def test_each_reader_keeps_its_own_cap():
    a, b = socket.socketpair()
    with a, b:
        a.sendall(framing.LENGTH.pack(zygote.MAX_MESSAGE + 1))
        with pytest.raises(ValueError, match="too large"):
            zygote.recv(b)
    r, w = os.pipe()
    try:
        os.write(w, framing.LENGTH.pack(wire.MAX_HEADER_BYTES + 1))
        with pytest.raises(wire.WireError, match="over the"):
            wire.read_frame(r)
    finally:
        os.close(r)
        os.close(w)
