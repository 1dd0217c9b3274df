"""Every sentence true of its file: each class of false sentence a student met (issue 19), graded end to end.

Each file is the reference with one edit, written as a student would write it; the report it gets
must not say what its own evidence contradicts, and must say what the evidence does show.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.corpora import REFERENCE, SECRET

from grader.grade import grade_file, self_check

SCALE = "scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])"
SOFTMAX = 'scores = scores.masked_fill(~allowed, float("-inf"))\n    weights = torch.softmax(scores, dim=-1)'


def student_file(tmp_path: Path, name: str, *edits: tuple[str, str]) -> Path:
    source = REFERENCE.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in source, old
        source = source.replace(old, new)
    path = tmp_path / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return path


def everything(report) -> str:
    """Every sentence a student may read: diagnoses, feedback and hints."""
    parts = [d.message for d in report.diagnoses] + [d.title for d in report.diagnoses]
    for c in report.checks:
        parts += [c.feedback, c.hint or ""]
    return "\n".join(parts)


def check_of(report, cid: str):
    return next(c for c in report.checks if c.id == cid)


# ---------------------------------------------------------------- (a) a scale is claimed only when it differs


@pytest.mark.parametrize("name,edits", [
    ("zero_fill", [(SOFTMAX, SOFTMAX.replace('float("-inf")', "0.0"))]),
    ("mask_after", [(SOFTMAX, "weights = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)")]),
])
def test_a_right_scale_is_never_told_it_is_scaled_differently(tmp_path, sandbox, name, edits):
    report = self_check(student_file(tmp_path, name, *edits), sandbox=sandbox, hint_state_path=tmp_path / "h.json")
    text = everything(report)
    assert "scaled differently" not in text and "softmax of 1 times" not in text, text
    assert "What do you divide q·k by" not in text
    worked = check_of(report, "worked_example")
    assert worked.status == "failed"


def test_a_wrong_scale_on_the_worked_example_is_named_with_its_value(tmp_path, sandbox):
    path = student_file(tmp_path, "div_dk", (SCALE, "scores = (q @ k.transpose(-2, -1)) / q.shape[-1]"))
    worked = check_of(self_check(path, sandbox=sandbox, hint_state_path=tmp_path / "h.json"), "worked_example")
    assert "scale there is 0.5" in worked.feedback and "1/sqrt(d_k) = 0.707107" in worked.feedback, worked.feedback


@pytest.mark.parametrize("written", ["q.shape[1]", "len(q)"])
def test_a_scale_from_the_sequence_length_is_named_sqrt_t(tmp_path, sandbox, written):
    path = student_file(tmp_path, "sqrt_t", (SCALE, f"scores = (q @ k.transpose(-2, -1)) / math.sqrt({written})"))
    report = self_check(path, sandbox=sandbox, hint_state_path=tmp_path / "h.json")
    top = report.diagnoses[0]
    assert top.id == "wrong_scale"
    assert "no simple formula" not in top.message and "sqrt(T)" in top.message, top.message


# ---------------------------------------------------------------- (b) a miswired head is not a detached one


def test_keys_from_the_query_layer_are_told_as_wiring_not_detach(tmp_path, sandbox):
    path = student_file(tmp_path, "keys_from_query", ("self.key(x), self.value(x))", "self.query(x), self.value(x))"))
    report = self_check(path, sandbox=sandbox, hint_state_path=tmp_path / "h.json")
    assert report.diagnoses and report.diagnoses[0].id == "head_wiring", [d.id for d in report.diagnoses]
    assert "the query projection as the key" in report.diagnoses[0].message
    assert ".detach()" not in " ".join(d.message for d in report.diagnoses)


# ---------------------------------------------------------------- (c) never told to do what it already does


def test_a_row_maximum_over_every_position_is_not_told_to_subtract_the_row_maximum(tmp_path, sandbox):
    path = student_file(tmp_path, "row_max_all", (SOFTMAX,
                        "scores = scores - scores.amax(-1, keepdim=True)  # over every position\n"
                        "    e = torch.exp(scores) * allowed\n"
                        "    weights = e / e.sum(-1, keepdim=True)"))
    report = grade_file(path, sandbox=sandbox, secret=SECRET)
    text = " ".join(d.message for d in report.diagnoses)
    assert report.diagnoses and report.diagnoses[0].id == "row_max_includes_future", [d.id for d in report.diagnoses]
    assert "overflows" not in text and "subtracting each row's maximum before" not in text, text
    assert "forbidden" in report.diagnoses[0].message


# ---------------------------------------------------------------- (d) a ValueError without shapes is rejected


def test_a_value_error_without_shapes_is_not_told_shapes_are_not_rejected(tmp_path, sandbox):
    """Every mismatch raises ValueError (without the shapes); only 1-D inputs get through, to an IndexError."""
    path = student_file(tmp_path, "no_shapes", (
        'if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:\n        raise ValueError(f"q, k and v need at least 2 dims '
        '(positions, features); got {shapes}")\n    ', ""), (
        'raise ValueError(\n            f"q, k and v must share batch dims and sequence length T (square '
        'self-attention); got {shapes}"\n        )', 'raise ValueError("shapes do not match")'))
    for report in (self_check(path, sandbox=sandbox, hint_state_path=tmp_path / "h.json"),
                   grade_file(path, sandbox=sandbox, secret=SECRET)):
        assert "Mismatched shapes are not rejected" not in everything(report)
        assert check_of(report, "shape_validation").status == "failed"
        found = [d for d in report.diagnoses if d.id == "no_shape_validation"]
        assert found and "1-dimensional inputs" in found[0].message, [d.message for d in report.diagnoses]


# ---------------------------------------------------------------- (e), (f) exactness and precision told truly


def test_a_wrong_valued_file_is_never_told_it_is_exact(tmp_path, sandbox):
    path = student_file(tmp_path, "soft_cap", (SCALE, "scores = 50 * torch.tanh((q @ k.transpose(-2, -1)) / "
                                                      "math.sqrt(q.shape[-1]) / 50)"))
    report = self_check(path, sandbox=sandbox, hint_state_path=tmp_path / "h.json")
    assert check_of(report, "worked_example").status == "failed"
    text = everything(report)
    assert "exact to its precision" not in text, text
    # Off by 1e-4 and more on the worked example: not float32 rounding, and never headlined as it.
    assert "dtype_downcast" not in [d.id for d in report.diagnoses], [d.message for d in report.diagnoses]
    assert "float32 rounding" not in text


# ---------------------------------------------------------------- (g) a crash names its own cause


def test_a_crash_only_when_d_v_differs_from_d_k_says_so(tmp_path, sandbox):
    path = student_file(tmp_path, "dv_is_dk", ("out = weights @ v", "out = weights @ v.reshape(*v.shape[:-1], q.shape[-1])"))
    report = self_check(path, sandbox=sandbox, hint_state_path=tmp_path / "h.json")
    assert check_of(report, "worked_example").status == "passed"
    gate = check_of(report, "computes_attention")
    assert "No evidence that attention is computed" not in gate.feedback, gate.feedback
    assert "d_v" in gate.feedback and "d_k" in gate.feedback
    assert report.diagnoses and report.diagnoses[0].id == "value_width_assumed", [d.id for d in report.diagnoses]
    message = report.diagnoses[0].message
    assert re.search(r"\(d_v = (\d+), d_k = (?!\1)\d+\)", message) and re.search(r"at line \d+ \(`out = weights @ v.reshape", message), \
        message


def test_a_crash_at_one_length_is_not_blamed_on_the_value_width(tmp_path, sandbox):
    """Found by `make accuracy` on a real file: a mask built at 8 crashed at T = 40, whose d_v differs from d_k,
    and was told it assumes d_v = d_k although calls with d_v != d_k at T = 5 returned."""
    path = student_file(tmp_path, "block_8", (
        "allowed = torch.ones(t, t, dtype=torch.bool, device=q.device).tril()",
        "allowed = torch.ones(8, 8, dtype=torch.bool, device=q.device).tril()[:t, :t]"))
    for report in (self_check(path, sandbox=sandbox, hint_state_path=tmp_path / "h.json"),
                   grade_file(path, sandbox=sandbox, secret=SECRET)):
        ids = [d.id for d in report.diagnoses]
        assert "value_width_assumed" not in ids and "hardcoded_shape" in ids, ids


def test_a_real_head_with_a_block_size_is_not_blamed_on_the_value_width(sandbox):
    """The real file `make accuracy` found it on: calls with d_v != d_k at T <= 8 returned."""
    path = Path(__file__).resolve().parents[1] / "real" / "ng_video_lecture_v2_head.py"
    ids = [d.id for d in grade_file(path, sandbox=sandbox, secret=SECRET).diagnoses]
    assert "value_width_assumed" not in ids and "hardcoded_shape" in ids, ids
