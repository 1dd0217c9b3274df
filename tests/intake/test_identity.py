"""Issue 20, part A: every row the right student. Each platform's own key decides (Moodle's participant id
and the worksheet's Identifier, Canvas's user id, Gradescope's submission id, SID and e-mail), a name only
when one roster row has it; what is ambiguous or conflicting is flagged, never guessed. Rows handed in but
not gradable are ungradable, with why; two candidate files and interface problems are flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.intake.collect import InputError, collect
from grader.intake.interface import problems

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = (ROOT / "reference" / "attention.py").read_text()
ZERO_FILL = (ROOT / "reference" / "mutants" / "zero_fill_mask.py").read_text()
# Moodle's "Download grading worksheet" header (mod/assign gradingtable / upload grades).
WORKSHEET = ("Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
             "Last modified (submission),Last modified (grade),Feedback comments\n")


def _moodle(root: Path, folders: dict[str, str]) -> Path:
    for folder, text in folders.items():
        (root / folder).mkdir(parents=True)
        (root / folder / "attention.py").write_text(text)
    return root


def _flags(p) -> list[str]:
    return [f.kind for f in p.student.flags]


def test_two_moodle_students_named_alike_keep_their_own_ids_and_emails(tmp_path):
    export = _moodle(tmp_path / "export", {"Wei Li_576317_assignsubmission_file_": REFERENCE,
                                           "Wei Li_576402_assignsubmission_file_": ZERO_FILL})
    roster = tmp_path / "worksheet.csv"
    roster.write_text("\ufeff" + WORKSHEET
                      + "Participant 576317,Wei Li,wei.li@u.edu,Submitted,,100,Yes,,,\n"
                        "Participant 576402,Wei Li,wli2@u.edu,Submitted,,100,Yes,,,\n"
                        "Participant 576500,Ann Lee,ann@u.edu,No submission,,100,Yes,,,\n")
    rows = {p.student.id: p for p in collect([export], roster=roster).students}
    assert set(rows) == {"576317", "576402", "576500"}
    assert rows["576317"].student.email == "wei.li@u.edu" and rows["576317"].source.decode() == REFERENCE
    assert rows["576402"].student.email == "wli2@u.edu" and rows["576402"].source.decode() == ZERO_FILL
    assert {rows[i].student.matched_by for i in ("576317", "576402")} == {"Moodle participant id"}
    assert rows["576500"].source is None and rows["576500"].student.platform == "roster"
    assert not any(p.student.flags for p in rows.values())


def test_a_name_on_two_roster_rows_is_flagged_never_guessed(tmp_path):
    """A participants list (no Identifier): the name is all there is, and two rows have it."""
    export = _moodle(tmp_path / "export", {"Wei Li_576317_assignsubmission_file_": REFERENCE,
                                           "Ann Lee_576500_assignsubmission_file_": REFERENCE})
    roster = tmp_path / "participants.csv"
    roster.write_text("First name,Last name,ID number,Email address\nWei,Li,S1,wei.li@u.edu\nWei,Li,S2,wli2@u.edu\n"
                      "Ann,Lee,S3,ann@u.edu\n")
    students = collect([export], roster=roster).students
    wei = next(p for p in students if p.student.key == "moodle:576317")
    assert wei.student.email == "" and _flags(wei) == ["ambiguous_identity"] and not wei.student.on_roster
    assert "2 roster rows" in wei.student.flags[0].detail
    ann = next(p for p in students if p.student.key == "moodle:576500")
    assert ann.student.email == "ann@u.edu" and ann.student.matched_by == "name" and not ann.student.flags
    # Both Wei Li roster rows get their own row, each saying it may be the one who handed in.
    left = [p for p in students if p.student.platform == "roster"]
    assert sorted(p.student.email for p in left) == ["wei.li@u.edu", "wli2@u.edu"]
    assert all(_flags(p) == ["ambiguous_identity"] and "may be the student" in p.student.flags[0].detail
               for p in left)


def test_two_folders_naming_one_roster_row_by_name_get_neither(tmp_path):
    export = tmp_path / "export"
    for name in ("Wei Li_1_assignsubmission_file_", "Wei  Li_2_assignsubmission_file_"):
        (export / name).mkdir(parents=True)
        (export / name / "attention.py").write_text(REFERENCE)
    roster = tmp_path / "participants.csv"
    roster.write_text("Full name,Email address\nWei Li,wei.li@u.edu\n")
    students = collect([export], roster=roster).students
    assert all(p.student.email == "" and _flags(p) == ["ambiguous_identity"] for p in students if p.source)
    (left,) = [p for p in students if p.source is None]
    assert left.student.email == "wei.li@u.edu" and len(left.student.flags) == 2


def test_a_display_name_made_like_a_moodle_folder_cannot_claim_a_classmates_id(tmp_path):
    """Moodle writes a full name's `_` as a space; a folder name is read from the right, so a name that looks
    like a prefix ("Wei Li_576317_assignsubmission_file") is the name of participant 576999."""
    export = _moodle(tmp_path / "export", {
        "Wei Li_576317_assignsubmission_file_": REFERENCE,
        "Wei Li_576317_assignsubmission_file_576999_assignsubmission_file_": ZERO_FILL,
        "Team Kestrel_576400_assignsubmission_file": REFERENCE})  # a student named like a team
    roster = tmp_path / "worksheet.csv"
    roster.write_text(WORKSHEET + "Participant 576317,Wei Li,wei.li@u.edu,,,,,,,\n"
                                  "Participant 576999,Wei Li_576317_assignsubmission_file,eve@u.edu,,,,,,,\n"
                                  "Participant 576400,Team Kestrel,tk@u.edu,,,,,,,\n")
    rows = {p.student.key: p for p in collect([export], roster=roster).students}
    assert set(rows) == {"moodle:576317", "moodle:576999", "moodle:576400"}
    assert rows["moodle:576317"].source.decode() == REFERENCE
    assert rows["moodle:576999"].source.decode() == ZERO_FILL and rows["moodle:576999"].student.email == "eve@u.edu"
    # With a Groups column naming a team "Team Kestrel", participant 576400 is still the student.
    roster.write_text("Identifier,Full name,Email address,Groups\nParticipant 576400,Team Kestrel,tk@u.edu,\n"
                      "Participant 1,Bea Oduya,bea@u.edu,Team Kestrel\nParticipant 2,Cal Ruiz,cal@u.edu,Team Kestrel\n")
    rows = {p.student.key: p for p in collect([export], roster=roster).students}
    assert rows["moodle:576400"].source.decode() == REFERENCE and rows["moodle:576400"].student.email == "tk@u.edu"


def test_a_moodle_team_folder_whose_group_id_is_a_participants_is_not_that_participant(tmp_path):
    """Moodle 4.x names a team's folder with the group's id, which may equal a participant id: the folder's
    name then disagrees with the worksheet's and the members get it, never that participant."""
    export = _moodle(tmp_path / "export", {"Team Kestrel_412_assignsubmission_file": ZERO_FILL,
                                           "Zed Roe_413_assignsubmission_file": REFERENCE})
    roster = tmp_path / "worksheet.csv"
    roster.write_text("Identifier,Full name,Email address,Groups\nParticipant 412,Yan Po,yan@u.edu,\n"
                      "Participant 1,Bea Oduya,bea@u.edu,Team Kestrel\nParticipant 2,Cal Ruiz,cal@u.edu,Team Kestrel\n"
                      "Participant 413,Zoe Roe,zoe@u.edu,\n")
    rows = {p.student.email or p.student.key: p for p in collect([export], roster=roster).students}
    assert rows["bea@u.edu"].source == rows["cal@u.edu"].source == ZERO_FILL.encode()
    assert rows["yan@u.edu"].source is None  # participant 412 handed nothing in
    zed = rows["moodle:413"]  # the folder says Zed Roe, the worksheet's 413 is Zoe Roe: flagged, not given
    assert _flags(zed) == ["identity_conflict"] and "'Zed Roe', the roster 'Zoe Roe'" in zed.student.flags[0].detail
    assert rows["zoe@u.edu"].source is None and _flags(rows["zoe@u.edu"]) == ["ambiguous_identity"]


