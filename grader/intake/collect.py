"""From the paths an instructor names to one graded source per student, and every path left out with its reason.

Folders are class exports: each file in them is a submission (its owner read from the platform's name for
it, see `platforms.py`), each folder one student's submission. A file named on the command line is one
submission, except a zip holding a whole class's export (platform names inside), which is read as that
class's folder; an archive inside it is never opened (listed, with the way to grade it). Per student only the latest submission counts; inside a submission the file that defines
`causal_attention` is graded, notebooks are converted (`notebook.py`), online text is taken out of its HTML
(`onlinetext.py`), archives opened (`tree.py`), helper modules it imports travel with it (`pack.py`). A path that does not exist is an `InputError`.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import io
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from grader.intake import bounds, notebook, onlinetext, pack, platforms
from grader.intake.bounds import Unreadable
from grader.intake.files import MAX_FILE_BYTES, MAX_NOTEBOOK_BYTES, Refused, display, read_file
from grader.intake.models import Skipped, Student
from grader.intake.tree import Node, from_disk, read_zip
from grader.intake.tree import files as _tree_files

SOURCE_SUFFIXES = (".py", ".ipynb", ".zip")
IGNORED = ("__pycache__", ".DS_Store", ".ipynb_checkpoints", "__MACOSX")
MODULE_NAME = re.compile(r"^[A-Za-z_]\w*$")


class InputError(Exception):
    """The command line names something that cannot be a class (exit 2)."""


@dataclass
class Prepared:
    """A student, and the bytes the sandbox will run for them (None: nothing to grade)."""

    student: Student
    source: bytes | None


@dataclass
class Intake:
    students: list[Prepared] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


@dataclass
class _Piece:
    node: Node
    rel: tuple[str, ...]  # where it sits in the student's submission
    order: tuple[int, ...] = ()
    late: bool = False


@dataclass
class _Unit:
    owner: platforms.Owner
    pieces: list[_Piece] = field(default_factory=list)
    people: list[platforms.Submitter] = field(default_factory=list)


def shard_of(key: str, count: int) -> int:
    """Which of `count` shards grades a student (0-based): stable across machines and runs."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:12], 16) % count


def collect(inputs: Iterable[str | os.PathLike], roster: str | os.PathLike | None = None,
            entries: tuple[str, ...] = notebook.ENTRY_NAMES, *, as_student: bool = False) -> Intake:
    """With `as_student`, each folder named is one student's submission (Gradescope's /autograder/submission/)."""
    intake = Intake()
    skip = intake.skipped
    units: dict[str, _Unit] = {}
    for arg in inputs:
        path = os.fspath(arg)
        if not os.path.lexists(path):
            raise InputError(f"{display(path)} does not exist")
        shown = display(path.rstrip("/") or path)
        node = from_disk(os.path.realpath(path) if os.path.isdir(path) else path, shown)
        if node.kind == "dir" and as_student:
            owner = platforms.owner_of_folder(node.name)
            units.setdefault(owner.key, _Unit(owner)).pieces.append(_Piece(node, ()))
        elif node.kind == "dir":
            _walk_class(node, units, skip)
        elif node.kind == "file" and not as_student and (export := _class_archive(node)) is not None:
            _walk_class(export, units, skip)
        elif node.kind == "file":
            owner = platforms.owner_of_file(node.name)
            if owner.platform == "file":  # named on the command line: its own student, whatever its name
                owner = platforms.Owner(f"path:{node.path}", node.path, node.path, "file", original=node.name)
            _add_file(node, units, owner)
        else:
            skip.append(Skipped(path=node.path, reason=node.reason))
    people = [_resolve_guarded(unit, skip, entries) for unit in units.values()]
    rows = [p for group in people for p in group]
    if roster is not None:
        rows, missing = _apply_roster(rows, roster)
        rows += missing
    for i, p in enumerate(rows):
        p.student.position = i
    intake.students = rows
    return intake


def _class_archive(node: Node) -> Node | None:
    """The class export inside a zip named on the command line, or None when it is one student's archive.

    A class export's entries carry platform names (Canvas's `lastfirst_uid_attachmentid_name`, Moodle's
    `Full Name_id_assignsubmission_...`) for two students or more and at least half of its entries, or
    it holds Gradescope's `submission_metadata.yml`; possibly inside one top folder (Gradescope's
    `assignment_N_export/`). A student's own zip with one such name in it stays that student's."""
    if not node.name.endswith(".zip"):
        return None
    root = read_zip(node, whole_class=True)
    if root.kind != "dir":
        return None
    while True:
        inside = [c for c in root.children if c.name not in IGNORED]
        if len(inside) != 1 or inside[0].kind != "dir" or _owner(inside[0]) is not None:
            break
        root = inside[0]
    if any(c.name == platforms.GRADESCOPE_METADATA for c in inside):
        return root
    owners = [o for o in map(_owner, inside) if o is not None]
    if len({o.key for o in owners}) >= 2 and 2 * len(owners) >= len(inside):
        return root
    return None


