"""Who each row is: a roster CSV, as an LMS exports it, matched to the students read from the export's names.

Each platform's own key decides first: Canvas's user id (the gradebook export's `ID`), Moodle's participant
id (the grading worksheet's `Identifier`, "Participant 576317", the number in its folder and file names),
Gradescope's submission id (its grades export's `Submission ID`, the folder `submission_<id>`) and the
SID and e-mail `submission_metadata.yml` gives. Then e-mail; a name only when no key could decide, and only
when one roster row has it. Every strong key a row has must name the same roster row: keys that disagree are
an identity conflict, a name on two rows (two "Wei Li") is ambiguous, and neither is guessed: the row keeps
what the export says, is flagged for review, and no roster row is filled from it.

Rows that are not students are left out with a note: Canvas's "Points Possible" row (the maximum points of
each assignment) and its test student ("Student, Test", made by Student View), a header line repeated
inside the file, rows with no name, id or e-mail.

Moodle's grading worksheet ("Download grading worksheet"): `Identifier, Full name, Email address, Status,
Grade, Maximum Grade, Grade can be changed, Last modified (submission), Last modified (grade), Feedback
comments`; its Identifier is the language's word for participant then the id (mod/assign `gradingtable`
and `upload grades` code), so only the number at its end is read.
"""

from __future__ import annotations

import csv
import io
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from grader.intake import platforms
from grader.intake.files import MAX_NOTEBOOK_BYTES, Refused, display, read_file
from grader.intake.models import Skipped, Student

if TYPE_CHECKING:
    from grader.intake.collect import Prepared

# Canvas's gradebook export: the row under the header holds each assignment's maximum points.
POINTS_POSSIBLE = "points possible"
# Canvas's Student View makes a fake student, exported with the others.
TEST_STUDENTS = {"student, test", "test student"}
TRAILING_NUMBER = re.compile(r"(\d+)\s*$")
# A roster with a role column (Gradescope's course roster, Canvas's people list) lists its staff too.
STUDENT_ROLES = {"student", "studentenrollment", "learner"}


@dataclass(eq=False)
class RosterEntry:
    """One student on the roster; `line` is where the row sits in the CSV (the header is line 1)."""

    line: int
    id: str = ""
    name: str = ""
    email: str = ""
    section: str = ""
    login: str = ""
    sis: str = ""
    group: str = ""
    participant: str = ""  # Moodle's participant id, from the worksheet's Identifier
    submission: str = ""  # Gradescope's submission id
    claimed: list[Student] = field(default_factory=list)  # the rows whose keys name it
    maybe: list[Student] = field(default_factory=list)  # rows left unmatched that it may be
    matched: Student | None = None

    def label(self) -> str:
        who = self.name or self.id or self.email
        return f"{who} (roster line {self.line}{', ' + self.email if self.email and who != self.email else ''})"


def norm(name: str) -> str:
    return re.sub(r"[^\w]|_", "", name.casefold())


def _names(entry: RosterEntry) -> set[str]:
    """Canvas writes the sortable name "Li, Wei" as `liwei`; a roster may hold "Wei Li" or "Li, Wei"."""
    out = {norm(entry.name)}
    if "," in entry.name:
        last, first = entry.name.split(",", 1)
        out.add(norm(first + last))
    parts = entry.name.split()
    if len(parts) > 1:
        out.add(norm(parts[-1] + "".join(parts[:-1])))
    return out - {""}


def moodle_names_agree(folder_name: str, entry: RosterEntry) -> bool:
    """Moodle writes the full name into the folder (3.x after "Group name-"; "Participant" under blind
    marking), so a participant id whose roster name is another's is not that participant's folder."""
    if not entry.name or folder_name.casefold() == "participant":
        return True
    names = _names(entry)
    parts = folder_name.split("-")
    return any(norm("-".join(parts[i:])) in names for i in range(len(parts)))


