"""A misconception fires only when the answer asserts it; a key point is not ticked when the answer gives
its roles to the wrong vectors. Sentences written before the judge was changed for them (the trial
answers in the first tests, then more of each class), each with its negative control."""

import pytest

from grader.quiz.judge import judge, recognised
from grader.quiz.load import DEFAULT_QUIZ, load_quiz
from grader.quiz.phrases import Doc

QUIZ = load_quiz(DEFAULT_QUIZ)


def _misconception(item_id: str, mid: str):
    return next(m for m in QUIZ.item(item_id).misconceptions if m.id == mid)


def _point(item_id: str, kid: str):
    return next(k for k in QUIZ.item(item_id).key_points if k.id == kid)


# ---- a misconception mentioned or denied is not asserted ----------------------------------------

def test_trial_answer_denying_sums_prove_causality_is_correct():
    text = ("Rows summing to one just means it's a distribution. Change only a future token's key and value "
            "and check the earlier outputs stay identical.")
    res = judge(QUIZ.item("row-sums-vs-causality"), text)
    assert res.misconceptions == [] and res.verdict == "correct", res.feedback
    assert not res.feedback.startswith("!")


@pytest.mark.parametrize("item_id,mid,text", [
    # the subject named with what it really shows
    ("row-sums-vs-causality", "sums-prove-causality", "Rows summing to one just means it's a distribution."),
    ("row-sums-vs-causality", "sums-prove-causality", "Summing to one only means softmax normalized the row."),
    ("row-sums-vs-causality", "sums-prove-causality", "A row that sums to one means the weights form a distribution."),
    ("row-sums-vs-causality", "sums-prove-causality", "Adding up to one shows normalization, which any softmax row has."),
    # the claim denied
    ("row-sums-vs-causality", "sums-prove-causality", "Summing to one proves nothing about causality."),
    ("row-sums-vs-causality", "sums-prove-causality", "Rows summing to one does not mean the mask is correct."),
    ("row-sums-vs-causality", "sums-prove-causality", "Row sums tell you nothing about whether it is causal."),
    ("row-sums-vs-causality", "sums-prove-causality", "Summing to one is no guarantee of causality."),
    ("row-sums-vs-causality", "sums-prove-causality",
     "Summing to one is different from being causal: the zero mask sums to one too."),
    ("scaling", "cosine", "Dividing by sqrt(d_k) is different from a cosine similarity: the lengths stay."),
    ("weights-vs-probabilities", "weights-are-probabilities",
     "Attention weights are not the same thing as next-token probabilities."),
    ("value-change", "weights-change", "The weights do not change; only the output moves, by 1."),
    ("what-mixes", "values-set-weights", "The values do not decide the weights; queries and keys do."),
    # more of the class: a bare subject, a denial out of a phrasing's reach, a condition, a rival's verb
    ("scaling", "cosine", "Cosine similarity would divide by the norms; dividing by sqrt(d_k) only fixes the variance."),
    ("scaling", "cosine", "It does not turn the score into a cosine similarity."),
    ("zero-queries", "sum-not-average", "weights 1/3 each; the output is the sum of the values divided by 3: [8/3, 2]"),
    ("value-change", "whole-change", "The output does not go up by 7; it goes up by 1 (7 x 1/7)."),
    ("value-change", "weights-change",
     "The weights would only change if the queries or keys changed; here they stay the same."),
    ("value-change", "weights-change",
     "The weights change only when queries or keys change, so they stay the same here."),
])
def test_misconception_mentioned_or_denied_does_not_fire(item_id, mid, text):
    assert not recognised(_misconception(item_id, mid), Doc(text)), text


@pytest.mark.parametrize("item_id,mid,text", [
    # negative controls: the same subjects, the wrong claim asserted
    ("row-sums-vs-causality", "sums-prove-causality", "If every row sums to one the attention is causal."),
    ("row-sums-vs-causality", "sums-prove-causality", "Rows summing to one proves the mask is correct."),
    ("row-sums-vs-causality", "sums-prove-causality", "Summing to one means the attention is causal."),
    ("row-sums-vs-causality", "sums-prove-causality", "The mask works because every row adds up to one."),
    ("row-sums-vs-causality", "sums-prove-causality", "Row sums of one guarantee causality."),
    ("row-sums-vs-causality", "sums-prove-causality",
     "Because the remaining weights still sum to one, the mask is working."),
    ("scaling", "cosine", "Dividing by sqrt(d_k) turns the dot product into a cosine similarity."),
    ("weights-vs-probabilities", "weights-are-probabilities", "They are the same thing."),
    ("value-change", "weights-change", "The weights change and the output goes up by 1."),
    ("what-mixes", "values-set-weights", "The values decide the weights."),
    ("scaling", "cosine", "It makes the dot product a cosine similarity."),
    ("scaling", "cosine", "Dividing by sqrt(d_k) gives a scaled dot product, which is basically a cosine similarity."),
    ("zero-queries", "sum-not-average", "weights 1/3 each; the output is the sum of the values, [8, 6]"),
    ("value-change", "whole-change", "The weights stay the same and the output increases by 7."),
    ("value-change", "weights-change", "The weights would change because the value is bigger."),
    ("value-change", "weights-change", "The first value changes, so the weights change too."),
])
def test_misconception_asserted_fires(item_id, mid, text):
    assert recognised(_misconception(item_id, mid), Doc(text)), text


# ---- roles swapped: the key point is not ticked --------------------------------------------------

@pytest.mark.parametrize("text", [
    "The values decide the weights and the keys get mixed.",
    "Keys and values decide the weights; the queries get mixed.",
    "Values and keys decide the weights; the queries get mixed.",
    "The values are compared with the keys, and the queries are what gets mixed.",
    "The weights come from scores between the values and the keys.",
])
def test_weights_from_queries_keys_not_ticked_when_values_take_the_role(text):
    res = judge(QUIZ.item("what-mixes"), text)
    assert "weights-from-queries-keys" not in res.matched, res.feedback
    assert res.verdict == "incorrect", res.feedback


@pytest.mark.parametrize("text", [
    "The values decide the weights and the keys get mixed.",
    "The queries decide the weights and the keys get mixed, not the values.",
    "The values decide the weights, and the queries are what get mixed.",
])
def test_values_mixed_not_ticked_when_queries_or_keys_get_mixed(text):
    res = judge(QUIZ.item("what-mixes"), text)
    assert "values-mixed" not in res.matched, res.feedback
    assert res.verdict == "incorrect", res.feedback


@pytest.mark.parametrize("text", [
    # negative controls: the roles given the right way round, in the same shapes of sentence
    "The queries and keys decide the weights and the values get mixed.",
    "Queries and keys decide the weights; the values get mixed.",
    "The keys and queries decide the weights, and the values are what gets mixed.",
    "The queries are compared with the keys, and the values are what gets mixed.",
    "The weights come from scores between the queries and the keys; the output is a weighted sum of the values.",
    "Queries and keys, rather than values, decide the weights; the values get mixed.",
    "The weights are decided by the queries and keys, not the values, and the values get blended.",
])
def test_roles_the_right_way_round_are_ticked(text):
    res = judge(QUIZ.item("what-mixes"), text)
    assert {"weights-from-queries-keys", "values-mixed"} <= set(res.matched), res.feedback
    assert res.verdict == "correct", res.feedback
