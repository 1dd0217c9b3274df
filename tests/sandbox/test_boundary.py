"""Validation at the boundary: a reply is checked against the call that asked for it before any
check sees it, and whatever still fails while judging one file becomes that file's report."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sandbox_kit import REFERENCE, REPO_ROOT, TEST_LIMITS, attention_calls, gallery

from grader import grade
from grader.batch.run import grade_files
from grader.sandbox import Sandbox

MiB = 1 << 20


def _status(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


def peak_growth(fn):
    """Run fn; return (its result, how far this process's peak RSS rose above the RSS before it)."""
    Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS
    before = _status("VmRSS")
    result = fn()
    return result, _status("VmHWM") - before


needs_peak = pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="needs Linux's VmHWM reset")


def _reasons(report) -> str:
    return " ".join(c.feedback for c in report.checks)


@needs_peak
def test_empty_reply_with_huge_dimensions_costs_the_grader_nothing(sandbox):
    report, grew = peak_growth(lambda: grade.grade_file(gallery("empty_huge_weights"), sandbox=sandbox))
    assert report.status == "graded" and report.score == 0
    assert "protocol_error" in _reasons(report) and "dimension over" in _reasons(report)
    assert grew < 200 * MiB, f"the grader's peak memory rose by {grew / MiB:.0f} MiB"


@needs_peak
def test_huge_reply_is_refused_before_it_is_read(sandbox):
    report, grew = peak_growth(lambda: grade.grade_file(gallery("huge_reply"), sandbox=sandbox))
    assert report.score == 0 and "protocol_error" in _reasons(report)
    assert grew < 200 * MiB, f"the grader's peak memory rose by {grew / MiB:.0f} MiB"


def test_replies_are_capped_per_submission():
    calls = attention_calls(12)
    limits = TEST_LIMITS.model_copy(update={"replies_bytes": 4096})
    with Sandbox(limits=limits, quiet=True) as sb:
        res = sb.run(REFERENCE, calls)
    assert res.failures, "the cap never bit"
    assert {f.kind for f in res.failures.values()} == {"protocol_error"}
    assert any("per submission" in f.message for f in res.failures.values())
    assert len(res.replies) + len(res.failures) == len(calls) and res.reply_bytes > 4096


def test_zero_width_outputs_are_graded_and_the_class_run_goes_on(sandbox):
    reports = grade_files([gallery("zero_width_out"), REFERENCE], sandboxes=[sandbox])
    assert [r.status for r in reports] == ["graded", "graded"]
    assert 0 < reports[0].score < reports[0].max_score
    assert reports[1].score == reports[1].max_score


def test_a_failure_while_judging_is_that_files_report(sandbox, monkeypatch, tmp_path):
    def broken(obs, *args, **kwargs):
        if "bomb" in obs.source:
            raise ZeroDivisionError("planted")
        return original(obs, *args, **kwargs)

    original = grade.diagnose
    monkeypatch.setattr(grade, "diagnose", broken)
    bomb = tmp_path / "bomb_marker.py"  # a correct file carrying the marker the planted failure keys on
    bomb.write_text("# bomb\n" + (REPO_ROOT / "tests" / "variants" / "einsum_triu.py").read_text())
    reports = grade_files([bomb, REFERENCE], sandboxes=[sandbox])
    first, second = reports
    assert first.status == "grader_error" and "ZeroDivisionError" in first.error and first.score == 0
    assert first.checks and {c.status for c in first.checks} <= {"error", "skipped"}
    assert second.status == "graded" and second.score == second.max_score


def test_static_check_reads_the_text_python_runs():
    # Under a coding line, bytes that read as a harmless comment in UTF-8 decode to a call.
    source = b"# -*- coding: utf-7 -*-\nx = 1 +AAo-y = 2\n"
    assert "y = 2" in grade.python_text(source).splitlines()[2]
    assert grade.python_text(b"\xff\xfe broken") == b"\xff\xfe broken".decode("utf-8", "replace")


# -- every byte from the child counted: headers as well as tensors ----------------------------
def test_padded_headers_are_refused_at_the_boundary(sandbox):
    res = sandbox.run(gallery("huge_headers"), attention_calls(3))
    assert res.replies == {} and {f.kind for f in res.failures.values()} == {"protocol_error"}, res.failures
    assert any("header of" in f.message for f in res.failures.values()), res.failures


@needs_peak
def test_padded_headers_cost_the_grader_little(sandbox):
    report, grew = peak_growth(lambda: grade.grade_file(gallery("huge_headers"), sandbox=sandbox))
    assert report.status == "graded" and report.score == 0, report.score
    assert grew < 200 * MiB, f"the grader's peak memory rose by {grew / MiB:.0f} MiB"


def test_deeply_nested_headers_are_refused(sandbox):
    res = sandbox.run(gallery("deep_headers"), attention_calls(2))
    assert res.replies == {} and any("nested deeper" in f.message for f in res.failures.values()), res.failures


def test_headers_count_toward_the_submission_cap():
    calls = attention_calls(12)
    # Its tensors need ~9 KB for all twelve replies; its ~28 KB headers pass the cap by the eighth.
    limits = TEST_LIMITS.model_copy(update={"replies_bytes": 200 * 1024})
    with Sandbox(limits=limits, quiet=True) as sb:
        honest = sb.run(REFERENCE, calls)
        padded = sb.run(gallery("many_headers"), calls)
    assert honest.failures == {} and len(honest.replies) == len(calls)
    # Every frame counted: the 'loaded' one and each reply's header, not only the tensors.
    tensors = sum(t.numel() * t.element_size() for r in honest.replies.values() for t in r.tensors.values())
    assert honest.reply_bytes == honest.load.wire_bytes + sum(r.wire_bytes for r in honest.replies.values())
    assert honest.reply_bytes > tensors
    assert any("per submission" in f.message for f in padded.failures.values()), padded.failures
    assert 0 < len(padded.replies) < len(calls)
