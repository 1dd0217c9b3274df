"""One view of what was handed in, whether it lies on disk or inside a .zip.

Listing never follows a symbolic link and never opens anything but regular files and folders; a zip is
read from one descriptor into memory (size-capped) and its members are checked before they are used:
no absolute or `..` paths, no symbolic links, no archive inside an archive, caps on count and size.
"""

from __future__ import annotations

import io
import os
import stat
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from grader.intake.files import MAX_ARCHIVE_BYTES, Blob, Refused, display, kind_of, read_file, sha256

MAX_MEMBERS = 500
MAX_UNPACKED_BYTES = 64 << 20
# A whole class's export in one archive (Canvas's "Download Submissions", Moodle's "Download all submissions").
CLASS_ARCHIVE_BYTES = 512 << 20
CLASS_MEMBERS = 20_000
CLASS_UNPACKED_BYTES = 512 << 20
MAX_DEPTH = 6


@dataclass
class Node:
    """A file or folder; `path` is what the instructor sees, `name` the base name (both printable)."""

    path: str
    name: str
    kind: str  # "file", "dir" or "other"
    reason: str = ""  # why an "other" node is not read
    read: Callable[[int], Blob] | None = None
    children: list[Node] = field(default_factory=list)
    in_archive: bool = False  # a member of an archive: never opened as an archive itself


def from_disk(path: str, shown: str, depth: int = 0) -> Node:
    """The node at `path` (itself not followed if it is a symbolic link)."""
    name = display(os.path.basename(path.rstrip("/")) or path)
    try:
        st = os.lstat(path)
    except OSError as exc:
        return Node(shown, name, "other", f"cannot read: {exc.strerror}")
    if stat.S_ISREG(st.st_mode):
        return Node(shown, name, "file", read=lambda cap, p=path: read_file(p, cap))
    if not stat.S_ISDIR(st.st_mode):
        return Node(shown, name, "other", kind_of(st.st_mode) + " (never read)")
    node = Node(shown, name, "dir")
    if depth >= MAX_DEPTH:
        node.kind, node.reason = "other", f"a folder nested more than {MAX_DEPTH} deep"
        return node
    try:
        names = sorted(os.listdir(path), key=os.fsencode)
    except OSError as exc:
        return Node(shown, name, "other", f"cannot list: {exc.strerror}")
    node.children = [from_disk(os.path.join(path, n), f"{shown}/{display(n)}", depth + 1) for n in names]
    return node


def _unsafe(name: str) -> str | None:
    if "\\" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "an absolute or Windows path inside the archive"
    if ".." in PurePosixPath(name).parts:
        return "a path that climbs out of the archive (..)"
    if "\x00" in name:
        return "a NUL byte in its name"
    return None


def from_zip(blob: Blob, shown: str, *, members: int = MAX_MEMBERS, unpacked: int = MAX_UNPACKED_BYTES) -> Node:
    """A folder holding the archive's members; every member that is not used is an 'other' node with its reason."""
    root = Node(shown, shown.rsplit("/", 1)[-1], "dir")
    try:
        archive = zipfile.ZipFile(io.BytesIO(blob.data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        return Node(shown, root.name, "other", f"not a readable zip archive: {exc}")
    except Exception as exc:  # noqa: BLE001 - a crafted central directory: that archive's reason, not the class's
        return Node(shown, root.name, "other", f"not a readable zip archive ({type(exc).__name__})")
    folders: dict[str, Node] = {"": root}
    budget = [unpacked]

    def folder(parts: tuple[str, ...]) -> Node:
        key = "/".join(parts)
        if key not in folders:
            parent = folder(parts[:-1])
            folders[key] = Node(f"{shown}/{key}", parts[-1], "dir", in_archive=True)
            parent.children.append(folders[key])
        return folders[key]

    for n, info in enumerate(infos):
        name = display(info.filename)
        where = f"{shown}/{name}"
        parts = tuple(p for p in PurePosixPath(name).parts if p not in ("", "."))
        why = _unsafe(info.filename)
        if why is None and n >= members:
            why = f"more than {members} members in the archive"
        if why is None and stat.S_ISLNK(info.external_attr >> 16):
            why = "a symbolic link inside the archive (never followed)"
        if why is None and info.flag_bits & 0x1:
            why = "encrypted"
        if why is not None or not parts:
            root.children.append(Node(where, display(name), "other", why or "an empty name", in_archive=True))
            continue
        if info.is_dir():
            folder(parts)
            continue

        def read(cap: int, info=info) -> Blob:
            if info.file_size > cap:
                raise Refused(f"{info.file_size} bytes unpacked, over the {cap}-byte limit")
            try:
                with archive.open(info) as fh:
                    data = fh.read(min(cap, budget[0]) + 1)  # the header's size may lie: never read past the cap
            except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
                raise Refused(f"cannot unpack: {exc}") from None
            except Exception as exc:  # noqa: BLE001 - e.g. a crafted header
                raise Refused(f"cannot unpack ({type(exc).__name__})") from None
            if len(data) > min(cap, budget[0]):
                raise Refused("over the size limit once unpacked")
            budget[0] -= len(data)
            return Blob(data, sha256(data))

        folder(parts[:-1]).children.append(Node(where, parts[-1], "file", read=read, in_archive=True))
    return root


def read_zip(node: Node, *, whole_class: bool = False) -> Node:
    try:
        blob = node.read(CLASS_ARCHIVE_BYTES if whole_class else MAX_ARCHIVE_BYTES)
    except Refused as exc:
        return Node(node.path, node.name, "other", str(exc))
    if whole_class:
        return from_zip(blob, node.path, members=CLASS_MEMBERS, unpacked=CLASS_UNPACKED_BYTES)
    return from_zip(blob, node.path)


def files(node: Node, skipped: list[tuple[str, str]], depth: int = 0) -> list[tuple[tuple[str, ...], Node]]:
    """Every file below a folder with its path relative to it; what cannot be used goes to `skipped`."""
    out: list[tuple[tuple[str, ...], Node]] = []
    for child in node.children:
        if child.kind == "other":
            skipped.append((child.path, child.reason))
        elif child.kind == "dir":
            out += [((child.name, *rel), n) for rel, n in files(child, skipped, depth + 1)]
        else:
            out.append(((child.name,), child))
    return out


__all__ = ["Node", "files", "from_disk", "from_zip", "read_zip"]
