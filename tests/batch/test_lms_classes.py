"""Done when (issue 20, part A): a 60-student class in each of the three layouts (Canvas, Moodle,
Gradescope), with duplicate names, a roster taken from each LMS's own export, two candidate files, an
ungradable upload (`attention.py.txt`, a PDF), a renamed function and a test runner called at import;
every gradebook row's identity, status and score is checked against the truth the class was built from,
and review.csv lists exactly the rows that need a human.

The class hands in five distinct sources, so one store shared by the three runs grades each once."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from grader.batch.run import grade_class
from grader.intake.collect import collect
from grader.paths import INSTRUCTOR_RUBRIC
from grader.rubric import load_rubric
from grader.sandbox import Limits

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = (ROOT / "reference" / "attention.py").read_text()
SOURCES = {
    "ok": REFERENCE,
    "zero_fill_mask": (ROOT / "reference" / "mutants" / "zero_fill_mask.py").read_text(),
    "no_mask": (ROOT / "reference" / "mutants" / "no_mask.py").read_text(),
    "renamed": REFERENCE.replace("def causal_attention(", "def attention("),
    "runner": REFERENCE + "\nimport unittest\nunittest.main()\n",
}
FIRST = ["Wei", "Wei", "María", "María", "Ann", "Bo", "Cy", "Di", "Eve", "Fay"]
LAST = ["Li", "Li", "García", "García", "Lee", "Chen", "Dee", "Fu", "Ng", "Oduya"]
# Moodle's "Download grading worksheet" header (mod/assign gradingtable / upload grades).
WORKSHEET = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade", "Grade can be changed",
             "Last modified (submission)", "Last modified (grade)", "Feedback comments"]


@dataclass
class Truth:
    i: int
    first: str
    last: str
    kind: str  # a key of SOURCES, or "two" (attention.py ok + attention_v2.py a mutant), "txt", "pdf", "none"

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def email(self) -> str:
        return f"s{self.i}@u.edu"

    @property
    def sortable(self) -> str:  # Canvas's file-name part: the sortable name, non-word characters removed
        return re.sub(r"[^\w]", "", f"{self.last}, {self.first}".casefold())

    @property
    def status(self) -> str:
        return {"txt": "ungradable", "pdf": "ungradable", "none": "no_submission"}.get(self.kind, "graded")

    @property
    def review(self) -> set[str]:
        return {"two": {"two_candidates"}, "txt": {"ungradable"}, "pdf": {"ungradable"},
                "renamed": {"interface"}, "runner": {"interface"}}.get(self.kind, set())


def _truth() -> list[Truth]:
    kinds = {10: "two", 11: "txt", 12: "pdf", 13: "renamed", 14: "runner", 15: "none", 16: "none", 17: "none"}
    out = []
    for i in range(60):
        first, last = (FIRST[i], LAST[i]) if i < 10 else (f"Stu{i:02d}", f"Dent{i % 7}")
        # The two Wei Li and the two María García hand in different files: a swap shows in the scores.
        out.append(Truth(i, first, last, kinds.get(i, ("ok", "zero_fill_mask", "no_mask")[i % 3])))
    return out


def _files(t: Truth) -> dict[str, bytes]:
    """What the student uploaded, by their own file names."""
    if t.kind == "two":
        return {"attention.py": SOURCES["ok"].encode(), "attention_v2.py": SOURCES["zero_fill_mask"].encode()}
    if t.kind == "txt":
        return {"attention.py.txt": SOURCES["ok"].encode()}
    if t.kind == "pdf":
        return {"report.pdf": b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"}
    return {} if t.kind == "none" else {"attention.py": SOURCES[t.kind].encode()}


def _write_csv(path: Path, rows: list[list[str]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    return path


def canvas_class(root: Path, truth: list[Truth]) -> tuple[Path, Path, callable]:
    """Canvas's "Download Submissions" (flat `lastfirst_userid_attachmentid_file`) and its gradebook export
    as the roster, with the Points Possible row and Student View's test student."""
    export = root / "canvas"
    export.mkdir()
    for t in truth:
        for n, (name, data) in enumerate(_files(t).items()):
            (export / f"{t.sortable}_{4000 + t.i}_{70000 + 10 * t.i + n}_{name}").write_bytes(data)
    rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Causal attention (5501)"],
            ["    Points Possible", "", "", "", "", "100.00"], ["Student, Test", "9999", "", "", "CS182 A", ""]]
    rows += [[f"{t.last}, {t.first}", str(4000 + t.i), f"S{t.i}", f"login{t.i}", "CS182 A", ""] for t in truth]
    return export, _write_csv(root / "canvas-grades.csv", rows), lambda t: str(4000 + t.i)


