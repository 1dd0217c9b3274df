"""Import-ready files for a learning platform (`grade --lms canvas|moodle`), beside the detailed gradebook.csv.

Each layout writes the grades file its platform's own importer reads, with nothing it would misread, and a
zip of feedback files named as its bulk upload matches them to students. A grade is written only for a
`graded` row (an override applied) that needs no human first (a row flagged for its identity, for not being
on the roster or for an interface slip such as a renamed function is held out until reviewed); every other
row is left out of the grades file, so an import never clears or zeroes a grade by a blank: the platform
keeps what it had. The feedback (grades file comments and
zip) is the student view of `feedback/`, so `--published` decides whether it shows the total; the grade
itself is released by the platform's own posting policy.

What each platform reads, from its own code:

- **Canvas** (Grades → Import), canvas-lms `app/models/gradebook_importer.rb`: the header row must start with
  a column containing `Student` then one containing `ID`, and its identity columns end with `Section`:
  `Student, ID, SIS User ID, SIS Login ID, Section` is one of the accepted forms. A row is matched to a student
  by `ID` (Canvas's user id), then `SIS User ID`, then `SIS Login ID`, then by name; a row matched by none
  becomes an unknown student. Every other column, except the course's total columns (`Current Score`,
  `Final Grade`, ...) and the course's own custom columns matched by title (a `Notes` column is one), is an
  assignment: `Title (id)` is matched by the id, a bare title by the title, anything else creates a new
  assignment. So `canvas-import.csv` holds the five identity columns and one assignment column, titled by
  `--assignment` or taken whole (`Title (id)`) from a roster exported from Canvas's gradebook, nothing else.
  Rows whose student has no Canvas id nor SIS id (anonymous grading, a file named without Canvas's name)
  are left out and listed. Feedback: "Re-Upload Submissions" (`Assignment#infer_comment_context_from_filename`
  in `app/models/assignment.rb`) splits each file name on `_` and takes its first two all-digit parts as the
  user id and the id of a file of that user's submission; `canvas-feedback.zip` names each file
  `lastfirst_userid_attachmentid_feedback.md`, with the ids of the file that was graded.
- **Moodle** (Assignment → "Upload grading worksheet"), mod/assign/feedback/offline `importgradeslib.php` and
  `locallib.php`: the worksheet needs the columns `Identifier` (`Participant ` and the participant id),
  `Grade` and `Last modified (grade)`, or it is refused; `Feedback comments` (the comments plugin's field) is
  read when present; other columns are ignored. A row is skipped when its grade is empty or unchanged, and,
  unless "Allow updating records that have been modified more recently in Moodle than in the spreadsheet" is
  ticked, when Moodle's grade was changed more than a minute after the row's `Last modified (grade)`. So a
  worksheet downloaded from Moodle and passed as `--roster` is written back whole (`moodle-grading-worksheet.csv`:
  same columns, rows and order, `Last modified (grade)` kept so that guard still works), with `Grade` and
  `Feedback comments` filled for graded rows; without one, a worksheet of those columns is written for the
  students with a participant id (tick the option above if grades already exist). Feedback: "Upload multiple
  feedback files in a zip" (`assignfeedback_file_zip_importer::is_valid_filename_for_import`,
  mod/assign/feedback/file `importziplib.php`) splits each path part on `_` (at most five pieces) and reads the
  second as the participant id and the third and fourth as the plugin; `moodle-feedback.zip` names each file
  `Full Name_participantid_assignfeedback_file_feedback.md` (no `_` left in the name).

`--bom` starts every CSV written with a UTF-8 byte order mark, so Excel reads "García" right; both importers
accept it (Canvas matches header cells by inclusion, Moodle's `csv_import_reader` strips it).
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PureWindowsPath
from typing import Literal

from pydantic import BaseModel, ConfigDict

from grader.batch.gradebook import cell
from grader.batch.models import StudentResult
from grader.batch.names import handed_back, student_label
from grader.intake.collect import InputError
from grader.paths import atomic_write_bytes
from grader.report.view import adjustment_text, for_audience, headline, score_line, score_text

BOM = "\ufeff"
CANVAS_IDENTITY = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
# Columns gradebook_importer.rb never reads as an assignment (its identity and total columns).
CANVAS_NOT_ASSIGNMENTS = re.compile(r"^(Student|ID|SIS User ID|SIS Login ID|Section|Integration ID|Root Account"
                                    r"|LastName|FirstName)$|Current Score|Current Points|Current Grade|Final Score"
                                    r"|Final Points|Final Grade|Override Score|Override Grade|Override Status")
CANVAS_ASSIGNMENT = re.compile(r"^.+ \(\d+\)$")  # "Title (id)", as Canvas's gradebook export heads one
MOODLE_ID, MOODLE_GRADE, MOODLE_MODIFIED, MOODLE_COMMENTS = (
    "Identifier", "Grade", "Last modified (grade)", "Feedback comments")
FEEDBACK_FILE = "Every check is in your feedback file."  # a comment's last sentence, where the zip is handed back
MOODLE_PARTICIPANT = "Participant "  # lang/en assign `hiddenuser`: the Identifier is this and the id


class LmsExport(BaseModel):
    """What `--lms`, `--assignment`, `--roster` and `--bom` ask of a class run's import files."""

    model_config = ConfigDict(extra="forbid")

    lms: Literal["canvas", "moodle"]
    assignment: str = ""  # Canvas: the assignment column's title
    worksheet: Path | None = None  # Moodle: the grading worksheet downloaded from the assignment
    bom: bool = False
    # Where a comment sends the student for the rest: the feedback zip's file (the CLI), or the course
    # service's report page (it writes no feedback files).
    rest: str = FEEDBACK_FILE


