"""Markdown feedback: the same content as the HTML, with weights as tables and student text inert."""

from __future__ import annotations

import re

from support.reports import failing_report, passing_report

from grader.report.markdown import md_code_block, md_escape, render_markdown
from grader.report.view import score_text


def test_failing_report_has_checks_diagnosis_and_fixes():
    md = render_markdown(failing_report())
    # A student's copy leaves out the hidden check's point, and says its total is not the grade.
    assert "**Checks shown here: 2.5 / 10.5 (not your grade" in md and "Score:" not in md
    assert "**Score: 2.5 / 11.5**" in render_markdown(failing_report(), published=True)  # released: the grade
    assert "**Score: 2.5 / 11.5**" in render_markdown(failing_report(), audience="instructor")
    assert "| Worked example | Worked example | FAILED | 0 / 3 |" in md
    assert "> **Zero instead of -inf in the mask**" in md
    assert "Reread: *Hide future positions before normalization*" in md
    assert "```text\nweights row 0: [0.333333, 0.333333, 0.333333]\n```" in md


def test_weights_tables_mark_forbidden_leaked_and_nan_cells():
    md = render_markdown(failing_report())
    assert "| 0 | 0.333 | (**0.333**) | (**0.333**) |" in md  # the zero-fill mask's first row leaks
    assert "| 0 | 1.000 | (0.000) | (0.000) |" in md  # correct: forbidden but zero, so not bold
    assert "| 4 | 0.247 | 0.136 | 0.334 | NaN | NaN |" in md
    assert "| 2 | NaN | 2.100000 |" in md  # row change for a NaN row, beside the negative control


def test_student_text_cannot_escape():
    md = render_markdown(failing_report())
    fence = "````text\ndebug <script>"  # longer fence than the ``` the output contains
    assert fence in md
    assert "bob &lt;zero-fill&gt;.py" in md
    assert "&lt;b&gt;not bold&lt;/b&gt;" in md
    assert md_escape("- a | b *c* [d](e)") == "\\- a \\| b \\*c\\* \\[d\\](e)"
    assert md_code_block("x ````` y").startswith("``````text")


def test_hidden_checks_and_correct_submission():
    md = render_markdown(failing_report())
    assert "secret" not in md and "Hidden probe" not in md
    assert "Hidden probe" in render_markdown(failing_report(), audience="instructor")
    ok = render_markdown(passing_report())
    assert "All 4 checks passed. Nicely done" in ok and "What to fix" not in ok
    assert "## Where information flows" in ok


def test_table_rows_have_matching_column_counts():
    for line_block in re.split(r"\n\n", render_markdown(failing_report())):
        rows = [r for r in line_block.splitlines() if r.startswith("|")]
        counts = {len(re.findall(r"(?<!\\)\|", r)) for r in rows}
        assert len(counts) <= 1, line_block


def test_points_follow_the_one_rule_of_every_output():
    # score_text, as the gradebook, the import files and the summary print them: never "0.0 / 15.0" in one
    # student's copy and "0.00 / 15.00" in another's (found by an instructor trying a class run).
    text = render_markdown(failing_report())
    cells = re.findall(r"\| ([0-9.]+ / [0-9.]+) \|", text)
    assert cells and all(c == f"{score_text(float(a))} / {score_text(float(b))}"
                         for c, (a, b) in ((c, c.split(" / ")) for c in cells))
    assert not re.search(r"\b\d+\.0+ /|/ \d+\.0+\b", text)


def test_odd_shaped_weights_still_render():
    """A wrong submission may return ragged or non-square weights; every renderer copes."""
    from grader.report.html import render_html
    from grader.report.models import Heatmap

    report = failing_report()
    report.visuals.worked_example = Heatmap(title="odd", student=[[0.5, 0.5, 0.0, 0.0], [1.0], []],
                                            expected=[[1.0, 0.0], [0.5, 0.5]])
    report.visuals.unmasked_row_change = [1.0]  # shorter than leak_row_change
    md = render_markdown(report)
    assert "| i \\ j | 0 | 1 | 2 | 3 |" in md and "| 1 | 1.000 |  |  |  |" in md
    assert render_html(report).count('data-kind="heatmap"') == 2


def test_the_graders_own_inline_code_stays_code_and_student_text_stays_escaped():
    """A rubric hint's `code` is code in markdown (and on Gradescope); a finding that quotes the
    student keeps every backtick escaped; nothing else in a hint becomes markup."""
    from grader.report.gradescope import to_gradescope

    report = failing_report()
    worked = report.checks[0]
    worked.hint = "Hint 1 of 2: fill with `float(\"-inf\")` through `masked_fill`, not [0](http://e.example) *."
    worked.feedback = "Could not run: raised ValueError: `x` [y](http://e.example) ``"
    md = render_markdown(report)
    assert 'Hint 1 of 2: fill with `float("-inf")` through `masked_fill`, not \\[0\\](http://e.example) \\*.' in md
    assert "raised ValueError: \\`x\\` \\[y\\](http://e.example) \\`\\`" in md
    output = to_gradescope(report).tests[0].output
    assert "`masked_fill`" in output and "\\`x\\`" in output and "Hint: Hint" not in output


def test_gradescopes_summary_never_says_every_check_passed_when_one_failed():
    """Found by a user: a file that failed five tests, with no misconception named, was summed up on
    Gradescope as 'Every check passed.'."""
    from grader.report.gradescope import to_gradescope

    report = failing_report().model_copy(update={"diagnoses": []})
    output = to_gradescope(report).output
    assert "Every check passed" not in output and "did not pass" in output
    hidden_only = report.model_copy(update={"checks": [
        c.model_copy(update={"status": "passed"}) if c.visibility == "visible" else
        c.model_copy(update={"status": "failed"}) for c in report.checks]})
    said = to_gradescope(hidden_only).output
    assert "shown here passed" in said and not any(c.id in said for c in report.checks)
    assert to_gradescope(passing_report()).output == "Every check passed."
