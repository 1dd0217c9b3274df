"""Gradebook, skipped list and JUnit: shapes platforms import, and nothing a student wrote becomes a formula."""

from __future__ import annotations

import csv
import io
from xml.etree import ElementTree as ET

from grader.batch.gradebook import HEADER, cell, gradebook_csv, skipped_csv
from grader.batch.junit import junit_xml
from grader.batch.models import StudentResult
from grader.batch.names import student_filename
from grader.intake.models import Skipped, Student
from grader.report.models import CheckReport, Diagnosis, Report, Runtime


def _report(score: float, status: str = "failed") -> Report:
    checks = [CheckReport(id="worked_example", title="Worked example", status="passed", score=15, max_score=15,
                          feedback="ok"),
              CheckReport(id="mask_structure", title="Mask", status=status, score=score, max_score=12,
                          feedback="row 0 leaks \x1b[31m <b>")]
    return Report(submission="x.py", score=15 + score, max_score=27, checks=checks,
                  diagnoses=[Diagnosis(id="zero_fill_mask", title="t", message="m", section="s")],
                  runtime=Runtime(isolation="rlimits-only", wall_s=0.1))


def _result(name: str, sid: str, report: Report | None) -> StudentResult:
    student = Student(key=f"file:{sid}", id=sid, name=name, platform="file", submission=f"{name}.py")
    return StudentResult(student=student, status="graded" if report else "no_submission", report=report,
                         report_name=student_filename(student.key, name))


def test_cells_that_look_like_formulas_are_text():
    for bad in ("=1+1", "+1", "-2", "@SUM(A1)", "\tx", "=HYPERLINK(\"http://e\")"):
        assert cell(bad) == "'" + bad
    assert cell("\rx") == "\\x0dx"  # a carriage return is shown as an escape: no formula, no terminal steering
    assert cell("alice") == "alice" and cell(-1.5) == -1.5  # numbers stay numbers


def test_gradebook_rows_columns_and_escaping():
    rows = [_result("=cmd|' /C calc'!A0", "=1", _report(0)), _result("bob", "2", _report(12, "passed")),
            _result("amy", "3", None)]
    text = gradebook_csv(rows)
    table = list(csv.reader(io.StringIO(text)))
    assert table[0][: len(HEADER)] == HEADER
    assert table[0][len(HEADER):] == ["check:worked_example", "check:mask_structure", "Diagnoses", "Notes"]
    assert [r[0] for r in table[1:]] == ["'=cmd|' /C calc'!A0", "bob", "amy"] and table[1][1] == "'=1"
    assert [r[6] for r in table[1:]] == ["15", "27", ""] and table[3][8] == "no_submission"
    assert all(not c.startswith(("=", "+", "-", "@")) for r in table for c in r)
    assert skipped_csv([Skipped(path="-x.py", reason="=bad")]).splitlines()[1] == "'-x.py,'=bad"


def test_scores_print_as_the_reports_print_them():
    """70.947917 in a report reads 70.95 there; the gradebook says the same, in the same columns."""
    rep = _report(0).model_copy(update={"score": 70.947917, "max_score": 86.0})
    rep.checks[1].score = 4.0 / 3.0
    table = list(csv.reader(io.StringIO(gradebook_csv([_result("bob", "2", rep)]))))
    row = dict(zip(table[0], table[1], strict=True))
    assert (row["Score"], row["Max Score"]) == ("70.95", "86")
    assert (row["check:worked_example"], row["check:mask_structure"]) == ("15", "1.33")
    assert table[0].index("Score") == 6 and table[0].index("Max Score") == 7  # the columns imports map


def test_junit_one_testcase_per_check():
    xml = junit_xml([_result("bob", "2", _report(0)), _result("amy", "3", None)])
    root = ET.fromstring(xml.encode())
    suites = root.findall("testsuite")
    assert [s.get("tests") for s in suites] == ["2", "1"] and suites[0].get("failures") == "1"
    assert [c.get("name") for c in suites[0].findall("testcase")] == ["worked_example", "mask_structure"]
    assert suites[0].find("testcase/failure").text.startswith("0/12") and "\x1b" not in xml
    assert root.get("tests") == "3" and root.get("errors") == "1"


def test_junit_suites_follow_the_schemas_order():
    """Ant's JUnit schema and Jenkins' junit-10.xsd: a testsuite holds properties, then test cases, then system-out
    and system-err, in that order."""
    order = ["properties", "testcase", "system-out", "system-err"]
    root = ET.fromstring(junit_xml([_result("bob", "2", _report(0)), _result("amy", "3", None)]).encode())
    for suite in root.findall("testsuite"):
        tags = [child.tag for child in suite]
        assert tags == sorted(tags, key=order.index), tags
    assert root.find("testsuite")[0].tag == "properties"


def test_junit_shows_no_score_for_a_check_worth_none():
    rep = _report(0)
    rep.checks.append(CheckReport(id="computes_attention", title="Gate", status="failed", score=0, max_score=0,
                                  feedback="No evidence that attention is computed."))
    rep.checks[1].score = 4.0 / 3.0
    failures = {c.get("name"): c.find("failure").get("message")
                for c in ET.fromstring(junit_xml([_result("bob", "2", rep)]).encode()).iter("testcase")
                if c.find("failure") is not None}
    assert failures["computes_attention"] == "No evidence that attention is computed."
    assert failures["mask_structure"].startswith("1.33/12: ")


def test_report_names_are_unique_and_safe():
    names = {student_filename(k, label) for k, label in (("file:alice~smith", "alice~smith"),
                                                         ("file:alice_smith", "alice_smith"),
                                                         ("file:../../etc", "../../etc"), ("x", ""))}
    assert len(names) == 4 and all("/" not in n and not n.startswith(".") for n in names)


def test_a_capped_total_is_explained_in_notes():
    """Found by a user: a row's Score read 50 while its check columns summed to 69.83, with Notes empty."""
    rep = _report(0)
    rep.checks[1].ceiling = 0.5
    capped = rep.model_copy(update={"score": 13.5})
    rows = {r[1]: dict(zip(HEADER + ["check:worked_example", "check:mask_structure", "Diagnoses", "Notes"], r,
                           strict=True)) for r in list(csv.reader(io.StringIO(gradebook_csv(
                               [_result("bob", "2", capped), _result("eve", "3", rep)]))))[1:]}
    assert "Capped at 13.5 / 27 (50%)" in rows["2"]["Notes"] and "Mask" in rows["2"]["Notes"]
    assert rows["3"]["Notes"] == ""