def csv_text(rows: list[list[object]], *, bom: bool) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return (BOM if bom else "") + buf.getvalue()


def _read_csv(path: Path) -> list[list[str]]:
    try:
        return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"{path}: {exc}") from None


def canvas_assignment(title: str, roster: Path | None) -> str:
    """The assignment column's header: `--assignment`, matched to the roster's `Title (id)` column when the
    roster is Canvas's gradebook export (so Canvas matches it by id), or that roster's one assignment column."""
    columns = [c for c in (_read_csv(roster)[:1] or [[]])[0] if CANVAS_ASSIGNMENT.match(c)
               and not CANVAS_NOT_ASSIGNMENTS.search(c)] if roster else []
    if title:
        return next((c for c in columns if c.rsplit(" (", 1)[0] == title), title)
    if len(columns) == 1:
        return columns[0]
    found = f"; the roster's assignment columns are {', '.join(columns)}" if columns else ""
    raise InputError("--lms canvas needs --assignment TITLE (the assignment's name in Canvas) or a roster exported "
                     f"from Canvas's gradebook with that one assignment column{found}")


def lms_export(lms: str, *, assignment: str = "", roster: str | Path | None = None, bom: bool = False) -> LmsExport:
    """Checked before anything is graded: Canvas needs its assignment column's title, Moodle's worksheet (when
    the roster is one) must have the columns its importer needs."""
    roster = Path(roster) if roster else None
    if lms == "canvas":
        return LmsExport(lms="canvas", assignment=canvas_assignment(assignment, roster), bom=bom)
    header = (_read_csv(roster)[:1] or [[]])[0] if roster else []
    export = LmsExport(lms="moodle", worksheet=roster if MOODLE_ID in header else None, bom=bom)
    if export.worksheet is not None and not {MOODLE_GRADE, MOODLE_MODIFIED} <= set(header):
        raise InputError(f"{roster} is not a whole Moodle grading worksheet (it needs the columns {MOODLE_ID}, "
                         f"{MOODLE_GRADE} and {MOODLE_MODIFIED}): download it again from the assignment")
    return export


