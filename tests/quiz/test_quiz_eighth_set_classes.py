"""Issue 26, the classes of error found on the eighth blind set once it became a tuning set (2026-12-02).

Each class is fixed by a general mechanism and each test here failed before its fix. The sentences marked
"blind8" are that set's answers; the others are written for these tests in other words, with labels of our own,
so that they check the mechanism, not one answer. Every rule that can make a verdict "correct" has negative
controls: a wrong answer in similar words stays not correct."""

import pytest

from grader.quiz.judge import judge
from grader.quiz.load import DEFAULT_QUIZ, load_quiz

QUIZ = load_quiz(DEFAULT_QUIZ)
MIXES = QUIZ.item("what-mixes")
DIAGONAL = QUIZ.item("diagonal")
AXIS = QUIZ.item("softmax-axis")
ZERO = QUIZ.item("zero-queries")
CHANGE = QUIZ.item("value-change")
ROWS = QUIZ.item("row-sums-vs-causality")
WEIGHTS = QUIZ.item("weights-vs-probabilities")


def verdict(item, text):
    return judge(item, text).verdict


# ---- false praise: the right letter beside another option said to give the same result -------------

@pytest.mark.parametrize("text", [
    "A (dim=-1), but honestly B would give the same result since the matrix is square",  # blind8
    "A, though dim=-2 gives the same answer here because the scores are T x T.",
    "A. B would produce identical weights anyway.",
    "A; axis -2 is equivalent for a square matrix.",
])
def test_another_option_said_to_give_the_same_result_is_a_wrong_claim(text):
    # Normalising the columns gives different numbers (the rows no longer sum to one): the item asks for the one
    # right axis, so calling another one equivalent is the misconception that the axes are interchangeable.
    assert verdict(AXIS, text) == "incorrect"


@pytest.mark.parametrize("text", [
    "A. B would not give the same result: it normalises the columns.",
    "A; dim=-2 gives a different answer even though the matrix is square.",
    "A, so that every row gives the same total, one.",
    "A (dim=-1): each row of the square matrix sums to one.",
])
def test_an_option_said_to_differ_costs_nothing(text):
    assert verdict(AXIS, text) == "correct"
