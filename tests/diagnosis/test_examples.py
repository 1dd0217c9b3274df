"""The issue's examples, graded end to end as a student's check: each message is about that file.

Every file is the reference with one edit, written under pytest's temporary folder.
"""

from __future__ import annotations

import pytest

from grader.diagnosis.catalogue import REFERENCE
from grader.grade import self_check

SCALE = "/ math.sqrt(q.shape[-1])"


def edited(tmp_path, name: str, old: str, new: str):
    source = REFERENCE.read_text()
    assert old in source
    path = tmp_path / f"{name}.py"
    path.write_text(source.replace(old, new, 1))
    return path


def top(sandbox, path):
    report = self_check(path, sandbox=sandbox, hint_state_path=path.parent / "hints.json")
    assert report.diagnoses, [c.feedback for c in report.checks]
    return report.diagnoses[0]


def test_unclosed_parenthesis(sandbox, tmp_path):
    d = top(sandbox, edited(tmp_path, "paren", "scores = (q @ k.transpose(-2, -1))", "scores = (q @ k.transpose(-2, -1)"))
    assert d.id == "syntax_error" and "'(' was never closed" in d.message and "scores = (q @ k" in d.message
    assert "colon" not in d.message


def test_missing_import(sandbox, tmp_path):
    d = top(sandbox, edited(tmp_path, "imports", "import math\n", "import math\nimport einops\n"))
    assert d.id == "import_error" and "`einops`" in d.message and "my_attention_helpers" not in d.message


def test_slow_but_correct(sandbox, tmp_path):
    d = top(sandbox, edited(tmp_path, "slow", "    t = q.shape[-2]\n", "    import time\n    time.sleep(5)\n"
                                                                       "    t = q.shape[-2]\n"))
    assert d.id == "timeout" and "causal_attention on q (" in d.message and "while True" not in d.message


def test_empty_file(sandbox, tmp_path):
    path = tmp_path / "empty.py"
    path.write_text("")
    report = self_check(path, sandbox=sandbox, hint_state_path=tmp_path / "hints.json")
    assert [d.id for d in report.diagnoses] == ["missing_function"]
    message = report.diagnoses[0].message
    assert "empty" in message and "causal_atention" not in message and "math is right" not in message


@pytest.mark.parametrize(("new", "means", "direction"), [
    ("/ q.shape[-1]", "dividing by d_k instead of its square root", "flatter"),
    ("/ math.sqrt(v.shape[-1])", "dividing by sqrt(d_v)", None),  # its direction depends on the probe
])
def test_wrong_scales(sandbox, tmp_path, new, means, direction):
    d = top(sandbox, edited(tmp_path, "scale", SCALE, new))
    assert d.id == "wrong_scale" and means in d.message
    assert (direction or ("sharper" if "sharper" in d.message else "flatter")) in d.message
    assert "[0.142857, 0.285714, 0.571429], not [0.142857, 0.285714, 0.571429]" not in d.message


def test_large_finite_fill_is_told_its_own_fill_value_if_anything(sandbox, tmp_path):
    """-1e4 is right while allowed scores stay far above it; if a probe reaches its edge, say -10000."""
    report = self_check(edited(tmp_path, "fill", 'float("-inf")', "-1e4"), sandbox=sandbox,
                        hint_state_path=tmp_path / "hints.json")
    if report.score == report.max_score:
        assert report.diagnoses == []
    else:
        assert report.diagnoses and report.diagnoses[0].id == "zero_fill_mask"
        assert "-10000" in report.diagnoses[0].message and "exp(0)" not in report.diagnoses[0].message


def test_a_head_wired_right_is_told_where_its_difference_comes_from(sandbox, tmp_path):
    """The self-check does not score causal_attention against the reference at distinct widths, so
    SingleHead carries that evidence there, and says it is causal_attention's, not the head's. It
    passes, as in the grade (issue 19: one verdict in both views; the difference is counted once, by
    the checks of causal_attention)."""
    report = self_check(edited(tmp_path, "scale", SCALE, "/ math.sqrt(v.shape[-1])"), sandbox=sandbox,
                        hint_state_path=tmp_path / "hints.json")
    head = next(c for c in report.checks if c.id == "single_head")
    assert head.status == "passed" and "the head is wired right" in head.feedback
    assert "difference comes from causal_attention" in head.feedback


@pytest.mark.parametrize(("roles", "says"), [
    ("self.key(x), self.query(x), self.value(x)", "the key projection as the query and the query projection as the key"),
    ("self.query(x), self.value(x), self.key(x)", "the value projection as the key and the key projection as the value"),
])
def test_a_head_that_swaps_its_projections_is_named(sandbox, tmp_path, roles, says):
    """Found by a user: SingleHead passing keys as queries got no diagnosis, only a hint to count parameters."""
    source = REFERENCE.read_text()
    call = next(line.strip() for line in source.splitlines() if "causal_attention(self." in line)
    path = tmp_path / "head.py"
    path.write_text(source.replace(call, call.split("causal_attention(")[0] + f"causal_attention({roles})"))
    d = top(sandbox, path)
    assert d.id == "head_wiring" and says in d.message


def test_a_right_head_beside_a_wrong_function_is_not_called_miswired(sandbox, tmp_path):
    report = self_check(edited(tmp_path, "scale", SCALE, "/ q.shape[-1]"), sandbox=sandbox,
                        hint_state_path=tmp_path / "hints.json")
    assert "head_wiring" not in [d.id for d in report.diagnoses]


def test_a_half_written_file_is_not_told_nothing_is_written(sandbox, tmp_path):
    """Noticed by a helper: with causal_attention written and SingleHead still a stub, the diagnosis
    said 'Nothing is implemented yet ... Start with the scores'."""
    source = REFERENCE.read_text()
    call = next(line for line in source.splitlines() if "causal_attention(self." in line)
    path = tmp_path / "half.py"
    path.write_text(source.replace(call, call.split("return")[0] + "raise NotImplementedError"))
    d = top(sandbox, path)
    assert d.id == "not_implemented" and "SingleHead still raises NotImplementedError" in d.message
    assert "Nothing is implemented" not in d.message and "Start with the scores" not in d.message


@pytest.mark.parametrize(("old", "new"), [
    ("    scores = scores.masked_fill(~allowed, float(\"-inf\"))\n    weights = torch.softmax(scores, dim=-1)\n"
     "    out = weights @ v\n",
     "    out = torch.softmax(scores, dim=-1) @ v\n    scores = scores.masked_fill(~allowed, float(\"-inf\"))\n"
     "    weights = torch.softmax(scores, dim=-1)\n"),  # the output blended before the mask
    ("    out = weights @ v\n", "    out = weights.transpose(-2, -1) @ v\n"),
])
def test_an_output_from_other_shares_than_the_weights_is_named(sandbox, tmp_path, old, new):
    """Found by a user: two leaks whose weights are right (the output was blended before the mask, or
    with the weights transposed) got no diagnosis at all."""
    d = top(sandbox, edited(tmp_path, "out", old, new))
    assert d.id == "out_not_from_weights" and "your own weights times v give" in d.message
