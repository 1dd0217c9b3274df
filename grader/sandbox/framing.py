"""The one framing of the sandbox's pipes and socket: a 4-byte big-endian length, then that many bytes.

Tensor frames (wire.py) and the zygote's control messages (zygote.py) both use it; each caller caps
the length it accepts before reading the body.
"""

from __future__ import annotations

import struct

LENGTH = struct.Struct(">I")


def prefixed(body: bytes) -> bytes:
    """`body` with its length in front."""
    return LENGTH.pack(len(body)) + body


def length_of(head: bytes) -> int:
    """The body length a LENGTH.size-byte prefix announces; the caller caps it before reading."""
    (n,) = LENGTH.unpack(head)
    return n
