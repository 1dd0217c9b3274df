"""Issue 26: wrong claims the blind set showed the judge praising, each now a misconception of the rubric.

Each was written after reading one blind answer (#63, #110, #127 of quiz_blind_answers.yaml); these tests use
other sentences with the same claim, and a negative control that states the chapter's version."""

import pytest

from grader.quiz.judge import judge
from grader.quiz.load import DEFAULT_QUIZ, load_quiz

QUIZ = load_quiz(DEFAULT_QUIZ)
SCALING = ("Each score sums d_k products, so its variance grows with d_k; large scores make softmax sharp with "
           "tiny gradients. ")
SUMS = "A leaky mask still sums to one. "
POSITIONS = "Attention weights are over positions and mix the values; next-token probabilities are over the vocabulary. "


@pytest.mark.parametrize("item_id,text,mid", [
    ("scaling", SCALING + "The division ensures the trained scores have unit variance.", "variance-guaranteed"),
    ("scaling", SCALING + "So every score always has variance exactly 1.", "variance-guaranteed"),
    ("row-sums-vs-causality", SUMS + "Modify the first token and make sure the last row stays the same.",
     "backwards-intervention"),
    ("weights-vs-probabilities", POSITIONS + "The attention weights go straight into the output layer to pick the word.",
     "weights-are-probabilities"),
])
def test_wrong_claim_is_caught(item_id, text, mid):
    res = judge(QUIZ.item(item_id), text)
    assert res.verdict == "incorrect" and mid in res.misconceptions, res.feedback


@pytest.mark.parametrize("item_id,text", [
    ("scaling", SCALING + "This assumes independent unit-variance coordinates; trained scores need not have it."),
    ("row-sums-vs-causality", SUMS + "Modify the last token and make sure the earlier rows stay the same."),
    ("weights-vs-probabilities", POSITIONS + "The mixed vectors go through later layers into the output layer."),
])
def test_the_chapter_version_is_not_caught(item_id, text):
    res = judge(QUIZ.item(item_id), text)
    assert res.verdict == "correct", res.feedback
