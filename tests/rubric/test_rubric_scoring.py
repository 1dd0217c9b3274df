"""Scoring semantics: points, partial credit, prerequisites, visibility, hints, determinism."""

from __future__ import annotations

import json
import re

import pytest

from grader.checks.base import DEFAULT_TOLERANCES, CheckOutcome, Tolerance
from grader.checks.registry import CHECK_IDS, CHECKS
from grader.paths import INSTRUCTOR_RUBRIC as INSTRUCTOR
from grader.rubric import hint_state, load_rubric, load_self_check, parse_rubric, score_checks


def outcomes(**overrides: CheckOutcome) -> dict[str, CheckOutcome]:
    """Every registry check passing with 4 cases, except the overrides."""
    result = {
        check_id: CheckOutcome("passed", 4, 4, f"{check_id} own text", expected=f"{check_id}-EXPECTED", observed="same")
        for check_id in CHECK_IDS
    }
    result.update(overrides)
    return result


def failed(passed: int = 1, total: int = 4, status: str = "failed", finding: str | None = None) -> CheckOutcome:
    return CheckOutcome(status, passed, total, "the check's own text", expected="[1, 0, 0]", observed="[1/3, 1/3, 1/3]",
                        finding=finding, findings=(finding,) if finding else ())


def by_id(scored):
    return {report.id: report for report in scored.checks}


def with_requires(text: str, prerequisite: str, ids: list[str]) -> str:
    """The shipped rubric has no prerequisites any more; the mechanism is still tested on a copy."""
    for check_id in ids:
        text = re.sub(rf"(  - id: {check_id}\n    points: [0-9.]+\n)", rf"\g<1>    requires: [{prerequisite}]\n", text)
    return text


GATED = ["worked_example", "zero_queries", "value_intervention", "mask_structure", "leak_intervention",
         "shift_invariance", "random_probes", "sdpa_parity"]


def test_all_passing_scores_100_with_group_subtotals():
    rubric = load_rubric(INSTRUCTOR)
    scored = score_checks(rubric, outcomes(), audience="instructor")
    assert (scored.score, scored.max_score) == (100, 100)
    assert [r.id for r in scored.checks] == rubric.check_ids
    assert [g.name for g in scored.groups] == ["Worked example", "Masking", "Numerics", "Gradients", "Contract"]
    assert sum(g.max_score for g in scored.groups) == 100
    for report in scored.checks:
        assert report.status == "passed" and report.score == report.max_score
        assert report.title == CHECKS[report.id].title and report.section == CHECKS[report.id].section
        assert report.feedback  # rubric text, or the check's own where the rubric has none
        assert report.hint is None


def test_partial_credit_fraction_and_all_or_nothing():
    rubric = load_rubric(INSTRUCTOR)
    scored = by_id(score_checks(
        rubric,
        outcomes(mask_structure=failed(3, 4, finding="above"), inputs_unchanged=failed(3, 4),
                 random_probes=failed(2, 8, "error")),
        audience="instructor",
    ))
    assert scored["mask_structure"].score == pytest.approx(10 * 3 / 4)  # fraction
    assert scored["inputs_unchanged"].score == 0  # all_or_nothing
    assert scored["random_probes"].score == pytest.approx(9 * 2 / 8)  # an error keeps its passed cases
    assert scored["mask_structure"].expected == "[1, 0, 0]" and scored["mask_structure"].observed == "[1/3, 1/3, 1/3]"
    mask = rubric.check("mask_structure")
    assert scored["mask_structure"].feedback.startswith(mask.feedback.failed)
    above = mask.hints_for("above")
    assert scored["mask_structure"].hint == (f"Hint: {above[0]}" if len(above) == 1 else
                                             f"Hint 1 of {len(above)}: {above[0]}")


def test_a_failing_check_with_a_ceiling_caps_the_total_and_says_so():
    rubric = load_rubric(INSTRUCTOR)
    scored = score_checks(rubric, outcomes(leak_intervention=failed(3, 4)), audience="instructor")
    assert scored.score == 50  # 96 without the severity band
    assert "capped at 50 of 100" in by_id(scored)["leak_intervention"].feedback
    wrong_math = score_checks(rubric, outcomes(random_probes=failed(3, 4, finding="out")), audience="instructor")
    assert wrong_math.score == 75  # 97.75 without the band
    milder = score_checks(rubric, outcomes(zero_queries=failed(3, 4)), audience="instructor")
    assert milder.score == pytest.approx(100 - 5 / 4)  # no ceiling: nothing to cap