def test_canvas_gradebook_export_as_roster_leaves_out_what_is_not_a_student(tmp_path):
    export = tmp_path / "export"
    export.mkdir()
    (export / "liwei_4821_99817_attention.py").write_text(REFERENCE)
    (export / "liwei_4822_99818_attention.py").write_text(ZERO_FILL)
    roster = tmp_path / "Grades-CS182.csv"  # Canvas: Grades -> Export -> CSV
    roster.write_text('Student,ID,SIS User ID,SIS Login ID,Section,Causal attention (5501)\n'
                      '    Points Possible,,,,,100.00\n'
                      '"Li, Wei",4821,S4821,wli,CS182 A,\n'
                      '"Li, Wei",4822,S4822,wli2,CS182 B,\n'
                      '"Student, Test",9999,,,CS182 A,\n')
    intake = collect([export], roster=roster)
    rows = {p.student.id: p for p in intake.students}
    assert set(rows) == {"4821", "4822"}  # not 4: no "Points Possible", no test student
    assert (rows["4821"].student.sis_id, rows["4822"].student.sis_id) == ("S4821", "S4822")
    assert rows["4822"].source.decode() == ZERO_FILL and rows["4822"].student.matched_by == "Canvas user id"
    reasons = {s.path.rsplit(":", 1)[-1]: s.reason for s in intake.skipped}
    assert "Points Possible" in reasons["2"] and "test student" in reasons["5"]


