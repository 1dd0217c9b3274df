"""Issue 26: paraphrases of key points the judge did not read, from its class "paraphrased interventions and
reasons" and the blind set's disagreements. Each rubric phrasing behind these was written after reading one
blind answer (the commit lists which); the sentences here are other wordings, each with a negative control."""

import pytest

from grader.quiz.judge import chosen_option, judge
from grader.quiz.load import DEFAULT_QUIZ, load_quiz

QUIZ = load_quiz(DEFAULT_QUIZ)


def _made(item_id: str, text: str) -> list[str]:
    return judge(QUIZ.item(item_id), text).matched


@pytest.mark.parametrize("item_id,point,text,control", [
    # the issue's own "why" sentence, and its denial
    ("row-sums-vs-causality", "sums-insufficient",
     "sums are always one after softmax, even with a leak, so you need an intervention",
     "sums are one after softmax, so a leak would show up there"),
    ("row-sums-vs-causality", "sums-insufficient", "Rows add to one regardless of what they attend to.",
     "Rows add to one only when nothing leaks."),
    ("row-sums-vs-causality", "sums-insufficient", "Each row totals one but still looks at later tokens.",
     "Each row totals one."),
    ("row-sums-vs-causality", "intervention",
     "Tweak the final token and rerun: a difference in any output before it means a leak.",
     "Tweak the final token and rerun."),
    ("what-mixes", "weights-from-queries-keys", "Each query is held against every key to score it.",
     "Each query is kept next to every key."),
    ("diagonal", "target-is-next", "Row i is guessing the token after it.", "Row i is guessing."),
    ("diagonal", "own-token-known", "Token i is already part of the context.", "Token i is part of the mask."),
    ("scaling", "variance-grows", "Longer vectors give bigger dot products.", "Longer vectors give the same scores."),
    ("scaling", "softmax-saturates", "the softmax puts nearly all the weight on one key, and the gradient is near zero",
     "the softmax spreads its weight evenly"),
    ("weights-vs-probabilities", "over-positions", "Attention decides where to look in the context.",
     "Attention decides."),
])
def test_paraphrase_makes_the_point(item_id, point, text, control):
    assert point in _made(item_id, text), judge(QUIZ.item(item_id), text).feedback
    assert point not in _made(item_id, control), judge(QUIZ.item(item_id), control).feedback


@pytest.mark.parametrize("item_id,mid,text,control", [
    ("what-mixes", "values-set-weights", "The shares scale the keys and those are summed.",
     "The shares scale the values and those are summed."),
    ("what-mixes", "selects-one", "It picks the one key with the biggest score.", "It never picks one key."),
    ("row-sums-vs-causality", "masked-rows-unnormalised", "With -inf in them the rows no longer add to one.",
     "Even with -inf in them the rows add to one."),
])
def test_paraphrased_wrong_claim_is_caught(item_id, mid, text, control):
    assert mid in judge(QUIZ.item(item_id), text).misconceptions
    assert mid not in judge(QUIZ.item(item_id), control).misconceptions


@pytest.mark.parametrize("text,picked", [("over j", ["A"]), ("along i, not j", ["B"])])
def test_choice_index_names_its_axis(text, picked):
    assert chosen_option(QUIZ.item("softmax-axis"), text) == picked