def _sentence(text: str) -> str:
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else text + "."


def feedback_comment(r: StudentResult, *, published: bool, rest: str = FEEDBACK_FILE) -> str:
    """The short text for a platform's comment box: the student view's total and what it found first; `rest`
    says where the student reads the rest."""
    report, held_back = for_audience(handed_back(r.report, r.student), "student", published=published)
    total = score_line(report, "student", held_back, published=published)
    if report.diagnoses:
        found = f"{report.diagnoses[0].title}: {report.diagnoses[0].message}"
    else:
        found = headline(report, report.checks, held_back=held_back, pictures=False)
    # An override is part of what the student reads beside the grade, as in the feedback file (the trial's Moodle
    # comment showed a grade of 60 beside a total of 43.5 and nothing about why).
    adjusted = " ".join(f"Adjusted by your instructor: {_sentence(adjustment_text(a, report))}"
                        for a in report.adjustments)
    return f"{total}. {found}{' ' + adjusted if adjusted else ''} {rest}"


# A row flagged for one of these is held out of the import files until a person has looked (review.csv):
# its grade may belong to someone else, or be a 0 for math that passes behind a renamed function.
HELD_FOR_REVIEW = frozenset({"ambiguous_identity", "identity_conflict", "not_on_roster", "interface"})


def _held(r: StudentResult) -> list[str]:
    return sorted({f.kind for f in r.student.flags if f.kind in HELD_FOR_REVIEW})


def _graded(results: list[StudentResult]) -> list[StudentResult]:
    return [r for r in results if r.status == "graded" and r.report is not None and not _held(r)]


def held_for_review(results: list[StudentResult], grades_file: str) -> list[str]:
    return [f"{student_label(r.student)}: held out of {grades_file} and its feedback zip until reviewed "
            f"({', '.join(k.replace('_', ' ') for k in _held(r))}; see review.csv): enter this grade by hand"
            for r in results if r.status == "graded" and r.report is not None and _held(r)]




def canvas_grades(results: list[StudentResult], export: LmsExport, *, published: bool) -> tuple[str, list[str]]:
    rows: list[list[object]] = [[*CANVAS_IDENTITY, export.assignment]]
    left_out = []
    for r in _graded(results):
        s = r.student
        canvas_id = s.id if s.platform == "canvas" and s.id.isdigit() else ""
        if not (canvas_id or s.sis_id or s.sis_login):
            left_out.append(f"{student_label(s)}: no Canvas user id or SIS id to match (enter this grade by hand)")
            continue
        rows.append([cell(s.name), canvas_id, cell(s.sis_id), cell(s.sis_login), cell(s.section),
                     score_text(r.report.score)])
    return csv_text(rows, bom=export.bom), left_out


def canvas_feedback_name(r: StudentResult) -> str | None:
    """`login_userid_attachmentid_feedback.md`, the ids read from the graded file's Canvas name beside the
    student's own (known) user id; the login part keeps no all-digit piece Canvas could read as an id."""
    s = r.student
    if s.platform != "canvas" or not s.id.isdigit():
        return None
    m = re.match(rf"^(?P<login>.*?)(?:_LATE)?_{s.id}_(?P<file>\d+)_", PureWindowsPath(s.submission).name)
    if m is None:
        return None
    login = m["login"] if m["login"] and not any(p.isdigit() for p in m["login"].split("_")) else "student"
    return f"{login}_{s.id}_{m['file']}_feedback.md"