def _owner(node: Node) -> platforms.Owner | None:
    """Who a class export's entry belongs to, when its name is a platform's."""
    owner = (platforms.owner_of_folder(node.name) if node.kind == "dir"
             else platforms.owner_of_file(node.name) if node.kind == "file" else None)
    return owner if owner is not None and owner.platform in ("canvas", "moodle") else None


def _add_file(node: Node, units: dict[str, _Unit], owner: platforms.Owner | None = None) -> None:
    owner = owner or platforms.owner_of_file(node.name)
    unit = units.setdefault(owner.key, _Unit(owner))
    unit.pieces.append(_Piece(node, (owner.original or node.name,), owner.order, owner.late))


def _walk_class(root: Node, units: dict[str, _Unit], skip: list[Skipped]) -> None:
    names = {c.name: c for c in root.children}
    meta = names.get(platforms.GRADESCOPE_METADATA)
    submitters: dict[str, list[platforms.Submitter]] = {}
    if meta is not None and meta.kind == "file":
        try:
            text = meta.read(MAX_NOTEBOOK_BYTES).data.decode("utf-8", "replace")
            for s in bounds.reading(platforms.GRADESCOPE_METADATA, lambda: platforms.gradescope_submitters(text)):
                submitters.setdefault(s.folder, []).append(s)
        except (Refused, ValueError) as exc:
            skip.append(Skipped(path=meta.path, reason=str(exc)))
    for child in root.children:
        if child is meta or child.name in IGNORED:
            continue
        if child.kind == "other":
            skip.append(Skipped(path=child.path, reason=child.reason))
            if child.in_archive and ("/" in child.name or "\\" in child.name or child.name in ("", "..")):
                continue  # a member refused for its path names nobody: no row for it
            owner = platforms.owner_of_file(child.name)
            if owner.platform != "file" or child.name.endswith(SOURCE_SUFFIXES):
                units.setdefault(owner.key, _Unit(owner))  # the student still gets a row, with nothing to grade
        elif child.kind == "dir":
            if child.name.endswith(SOURCE_SUFFIXES):
                skip.append(Skipped(path=child.path, reason="a directory, not a file, although named like one"))
                continue
            people = submitters.get(child.name, [])
            owner = (platforms.Owner(f"gradescope:{child.name}", child.name, child.name, "gradescope")
                     if people else platforms.owner_of_folder(child.name))
            unit = units.setdefault(owner.key, _Unit(owner))
            unit.people = people
            unit.pieces.append(_Piece(child, (child.name,)))  # Moodle: one folder per plugin, both kept
        elif child.name.endswith(SOURCE_SUFFIXES) or platforms.is_online_text(child.name):
            _add_file(child, units)
        else:
            skip.append(Skipped(path=child.path, reason="not a .py, .ipynb or .zip file"))
    for folder in sorted(submitters.keys() - names.keys()):
        skip.append(Skipped(path=f"{root.path}/{folder}",
                            reason=f"named in {platforms.GRADESCOPE_METADATA} but not in the export"))


def files(node: Node, skip: list[Skipped]) -> list[tuple[tuple[str, ...], Node]]:
    left: list[tuple[str, str]] = []
    found = _tree_files(node, left)
    skip += [Skipped(path=p, reason=r) for p, r in left]
    return found


def _latest(unit: _Unit, skip: list[Skipped]) -> list[_Piece]:
    """Per file name the latest version (Canvas's resubmissions); older ones are listed as skipped."""
    best: dict[tuple[str, ...], _Piece] = {}
    for piece in sorted(unit.pieces, key=lambda p: p.order):
        old = best.get(piece.rel)
        if old is not None:
            skip.append(Skipped(path=old.node.path, reason=f"an older submission; graded the later {piece.node.path}"))
        best[piece.rel] = piece
    return list(best.values())


