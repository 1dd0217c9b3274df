"""Intake: platform exports to one source per student; every path left out is listed with its reason."""

from __future__ import annotations

import json
import os
import sys
import zipfile
from pathlib import Path

import pytest

from grader.intake import notebook
from grader.intake.collect import InputError, collect, shard_of
from grader.intake.files import Refused, read_file

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = (ROOT / "reference" / "attention.py").read_text()
ZERO_FILL = (ROOT / "reference" / "mutants" / "zero_fill_mask.py").read_text()


def _by_id(intake):
    return {p.student.id: p for p in intake.students}


def _reasons(intake):
    return {Path(s.path).name: s.reason for s in intake.skipped}


def test_canvas_names_resubmissions_and_late(tmp_path):
    (tmp_path / "smithjohn_4821_100_attention.py").write_text(ZERO_FILL)
    (tmp_path / "smithjohn_LATE_4821_200_attention-1.py").write_text(REFERENCE)
    (tmp_path / "doejane_17_300_attention.py").write_text(REFERENCE)
    (tmp_path / "doejane_17_300_attention-2.py").write_text(ZERO_FILL)  # -2 is later than the plain name
    intake = collect([tmp_path])
    students = _by_id(intake)
    assert set(students) == {"4821", "17"}
    assert students["4821"].source.decode() == REFERENCE and students["4821"].student.late
    assert students["4821"].student.name == "smithjohn" and students["4821"].student.key == "canvas:4821"
    assert students["17"].source.decode() == ZERO_FILL and not students["17"].student.late
    reasons = _reasons(intake)
    assert reasons["smithjohn_4821_100_attention.py"].startswith("an older submission")
    assert reasons["doejane_17_300_attention.py"].startswith("an older submission")


def test_moodle_flat_and_folders(tmp_path):
    (tmp_path / "Ann Lee_77_assignsubmission_file_attention.py").write_text(REFERENCE)
    folder = tmp_path / "Bo Chen_78_assignsubmission_file_"
    folder.mkdir()
    (folder / "attention.py").write_text(REFERENCE)
    (folder / "notes.txt").write_text("hi")
    (tmp_path / "Cy Dee_79_assignsubmission_onlinetext_onlinetext.html").write_text("<p>")
    intake = collect([tmp_path])
    students = _by_id(intake)
    assert {k: p.student.name for k, p in students.items()} == {"77": "Ann Lee", "78": "Bo Chen", "79": "Cy Dee"}
    assert students["79"].source is None  # an online text with nothing in it: a row, nothing graded
    reasons = _reasons(intake)
    assert reasons["notes.txt"].startswith("not a .py")
    assert reasons["Cy Dee_79_assignsubmission_onlinetext_onlinetext.html"] == "an empty online text"


def test_gradescope_export_with_a_group(tmp_path):
    (tmp_path / "submission_metadata.yml").write_text(
        "submission_101:\n  :submitters:\n  - :name: Solo Student\n    :sid: '100'\n    :email: solo@u.edu\n"
        "  :created_at: 2026-01-01 10:00:00\n"
        "submission_102:\n  :submitters:\n  - :name: Pair One\n    :sid: '200'\n  - :name: Pair Two\n    :sid: '201'\n"
        "submission_103:\n  :submitters:\n  - :name: Gone\n    :sid: '300'\n")
    for folder, text in (("submission_101", REFERENCE), ("submission_102", ZERO_FILL)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "attention.py").write_text(text)
    intake = collect([tmp_path])
    students = _by_id(intake)
    assert {k: p.student.name for k, p in students.items()} == {"100": "Solo Student", "200": "Pair One",
                                                                "201": "Pair Two"}
    assert students["100"].student.email == "solo@u.edu"
    assert students["200"].source == students["201"].source  # one group submission, one row per member
    assert "not in the export" in _reasons(intake)["submission_103"]


def test_folder_per_student_grades_the_file_that_defines_causal_attention(tmp_path):
    student = tmp_path / "class" / "alice"
    student.mkdir(parents=True)
    body = REFERENCE.replace("def causal_attention(", "def _unused(")
    (student / "attention.py").write_text("from helpers import causal_attention\n" + body)
    (student / "helpers.py").write_text(REFERENCE)  # defines causal_attention too, but is imported
    (student / "scratch.py").write_text("x = 1\n")
    intake = collect([tmp_path / "class"])
    (alice,) = intake.students
    assert alice.student.submission.endswith("alice/attention.py")  # attention.py binds it (by import)
    assert "helpers.py" in alice.student.notes[0]  # and helpers.py, which it imports, travels with it
    assert "not the graded file" in _reasons(intake)["scratch.py"] or "never imports" in _reasons(intake)["scratch.py"]


