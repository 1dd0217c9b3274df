"""Writes garbage onto every descriptor that might be the result pipe, at import.
Expected: protocol_error before loading; no crash in the grader."""
import os

for fd in range(3, 10):
    try:
        os.write(fd, b"\xff\xff\xff\xffnot a frame at all" * 10)
    except OSError:
        pass
