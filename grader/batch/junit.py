"""JUnit XML for CI dashboards (GitHub Classroom, GitLab, Jenkins): one testsuite per student, one testcase per check."""

from __future__ import annotations

import re
from xml.etree import ElementTree as ET

from grader.batch.models import StudentResult
from grader.report.view import score_text

_XML_BAD = re.compile(r"[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(value: str) -> str:
    return _XML_BAD.sub("\ufffd", value)  # XML 1.0 cannot carry most control characters, even escaped


def junit_xml(results: list[StudentResult]) -> str:
    suites = ET.Element("testsuites", name="attention-grader")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for r in results:
        s = r.student
        suite = ET.SubElement(suites, "testsuite", name=_text(f"{s.name} ({s.id})" if s.name != s.id else s.id))
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        if r.report:  # the JUnit schema (Ant's, Jenkins' junit-10.xsd) puts <properties> before the test cases
            props = ET.SubElement(suite, "properties")
            ET.SubElement(props, "property", name="score", value=f"{r.report.score:g}")
            ET.SubElement(props, "property", name="max_score", value=f"{r.report.max_score:g}")
            ET.SubElement(props, "property", name="diagnoses", value=" ".join(d.id for d in r.report.diagnoses))
        checks = r.report.checks if r.report else []
        if not checks:
            case = ET.SubElement(suite, "testcase", classname=_text(s.id), name="submission")
            ET.SubElement(case, "error", message=_text(r.error or "; ".join(s.notes + [f.detail for f in s.flags])
                                                        or r.status))
            counts["tests"] += 1
            counts["errors"] += 1
        for c in checks:
            case = ET.SubElement(suite, "testcase", classname=_text(s.id), name=c.id)
            counts["tests"] += 1
            # Points as the reports print them; a check worth none shows no `0/0`.
            points = f"{score_text(c.score)}/{score_text(c.max_score)}: " if c.max_score else ""
            message = _text(points + c.feedback)
            if c.status == "failed":
                ET.SubElement(case, "failure", message=message[:500]).text = message
                counts["failures"] += 1
            elif c.status == "error":
                ET.SubElement(case, "error", message=message[:500]).text = message
                counts["errors"] += 1
            elif c.status == "skipped":
                ET.SubElement(case, "skipped", message=message[:500])
                counts["skipped"] += 1
        for k, v in counts.items():
            suite.set(k, str(v))
            totals[k] += v
    for k, v in totals.items():
        suites.set(k, str(v))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