def test_a_check_that_could_not_run_loses_its_points_but_sets_no_band():
    """Found grading public code: a head that crashed on multi-head inputs (T read from axis 1) had its
    mask check error there, and was capped at 50 'for this kind of bug', a leak it does not have."""
    rubric = load_rubric(INSTRUCTOR)
    crashed = score_checks(rubric, outcomes(mask_structure=failed(3, 4, "error")), audience="instructor")
    assert crashed.score == pytest.approx(100 - 10 / 4)
    assert "capped" not in by_id(crashed)["mask_structure"].feedback


def test_a_crash_sets_a_band_only_where_the_rubric_names_it():
    """A call that raised on inputs the contract allows is wrong math where the value checks' band names
    `crash` (a mask fixed at 8 positions crashed at T = 40 and lost a fraction of a point); it is never a
    leak: the mask and leak checks' bands do not name it."""
    rubric = load_rubric(INSTRUCTOR)
    crashed = score_checks(rubric, outcomes(random_probes=failed(3, 4, "error", "crash")), audience="instructor")
    assert crashed.score == 75 and "capped at 75 of 100" in by_id(crashed)["random_probes"].feedback
    for check_id in ("mask_structure", "leak_intervention"):
        scored = score_checks(rubric, outcomes(**{check_id: failed(3, 4, "error", "crash")}), audience="instructor")
        assert scored.score > 75 and "capped" not in by_id(scored)[check_id].feedback


def test_an_error_shows_what_raised_and_not_the_rubrics_failure_text():
    rubric = load_self_check()
    boom = CheckOutcome("error", 0, 1, "Could not run this check: RuntimeError: shapes (3, 2) and (3, 3)")
    report = by_id(score_checks(rubric, outcomes(gradient_flow=boom), audience="student"))["gradient_flow"]
    assert report.status == "error" and report.score == 0 and report.feedback == boom.feedback
    failing = by_id(score_checks(rubric, outcomes(gradient_flow=failed()), audience="student"))["gradient_flow"]
    assert failing.feedback.startswith(rubric.check("gradient_flow").feedback.failed)


def test_failed_prerequisite_skips_dependents_naming_it():
    rubric = parse_rubric(with_requires(INSTRUCTOR.read_text(), "return_contract", GATED))
    scored = score_checks(rubric, outcomes(return_contract=failed(0, 1)), audience="instructor")
    reports = by_id(scored)
    dependents = [c.id for c in rubric.checks if "return_contract" in c.requires]
    assert len(dependents) >= 8
    for check_id in dependents:
        report = reports[check_id]
        assert (report.status, report.score, report.hint) == ("skipped", 0, None)
        assert "“Returns (out, weights)” (return_contract)" in report.feedback
        assert report.expected is None and report.observed is None
    assert reports["single_head"].status == "passed"  # unrelated checks still run
    assert scored.score == 100 - 3 - sum(rubric.check(c).points for c in dependents)


def test_prerequisite_chain_skips_transitively_and_needs_no_outcome():
    rubric = parse_rubric(with_requires(INSTRUCTOR.read_text(), "single_head", ["single_head_gradients"]))
    given = outcomes(single_head=failed(0, 1))
    del given["single_head_gradients"]  # a skipped check's outcome may be absent
    report = by_id(score_checks(rubric, given, audience="instructor"))["single_head_gradients"]
    assert report.status == "skipped" and "single_head" in report.feedback


def test_missing_outcome_of_a_check_that_runs_is_a_grader_bug():
    rubric = load_rubric(INSTRUCTOR)
    given = outcomes()
    del given["worked_example"]
    with pytest.raises(ValueError, match="worked_example"):
        score_checks(rubric, given, audience="instructor")