def moodle_class(root: Path, truth: list[Truth]) -> tuple[Path, Path, callable]:
    """Moodle's "Download all submissions" in folders and its grading worksheet as the roster."""
    export = root / "moodle"
    for t in truth:
        folder = export / f"{t.name}_{576300 + t.i}_assignsubmission_file_"
        for name, data in _files(t).items():
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
    rows = [WORKSHEET] + [[f"Participant {576300 + t.i}", t.name, t.email,
                           "No submission" if t.kind == "none" else "Submitted for grading", "", "100.00", "Yes",
                           "", "", ""] for t in truth]
    return export, _write_csv(root / "moodle-worksheet.csv", rows), lambda t: str(576300 + t.i)


def gradescope_class(root: Path, truth: list[Truth]) -> tuple[Path, Path, callable]:
    """Gradescope's "Export Submissions" (`submission_<id>/`, `submission_metadata.yml`) and its grades
    export as the roster (Submission ID empty for who handed in nothing)."""
    export = root / "gradescope"
    export.mkdir()
    meta = []
    for t in truth:
        files = _files(t)
        if not files:
            continue
        folder = export / f"submission_{9000 + t.i}"
        folder.mkdir()
        for name, data in files.items():
            (folder / name).write_bytes(data)
        meta.append(f"submission_{9000 + t.i}:\n  :submitters:\n  - :name: {t.name}\n    :sid: 'S{t.i}'\n"
                    f"    :email: {t.email}\n  :created_at: 2026-03-01 10:00:00.000000000 -08:00\n")
    (export / "submission_metadata.yml").write_text("".join(meta), encoding="utf-8")
    rows = [["First Name", "Last Name", "SID", "Email", "Sections", "Total Score", "Max Points", "Status",
             "Submission ID"]]
    rows += [[t.first, t.last, f"S{t.i}", t.email, "", "", "100.0", "Missing" if t.kind == "none" else "Ungraded",
              "" if t.kind == "none" else str(9000 + t.i)] for t in truth]
    return export, _write_csv(root / "gradescope-grades.csv", rows), lambda t: f"S{t.i}"


@pytest.fixture(scope="module")
def warm(sandbox_for):
    return sandbox_for(Limits())  # the default deadlines: load never turns into a verdict


