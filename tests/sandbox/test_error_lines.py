"""A call that raised is quoted with the student's own line, as a syntax error is (issue 19, item 6).

The child reports only the line number of the submission's innermost frame; the grader quotes the
line from its own copy of the source, and a number the source does not have is quoted as nothing.
"""

from __future__ import annotations

from support.corpora import REFERENCE

from grader.grade import self_check
from grader.probes.replies import Reply, at_line
from grader.sandbox import protocol


def _edited(tmp_path, old: str, new: str):
    source = REFERENCE.read_text(encoding="utf-8")
    assert old in source
    path = tmp_path / "attention.py"
    path.write_text(source.replace(old, new), encoding="utf-8")
    return path, source.replace(old, new).splitlines().index("    " + new.strip()) + 1


def test_a_name_error_quotes_the_line_that_raised(tmp_path, sandbox):
    path, line = _edited(tmp_path, "out = weights @ v", "out = weights @ alowed_v")
    report = self_check(path, sandbox=sandbox, hint_state_path=tmp_path / "h.json")
    worked = next(c for c in report.checks if c.id == "worked_example")
    assert f"NameError at line {line} (`out = weights @ alowed_v`): name 'alowed_v' is not defined" in worked.feedback
    assert report.diagnoses and report.diagnoses[0].id == "call_raises", [d.id for d in report.diagnoses]
    assert f"line {line}" in report.diagnoses[0].message


def test_an_error_inside_torch_quotes_the_students_line_not_torchs(tmp_path, sandbox):
    path, line = _edited(tmp_path, "out = weights @ v", "out = weights @ v[..., :3, :]")
    report = self_check(path, sandbox=sandbox, hint_state_path=tmp_path / "h.json")
    text = " ".join(c.feedback for c in report.checks) + " ".join(d.message for d in report.diagnoses)
    assert f"RuntimeError at line {line} (`out = weights @ v[..., :3, :]`)" in text


def test_a_line_the_source_does_not_have_is_quoted_as_nothing():
    source = "import torch\n\ndef causal_attention(q, k, v):\n    return q\n"
    assert at_line(source, 4) == " at line 4 (`return q`)"
    assert at_line(source, 99) == "" and at_line(source, None) == ""
    # A reply that says anything else about its line is refused as a whole, as every frame field is.
    assert protocol.parse(protocol.ReplyMeta, {"id": "we", "ok": False, "lineno": 0}) is None
    assert Reply(False, error_type="NameError", error="x", where=at_line(source, 4)).raised == \
        "NameError at line 4 (`return q`): x"