def test_student_never_sees_hidden_checks_but_instructor_counts_them():
    rubric = load_rubric(INSTRUCTOR)
    hidden = [c for c in rubric.checks if c.visibility != "visible"]
    assert {c.id for c in hidden} == {"random_probes", "sdpa_parity"}
    given = outcomes(random_probes=failed(1, 4, finding="weights"), sdpa_parity=failed(0, 2))
    instructor = score_checks(rubric, given, audience="instructor")
    student = score_checks(rubric, given, audience="student")
    # 100 - 9 x 3/4 - 4 = 89.25, capped at 75 by random_probes' severity band (wrong math)
    assert instructor.max_score == 100 and instructor.score == 75
    assert student.max_score == 100 - sum(c.points for c in hidden) and student.score == student.max_score
    text = student.model_dump_json()
    assert all(check.id in instructor.model_dump_json() for check in hidden)  # the probe can see them
    for check in hidden:
        failed_text = check.feedback.failed if check.feedback else None
        for secret in (check.id, CHECKS[check.id].title, f"{check.id}-EXPECTED", failed_text):
            assert secret is None or secret not in text


def test_student_is_not_told_the_name_of_a_hidden_prerequisite(tmp_path):
    text = with_requires(INSTRUCTOR.read_text(), "return_contract", ["worked_example"]).replace(
        "  - id: return_contract\n    points: 3\n    partial_credit: all_or_nothing\n    visibility: visible",
        "  - id: return_contract\n    points: 3\n    partial_credit: all_or_nothing\n    visibility: hidden",
    )
    rubric = parse_rubric(text)
    student = score_checks(rubric, outcomes(return_contract=failed(0, 1)), audience="student")
    report = by_id(student)["worked_example"]
    assert report.status == "skipped" and "a hidden check" in report.feedback
    assert "return_contract" not in student.model_dump_json() and "Returns (out" not in student.model_dump_json()


def test_changing_only_points_changes_only_scores():
    original = load_rubric(INSTRUCTOR)
    text = INSTRUCTOR.read_text().replace("  - id: zero_queries\n    points: 5", "  - id: zero_queries\n    points: 10")
    text = text.replace("  - id: shift_invariance\n    points: 6", "  - id: shift_invariance\n    points: 1")
    reweighted = parse_rubric(text)
    given = outcomes(zero_queries=failed(1, 4), shift_invariance=failed(2, 4))
    a = score_checks(original, given, audience="instructor").model_dump()
    b = score_checks(reweighted, given, audience="instructor").model_dump()
    assert a["max_score"] == b["max_score"] == 100 and a["score"] != b["score"]

    def without_scores(scored):
        return {
            "checks": [{k: v for k, v in c.items() if k not in ("score", "max_score")} for c in scored["checks"]],
            "groups": [g["name"] for g in scored["groups"]],
        }

    assert without_scores(a) == without_scores(b)
    assert by_id(score_checks(reweighted, given, audience="instructor"))["zero_queries"].score == 2.5


def test_instructor_can_hide_and_drop_a_check_by_editing_yaml_alone():
    text = INSTRUCTOR.read_text()
    # Hide the worked example from students.
    hidden = parse_rubric(text.replace(
        "  - id: worked_example\n    points: 15\n    partial_credit: fraction\n    visibility: visible",
        "  - id: worked_example\n    points: 15\n    partial_credit: fraction\n    visibility: hidden",
    ))
    assert "worked_example" not in by_id(score_checks(hidden, outcomes(), audience="student"))
    assert "worked_example" in by_id(score_checks(hidden, outcomes(), audience="instructor"))
    # Drop the forbidden-API check: its block is gone, the total drops by its points.
    start = text.index("  - id: forbidden_api")
    dropped = parse_rubric(text[:start])
    scored = score_checks(dropped, outcomes(), audience="instructor")
    assert "forbidden_api" not in by_id(scored) and scored.max_score == 98


def test_same_inputs_give_the_same_report():
    given = outcomes(mask_structure=failed(1, 3), return_contract=failed(0, 1))
    reports = {
        score_checks(load_rubric(INSTRUCTOR), given, audience=audience).model_dump_json()
        for audience in ("instructor",) * 3
    }
    assert len(reports) == 1