def read(path: str | os.PathLike) -> tuple[list[RosterEntry], list[Skipped]]:
    from grader.intake.collect import InputError

    shown = display(os.fspath(path))
    try:
        text = read_file(path, MAX_NOTEBOOK_BYTES).data.decode("utf-8-sig", "replace")
    except Refused as exc:
        raise InputError(f"roster {shown}: {exc}") from None
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:  # a cell over csv's field limit, a quote never closed at the end
        raise InputError(f"roster {shown}: not a readable CSV file ({exc})") from None
    header = rows[0] if rows else []
    cols = {h.strip().casefold(): i for i, h in reversed(list(enumerate(header)))}

    def col(*names: str) -> int | None:
        return next((cols[n] for n in names if n in cols), None)

    where = dict(
        id=col("id", "student id", "sid", "user id", "userid", "canvas_user_id", "canvas user id", "id number",
               "idnumber"),
        name=col("student", "name", "full name", "student name"),
        email=col("email", "email address", "e-mail"),
        section=col("section", "sections"),
        group=col("group_name", "group name", "group", "groups", "team"),
        login=col("sis login id", "login_id", "username", "login"),  # SIS User ID is its own column
        sis=col("sis user id", "sis_user_id", "user_id"),
        participant=col("identifier"),  # Moodle's grading worksheet
        submission=col("submission id"),  # Gradescope's grades export
    )
    # Moodle's and Gradescope's exports split the name: "First name" and "Last name" (or "Surname").
    first, last = col("first name", "firstname", "given name"), col("last name", "surname", "lastname")
    role = col("role", "roles")
    if all(where[k] is None for k in ("id", "name", "email", "participant")) and not (first is not None
                                                                                      and last is not None):
        raise InputError(f"roster {shown}: it needs an id, name or email column (e.g. ID, Student, Email, "
                         "Identifier)")
    folded = [h.strip().casefold() for h in header]
    entries, skipped = [], []
    for line, cells in enumerate(rows[1:], start=2):
        def cell(i: int | None, cells=cells) -> str:
            return cells[i].strip() if i is not None and i < len(cells) else ""

        e = RosterEntry(line, **{k: cell(i) for k, i in where.items()})
        if not e.name and first is not None and last is not None:
            e.name = " ".join(x for x in (cell(first), cell(last)) if x)
        if e.participant:
            m = TRAILING_NUMBER.search(e.participant)
            e.participant = m[1] if m else ""
            e.id = e.id or e.participant
        why = _not_a_student(e, cells, folded) or (
            f"role {cell(role)!r}" if cell(role) and cell(role).casefold() not in STUDENT_ROLES else "")
        if why:
            skipped.append(Skipped(path=f"{shown}:{line}", reason=f"{why}: not a student, left out"))
        else:
            entries.append(e)
    return entries, skipped


def _not_a_student(e: RosterEntry, cells: list[str], header: list[str]) -> str:
    if [c.strip().casefold() for c in cells] == header:
        return "the header line again"
    if e.name.casefold() == POINTS_POSSIBLE:
        return "Canvas's Points Possible row (each assignment's maximum points)"
    if e.name.casefold() in TEST_STUDENTS:
        return "Canvas's test student (made by Student View)"
    if not (e.id or e.name or e.email or e.participant or e.submission):
        return "a row with no id, name or e-mail"
    return ""


def canvas_logins(entries: list[RosterEntry]) -> dict[str, set[str]]:
    """User id -> the sortable names Canvas would write into its file names for that roster row."""
    out: dict[str, set[str]] = {}
    for e in entries:
        if e.id and e.name:
            parts = e.name.split()
            sortable = [e.name] if "," in e.name else [e.name, f"{parts[-1]}, {' '.join(parts[:-1])}"]
            out.setdefault(e.id, set()).update(platforms.canvas_login(n) for n in sortable)
    return out


def _index(entries: list[RosterEntry], attr: str) -> dict[str, list[RosterEntry]]:
    out: dict[str, list[RosterEntry]] = {}
    for e in entries:
        value = getattr(e, attr)
        if value:
            out.setdefault(value.casefold(), []).append(e)
    return out


class Key(NamedTuple):
    how: str  # what it is, in words
    value: str  # the row's
    attr: str  # the roster field it is looked up in
    decisive: bool = True  # missing from the roster, it rules out a name (a file's name read as an id does not)
    personal: bool = True  # the person's, not the submission's: a roster row holding another value is someone else


