"""Reading what students handed in without trusting the file system.

Every file is opened once (no symlink followed, never blocking on a FIFO), checked to be a regular
file under the size cap from that descriptor, read from that descriptor, and hashed from the bytes
read. A path that changes between listing and reading cannot change what is graded.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass

MAX_FILE_BYTES = 1 << 20  # one source file (the sandbox's cap too); a notebook may be larger
MAX_NOTEBOOK_BYTES = 16 << 20
MAX_ARCHIVE_BYTES = 64 << 20


@dataclass(frozen=True)
class Blob:
    data: bytes
    sha256: str


class Refused(Exception):
    """A path that is not read, with the reason shown to the instructor."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def display(name: str | bytes) -> str:
    """A file name as text that can always be printed and stored: undecodable bytes become \\xNN."""
    raw = name if isinstance(name, bytes) else os.fsencode(name)
    return raw.decode("utf-8", "backslashreplace")


def kind_of(mode: int) -> str:
    for test, word in ((stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"),
                       (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return word
    return "not a regular file"


def read_file(path: str | os.PathLike, cap: int = MAX_FILE_BYTES) -> Blob:
    """One open, O_NOFOLLOW | O_NONBLOCK; type and size from that descriptor; never more than cap + 1 bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused("a symbolic link (never followed)") from None
        raise Refused(f"cannot open: {exc.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Refused(kind_of(st.st_mode))
        if st.st_size > cap:
            raise Refused(f"{st.st_size} bytes, over the {cap}-byte limit")
        chunks, size = [], 0
        while size <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > cap:  # it grew after fstat
            raise Refused(f"over the {cap}-byte limit")
    except OSError as exc:
        raise Refused(f"cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    return Blob(data, sha256(data))
