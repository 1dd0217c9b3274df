"""Issue 25, item 1: no input stops intake. Every attack of the intake gallery (tests/support/
intake_attacks.py), beside an honest file, gives one row per student: the honest one ready to grade,
the attacker's either ready or saying why nothing could be graded, and the reason in skipped."""

from __future__ import annotations

import pytest
from support.intake_attacks import ATTACKS, REFERENCE, notebook

from grader.intake import notebook as converter
from grader.intake.bounds import MAX_NESTING, Unreadable, parse_python
from grader.intake.collect import collect
from grader.intake.platforms import gradescope_submitters

HONEST = "honest_200_9000_attention.py"


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_one_hostile_file_never_stops_intake(tmp_path, attack):
    (tmp_path / HONEST).write_text(REFERENCE)
    (tmp_path / attack.path).write_bytes(attack.build())
    intake = collect([tmp_path])
    rows = {p.student.submission.rsplit("/", 1)[-1]: p for p in intake.students}
    assert rows[HONEST].source == REFERENCE.encode()
    if attack.path == "submission_metadata.yml":  # names nobody: the export's reader says why it is left out
        assert [s.reason for s in intake.skipped if s.path.endswith(attack.path)]
        return
    (theirs,) = [p for p in intake.students if p.student.submission != rows[HONEST].student.submission]
    if theirs.source is None:  # refused: the row and skipped.csv say why, in words
        (why,) = [f.detail for f in theirs.student.flags if f.kind == "ungradable"]  # the row's status says why
        assert why.startswith("handed in, but nothing could be graded: ")
        assert any(s.reason in why for s in intake.skipped)


def test_parse_refuses_what_recursive_readers_cannot_hold():
    deep = "x = " + "+".join(["1"] * (MAX_NESTING + 5)) + "\n"  # parses, but past the depth cap
    with pytest.raises(Unreadable, match="nested more than"):
        parse_python(deep)
    parse_python(REFERENCE)  # the reference is well inside every cap
    with pytest.raises(SyntaxError):
        parse_python("def f(:\n")  # the file's own syntax error stays a SyntaxError: it is graded


def test_reverse_ordered_assignments_are_all_kept():
    """Each assignment is needed by the one after it in the notebook: all are kept, in notebook order."""
    n = 3000
    chain = "\n".join(f"x{i} = x{i + 1}" for i in reversed(range(n))) + "\n"
    script = converter.script_from_cells([f"x{n} = 1\n" + chain,
                                          "def causal_attention(q, k, v):\n    return v * x0\n"]).script
    namespace: dict = {}
    exec(compile(script, "nb.py", "exec"), namespace)
    assert namespace["x0"] == 1 and script.count(" = x") == n


def test_alias_bomb_in_gradescope_metadata_is_read_as_nothing():
    levels = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    text = "\n".join(levels) + "\nsubmission_1:\n  :submitters:\n  - :name: *a9\n    :sid: '7'\n"
    (person,) = gradescope_submitters(text)  # str() of 9**10 strings would never return
    assert person.name == "" and person.sid == "7"


def test_notebook_source_must_be_text():
    with pytest.raises(Unreadable, match="cell 1"):
        converter.code_cells(b'{"cells": [{"cell_type": "code", "source": [1, 2]}]}')
    assert converter.code_cells(notebook("a = 1")) == ["a = 1"]


@pytest.mark.parametrize("name", ["deeply nested expression in a .py", "notebook JSON nested 100,000 deep",
                                  "deeply nested expression in a notebook cell"])
def test_check_tells_a_student_why_intake_would_not_read_their_file(tmp_path, sandbox, name):
    """`check` reads a file as the class run's intake does: never the notebook's JSON run as Python."""
    from grader.grade import self_check

    attack = next(a for a in ATTACKS if a.name == name)
    path = tmp_path / ("attention" + attack.path[attack.path.rindex("."):])
    path.write_bytes(attack.build())
    report = self_check(path, sandbox=sandbox)
    said = " ".join(d.message for d in report.diagnoses)
    assert "nested too deeply" in said and report.score == 0, said