def test_gradescope_keys_that_disagree_are_a_conflict(tmp_path):
    (tmp_path / "export").mkdir()
    (tmp_path / "export" / "submission_metadata.yml").write_text(
        "submission_101:\n  :submitters:\n  - :name: Wei Li\n    :sid: 'S1'\n    :email: wei.li@u.edu\n"
        "submission_102:\n  :submitters:\n  - :name: Wei Li\n    :sid: 'S2'\n    :email: wli2@u.edu\n"
        "submission_103:\n  :submitters:\n  - :name: Odd One\n    :sid: 'S3'\n    :email: ann@u.edu\n")
    for folder in ("submission_101", "submission_102", "submission_103"):
        (tmp_path / "export" / folder).mkdir()
        (tmp_path / "export" / folder / "attention.py").write_text(REFERENCE)
    roster = tmp_path / "grades.csv"  # Gradescope's Download Grades
    roster.write_text("First Name,Last Name,SID,Email,Sections,Total Score,Max Points,Status,Submission ID\n"
                      "Wei,Li,S1,wei.li@u.edu,,,100,Ungraded,101\nWei,Li,S2,wli2@u.edu,,,100,Ungraded,102\n"
                      "Ann,Lee,S4,ann@u.edu,,,100,Ungraded,\n")
    rows = {p.student.key: p for p in collect([tmp_path / "export"], roster=roster).students}
    assert rows["gradescope:S1"].student.email == "wei.li@u.edu" and not rows["gradescope:S1"].student.flags
    assert rows["gradescope:S2"].student.matched_by.startswith("Gradescope submission id")
    odd = rows["gradescope:S3"]  # its e-mail is Ann's, whose SID is S4, not S3: never given Ann's row
    assert _flags(odd) == ["identity_conflict"] and "SID is S4, not S3" in odd.student.flags[0].detail
    assert not odd.student.on_roster and odd.student.name == "Odd One"
    assert rows["roster:S4"].source is None and _flags(rows["roster:S4"]) == ["ambiguous_identity"]


