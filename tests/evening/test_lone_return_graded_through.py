"""Item 4 of issue 19, its last part: `return out` alone (not the pair (out, weights)) is an interface slip graded
through. The runner reads the weights as what the same function returns with the identity as values
(out = weights @ I), every other check grades the math through that reading, and the slip costs the
`return_contract` check's points alone (the rubric's band for an interface slip: at most 10), said in one true
sentence. Before, the file scored 0 of 87 with fourteen sections saying it "raised WrongReturnType"."""

from __future__ import annotations

from grader.diagnosis.catalogue import REFERENCE
from grader.grade import grade_file, self_check
from grader.paths import INSTRUCTOR_RUBRIC, ROOT
from grader.report.markdown import render_markdown
from grader.rubric import load_rubric

MUTANTS = ROOT / "reference" / "mutants"
PAIR = "    return out, weights\n"


def _lone(tmp_path, source: str, name: str):
    assert source.count(PAIR) == 1
    path = tmp_path / f"{name}.py"
    path.write_text(source.replace(PAIR, "    return out\n"))
    return path


def test_return_out_alone_costs_the_return_contract_points_and_nothing_else(sandbox, tmp_path):
    path = _lone(tmp_path, REFERENCE.read_text(), "lone")
    graded = grade_file(path, sandbox=sandbox, secret="s")
    band = next(c for c in load_rubric(INSTRUCTOR_RUBRIC).checks if c.id == "return_contract").points
    contract = next(c for c in graded.checks if c.id == "return_contract")
    assert contract.status == "failed" and band <= 10
    assert [c.id for c in graded.checks if c.status != "passed"] == ["return_contract"], \
        [(c.id, c.status, c.feedback[:80]) for c in graded.checks if c.status != "passed"]
    assert graded.score == graded.max_score - band  # the slip costs its own check's points, once
    assert graded.diagnoses[0].id == "wrong_return_type"
    assert "out alone instead of the pair (out, weights)" in graded.diagnoses[0].message
    # One true sentence: what it returned and how its weights were read; never "raised" (it raised nothing).
    sentences = [s for s in contract.feedback.split(". ") if "out alone" in s]
    assert len(sentences) == 1 and "first on the worked example" in sentences[0]
    assert "identity as values (out = weights @ I)" in contract.feedback
    text = render_markdown(graded, audience="instructor")
    assert "raised WrongReturnType" not in text and "WrongReturnType" not in text
    mine = self_check(path, sandbox=sandbox, hint_state_path=tmp_path / "hints.json")
    assert [c.id for c in mine.checks if c.status != "passed"] == ["return_contract"]


def test_the_weights_read_are_the_files_own(sandbox, tmp_path):
    # Negative control: the reading is the submission's own function, so a zero-filled mask returned as `out`
    # alone still shows its leak in the weights (were they made up, the mask checks would pass).
    path = _lone(tmp_path, (MUTANTS / "zero_fill_mask.py").read_text(), "lone_zero_fill")
    graded = grade_file(path, sandbox=sandbox, secret="s")
    status = {c.id: c.status for c in graded.checks}
    assert status["mask_structure"] == "failed" and status["return_contract"] == "failed"
    assert status["worked_example"] == "failed"
    assert "zero_fill_mask" in [d.id for d in graded.diagnoses]
    assert "[0.333333, 0.333333, 0.333333]" in render_markdown(graded, audience="instructor")


def test_a_lone_return_where_a_shape_should_be_refused_is_told_it_returned(sandbox, tmp_path):
    # No shape validation and `return out` alone: on broadcasting batches the call returns a tensor the runner
    # cannot read as the pair. The student's code raised nothing, so shape_validation says it returned a result,
    # never "it raised WrongReturnType" (the runner's name for the slip, not the file's exception).
    path = _lone(tmp_path, (MUTANTS / "no_shape_validation.py").read_text(), "lone_no_validation")
    graded = grade_file(path, sandbox=sandbox, secret="s")
    shapes = next(c for c in graded.checks if c.id == "shape_validation")
    assert shapes.status == "failed"
    assert "WrongReturnType" not in shapes.feedback and "it raised" not in shapes.feedback, shapes.feedback
    assert "it returned a result instead" in shapes.feedback