def test_hints_advance_only_when_the_code_changed_and_still_fails(tmp_path):
    rubric = load_self_check()
    hints = rubric.check("value_intervention").hints
    assert len(hints) == 3 and all(isinstance(h, str) for h in hints)
    state = tmp_path / "state" / "hints.json"
    given = outcomes(value_intervention=failed(1, 4))

    def hint(code, key="abc", outcomes_=given):
        # As grade does it: the state loaded before scoring and saved after (scoring touches no file).
        progress = hint_state.load(state)
        report = by_id(score_checks(rubric, outcomes_, audience="student", hint_key=key, hint_state=progress,
                                    hint_source=code))
        hint_state.save(state, progress)
        return report["value_intervention"].hint

    assert hint("v1") == f"Hint 1 of 3: {hints[0]}"
    assert hint("v1") == f"Hint 1 of 3: {hints[0]}"  # the untouched code: the same hint, however often
    assert hint("v2") == f"Hint 2 of 3: {hints[1]}"
    assert hint("v3", outcomes_=outcomes()) is None  # a passing run reveals nothing and spends nothing
    assert hint("v3") == f"Hint 3 of 3: {hints[2]}"
    assert hint("v4") == f"Hint 3 of 3: {hints[2]}"  # the last hint stays
    assert hint("v4", key="another submission") == f"Hint 1 of 3: {hints[0]}"
    saved = json.loads(state.read_text())
    assert saved["revealed"]["causal_attention:abc"] == {"value_intervention": {"seen": hints, "source": "v4"}}
    assert [p.name for p in state.parent.iterdir()] == ["hints.json"]  # no temporary file left behind


def test_hints_without_state_show_the_first_and_damaged_state_restarts(tmp_path):
    rubric = load_self_check()
    first = rubric.check("value_intervention").hints[0]
    given = outcomes(value_intervention=failed(0, 2))
    assert by_id(score_checks(rubric, given, audience="student"))["value_intervention"].hint.endswith(first)
    state = tmp_path / "hints.json"
    state.write_text("{not json")
    progress = hint_state.load(state)
    report = by_id(score_checks(rubric, given, audience="student", hint_key="k", hint_state=progress,
                                hint_source="v1"))
    assert report["value_intervention"].hint.endswith(first)
    assert state.read_text() == "{not json"  # scoring wrote nothing: saving is its caller's
    hint_state.save(state, progress)
    assert json.loads(state.read_text())["revealed"] == {
        "causal_attention:k": {"value_intervention": {"seen": [first], "source": "v1"}}}


def test_a_hint_is_labelled_once(tmp_path):
    """"Hint 2 of 3: ..." or "Hint: ...", never "Hint: Hint 2 of 3"."""
    from grader.report.markdown import render_markdown
    from grader.report.models import Report, Runtime

    rubric = load_self_check()
    scored = score_checks(rubric, outcomes(value_intervention=failed(1, 4)), audience="student")
    report = Report(submission="a.py", score=scored.score, max_score=scored.max_score, checks=scored.checks,
                    groups=scored.groups, diagnoses=[], runtime=Runtime(isolation="rlimits-only", wall_s=0.1))
    text = render_markdown(report, audience="student")
    assert "Hint 1 of 3:" in text and "Hint: Hint" not in text


def test_a_hint_speaks_to_what_the_check_found():
    """Found by a user: hints were one fixed sequence per check, so a head that was wired right (its
    values were causal_attention's) was told to count parameters. A hint with `when` waits for its finding."""
    rubric = load_self_check()

    def hint(check_id: str, finding: str | None) -> str | None:
        given = outcomes(**{check_id: failed(finding=finding)})
        return by_id(score_checks(rubric, given, audience="student"))[check_id].hint

    head = hint("single_head", "attention")
    assert head.startswith("Hint: ") and "causal_attention" in head and "Count parameters" not in head
    assert "Count parameters" in hint("single_head", "params")
    assert hint("worked_example", "out").startswith("Hint: Your weights match")
    assert "Work the last receiving position" in hint("worked_example", "weights")
    assert "[0.142857, 0.428571, 1.0]" in hint("mask_structure", "sums")
    assert hint("mask_structure", None) is None  # no finding named: no hint about another one
    assert "NaN" in hint("gradient_flow", "nan") and ".detach()" not in hint("gradient_flow", "nan")
    # A file that refuses mismatched shapes with a message lacking them is not told to compare shapes.
    assert "put the shapes in it" in hint("shape_validation", "message")
    assert "Compare shapes" in hint("shape_validation", "accepted")