def test_handed_in_but_not_gradable_is_ungradable_with_why(tmp_path):
    export = tmp_path / "export"
    export.mkdir()
    (export / "liwei_4821_99817_attention.py.txt").write_text(REFERENCE)
    (export / "leeann_4822_99818_report.pdf").write_bytes(b"%PDF-1.4\n")
    (export / "kimsoo_4823_99819_attention.py").write_text(REFERENCE)
    (export / "kimsoo_4823_99819_notes.pdf").write_bytes(b"%PDF-1.4\n")  # beside a graded file: just skipped
    rows = {p.student.id: p for p in collect([export]).students}
    assert set(rows) == {"4821", "4822", "4823"}
    for uid, words in (("4821", "a Python file saved with a .txt ending"), ("4822", "a .pdf file")):
        assert rows[uid].source is None and _flags(rows[uid]) == ["ungradable"], rows[uid].student
        assert words in rows[uid].student.flags[0].detail
    assert rows["4823"].source.decode() == REFERENCE and not rows["4823"].student.flags


def test_two_candidate_files_are_resolved_by_the_stated_rule_and_flagged(tmp_path):
    export = _moodle(tmp_path / "export", {"Ann Lee_77_assignsubmission_file_": REFERENCE})
    (export / "Ann Lee_77_assignsubmission_file_" / "attention_v2.py").write_text(ZERO_FILL)
    (ann,) = collect([export]).students
    assert ann.source.decode() == REFERENCE and _flags(ann) == ["two_candidates"]
    detail = ann.student.flags[0].detail
    assert "graded Ann Lee_77_assignsubmission_file_/attention.py" in detail and "attention_v2.py" in detail
    assert "the one named attention.py" in detail


def test_interface_problems_are_flagged_from_the_syntax_tree(tmp_path):
    export = tmp_path / "export"
    export.mkdir()
    (export / "renamed_1_1_attention.py").write_text(REFERENCE.replace("def causal_attention(", "def attention("))
    (export / "runner_2_2_attention.py").write_text(REFERENCE + "\nimport unittest\nunittest.main()\n")
    (export / "guarded_3_3_attention.py").write_text(REFERENCE + "\nif __name__ == '__main__':\n    import sys\n"
                                                                 "    sys.exit(0)\n")
    rows = {p.student.id: p for p in collect([export]).students}
    renamed, runner = rows["1"].student.flags, rows["2"].student.flags
    assert [f.kind for f in renamed] == ["interface"] and "defines attention(q, k, v" in renamed[0].detail
    assert "renamed?" in renamed[0].detail
    assert [f.kind for f in runner] == ["interface"] and "calls unittest.main() when imported" in runner[0].detail
    assert not rows["3"].student.flags


def test_staff_on_a_roster_with_a_role_column_get_no_row(tmp_path):
    (tmp_path / "export" / "submission_7").mkdir(parents=True)
    (tmp_path / "export" / "submission_7" / "attention.py").write_text(REFERENCE)
    (tmp_path / "export" / "submission_metadata.yml").write_text(
        "submission_7:\n  :submitters:\n  - :name: Ann Lee\n    :sid: 'S1'\n    :email: ann@u.edu\n")
    roster = tmp_path / "roster.csv"  # Gradescope's course roster lists the staff with the students
    roster.write_text("Full Name,Email,SID,Role\nAnn Lee,ann@u.edu,S1,Student\nTia Ng,tia@u.edu,,TA\n"
                      "Ivo Pol,ivo@u.edu,,Instructor\n")
    intake = collect([tmp_path / "export"], roster=roster)
    assert [p.student.email for p in intake.students] == ["ann@u.edu"]
    assert sorted(s.reason for s in intake.skipped) == ["role 'Instructor': not a student, left out",
                                                        "role 'TA': not a student, left out"]