def moodle_grades(results: list[StudentResult], export: LmsExport, *, published: bool) -> tuple[str, list[str]]:
    graded = {r.student.id: r for r in _graded(results) if r.student.platform == "moodle" and r.student.id.isdigit()}
    left_out = [f"{student_label(r.student)}: no Moodle participant id (enter this grade by hand)"
                for r in _graded(results) if r.student.id not in graded or graded[r.student.id] is not r]
    if export.worksheet is None:
        rows: list[list[object]] = [[MOODLE_ID, "Full name", "Email address", MOODLE_GRADE, "Maximum Grade",
                                     MOODLE_MODIFIED, MOODLE_COMMENTS]]
        for pid, r in graded.items():
            rows.append([f"{MOODLE_PARTICIPANT}{pid}", cell(r.student.name), cell(r.student.email),
                         score_text(r.report.score), score_text(r.report.max_score), "",
                         cell(feedback_comment(r, published=published, rest=export.rest))])
        return csv_text(rows, bom=export.bom), left_out
    rows = _read_csv(export.worksheet)
    header = rows[0] if rows else []
    if not {MOODLE_ID, MOODLE_GRADE, MOODLE_MODIFIED} <= set(header):
        raise InputError(f"{export.worksheet} is not a Moodle grading worksheet (it needs the columns "
                         f"{MOODLE_ID}, {MOODLE_GRADE} and {MOODLE_MODIFIED}): download it from the assignment")
    if MOODLE_COMMENTS not in header:
        header.append(MOODLE_COMMENTS)
    at = {name: header.index(name) for name in (MOODLE_ID, MOODLE_GRADE, MOODLE_COMMENTS)}
    written = set()
    for row in rows[1:]:
        row += [""] * (len(header) - len(row))
        pid = row[at[MOODLE_ID]].removeprefix(MOODLE_PARTICIPANT).strip()
        if (r := graded.get(pid)) is not None:
            row[at[MOODLE_GRADE]] = score_text(r.report.score)
            row[at[MOODLE_COMMENTS]] = cell(feedback_comment(r, published=published, rest=export.rest))
            written.add(pid)
    left_out += [f"{student_label(r.student)}: participant {pid} is not in {export.worksheet.name}"
                 for pid, r in graded.items() if pid not in written]
    return csv_text(rows, bom=export.bom), left_out


def moodle_feedback_name(r: StudentResult) -> str | None:
    s = r.student
    if s.platform != "moodle" or not s.id.isdigit():
        return None
    name = re.sub(r"[_/\\\x00-\x1f]+", " ", s.name).strip() or "Participant"  # Moodle splits the name on `_`
    return f"{name}_{s.id}_assignfeedback_file_feedback.md"


@dataclass(frozen=True)
class Layout:
    """One platform: its grades file, its feedback zip, and how each student's feedback file is named in it."""

    grades_file: str
    grades: Callable[..., tuple[str, list[str]]]
    feedback_zip: str
    feedback_name: Callable[[StudentResult], str | None]


LAYOUTS: dict[str, Layout] = {
    "canvas": Layout("canvas-import.csv", canvas_grades, "canvas-feedback.zip", canvas_feedback_name),
    "moodle": Layout("moodle-grading-worksheet.csv", moodle_grades, "moodle-feedback.zip", moodle_feedback_name),
}


def write_lms(out: Path, results: list[StudentResult], export: LmsExport, *, published: bool,
              feedback: Callable[[StudentResult], str]) -> tuple[list[Path], list[str]]:
    """The platform's grades file and feedback zip in `out`; returns them and the rows left out, with why.
    `feedback` renders a student's feedback file (the same text as feedback/)."""
    layout = LAYOUTS[export.lms]
    text, left_out = layout.grades(results, export, published=published)
    left_out += held_for_review(results, layout.grades_file)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for r in _graded(results):
            if (name := layout.feedback_name(r)) is not None:
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # the same bytes on every rerun
                info.external_attr = 0o600 << 16
                zf.writestr(info, feedback(r))
            else:
                left_out.append(f"{student_label(r.student)}: no {export.lms} name for a feedback file "
                                f"(hand back feedback/{r.report_name}.md)")
    paths = [out / layout.grades_file, out / layout.feedback_zip]
    atomic_write_bytes(paths[0], text.encode("utf-8"))
    atomic_write_bytes(paths[1], buf.getvalue())
    return paths, left_out