def _expand(pieces: list[_Piece], skip: list[Skipped]) -> list[tuple[tuple[str, ...], Node]]:
    out = []
    for piece in pieces:
        if piece.node.kind == "dir":
            out += [(piece.rel + rel, n) for rel, n in files(piece.node, skip)]
        else:
            out.append((piece.rel, piece.node))
    expanded = []
    for rel, node in out:
        if any(part in IGNORED for part in rel):
            continue
        if rel[-1].endswith(".zip") and node.in_archive:  # an archive inside a class's archive
            skip.append(Skipped(path=node.path, reason="an archive inside the class archive (never opened): unzip "
                                                       "the class export into a folder and grade the folder"))
            continue
        if rel[-1].endswith(".zip"):  # on disk; an archive's own members are never opened as archives
            inner = read_zip(node)
            if inner.kind != "dir":
                skip.append(Skipped(path=inner.path, reason=inner.reason))
                continue
            for sub, member in files(inner, skip):
                if sub[-1].endswith(".zip"):
                    skip.append(Skipped(path=member.path, reason="an archive inside an archive"))
                elif not any(part in IGNORED for part in sub):
                    expanded.append((rel[:-1] + sub, member))
        else:
            expanded.append((rel, node))
    return expanded


def _defines(source: str, entries: tuple[str, ...]) -> bool:
    """Whether a source defines the entry point; `Unreadable` when it is past what intake parses."""
    try:
        tree = bounds.parse_python(source)
    except SyntaxError:  # [ \t]*, not \s*: \s crosses newlines, and blank lines would cost quadratic time
        return bool(re.search(rf"^[ \t]*def[ \t]+{re.escape(entries[0])}\b", source, re.M))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == entries[0]:
            return True
        if isinstance(node, ast.Assign | ast.ImportFrom | ast.Import):
            bound = ([t.id for t in node.targets if isinstance(t, ast.Name)] if isinstance(node, ast.Assign)
                     else [a.asname or a.name for a in node.names])
            if entries[0] in bound:
                return True
    return False


@dataclass
class _Source:
    rel: tuple[str, ...]
    node: Node
    text: str
    converted: bool
    defines: bool = False
    raw: bytes | None = None  # the bytes handed in, when they are graded as they are
    typed: bool = False  # online text: typed or pasted into the platform's editor, taken out of its HTML
    note: str = ""


def _read_sources(found, skip: list[Skipped], entries) -> list[_Source]:
    sources = []
    for rel, node in found:
        try:  # whatever one file holds, it is that file's skipped entry
            src = bounds.reading("this file", lambda rel=rel, node=node: _read_source(rel, node, skip, entries))
        except Unreadable as exc:
            skip.append(Skipped(path=node.path, reason=str(exc)))
            continue
        if src is not None:
            sources.append(src)
    return sources


def _read_source(rel, node: Node, skip: list[Skipped], entries) -> _Source | None:
    name = rel[-1]
    if platforms.is_online_text(name):
        return _online_text(rel, node, skip, entries)
    if not name.endswith((".py", ".ipynb")):
        skip.append(Skipped(path=node.path, reason="not a .py, .ipynb or .zip file"))
        return None
    try:
        blob = node.read(MAX_NOTEBOOK_BYTES if name.endswith(".ipynb") else MAX_FILE_BYTES)
    except Refused as exc:
        skip.append(Skipped(path=node.path, reason=str(exc)))
        return None
    if name.endswith(".ipynb"):
        src = _Source(rel, node, notebook.notebook_to_script(blob.data).script, True)
    else:
        text = pack.decode(blob.data)
        if notebook.is_exported_notebook(text):
            src = _Source(rel, node, notebook.exported_to_script(text).script, True)
        else:
            src = _Source(rel, node, text, False, raw=blob.data)
    src.defines = _defines(src.text, entries)
    return src


def _online_text(rel, node: Node, skip: list[Skipped], entries) -> _Source | None:
    """The code in an online text when it defines the entry point; otherwise listed as skipped."""
    try:
        blob = node.read(MAX_NOTEBOOK_BYTES)
    except Refused as exc:
        skip.append(Skipped(path=node.path, reason=str(exc)))
        return None
    code, trimmed = onlinetext.code_of(pack.decode(blob.data))
    if len(code.encode()) > MAX_FILE_BYTES:
        skip.append(Skipped(path=node.path, reason=f"an online text over the {MAX_FILE_BYTES}-byte limit of a source"))
        return None
    if not code.strip():
        skip.append(Skipped(path=node.path, reason="an empty online text"))
        return None
    if not _defines(code, entries):
        words = len(code.split())
        skip.append(Skipped(path=node.path, reason=f"an online text ({words} words) that does not define "
                                                   f"{entries[0]}: nothing in it to grade"))
        return None
    note = f"the code typed into the online text ({rel[-1]}), taken out of its HTML"
    if trimmed:
        note += "; the prose around it was left out"
    return _Source(rel, node, code, True, defines=True, typed=True, note=note)