def test_helper_module_is_packed_and_importable(tmp_path):
    student = tmp_path / "class" / "bob"
    student.mkdir(parents=True)
    (student / "attention.py").write_text("from mathbits import scale\n\ndef causal_attention(q, k, v):\n"
                                          "    return scale(q), k\n")
    (student / "mathbits.py").write_text("def scale(x):\n    return x * 2\n")
    (student / "unused.py").write_text("y = 2\n")
    intake = collect([tmp_path / "class"])
    (bob,) = intake.students
    assert bob.student.converted and "mathbits.py" in bob.student.notes[0]
    namespace: dict = {}
    finders = list(sys.meta_path)
    try:
        exec(compile(bob.source.decode(), "packed.py", "exec"), namespace)  # our own test source, not a student's
        assert namespace["causal_attention"](3, 4, 5) == (6, 4)
        assert sys.modules["mathbits"].__file__ == "mathbits.py"
    finally:
        sys.meta_path[:] = finders
        sys.modules.pop("mathbits", None)
    assert "never imports" in _reasons(intake)["unused.py"]


def _notebook(cells: list[str]) -> bytes:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "source": c.splitlines(keepends=True), "metadata": {}, "outputs": [],
         "execution_count": None} for c in cells]}).encode()


NOTEBOOK_CELLS = [
    "!pip install torch\n%matplotlib inline\nimport math\nimport torch\nimport matplotlib.pyplot as plt\n"
    "from grader import check",
    REFERENCE.split("class SingleHead")[0].split('"""', 2)[-1],
    "q = torch.randn(1, 3, 2)\nout, w = causal_attention(q, q, q)\nprint(w)\nassert w.shape == (1, 3, 3)\n"
    "plt.imshow(w[0])",
    "%%time\ncheck(causal_attention)",
    "class SingleHead" + REFERENCE.split("class SingleHead")[1],
    "check(SingleHead)\ncausal_attention?",
]


def test_notebook_keeps_definitions_and_drops_what_it_runs():
    script = notebook.notebook_to_script(_notebook(NOTEBOOK_CELLS)).script
    compile(script, "nb.py", "exec")
    assert "def causal_attention" in script and "class SingleHead" in script and "import torch" in script
    for gone in ("pip", "matplotlib", "from grader", "check(", "print(w)", "assert w.shape", "plt."):
        assert gone not in script, gone


def test_notebook_exported_to_a_script_is_graded_as_the_same_script():
    exported = "#!/usr/bin/env python\n# coding: utf-8\n\n"
    for cell in NOTEBOOK_CELLS:
        lines = []
        for line in cell.splitlines():
            if line.startswith("!"):
                line = f"get_ipython().system('{line[1:]}')"
            elif line.startswith("%%"):
                lines.append(f"get_ipython().run_cell_magic('{line[2:]}', '', {cell.split(chr(10), 1)[1]!r})")
                break
            elif line.startswith("%"):
                line = f"get_ipython().run_line_magic('{line[1:]}', '')"
            elif line.endswith("?"):
                line = f"get_ipython().run_line_magic('pinfo', '{line[:-1]}')"
            lines.append(line)
        exported += "# In[ ]:\n\n\n" + "\n".join(lines) + "\n\n\n# A markdown cell becomes comments.\n\n"
    assert notebook.exported_to_script(exported).script == notebook.notebook_to_script(_notebook(NOTEBOOK_CELLS)).script


