"""The headline points at a diagnosis only when the report has one."""

from __future__ import annotations

from grader.report.models import CheckReport, Diagnosis, Report, Runtime
from grader.report.view import headline


def report(diagnoses: list[Diagnosis]) -> Report:
    check = CheckReport(id="worked_example", title="Worked example", status="failed", score=0, max_score=15,
                        feedback="differs")
    return Report(submission="a.py", score=0, max_score=15, checks=[check], diagnoses=diagnoses,
                  runtime=Runtime(isolation="rlimits-only", wall_s=0.1))


def test_no_diagnosis_no_pointer_to_one():
    r = report([])
    assert headline(r, r.checks) == "1 of 1 checks need another look."


def test_a_diagnosis_is_pointed_at():
    r = report([Diagnosis(id="wrong_scale", title="t", message="m", section="s")])
    assert headline(r, r.checks).endswith("Start with the diagnosis below.")