def _strong_keys(s: Student) -> list[Key]:
    """Strongest first. Gradescope's submission id is the submission's: a grades export taken before a
    resubmission holds the older one."""
    keys = {"canvas": [Key("Canvas user id", s.id, "id")] if not s.id.startswith("anon_") else [],
            "moodle": [Key("Moodle participant id", s.id, "participant")],
            "gradescope": [Key("Gradescope submission id", s.submission_id, "submission", personal=False),
                           Key("SID", s.id, "id")],
            "folder": [Key("id", s.id, "id", decisive=False)],
            "file": [Key("id", s.id, "id", decisive=False)]}.get(s.platform, [])
    return [*keys, Key("e-mail", s.email, "email")]


@dataclass
class _Claim:
    entry: RosterEntry | None
    how: str = ""
    why: str = ""  # no entry: why not
    kind: str = "not_on_roster"
    candidates: list[RosterEntry] = field(default_factory=list)


def _claim(s: Student, indexes: dict[str, dict[str, list[RosterEntry]]], in_use: set[str],
           names: dict[str, list[RosterEntry]]) -> _Claim:
    hits: list[tuple[str, str, list[RosterEntry]]] = []
    asked = []
    keys = [k for k in _strong_keys(s) if k.value and k.attr in in_use]
    for how, value, attr, decisive, _ in keys:
        if decisive:
            asked.append(f"{how} {value}")
        found = indexes[attr].get(value.casefold(), [])
        if found:
            hits.append((how, value, found))
    if hits:
        left = list(hits[0][2])
        for how, value, found in hits[1:]:
            both = [e for e in left if e in found]
            if not both:
                a, b = hits[0], (how, value, found)
                return _Claim(None, kind="identity_conflict", candidates=[*a[2], *b[2]],
                              why=f"{a[0]} {a[1]} names {', '.join(e.label() for e in a[2])} but {b[0]} {b[1]} "
                                  f"names {', '.join(e.label() for e in b[2])}: not matched, check by hand")
            left = both
        if len(left) == 1:
            e = left[0]
            other = next((k for k in keys if k.personal and getattr(e, k.attr)
                          and getattr(e, k.attr).casefold() != k.value.casefold()), None)
            if other is not None:  # its e-mail names a roster row whose SID is another's
                return _Claim(None, kind="identity_conflict", candidates=[e],
                              why=f"{hits[0][0]} {hits[0][1]} names {e.label()}, whose {other.how} is "
                                  f"{getattr(e, other.attr)}, not {other.value}: not matched, check by hand")
            if s.platform == "moodle" and not moodle_names_agree(s.name, e):
                return _Claim(None, kind="identity_conflict", candidates=[e],
                              why=f"the export names participant {s.id} {s.name!r}, the roster {e.name!r}: "
                                  "not matched, check by hand")
            return _Claim(e, " and ".join(h[0] for h in hits))
        return _Claim(None, kind="ambiguous_identity", candidates=left,
                      why=f"{hits[0][0]} {hits[0][1]} is on {len(left)} roster rows "
                          f"({', '.join(e.label() for e in left)}): not matched, check by hand")
    if asked:  # the roster holds this kind of key, and this row's is not on it: a name is no safe stand-in
        return _Claim(None, why=f"{' / '.join(asked)} is not on the roster")
    found = names.get(norm(s.name), []) if norm(s.name) else []
    if len(found) == 1:
        return _Claim(found[0], "name")
    if found:
        return _Claim(None, kind="ambiguous_identity", candidates=found,
                      why=f"{len(found)} roster rows are named like {s.name!r} "
                          f"({', '.join(e.label() for e in found)}), and nothing else tells them apart: "
                          "not matched, check by hand")
    return _Claim(None, why="not on the roster")