def _preference(src: _Source) -> tuple:
    stem = src.rel[-1].rsplit(".", 1)[0]
    return (not src.defines, src.typed, stem != "attention", src.rel[-1].endswith(".ipynb"), len(src.rel), src.rel)


def _resolve_guarded(unit: _Unit, skip: list[Skipped], entries) -> list[Prepared]:
    """`_resolve`, and when anything in it fails, a row that says so: one submission never stops the class."""
    seen = len(skip)
    try:
        return bounds.reading("this submission", lambda: _resolve(unit, skip, entries))
    except Unreadable as exc:
        del skip[seen:]  # what it had listed is replaced by the one reason it stopped
        owner = unit.owner
        path = unit.pieces[0].node.path if unit.pieces else owner.id
        skip.append(Skipped(path=path, reason=str(exc)))
        return [Prepared(Student(key=owner.key, id=owner.id, name=owner.name, platform=owner.platform,
                                 notes=[f"handed in, but nothing could be graded: {exc}"]), None)]


def _resolve(unit: _Unit, skip: list[Skipped], entries) -> list[Prepared]:
    owner = unit.owner
    latest = _latest(unit, skip)
    seen = len(skip)  # what is skipped from here on was handed in and refused, not superseded
    late = max(latest, key=lambda p: p.order).late if latest else False
    sources = _read_sources(_expand(latest, skip), skip, entries)
    base = dict(key=owner.key, id=owner.id, name=owner.name, platform=owner.platform, late=late)
    people = [dict(base, key=f"gradescope:{p.sid or p.email or p.name or owner.id}", id=p.sid or owner.id,
                   name=p.name or owner.name, email=p.email) for p in unit.people] or [base]
    if not sources:
        # Handed in but refused (an archive inside a class archive, a file over the cap): the row says
        # why, so it does not read as "did not submit".
        refused = [f"{PurePosixPath(k.path).name}: {k.reason}" for k in skip[seen:]]
        note = ("handed in, but nothing could be graded: " + "; ".join(refused[:2]) if refused
                else "nothing gradable was handed in")
        return [Prepared(Student(**who, notes=[note]), None) for who in people]
    graded = min(sources, key=_preference)
    notes, data = [], None
    here = graded.rel[:-1]
    modules = {src.rel[-1][:-3]: src for src in sources if src is not graded and src.rel[:-1] == here
               and src.rel[-1].endswith(".py") and MODULE_NAME.match(src.rel[-1][:-3])}
    used = pack.needed_helpers(graded.text, {k: v.text for k, v in modules.items()}) if modules else []
    helpers = {k: modules[k] for k in used}
    for src in sources:
        if src is graded or any(src is h for h in helpers.values()):
            continue
        if src.defines:
            skip.append(Skipped(path=src.node.path, reason=f"also defines {entries[0]}; graded {graded.node.path}"))
        elif any(src is m for m in modules.values()):
            skip.append(Skipped(path=src.node.path, reason=f"a helper module that {graded.node.path} never imports"))
        else:
            skip.append(Skipped(path=src.node.path, reason=f"not the graded file ({graded.node.path}) nor a "
                                                           "helper module beside it"))
    if used:
        text = pack.pack(graded.text, {k: helpers[k].text for k in used})
        notes.append("helper modules packed with it: " + ", ".join(f"{k}.py" for k in used))
        converted = True
    else:
        text, converted = graded.text, graded.converted
        data = graded.raw if not converted else None
    if graded.typed:
        notes.append(graded.note)
    elif graded.converted:
        notes.append("converted from a notebook: its definitions are graded, the cells it runs are not")
    if not graded.defines:
        notes.append(f"no file defines {entries[0]}")
    data = data if data is not None else text.encode("utf-8")
    sha = hashlib.sha256(data).hexdigest()
    return [Prepared(Student(**who, submission=graded.node.path, handed_in="/".join(graded.rel), source_sha256=sha,
                             converted=converted, notes=notes), data) for who in people]


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.casefold())


