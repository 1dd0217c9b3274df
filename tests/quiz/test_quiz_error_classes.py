"""Issue 26, the classes of error found on the second blind set once it became a tuning set (2026-12-01).

Each class is fixed by a general mechanism, and each test here failed before its fix. The sentences are
written for these tests, not copied from a labelled set, so that they check the mechanism, not one answer."""

import pytest

from grader.quiz.judge import judge
from grader.quiz.load import DEFAULT_QUIZ, load_quiz

QUIZ = load_quiz(DEFAULT_QUIZ)


# ---- a hedge after a question doubts it, it does not take it back -------------------------------

@pytest.mark.parametrize("text", [
    "the query compared with each key gives the weights, i think? not sure about what gets mixed",
    "Queries matched against keys set the weights? Not certain. Never learned the rest.",
])
def test_not_sure_after_a_question_keeps_the_claim(text):
    res = judge(QUIZ.item("what-mixes"), text)
    assert res.verdict == "partial" and "weights-from-queries-keys" in res.matched, res.feedback


def test_a_denial_after_a_question_still_takes_it_back():
    # Negative control: "No." answers the question.
    res = judge(QUIZ.item("what-mixes"), "The values set the weights? No. The query and key scores set the weights.")
    assert "weights-from-queries-keys" in res.matched, res.feedback
    res = judge(QUIZ.item("what-mixes"), "The query compared with each key gives the weights? No.")
    assert "weights-from-queries-keys" not in res.matched, res.feedback