def match(rows: list[Prepared], entries: list[RosterEntry]) -> tuple[list[Prepared], list[Prepared]]:
    """Fill each row from its roster entry; the second list: a row for each student on the roster that no
    submission names. A group submission is given to each member of the group first."""
    from grader.intake.collect import Prepared

    rows, members = _group_members(rows, entries)
    indexes = {attr: _index(entries, attr) for attr in ("id", "participant", "submission", "email")}
    # A roster column holds a platform's key when it names someone in this class; another id space (a
    # school's student numbers beside Canvas ids) then never decides, and names may still match.
    in_use = {attr for attr, index in indexes.items()
              if any(value and value.casefold() in index for p in rows if p.student.key not in members
                     for _, value, a, _, _ in _strong_keys(p.student) if a == attr)}
    names: dict[str, list[RosterEntry]] = {}
    for e in entries:
        for n in _names(e):
            names.setdefault(n, []).append(e)
    claims: dict[str, _Claim] = {}
    for p in rows:
        s = p.student
        if s.key in members:
            claim = _Claim(members[s.key], "group")
        elif any(f.kind == "identity_conflict" for f in s.flags):  # intake could not tell whose it is
            claim = _Claim(None, kind="identity_conflict")
        else:
            claim = _claim(s, indexes, in_use, names)
        claims[s.key] = claim
        if claim.entry is not None:
            claim.entry.claimed.append(s)
    for p in rows:
        s, claim = p.student, claims[p.student.key]
        e = claim.entry
        if e is not None and len(e.claimed) > 1:  # two rows name one student: neither is given it
            others = [o for o in e.claimed if o is not s]
            e, claim = None, _Claim(None, kind="ambiguous_identity", candidates=[e],
                                    why=f"{e.label()} is named by this row ({claim.how}) and by "
                                        f"{', '.join(o.submission or o.key for o in others)}: not matched, "
                                        "check by hand")
            claims[s.key] = claim
        s.on_roster = e is not None
        if e is None:
            if claim.why:
                s.flag(claim.kind, claim.why)
            for c in claim.candidates:
                c.maybe.append(s)  # so its no-submission row says it may be this one
            continue
        e.matched = s
        s.matched_by = claim.how
        s.name = e.name or s.name
        s.email = s.email or e.email
        s.section, s.sis_login, s.sis_id = e.section, e.login, e.sis
        if e.id and s.platform in ("file", "folder"):
            s.id = e.id
    missing, keys = [], {p.student.key for p in rows}
    for e in entries:
        if e.matched is not None:
            continue
        key = f"roster:{e.id or e.email or e.name}"
        key = key if key not in keys else f"{key}#line{e.line}"
        keys.add(key)
        s = Student(key=key, id=e.id, name=e.name, email=e.email, section=e.section, sis_login=e.login,
                    sis_id=e.sis, platform="roster", on_roster=True, notes=["no submission"])
        for r in e.maybe:
            s.flag("ambiguous_identity", f"may be the student who handed in {r.submission or r.key} "
                                         f"({claims[r.key].why})")
        missing.append(Prepared(s, None))
    return rows, missing


def _group_members(rows: list[Prepared], entries: list[RosterEntry]) -> tuple[list[Prepared], dict[str, RosterEntry]]:
    """A group submission becomes one row per member of that group on the roster (a `group_name` column, as
    in Canvas's group-set CSV, or Moodle's `Groups`). Canvas names it after the group with its
    representative's user id (who must be a member); Moodle 4.x after the team with the group's id, which a
    worksheet's participant id outranks (a student whose name is a group's is still that student)."""
    from grader.intake.collect import Prepared

    groups: dict[str, list[RosterEntry]] = {}
    for e in entries:
        if e.group:
            groups.setdefault(norm(e.group), []).append(e)
    if not groups:
        return rows, {}
    participants = {e.participant: e for e in entries if e.participant}
    out: list[Prepared] = []
    members: dict[str, RosterEntry] = {}
    taken = {p.student.key for p in rows}
    for p in rows:
        s = p.student
        found = groups.get(norm(s.name)) if s.platform in ("canvas", "moodle") else None
        ids = {m.id for m in found or [] if m.id}
        if (not found or (s.platform == "canvas" and ids and s.id not in ids)
                or (s.platform == "moodle" and s.id in participants
                    and moodle_names_agree(s.name, participants[s.id]))):
            out.append(p)
            continue
        group = found[0].group
        for m in found:
            who = m.id or m.email or m.name
            key = f"{s.platform}:{who}" if s.platform == "canvas" else f"{s.platform}-member:{who}"
            if key in taken and who != s.id:
                continue  # a member who also handed in alone keeps their own submission
            by = f"handed in by user {s.id}" if s.platform == "canvas" else f"group id {s.id}"
            out.append(Prepared(s.model_copy(update={
                "key": key, "id": m.id, "name": m.name or s.name, "email": m.email,
                "notes": [*s.notes, f"a group submission by {group}, {by}"]}, deep=True), p.source))
            members[key] = m
    return out, members