def _read(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("layout", [canvas_class, moodle_class, gradescope_class], ids=lambda f: f.__name__)
def test_every_row_is_the_right_student_with_the_right_status_and_score(tmp_path_factory, warm, layout):
    root = tmp_path_factory.mktemp(layout.__name__)
    truth = _truth()
    export, roster, platform_id = layout(root, truth)
    intake = collect([export], roster=roster)
    # One store for the three layouts (same secret and rubric): the five sources are graded once in all.
    out = tmp_path_factory.getbasetemp() / "lms-store"
    junit = root / "junit.xml"
    run = grade_class(intake, rubric=load_rubric(INSTRUCTOR_RUBRIC), secret="lms-secret", out=out,
                      sandboxes=[warm], hidden=[export], junit=junit)
    rows = _read(out / "gradebook.csv")
    assert len(rows) == 60 and run.summary.students == 60  # no Points Possible, no test student, no duplicate
    by_id = {r["ID"]: r for r in rows}
    assert sorted(by_id) == sorted(platform_id(t) for t in truth)
    for t in truth:
        r = by_id[platform_id(t)]
        canvas = layout is canvas_class  # Canvas's export has the sortable name, its SIS ids, no e-mail
        assert (r["Student"], r["Email"], r["Status"]) == (
            f"{t.last}, {t.first}" if canvas else t.name, "" if canvas else t.email, t.status), (t, r)
        assert r["SIS User ID"] == (f"S{t.i}" if canvas else ""), r
        if t.kind == "none":
            assert r["Submission"] == "" and r["Score"] == "", r
            continue
        own = {canvas_class: f"_{4000 + t.i}_", moodle_class: f"_{576300 + t.i}_",
               gradescope_class: f"submission_{9000 + t.i}"}[layout]
        if t.status == "ungradable":
            assert r["Score"] == "" and "nothing could be graded" in r["Notes"], r
            assert ("Python file saved with a .txt ending" if t.kind == "txt" else "a .pdf file") in r["Notes"], r
            continue
        assert own in r["Submission"] and r["Submission"].endswith("attention.py"), (t, r)  # their own file
        if t.kind in ("ok", "two"):
            assert r["Score"] == r["Max Score"] == "100" and r["Diagnoses"] == "", (t, r)
        elif t.kind in ("zero_fill_mask", "no_mask"):
            assert float(r["Score"]) < 100 and r["Diagnoses"].split()[0] == t.kind, (t, r)
        else:  # renamed, runner: the math is the reference's, the interface is not; listed for review
            assert r["Score"] == "0" and r["Diagnoses"].split()[0] == {"renamed": "missing_function",
                                                                        "runner": "process_exit"}[t.kind], (t, r)
    # The needs-a-human list: exactly the rows built to need one, with the kind of each.
    review = _read(out / "review.csv")
    got: dict[str, set[str]] = {}
    for item in review:
        got.setdefault(item["ID"], set()).add(item["Kind"])
    assert got == {platform_id(t): t.review for t in truth if t.review}, review
    assert {i.kind for i in run.summary.review} == {"two_candidates", "ungradable", "interface"}
    assert "Needs a human" in (out / "summary.md").read_text()
    page = (out / "summary.html").read_text()
    listed = re.findall(r"<tr><td>([^<]*)</td><td>[^<]*</td>\n<td>([^<]*)</td>", page.split('id="review"')[1])
    # Each named with the id beside the name: two students of one name stay apart (the instructor trial).
    assert sorted(listed) == sorted((f"{t.name if layout is not canvas_class else f'{t.last}, {t.first}'} "
                                     f"({platform_id(t)})", kind.replace("_", " ")) for t in truth for kind in t.review)
    if layout is canvas_class:  # the rows that are not students are listed, not graded
        reasons = [s.reason for s in run.skipped if s.path.startswith(str(roster))]
        assert len(reasons) == 2 and "Points Possible" in reasons[0] and "test student" in reasons[1]
    # JUnit says why an ungradable upload has no test cases, as the gradebook's Notes do.
    suites = {suite.get("name"): suite for suite in ET.parse(junit).getroot()}
    pdf = next(t for t in truth if t.kind == "pdf")
    (error,) = [e for name, suite in suites.items() if name.startswith(pdf.name if layout is not canvas_class
                                                                          else f"{pdf.last}, {pdf.first}")
                for e in suite.iter("error")]
    assert "nothing could be graded" in error.get("message") and "a .pdf file" in error.get("message")
    matched = {p.student.matched_by for p in intake.students if p.student.platform != "roster"}
    assert matched == {canvas_class: {"Canvas user id"}, moodle_class: {"Moodle participant id"},
                       gradescope_class: {"Gradescope submission id and SID and e-mail"}}[layout]