def _group_members(rows: list[Prepared], entries: list[dict]) -> list[Prepared]:
    """A group submission becomes one row per member of that group on the roster (a `group_name` column, as
    in Canvas's group-set CSV, or Moodle's `Groups`). Canvas names it after the group with its
    representative's user id (who must be a member); Moodle 4.x after the team with the group's id."""
    groups: dict[str, list[dict]] = {}
    for e in entries:
        if e["group"]:
            groups.setdefault(_norm(e["group"]), []).append(e)
    if not groups:
        return rows
    out: list[Prepared] = []
    taken = {p.student.key for p in rows}
    for p in rows:
        s = p.student
        members = groups.get(_norm(s.name)) if s.platform in ("canvas", "moodle") else None
        ids = {m["id"] for m in members or [] if m["id"]}
        if not members or (s.platform == "canvas" and ids and s.id not in ids):
            out.append(p)
            continue
        group = members[0]["group"]
        for m in members:
            who = m["id"] or m["email"] or m["name"]
            key = f"{s.platform}:{who}" if s.platform == "canvas" else f"{s.platform}-member:{who}"
            if key in taken and who != s.id:
                continue  # a member who also handed in alone keeps their own submission
            by = f"handed in by user {s.id}" if s.platform == "canvas" else f"group id {s.id}"
            out.append(Prepared(s.model_copy(update={
                "key": key, "id": m["id"], "name": m["name"] or s.name, "email": m["email"],
                "notes": [*s.notes, f"a group submission by {group}, {by}"]}, deep=True),
                p.source))
    return out


def _apply_roster(rows: list[Prepared], roster: str | os.PathLike) -> tuple[list[Prepared], list[Prepared]]:
    """Fill names, e-mails and sections from a roster CSV; students on it with no submission get a row
    (the second list). A group submission is given to each member of the group."""
    try:
        text = read_file(roster, MAX_NOTEBOOK_BYTES).data.decode("utf-8-sig", "replace")
    except Refused as exc:
        raise InputError(f"roster {display(os.fspath(roster))}: {exc}") from None
    reader = csv.DictReader(io.StringIO(text))
    cols = {(h or "").strip().casefold(): h for h in reader.fieldnames or []}

    def col(*names: str) -> str | None:
        return next((cols[n] for n in names if n in cols), None)

    c_id = col("id", "student id", "sid", "user id", "userid", "canvas_user_id", "canvas user id", "id number",
               "idnumber", "participant")
    c_name = col("student", "name", "full name", "student name")
    c_email = col("email", "email address", "e-mail")
    c_section = col("section", "sections")
    c_group = col("group_name", "group name", "group", "groups", "team")
    c_login = col("sis login id", "login_id", "username", "login")  # SIS User ID is its own column (c_sis)
    c_sis = col("sis user id", "sis_user_id", "user_id")
    # Moodle's exports split the name: "First name" and "Last name" (or "Surname").
    c_first, c_last = col("first name", "firstname", "given name"), col("last name", "surname", "lastname")
    if c_id is None and c_name is None and c_email is None and not (c_first and c_last):
        raise InputError("the roster needs an id, name or email column (e.g. ID, Student, Email)")
    entries = []
    for r in reader:
        e = {k: (r.get(c) or "").strip() if c else "" for k, c in
             (("id", c_id), ("name", c_name), ("email", c_email), ("section", c_section), ("login", c_login),
              ("group", c_group), ("sis", c_sis))}
        if not e["name"] and c_first and c_last:
            e["name"] = " ".join(x for x in ((r.get(c_first) or "").strip(), (r.get(c_last) or "").strip()) if x)
        entries.append(e)
    by_id = {e["id"]: e for e in entries if e["id"]}
    by_email = {e["email"].casefold(): e for e in entries if e["email"]}
    by_name: dict[str, dict] = {}
    for e in entries:
        if e["name"]:
            by_name.setdefault(_norm(e["name"]), e)
            if "," in e["name"]:  # Canvas's "Last, First" is "lastfirst" in its file names
                by_name.setdefault(_norm(e["name"].replace(",", "")), e)
            parts = e["name"].split()
            if len(parts) > 1:
                by_name.setdefault(_norm(parts[-1] + "".join(parts[:-1])), e)
    rows = _group_members(rows, entries)
    matched: set[int] = set()
    for p in rows:
        s = p.student
        e = by_id.get(s.id) or by_email.get(s.email.casefold()) or by_name.get(_norm(s.name))
        s.on_roster = e is not None
        if e is None:
            s.notes.append("not on the roster")
            continue
        matched.add(id(e))
        s.name = e["name"] or s.name
        s.email = s.email or e["email"]
        s.section, s.sis_login, s.sis_id = e["section"], e["login"], e["sis"]
        if e["id"] and s.platform in ("file", "folder"):
            s.id = e["id"]
    missing = []
    for e in entries:
        if id(e) not in matched:
            key = f"roster:{e['id'] or e['email'] or e['name']}"
            missing.append(Prepared(Student(key=key, id=e["id"], name=e["name"], email=e["email"],
                                            section=e["section"], sis_login=e["login"], sis_id=e["sis"],
                                            platform="roster",
                                            on_roster=True, notes=["no submission"]), None))
    return rows, missing
