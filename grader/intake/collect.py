"""From the paths an instructor names to one graded source per student, and every path left out with its reason.

Folders are class exports: each file in them is a submission (its owner read from the platform's name for
it, see `platforms.py`), each folder one student's submission. A file named on the command line is one
submission, except a zip holding a whole class's export (platform names inside), which is read as that
class's folder; an archive inside it is never opened (listed, with the way to grade it). Per student only the latest submission counts; inside a submission the file that defines
`causal_attention` is graded, notebooks are converted (`notebook.py`), online text is taken out of its HTML
(`onlinetext.py`), archives opened (`tree.py`), helper modules it imports travel with it (`pack.py`). A path that does not exist is an `InputError`.
A roster says who each row is (`roster.py`). A row handed in with nothing gradable in it carries an
`ungradable` flag saying why; two files defining the entry point, and an interface that hides the math
(`interface.py`), are flagged too: every flag is a line of the class's review list.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from grader.intake import bounds, interface, notebook, onlinetext, pack, platforms
from grader.intake.bounds import Unreadable
from grader.intake.files import MAX_FILE_BYTES, MAX_NOTEBOOK_BYTES, Refused, display
from grader.intake.models import Flag, Skipped, Student
from grader.intake.roster import canvas_logins
from grader.intake.roster import match as match_roster
from grader.intake.roster import read as read_roster
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
    refused: list[str] = field(default_factory=list)  # what was handed in and never read: "name: why"


def shard_of(key: str, count: int) -> int:
    """Which of `count` shards grades a student (0-based): stable across machines and runs."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:12], 16) % count


def collect(inputs: Iterable[str | os.PathLike], roster: str | os.PathLike | None = None,
            entries: tuple[str, ...] = notebook.ENTRY_NAMES, *, as_student: bool = False) -> Intake:
    """With `as_student`, each folder named is one student's submission (Gradescope's /autograder/submission/)."""
    intake = Intake()
    skip = intake.skipped
    units: dict[str, _Unit] = {}
    listed, left_out = read_roster(roster) if roster is not None else ([], [])
    logins = canvas_logins(listed)
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
            _walk_class(node, units, skip, logins)
        elif node.kind == "file" and not as_student and (export := _class_archive(node)) is not None:
            _walk_class(export, units, skip, logins)
        elif node.kind == "file":
            owner = platforms.owner_of_file(node.name, logins)
            if owner.platform == "file":  # named on the command line: its own student, whatever its name
                owner = platforms.Owner(f"path:{node.path}", node.path, node.path, "file", original=node.name)
            _add_file(node, units, owner)
        else:
            skip.append(Skipped(path=node.path, reason=node.reason))
    people = [_resolve_guarded(unit, skip, entries) for unit in units.values()]
    rows = _one_row_per_key([p for group in people for p in group])
    if roster is not None:
        skip += left_out
        rows, missing = match_roster(rows, listed)
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


def _one_row_per_key(rows: list[Prepared]) -> list[Prepared]:
    """A key is one student: two rows that read as the same one (a SID in two Gradescope submissions) are
    both kept, told apart, and flagged, so neither overwrites the other and neither is guessed."""
    by_key: dict[str, list[Prepared]] = {}
    for p in rows:
        by_key.setdefault(p.student.key, []).append(p)
    for key, same in by_key.items():
        for n, p in enumerate(same[1:] if len(same) > 1 else [], start=2):
            p.student.key = f"{key}#{n}"
        for p in same if len(same) > 1 else []:
            p.student.flag("identity_conflict", f"{len(same)} submissions read as the same student ({key}): "
                           f"{', '.join(o.student.submission or o.student.key for o in same)}; check by hand")
    return rows


def _owner(node: Node) -> platforms.Owner | None:
    """Who a class export's entry belongs to, when its name is a platform's."""
    owner = (platforms.owner_of_folder(node.name) if node.kind == "dir"
             else platforms.owner_of_file(node.name) if node.kind == "file" else None)
    return owner if owner is not None and owner.platform in ("canvas", "moodle") else None


def _add_file(node: Node, units: dict[str, _Unit], owner: platforms.Owner | None = None) -> None:
    owner = owner or platforms.owner_of_file(node.name)
    unit = units.setdefault(owner.key, _Unit(owner))
    unit.pieces.append(_Piece(node, (owner.original or node.name,), owner.order, owner.late))


def _walk_class(root: Node, units: dict[str, _Unit], skip: list[Skipped], logins: dict[str, set[str]]) -> None:
    names = {c.name: c for c in root.children}
    # Who is who by Canvas's own names: the roster's, and every name in the export that reads only one way.
    known = {uid: set(written) for uid, written in logins.items()}
    for child in root.children:
        if len(readings := platforms.canvas_readings(child.name)) == 1:
            known.setdefault(readings[0].id, set()).add(readings[0].name)
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
            owner = platforms.owner_of_file(child.name, known)
            if owner.platform != "file" or child.name.endswith(SOURCE_SUFFIXES):
                # the student still gets a row, saying what they handed in and why it was not graded
                units.setdefault(owner.key, _Unit(owner)).refused.append(f"{child.name}: {child.reason}")
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
        elif (child.name.endswith(SOURCE_SUFFIXES) or platforms.is_online_text(child.name)
              or platforms.owner_of_file(child.name).platform != "file"):
            # a platform's name: handed in, whatever it is (a PDF is read as not gradable)
            _add_file(child, units, platforms.owner_of_file(child.name, known))
        else:
            skip.append(Skipped(path=child.path, reason=_not_source(child.name)))
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


