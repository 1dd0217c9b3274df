"""Class exports as the platforms write them: a whole class in one zip, Canvas anonymous and group names,
online text typed into Moodle's (or Canvas's) editor. The names follow canvas-lms `lib/content_zipper.rb`
and Moodle's `mod/assign` download code (see grader/intake/platforms.py)."""

from __future__ import annotations

import html
import zipfile
from pathlib import Path

from grader.intake.collect import collect
from grader.intake.onlinetext import code_of

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = (ROOT / "reference" / "attention.py").read_text()
ZERO_FILL = (ROOT / "reference" / "mutants" / "zero_fill_mask.py").read_text()
# Canvas's zip is named "<course short name slug>-<assignment title slug> submissions", spaces made _.
CANVAS_ZIP = "cs182-causal-self-attention_submissions.zip"


def _atto(code: str, before: str = "", after: str = "") -> str:
    """How Moodle's editor stores pasted code: a paragraph a line, runs of spaces as '&nbsp; ', a blank
    line as an empty paragraph, wrapped in the page `get_files` writes."""
    paras = [f"<p>{html.escape(before)}</p>"] if before else []
    for line in code.splitlines():
        body = html.escape(line, quote=False).replace("  ", "&nbsp; ")
        paras.append(f"<p>{body}</p>" if line.strip() else "<p><br></p>")
    if after:
        paras.append(f"<p>{html.escape(after)}</p>")
    return ('<!DOCTYPE html><html><head><meta charset="UTF-8"></head><body>' + "".join(paras)
            + "</body></html>")


def _by_id(intake):
    return {p.student.id: p for p in intake.students}


def _reasons(intake):
    return {s.path.rsplit("/", 1)[-1]: s.reason for s in intake.skipped}


