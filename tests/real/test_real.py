"""The grader on real code: each file of tests/real is graded as its frozen expectation says.

Two cases per file: the score lies in the instructor's band (checks and rubric), and the diagnoses
are the expected ones (diagnosis). KNOWN_WRONG lists what today's grader gets wrong, each with its
cause: strict xfails, so a fix that makes an entry pass fails the suite until the entry is removed.
Never edit tests/real/expected.yaml to make a case pass.
"""

from __future__ import annotations

KNOWN_WRONG = {
    "band_name": {},
    "ids_name": {},
}


def test_score_in_the_instructors_band(band_name, real_graded, verdicts):
    expectation, report = real_graded[band_name]
    assert verdicts.band_problem(expectation, report) is None, (
        verdicts.band_problem(expectation, report), expectation.why)


def test_diagnoses_as_expected(ids_name, real_graded, verdicts):
    expectation, report = real_graded[ids_name]
    assert verdicts.id_problem(expectation, report) is None, (verdicts.id_problem(expectation, report), expectation.why)


def test_every_file_has_a_frozen_expectation(verdicts):
    assert sorted(p.stem for p in verdicts.real_files()) == sorted(verdicts.load_manifest())
    assert len(verdicts.real_files()) >= 20


def test_every_file_is_a_style_twin_written_here(verdicts):
    """Each header names the public file whose style it models and says it was written here from a description."""
    for path in verdicts.real_files():
        header = " ".join(path.read_text().split('"""', 2)[1].split())
        assert header.startswith("Style twin of ") and "written in this project from a description" in header, path.name
        assert "no line of it is copied" in header and "verdict" in header, path.name