def test_a_band_holds_only_for_the_findings_it_names():
    """mask_structure's leak band is for a share above the diagonal or rows that do not sum to one;
    a NaN row alone (0/0) loses the check's points and sets no band."""
    rubric = load_rubric(INSTRUCTOR)
    assert rubric.check("mask_structure").ceiling_when == ["above", "sums"]
    for found, capped in ((("nan",), False), (("nan", "above"), True), (("sums",), True)):
        outcome = CheckOutcome("failed", 1, 4, "text", finding=found[0], findings=found)
        scored = score_checks(rubric, outcomes(mask_structure=outcome), audience="instructor")
        assert (scored.score == 50) is capped, found
        assert (by_id(scored)["mask_structure"].ceiling is not None) is capped


def test_every_shipped_hint_is_for_a_finding_its_check_reports():
    for check in load_rubric(INSTRUCTOR).checks:
        for hint in check.hints:
            assert isinstance(hint, str) or set(hint.when or ()) <= set(CHECKS[check.id].findings), check.id


def test_tolerance_resolution_check_then_rubric_then_default():
    text = INSTRUCTOR.read_text()
    text = text.replace(
        "  - id: gradient_flow\n    points: 6\n",
        "  - id: gradient_flow\n    points: 6\n    tolerance:\n      float32: {atol: 1.0e-6, rtol: 1.0e-6}\n",
    ).replace("float64: {atol: 1.0e-12, rtol: 1.0e-10}", "float64: {atol: 1.0e-13, rtol: 1.0e-11}")
    rubric = parse_rubric(text)
    assert rubric.tolerance("gradient_flow", "float32") == Tolerance(atol=1e-6, rtol=1e-6)
    assert rubric.tolerance("gradient_flow", "float64") == Tolerance(atol=1e-13, rtol=1e-11)
    assert rubric.tolerance("worked_example", "float32") == DEFAULT_TOLERANCES["float32"]
    without_defaults = parse_rubric(text.split("tolerances:")[0] + "checks:" + text.split("checks:", 1)[1])
    assert without_defaults.tolerance("worked_example", "float64") == DEFAULT_TOLERANCES["float64"]
    assert without_defaults.tolerance("worked_example", "float16") == DEFAULT_TOLERANCES["float16"]
    with pytest.raises(KeyError, match="float8"):
        without_defaults.tolerance("worked_example", "float8")


def test_run_order_puts_prerequisites_first():
    rubric = load_rubric(INSTRUCTOR)
    order = rubric.run_order()
    assert sorted(order) == sorted(rubric.check_ids)
    for check in rubric.checks:
        for prerequisite in check.requires:
            assert order.index(prerequisite) < order.index(check.id)


def test_rubric_group_overrides_the_registry_group():
    text = INSTRUCTOR.read_text().replace(
        "  - id: shift_invariance\n    points: 6\n", "  - id: shift_invariance\n    points: 6\n    group: Scaling\n"
    )
    scored = score_checks(parse_rubric(text), outcomes(), audience="instructor")
    assert by_id(scored)["shift_invariance"].group == "Scaling"
    assert {g.name: g.max_score for g in scored.groups}["Scaling"] == 6


def test_a_check_that_could_not_run_gets_no_hint():
    """A hint is about what a check found: an error (the file does not compile, the call raised)
    found nothing, so it shows none and spends none; the same check failing gets its first hint."""
    rubric = load_rubric(INSTRUCTOR)
    hints = rubric.check("mask_structure").hints_for("above")
    errored = by_id(score_checks(rubric, outcomes(mask_structure=failed(0, 4, "error", "above")),
                                 audience="student"))
    assert errored["mask_structure"].status == "error" and errored["mask_structure"].hint is None
    failing = by_id(score_checks(rubric, outcomes(mask_structure=failed(0, 4, finding="above")), audience="student"))
    assert failing["mask_structure"].hint == (f"Hint: {hints[0]}" if len(hints) == 1 else
                                              f"Hint 1 of {len(hints)}: {hints[0]}")