def _zip_folder(folder: Path, archive: Path, extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                z.write(path, path.relative_to(folder).as_posix())
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return archive


def _canvas_export(folder: Path) -> Path:
    folder.mkdir()
    (folder / "smithjohn_4821_99817_attention.py").write_text(ZERO_FILL)
    (folder / "smithjohn_LATE_4821_99901_attention-1.py").write_text(REFERENCE)  # resubmitted late
    (folder / "garcíamaría_5002_99820_attention.py").write_text(REFERENCE)  # [[:word:]] keeps accents
    (folder / "doejane_5004_text.html").write_text(_atto(REFERENCE))  # an online text entry
    with zipfile.ZipFile(folder / "leejin_5003_99821_hw3.zip", "w") as z:  # a student's own zip upload
        z.writestr("hw3/attention.py", REFERENCE)
    return folder


def test_a_canvas_class_zip_is_the_class_its_folder_is(tmp_path):
    folder = _canvas_export(tmp_path / "export")
    archive = _zip_folder(folder, tmp_path / CANVAS_ZIP)
    unzipped, zipped = _by_id(collect([folder])), _by_id(collect([archive]))
    assert set(zipped) == set(unzipped) == {"4821", "5002", "5003", "5004"}
    for uid in ("4821", "5002", "5004"):  # the same student, the same latest file, the same bytes graded
        assert zipped[uid].student.key == unzipped[uid].student.key == f"canvas:{uid}"
        assert zipped[uid].student.source_sha256 == unzipped[uid].student.source_sha256
    assert zipped["4821"].source.decode() == REFERENCE and zipped["4821"].student.late
    assert zipped["5002"].student.name == "garcíamaría"
    assert zipped["4821"].student.submission == f"{tmp_path / CANVAS_ZIP}/smithjohn_LATE_4821_99901_attention-1.py"
    # A student's zip inside the class zip is never opened; the folder export grades it.
    assert unzipped["5003"].source.decode() == REFERENCE
    assert zipped["5003"].source is None
    assert "archive inside the class archive" in _reasons(collect([archive]))["leejin_5003_99821_hw3.zip"]
    # ... and the student's row says so (ungradable, for review), rather than that nothing was handed in.
    assert [(f.kind, f.detail.startswith("handed in, but nothing could be graded: leejin_5003_99821_hw3.zip: an "
                                         "archive inside")) for f in zipped["5003"].student.flags] == [
        ("ungradable", True)], zipped["5003"].student.flags


def test_a_class_zip_still_refuses_hostile_members(tmp_path):
    folder = _canvas_export(tmp_path / "export")
    nested = tmp_path / "nested.zip"
    with zipfile.ZipFile(nested, "w") as z:
        z.writestr("attention.py", REFERENCE)
    archive = _zip_folder(folder, tmp_path / CANVAS_ZIP, {
        "../../evil_1_2_attention.py": b"import os\nos.system('touch /tmp/pwned')\n",
        "/etc/abs_3_4_attention.py": b"x = 1\n",
        "smithjohn_4821_99999_..\\..\\win.py": b"x = 1\n",
        "moodle_9_assignsubmission_file_/../../up.py": b"x = 1\n",
        "wrapped_6_7_inner.zip": nested.read_bytes(),  # a zip in the class zip: listed, never opened
    })
    intake = collect([archive])
    reasons = {s.path.split(CANVAS_ZIP + "/", 1)[-1]: s.reason for s in intake.skipped}
    assert "climbs out" in reasons["../../evil_1_2_attention.py"]
    assert "absolute" in reasons["/etc/abs_3_4_attention.py"]
    assert "absolute or Windows" in reasons["smithjohn_4821_99999_..\\..\\win.py"]
    assert "climbs out" in reasons["moodle_9_assignsubmission_file_/../../up.py"]
    assert "never opened" in reasons["wrapped_6_7_inner.zip"]
    ids = _by_id(intake)
    assert set(ids) == {"4821", "5002", "5003", "5004", "6"}  # refused paths name nobody
    assert ids["6"].source is None  # the student behind the nested zip still gets a row, with nothing graded
    assert all(b"pwned" not in (p.source or b"") for p in intake.students)
    assert not (tmp_path.parent / "evil_1_2_attention.py").exists()


def test_a_students_own_zip_on_the_command_line_is_one_submission(tmp_path):
    with zipfile.ZipFile(tmp_path / "hw3.zip", "w") as z:
        z.writestr("hw3/attention.py", REFERENCE)
        z.writestr("hw3/notes_1_2_x.txt", "not a platform export")
    (one,) = collect([tmp_path / "hw3.zip"]).students
    assert one.student.key == f"path:{tmp_path / 'hw3.zip'}" and one.source.decode() == REFERENCE


def test_moodle_download_all_zip_with_online_text(tmp_path):
    prefix = "Causal attention-"  # not part of the names; Moodle zips hold the folders at the top
    moodle = {
        "Ann Lee_77_assignsubmission_file_/attention.py": REFERENCE,
        "Bo Chen_78_assignsubmission_onlinetext_/onlinetext.html": _atto(REFERENCE, "Here is my code:", "Thanks!"),
        "Cy Dee_79_assignsubmission_onlinetext_/onlinetext.html": _atto(
            "I ran out of time, the softmax gave me NaNs when a row was all masked. Sorry!"),
        "Di Fu_81_assignsubmission_file_/attention.py": ZERO_FILL,
        "Di Fu_81_assignsubmission_onlinetext_/onlinetext.html": _atto("See the attached file."),
        "Participant_80_assignsubmission_file_/attention.py": REFERENCE,  # blind marking
        "Eve Ng_82_assignsubmission_onlinetext_onlinetext.html": '<html><body><script>alert(1)</script>'
        "<pre>import torch\n\ndef causal_attention(q, k, v):\n    s = q @ k.transpose(-2, -1)\n"
        "    return torch.softmax(s, -1) @ v, s &lt; 0\n</pre></body></html>",  # flat, a <pre> block
    }
    archive = tmp_path / f"{prefix}CS182-12345.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for name, text in moodle.items():
            z.writestr(name, text)
    intake = collect([archive])
    ids = _by_id(intake)
    assert {k: p.student.name for k, p in ids.items()} == {
        "77": "Ann Lee", "78": "Bo Chen", "79": "Cy Dee", "80": "Participant", "81": "Di Fu", "82": "Eve Ng"}
    bo = ids["78"]
    assert bo.source.decode().strip() == REFERENCE.strip()  # the pasted code, every indent and < restored
    assert bo.student.converted and "online text" in bo.student.notes[0] and "prose" in bo.student.notes[0]
    assert ids["82"].source.decode().startswith("import torch\n\ndef causal_attention")
    assert "alert" not in ids["82"].source.decode()
    assert ids["79"].source is None  # prose: listed, not graded
    assert ids["81"].source.decode() == ZERO_FILL  # the file, not the note beside it
    reasons = {s.path.split(".zip/", 1)[-1]: s.reason for s in intake.skipped}
    assert "does not define causal_attention" in reasons["Cy Dee_79_assignsubmission_onlinetext_/onlinetext.html"]
    assert "does not define" in reasons["Di Fu_81_assignsubmission_onlinetext_/onlinetext.html"]


def test_online_text_extraction_formats():
    plain = "import torch<br />\ndef causal_attention(q, k, v):<br />\n&nbsp; &nbsp; return v, q &lt; k<br />\n"
    assert code_of(f"<html><body>{plain}</body></html>") == (
        "import torch\ndef causal_attention(q, k, v):\n    return v, q < k\n", False)  # nl2br, plain format
    code, trimmed = code_of(_atto("def causal_attention(q, k, v):\n    return v, q\n", "My answer:"))
    assert code == "def causal_attention(q, k, v):\n    return v, q\n" and trimmed
    prose, trimmed = code_of("<p>I did not finish.</p><p>Sorry!</p>")
    assert prose == "I did not finish.\nSorry!\n" and not trimmed


def test_canvas_anonymous_grading_names(tmp_path):
    (tmp_path / "anon_7Gq2k_99817_attention.py").write_text(ZERO_FILL)
    (tmp_path / "anon_7Gq2k_99900_attention-1.py").write_text(REFERENCE)  # resubmitted
    (tmp_path / "LATE_anon_Hx9Pz_99818_attention.py").write_text(REFERENCE)
    (tmp_path / "anon_Hx9Pz_text.html").write_text(_atto("see file"))
    (tmp_path / "anonbyjane_123_456_attention.py").write_text(ZERO_FILL)  # a student named "Anonby, Jane"
    intake = collect([tmp_path])
    ids = _by_id(intake)
    assert set(ids) == {"anon_7Gq2k", "anon_Hx9Pz", "123"}
    assert ids["anon_7Gq2k"].source.decode() == REFERENCE and ids["anon_7Gq2k"].student.key == "canvas:anon_7Gq2k"
    assert ids["anon_Hx9Pz"].student.late and ids["anon_Hx9Pz"].source.decode() == REFERENCE
    assert ids["123"].student.name == "anonbyjane"
    assert "an older submission" in _reasons(intake)["anon_7Gq2k_99817_attention.py"]


def test_canvas_group_submission_gives_every_member_a_row(tmp_path):
    export = tmp_path / "export"
    export.mkdir()
    # Canvas names a group's files after the group (sortable name "Team 3" -> "team3") and its representative.
    (export / "team3_4821_99817_attention.py").write_text(REFERENCE)
    (export / "team3_4821_99901_attention-1.py").write_text(ZERO_FILL)
    (export / "team4_5000_99818_attention.py").write_text(REFERENCE)  # not 5000's group: stays one row
    (export / "okaforchidi_5100_99819_attention.py").write_text(REFERENCE)
    roster = tmp_path / "groups.csv"  # Canvas's group-set export
    roster.write_text("name,canvas_user_id,user_id,login_id,sections,group_name,canvas_group_id,group_id\n"
                      "John Smith,4821,S4821,jsmith,CS182 A,Team 3,901,\n"
                      "Ana Ruiz,4822,S4822,aruiz,CS182 A,Team 3,901,\n"
                      "Kai Moe,4823,S4823,kmoe,CS182 B,Team 3,901,\n"
                      "Lu Wei,4900,S4900,lwei,CS182 B,Team 4,902,\n"
                      "Chidi Okafor,5100,S5100,cokafor,CS182 B,,,\n")
    without = _by_id(collect([export]))
    assert set(without) == {"4821", "5000", "5100"} and without["4821"].student.name == "team3"
    ids = _by_id(collect([export], roster=roster))
    assert {k: p.student.name for k, p in ids.items() if p.source is not None} == {
        "4821": "John Smith", "4822": "Ana Ruiz", "4823": "Kai Moe", "5000": "team4", "5100": "Chidi Okafor"}
    team = [ids[u] for u in ("4821", "4822", "4823")]
    assert {p.source.decode() for p in team} == {ZERO_FILL}  # the group's latest file, for each member
    assert all(p.student.key == f"canvas:{u}" and "group submission by Team 3" in p.student.notes[-1]
               for u, p in zip(("4821", "4822", "4823"), team, strict=True))
    assert ids["4900"].source is None and ids["4900"].student.notes == ["no submission"]


def test_a_class_zip_with_online_text_is_graded_end_to_end(tmp_path, sandbox):
    """The pasted reference scores full marks, the pasted mutant is diagnosed, prose gets a row and no grade."""
    from grader.batch.run import grade_class
    from grader.paths import INSTRUCTOR_RUBRIC
    from grader.rubric import load_rubric

    archive = tmp_path / "CS182-Causal attention-5501.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("Bo Chen_78_assignsubmission_onlinetext_/onlinetext.html", _atto(REFERENCE, "My answer:"))
        z.writestr("Al Bek_76_assignsubmission_onlinetext_/onlinetext.html", _atto(ZERO_FILL))
        z.writestr("Cy Dee_79_assignsubmission_onlinetext_/onlinetext.html", _atto("Sorry, no code this week."))
    run = grade_class(collect([archive]), rubric=load_rubric(INSTRUCTOR_RUBRIC), secret="zip-secret", out=None,
                      sandboxes=[sandbox], hidden=[tmp_path])
    rows = {r.student.name: r for r in run.results}
    assert rows["Bo Chen"].status == "graded" and rows["Bo Chen"].report.score == rows["Bo Chen"].report.max_score
    assert [d.id for d in rows["Al Bek"].report.diagnoses][:1] == ["zero_fill_mask"]
    # Prose was handed in: ungradable (not "no submission"), the reason in its flag and in review.csv.
    assert rows["Cy Dee"].status == "ungradable" and rows["Cy Dee"].report is None
    assert [(i.kind, "does not define causal_attention" in i.detail) for i in run.summary.review
            if i.name == "Cy Dee"] == [("ungradable", True)]
    assert any("does not define causal_attention" in s.reason for s in run.skipped)


def test_moodle_4_folders_and_team_submissions(tmp_path):
    """Moodle 4.x (mod/assign/classes/downloader.php): folders end `_assignsubmission_file` (no underscore),
    and a team hands in once, in a folder named after the team and the group's id."""
    export = tmp_path / "CS182-Causal attention-5501"
    for folder, name, text in (
            ("Ann Lee_77_assignsubmission_file", "attention.py", REFERENCE),
            ("Ann Lee_77_assignsubmission_onlinetext", "onlinetext.html", _atto("My file is attached.")),
            ("Team Kestrel_412_assignsubmission_file", "attention.py", ZERO_FILL)):
        (export / folder).mkdir(parents=True)
        (export / folder / name).write_text(text)
    without = _by_id(collect([export]))
    assert {k: p.student.name for k, p in without.items()} == {"77": "Ann Lee", "412": "Team Kestrel"}
    assert without["77"].source.decode() == REFERENCE  # one student, her file graded, her note listed
    roster = tmp_path / "participants.csv"  # Moodle's participants download has a Groups column
    roster.write_text("First name,Last name,ID number,Email address,Groups\n"
                      "Ann,Lee,S1,ann@u.edu,\nBea,Oduya,S2,bea@u.edu,Team Kestrel\nCal,Ruiz,S3,cal@u.edu,"
                      "Team Kestrel\n")
    rows = {p.student.email: p for p in collect([export], roster=roster).students}
    assert set(rows) == {"ann@u.edu", "bea@u.edu", "cal@u.edu"}
    assert rows["bea@u.edu"].source == rows["cal@u.edu"].source == ZERO_FILL.encode()
    assert "a group submission by Team Kestrel, group id 412" in rows["cal@u.edu"].student.notes
    assert rows["ann@u.edu"].source.decode() == REFERENCE


def test_a_gradescope_export_zip_and_an_oversized_online_text(tmp_path):
    archive = tmp_path / "assignment_5501_export.zip"
    with zipfile.ZipFile(archive, "w") as z:  # Gradescope's "Export Submissions": one wrapper folder
        z.writestr("assignment_5501_export/submission_metadata.yml",
                   "submission_101:\n  :submitters:\n  - :name: Solo Student\n    :sid: '100'\n")
        z.writestr("assignment_5501_export/submission_101/attention.py", REFERENCE)
    (solo,) = collect([archive]).students
    assert solo.student.key == "gradescope:100" and solo.source.decode() == REFERENCE

    flood = tmp_path / "Big Paste_90_assignsubmission_onlinetext_onlinetext.html"
    flood.write_text(_atto("def causal_attention(q, k, v):\n    return v, q\n" + "x = 1\n" * 200_000))
    intake = collect([flood])
    assert intake.students[0].source is None
    assert "over the 1048576-byte limit" in intake.skipped[0].reason


def test_a_canvas_name_may_hold_an_underscore_and_the_roster_gives_the_sis_id(tmp_path):
    """Found by a user: `lee_ann_1234_5678_attention.py` (Canvas keeps word characters, `_` included)
    was two students named by their files; the gradebook's SIS User ID column was always empty."""
    from grader.batch.gradebook import gradebook_csv
    from grader.batch.models import StudentResult

    export = tmp_path / "export"
    export.mkdir()
    (export / "lee_ann_1234_5678_attention.py").write_text(REFERENCE)
    (export / "lee_ann_1234_5679_attention-1.py").write_text(REFERENCE + "# later\n")
    (export / "kimsoo_2004_5700_attention.py").write_text(REFERENCE)
    roster = tmp_path / "roster.csv"
    roster.write_text("Student,ID,SIS User ID,SIS Login ID\n\"Lee, Ann\",1234,S1234,alee\n\"Kim, Soo\",2004,S2004,skim\n")
    intake = collect([export], roster=roster)
    rows = {p.student.id: p for p in intake.students}
    assert set(rows) == {"1234", "2004"}  # one row each, the resubmission folded in
    assert rows["1234"].source.decode().endswith("# later\n") and rows["1234"].student.name == "Lee, Ann"
    csv_text = gradebook_csv([StudentResult(student=p.student, status="no_submission", report_name="x")
                              for p in intake.students])
    assert "Lee, Ann\",1234,S1234,alee" in csv_text and ",2004,S2004,skim" in csv_text
    # Found by a user: without a SIS Login ID column, the SIS User ID was copied into it.
    roster.write_text("Student,ID,SIS User ID\n\"Lee, Ann\",1234,S1234\n")
    lee = next(p.student for p in collect([export], roster=roster).students if p.student.id == "1234")
    assert (lee.sis_id, lee.sis_login) == ("S1234", "")