def _tree(source: str) -> ast.Module | None:
    """The source's syntax tree (None when it does not parse); `Unreadable` when it is past what intake parses."""
    try:
        return bounds.parse_python(source)
    except SyntaxError:
        return None


def _defines(source: str, entries: tuple[str, ...], tree: ast.Module | None) -> bool:
    """Whether a source defines the entry point (`tree`: its syntax tree, None when it does not parse)."""
    if tree is None:  # [ \t]*, not \s*: \s crosses newlines, and blank lines would cost quadratic time
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
    tree: ast.Module | None = None  # its syntax tree, parsed once (None when it does not parse)


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
        skip.append(Skipped(path=node.path, reason=_not_source(name)))
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
    src.tree = _tree(src.text)
    src.defines = _defines(src.text, entries, src.tree)
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
    tree = _tree(code)
    if not _defines(code, entries, tree):
        words = len(code.split())
        skip.append(Skipped(path=node.path, reason=f"an online text ({words} words) that does not define "
                                                   f"{entries[0]}: nothing in it to grade"))
        return None
    note = f"the code typed into the online text ({rel[-1]}), taken out of its HTML"
    if trimmed:
        note += "; the prose around it was left out"
    return _Source(rel, node, code, True, defines=True, typed=True, note=note, tree=tree)


CANDIDATE_RULE = ("the rule: a file that defines it, uploaded before typed online text, the one named "
                  "attention.py, a script before a notebook, the shallowest, then the first by name")


def _preference(src: _Source) -> tuple:  # CANDIDATE_RULE, in words
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
                                 flags=[Flag(kind="ungradable", detail=f"handed in, but nothing could be graded: {exc}")]),
                         None)]


def _resolve(unit: _Unit, skip: list[Skipped], entries) -> list[Prepared]:
    owner = unit.owner
    latest = _latest(unit, skip)
    seen = len(skip)  # what is skipped from here on was handed in and refused, not superseded
    late = max(latest, key=lambda p: p.order).late if latest else False
    sources = _read_sources(_expand(latest, skip), skip, entries)
    base = dict(key=owner.key, id=owner.id, name=owner.name, platform=owner.platform, late=late)
    unsure = [Flag(kind="identity_conflict", detail=(
        f"the Canvas file name {owner.original} reads as user {' or '.join(owner.readings)} (the name or the "
        "file's own name holds _<digits>_<digits>_), and no roster or other file tells which: not matched, "
        "check by hand"))] if owner.readings else []
    # A submitter with neither SID nor e-mail is only a name in a folder: two "Wei Li" stay two keys.
    people = [dict(base, key=f"gradescope:{p.sid or p.email or f'{p.folder}/{p.name}'}", id=p.sid or owner.id,
                   name=p.name or owner.name, email=p.email, submission_id=platforms.gradescope_id(p.folder))
              for p in unit.people] or [base]
    if not sources:
        # Handed in but refused (a PDF, `attention.py.txt`, an archive inside a class archive, a file over
        # the cap): the row is `ungradable` and says why, so it does not read as "did not submit".
        refused = unit.refused + [f"{PurePosixPath(k.path).name}: {k.reason}" for k in skip[seen:]]
        out = [Prepared(Student(**who, flags=list(unsure)), None) for who in people]
        for p in out:
            if refused:
                p.student.flag("ungradable", "handed in, but nothing could be graded: " + "; ".join(refused[:3])
                               + (f" (and {len(refused) - 3} more)" if len(refused) > 3 else ""))
            else:
                p.student.notes.append("nothing gradable was handed in")
        return out
    graded = min(sources, key=_preference)
    notes, data = [], None
    here = graded.rel[:-1]
    modules = {src.rel[-1][:-3]: src for src in sources if src is not graded and src.rel[:-1] == here
               and src.rel[-1].endswith(".py") and MODULE_NAME.match(src.rel[-1][:-3])}
    used = pack.needed_helpers(graded.text, {k: v.text for k, v in modules.items()}) if modules else []
    helpers = {k: modules[k] for k in used}
    rivals = []
    for src in sources:
        if src is graded or any(src is h for h in helpers.values()):
            continue
        if src.defines:
            rivals.append("/".join(src.rel))
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
    flags = [Flag(kind="interface", detail=d) for d in interface.problems(graded.text, entries[0], graded.defines,
                                                                             tree=graded.tree)]
    if rivals:
        flags.insert(0, Flag(kind="two_candidates", detail=(
            f"{len(rivals) + 1} files define {entries[0]}: graded {'/'.join(graded.rel)}, not {', '.join(rivals)} "
            f"({CANDIDATE_RULE})")))
    return [Prepared(Student(**who, submission=graded.node.path, handed_in="/".join(graded.rel), source_sha256=sha,
                             converted=converted, notes=list(notes), flags=[*unsure, *flags]), data) for who in people]


def _not_source(name: str) -> str:
    """Why a file handed in is not graded, naming what it is (`attention.py.txt`: Python saved as text?)."""
    suffix = name.rsplit(".", 1)[-1].casefold() if "." in name[1:] else ""
    if ".py." in name.casefold():
        return f"not a .py, .ipynb or .zip file (named {name}: a Python file saved with a .{suffix} ending?)"
    return f"not a .py, .ipynb or .zip file ({f'a .{suffix} file' if suffix else 'no extension'})"
