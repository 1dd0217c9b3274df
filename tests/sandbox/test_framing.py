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


def _through_pipe(data: bytes, read):
    r, w = os.pipe()
    try:
        os.write(w, data)
        os.close(w)
        w = -1
        return read(r)
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)


def test_the_childs_reader_gives_the_calls_the_checked_reader_gives():
    """The child reads only the grader's frames, without the model check the grader's own reader makes of a child's:
    every call of a grade, and tensors of every wire dtype (empty ones, bfloat16's raw bits), read the same."""
    from grader.probes import build_probes, hidden_seed

    odd = wire.Frame("call", {"id": "odd", "target": "attention", "layout": "heads_transposed", "n": [1, 2.5]}, {
        "q": torch.arange(6, dtype=torch.float32).reshape(2, 3), "k": torch.empty(0, 3, dtype=torch.float64),
        "v": torch.tensor([1.5, -2.0], dtype=torch.bfloat16), "m": torch.tensor([[True, False]]),
        "i": torch.tensor([7, -8], dtype=torch.int32), "j": torch.tensor([1 << 40], dtype=torch.int64),
        "h": torch.tensor([0.5], dtype=torch.float16)})
    calls = [*build_probes(hidden_seed("s", b"x = 1")).calls(), odd, wire.Frame("end")]
    for call in calls:
        data = wire.encode(call)
        checked, lean = _through_pipe(data, wire.read_frame), _through_pipe(data, wire.read_call)
        assert (lean.kind, lean.meta, lean.wire_bytes) == (checked.kind, checked.meta, checked.wire_bytes) == (
            call.kind, call.meta, len(data))
        assert list(lean.tensors) == list(checked.tensors) == list(call.tensors)
        for name, t in checked.tensors.items():
            got = lean.tensors[name]
            assert (got.dtype, got.shape) == (t.dtype, t.shape) and torch.equal(got, t), (call.meta, name)
            got.zero_()  # writable, as the checked reader's are


def test_the_childs_reader_stops_at_a_truncated_frame():
    data = wire.encode(wire.Frame("call", {"id": "x"}, {"t": torch.ones(4)}))
    for cut in (2, 10, len(data) - 1):
        with pytest.raises(EOFError):
            _through_pipe(data[:cut], wire.read_call)


def test_a_frame_is_its_header_as_json_then_each_tensors_raw_bytes():
    """What `encode` writes, built here the plain way: tensors of every wire dtype, a view that is not contiguous,
    one that requires grad, an empty one, and a meta value JSON knows only as a string."""
    import json

    base = torch.arange(12, dtype=torch.float64).reshape(3, 4)
    tensors = {"t": base.t(), "g": base[:1].clone().requires_grad_(True) * 2, "e": torch.empty(0, 4),
               "b": torch.tensor([1.5, -2.0], dtype=torch.bfloat16), "m": torch.tensor([True, False]),
               "i": torch.tensor([3], dtype=torch.int32), "j": torch.tensor(5), "h": torch.ones(2, dtype=torch.float16)}
    frame = wire.Frame("reply", {"id": "x", "ok": True, "shape": torch.Size([2])}, tensors)
    specs, blobs = [], b""
    for name, t in tensors.items():
        t = t.detach().contiguous()
        raw = (t.view(torch.int16) if t.dtype == torch.bfloat16 else t).numpy().tobytes()
        specs.append({"name": name, "dtype": str(t.dtype).removeprefix("torch."), "shape": list(t.shape),
                      "nbytes": len(raw)})
        blobs += raw
    head = json.dumps({"kind": "reply", "meta": frame.meta, "tensors": specs}, allow_nan=False, default=str).encode()
    assert wire.encode(frame) == framing.prefixed(head) + blobs
    with pytest.raises(ValueError):
        wire.encode(wire.Frame("reply", {"x": float("nan")}))
