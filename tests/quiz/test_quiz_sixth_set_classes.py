"""Issue 26, the classes of error found on the sixth blind set once it became a tuning set (2026-12-02).

Each class is fixed by a general mechanism and each test here failed before its fix. The sentences are written
for these tests (none is a labelled set's answer, unless said), so that they check the mechanism, not one answer."""

import pytest

from grader.quiz.judge import judge
from grader.quiz.load import DEFAULT_QUIZ, load_quiz

QUIZ = load_quiz(DEFAULT_QUIZ)
MIXES = QUIZ.item("what-mixes")
DIAGONAL = QUIZ.item("diagonal")
AXIS = QUIZ.item("softmax-axis")
SCALING = QUIZ.item("scaling")
ZERO = QUIZ.item("zero-queries")
ROWS = QUIZ.item("row-sums-vs-causality")
WEIGHTS = QUIZ.item("weights-vs-probabilities")


# ---- false praise: the axis named by what sums to one -------------------------------------------

@pytest.mark.parametrize("text", [
    "over the columns, so that each source position hands out a total of 1",  # blind6
    "along the columns so every key position's weights add up to one",
    "softmax down the keys so each source token distributes a total weight of 1 over the receivers",
])
def test_a_column_that_sums_to_one_is_not_the_row_axis(text):
    # What is said to sum to one decides the axis: a source (key, column) summing to one is option B.
    assert judge(AXIS, text).verdict != "correct"


@pytest.mark.parametrize("text", [
    "over the columns j, so each receiving row sums to one",
    "across the source positions, so every row adds up to 1",
])
def test_a_row_that_sums_to_one_is_still_the_row_axis(text):
    assert judge(AXIS, text).verdict == "correct"


# ---- false praise: the scaling said to change which key wins -----------------------------------

SCALED = ("Dot products get large in high dimensions, pushing softmax toward one-hot; dividing by sqrt(d_k) keeps "
          "it where the gradients are not tiny.")


@pytest.mark.parametrize("tail", [
    "It also changes which key wins the most.",  # blind6
    "The division also reorders the scores, so a different position gets the top weight.",
    "Scaling changes the ranking of the keys too.",
])
def test_scaling_said_to_change_the_winner_is_not_praised(tail):
    # Dividing every score by one positive constant keeps their order: the largest stays the largest.
    res = judge(SCALING, f"{SCALED} {tail}")
    assert res.verdict == "incorrect", res.feedback


@pytest.mark.parametrize("tail", [
    "It does not change which key wins, only how peaked the weights are.",
    "The ranking of the scores is unchanged.",
])
def test_scaling_said_to_keep_the_winner_is_no_misconception(tail):
    res = judge(SCALING, f"{SCALED} {tail}")
    assert res.verdict == "correct", res.feedback


# ---- false praise: attention said to produce the next-token probabilities or the predicted token --

RANGES = "Attention weights range over the positions in the sequence; next-token probabilities are over the vocab."


@pytest.mark.parametrize("tail", [
    "Attention produces them directly with its softmax.",
    "The softmax inside attention is what outputs the next-token probabilities.",
    "Next-token probabilities are produced directly by the attention softmax.",
    "You can read the predicted token off as the position with the largest weight.",
    "The predicted word is the position with the highest attention weight.",
])
def test_attention_said_to_give_the_prediction_is_not_praised(tail):
    res = judge(WEIGHTS, f"{RANGES} {tail}")
    assert res.verdict == "incorrect", res.feedback


@pytest.mark.parametrize("tail", [
    "Attention does not produce them; the output layer does.",
    "The position with the largest weight is not the predicted token.",
])
def test_attention_denied_to_give_the_prediction_is_no_misconception(tail):
    res = judge(WEIGHTS, f"{RANGES} {tail}")
    assert res.verdict == "correct", res.feedback