def test_notebook_and_zip_in_a_class(tmp_path):
    (tmp_path / "nb_1_1_attention.ipynb").write_bytes(_notebook(NOTEBOOK_CELLS))
    with zipfile.ZipFile(tmp_path / "zz_2_2_work.zip", "w") as z:
        z.writestr("work/attention.py", REFERENCE)
        z.writestr("work/README.md", "hello")
        z.writestr("../../evil.py", "print('out')")
        z.writestr("/abs.py", "print('abs')")
        link = zipfile.ZipInfo("link.py")
        link.external_attr = (0o120777 << 16)
        z.writestr(link, "/etc/passwd")
        z.writestr("inner.zip", b"PK")
    intake = collect([tmp_path])
    students = _by_id(intake)
    assert students["1"].student.converted and b"def causal_attention" in students["1"].source
    assert students["2"].source.decode() == REFERENCE and not students["2"].student.converted
    reasons = {s.path.split("zz_2_2_work.zip/")[-1]: s.reason for s in intake.skipped}
    assert "climbs out" in reasons["../../evil.py"] and "absolute" in reasons["/abs.py"]
    assert "symbolic link" in reasons["link.py"] and "archive inside an archive" in reasons["inner.zip"]
    assert "not a .py" in reasons["work/README.md"]


def test_zip_bomb_is_capped(tmp_path):
    with zipfile.ZipFile(tmp_path / "bomb_3_3_a.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("attention.py", b"#" * (50 << 20))  # 50 MiB of one byte: a few kB compressed
    intake = collect([tmp_path])
    assert not intake.students[0].source
    assert any("limit" in s.reason for s in intake.skipped)


def test_hostile_paths(tmp_path):
    cls = tmp_path / "class"
    cls.mkdir()
    os.mkfifo(cls / "fifo.py")  # never opened for reading: no hang
    with open(cls / "sparse.py", "wb") as f:
        f.truncate(1 << 40)  # 1 TiB, sparse: refused by its size, never read
    (cls / "x.py").mkdir()
    (cls / "link.py").symlink_to(ROOT / "reference" / "attention.py")
    (cls / os.fsdecode(b"caf\xe9.py")).write_text(REFERENCE)  # not UTF-8
    (cls / "alice~smith.py").write_text(REFERENCE)
    (cls / "alice_smith.py").write_text(ZERO_FILL)
    intake = collect([cls])
    reasons = _reasons(intake)
    assert "FIFO" in reasons["fifo.py"] and "over the" in reasons["sparse.py"]
    assert "directory" in reasons["x.py"] and "symbolic link" in reasons["link.py"]
    ids = _by_id(intake)
    assert {"caf\\xe9", "alice~smith", "alice_smith"} <= set(ids)
    assert ids["caf\\xe9"].student.submission.endswith("caf\\xe9.py")  # printable, storable
    from grader.batch.names import student_filename

    names = {student_filename(p.student.key, p.student.name) for p in intake.students}
    assert len(names) == len(intake.students)


def test_read_file_refuses_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "f")
    with pytest.raises(Refused, match="FIFO"):
        read_file(tmp_path / "f")
    (tmp_path / "big").write_bytes(b"x" * 11)
    with pytest.raises(Refused, match="over"):
        read_file(tmp_path / "big", cap=10)
    assert read_file(tmp_path / "big", cap=11).data == b"x" * 11


def test_missing_path_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        collect([tmp_path / "nope.py"])


def test_roster_names_and_students_without_a_submission(tmp_path):
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "smithjohn_4821_100_attention.py").write_text(REFERENCE)
    (tmp_path / "roster.csv").write_text("Student,ID,SIS Login ID,Section\n\"Smith, John\",4821,jsmith,A\n"
                                         "\"Absent, Amy\",4900,aabsent,B\n")
    intake = collect([tmp_path / "class"], roster=tmp_path / "roster.csv")
    students = _by_id(intake)
    assert students["4821"].student.name == "Smith, John" and students["4821"].student.section == "A"
    assert students["4900"].source is None and students["4900"].student.notes == ["no submission"]


def test_shards_partition_the_class():
    keys = [f"canvas:{i}" for i in range(200)]
    parts = [{k for k in keys if shard_of(k, 3) == s} for s in range(3)]
    assert set().union(*parts) == set(keys) and sum(map(len, parts)) == len(keys)
    assert all(40 < len(p) < 90 for p in parts)


def test_a_folder_as_one_students_submission(tmp_path):
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "attention.py").write_text("from helpers import causal_attention  # noqa\n")
    (tmp_path / "submission" / "helpers.py").write_text(REFERENCE)
    (tmp_path / "submission" / "notes.md").write_text("hi")
    intake = collect([tmp_path / "submission"], as_student=True)
    (one,) = intake.students
    assert one.student.submission.endswith("submission/attention.py") and one.student.converted
    assert collect([tmp_path / "submission"]).students[0].student.id != one.student.id  # a class: a file each