def test_a_canvas_name_that_reads_two_ways_is_decided_by_the_roster_or_by_nobody(tmp_path):
    """Canvas keeps `_` and digits of a sortable name (content_zipper.rb), and the student's own file name
    follows the ids: `eve_4821_99817_5000_99900_attention.py` reads as user 4821 or 5000. It never joins
    4821's submission; Canvas's names on the roster (or elsewhere in the export) tell which it is."""
    export = tmp_path / "export"
    export.mkdir()
    (export / "smithjohn_4821_99817_attention.py").write_text(REFERENCE)
    (export / "eve_4821_99817_5000_99900_attention.py").write_text(ZERO_FILL)  # sortable name "Eve_4821_99817"
    (export / "kimsoo_2004_99820_hw_1_2_attention.py").write_text(REFERENCE)  # an honest file name, two readings
    alone = {p.student.key: p for p in collect([export]).students}
    assert alone["canvas:4821"].source.decode() == REFERENCE and not alone["canvas:4821"].student.flags
    unsure = [p for k, p in alone.items() if k.startswith("canvas-unsure:")]
    assert len(unsure) == 2 and all(_flags(p) == ["identity_conflict"] and p.student.id == "" for p in unsure)
    assert any("reads as user 4821 or 99817 or 5000" in p.student.flags[0].detail for p in unsure)
    roster = tmp_path / "grades.csv"
    roster.write_text('Student,ID,SIS User ID\n"Smith, John",4821,S1\nEve_4821_99817,5000,S2\n"Kim, Soo",2004,S3\n')
    rows = {p.student.key: p for p in collect([export], roster=roster).students}
    assert set(rows) == {"canvas:4821", "canvas:5000", "canvas:2004"}
    assert rows["canvas:4821"].source.decode() == REFERENCE and rows["canvas:4821"].student.sis_id == "S1"
    assert rows["canvas:5000"].source.decode() == ZERO_FILL and rows["canvas:5000"].student.sis_id == "S2"
    assert rows["canvas:2004"].student.handed_in == "hw_1_2_attention.py" and not any(
        p.student.flags for p in rows.values())


def test_gradescope_submitters_without_sid_or_email_and_a_sid_twice_are_never_merged(tmp_path):
    export = tmp_path / "export"
    (export).mkdir()
    (export / "submission_metadata.yml").write_text(
        "submission_1:\n  :submitters:\n  - :name: Wei Li\n"
        "submission_2:\n  :submitters:\n  - :name: Wei Li\n"
        "submission_3:\n  :submitters:\n  - :name: Ann Lee\n    :sid: 'S9'\n"
        "submission_4:\n  :submitters:\n  - :name: Ann Lee\n    :sid: 'S9'\n")
    for n, text in ((1, REFERENCE), (2, ZERO_FILL), (3, REFERENCE), (4, ZERO_FILL)):
        (export / f"submission_{n}").mkdir()
        (export / f"submission_{n}" / "attention.py").write_text(text)
    students = collect([export]).students
    assert len({p.student.key for p in students}) == 4  # four rows, four keys: none overwrites another
    weis = [p for p in students if p.student.name == "Wei Li"]
    assert sorted(p.source.decode() for p in weis) == sorted([REFERENCE, ZERO_FILL]) and not any(
        p.student.flags for p in weis)
    anns = [p for p in students if p.student.name == "Ann Lee"]
    assert all(_flags(p) == ["identity_conflict"] and "2 submissions read as the same student" in
               p.student.flags[0].detail for p in anns)


def test_interface_reading_survives_what_the_parser_cannot_build():
    for hostile in ("x = " + "a." * 200_000 + "b\n", "x = " + "-" * 200_000 + "1\n", "def f(:\n"):
        assert problems(hostile, "causal_attention", defines=False) == []
    chain = "import unittest\n" + "unittest" + ".x" * 2_000 + "()\nunittest.main()\n"  # deep, still parsable
    assert [p.split(" (line")[0] for p in problems(chain, "causal_attention", defines=True)] == [
        "calls unittest.main() when imported"]


def test_an_unreadable_roster_is_a_clear_input_error(tmp_path):
    (tmp_path / "export").mkdir()
    roster = tmp_path / "roster.csv"
    roster.write_text('Student,ID\n"' + "x" * 200_000 + '",1\n')
    with pytest.raises(InputError, match="roster .*roster.csv: not a readable CSV file"):
        collect([tmp_path / "export"], roster=roster)
