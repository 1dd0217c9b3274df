"""Issue 26, class 2: negation, contrast and exclusive qualifiers bind to the clause they govern.

The sentences are written for these tests (the issue's own examples first), each with its negative control."""

import pytest

from grader.quiz.judge import chosen_option, judge
from grader.quiz.load import DEFAULT_QUIZ, load_quiz

QUIZ = load_quiz(DEFAULT_QUIZ)
MIXES = QUIZ.item("what-mixes")


# ---- a contrast's negation stays in its own clause ---------------------------------------------

@pytest.mark.parametrize("text", [
    "It's not the values that determine the weights, it's the queries against the keys. The values get mixed.",
    "It is not the values that set the weights but the query compared with each key; the values are blended.",
    "Not the values but the queries and keys decide the weights, and the values are what gets mixed.",
    "The queries matched against the keys set the weights, not the values; the values are averaged.",
    "The weights come from the query-key scores rather than from the values, which are what gets mixed.",
])
def test_contrast_credits_the_clause_it_affirms(text):
    res = judge(MIXES, text)
    assert res.verdict == "correct", res.feedback


@pytest.mark.parametrize("text", [
    "It's not the queries and keys that determine the weights, it's the values. The values get mixed.",
    "Not the queries but the values decide the weights, and the values get mixed.",
])
def test_contrast_the_other_way_round_is_not_credited(text):
    res = judge(MIXES, text)
    assert res.verdict != "correct", res.feedback


# ---- exclusive qualifiers ----------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "The weights are determined by the keys alone, and the values get mixed.",  # the answer
    "Only the keys set the weights; the values are mixed.",
    "The weights come just from the keys, and the values get blended.",
    "The query alone decides the weights and the values are averaged.",
])
def test_a_claim_under_alone_that_the_point_contradicts_is_not_credited(text):
    res = judge(MIXES, text)
    assert "weights-from-queries-keys" not in res.matched, res.feedback
    assert res.verdict == "incorrect", res.feedback
    assert res.feedback.startswith("!"), res.feedback


@pytest.mark.parametrize("text", [
    "The weights depend only on the queries and the keys, and the values are mixed.",
    "The queries and keys alone set the weights; the values are mixed.",
    "Only the query-key match decides the weights; only the values get mixed.",
])
def test_alone_over_everything_the_point_needs_is_credited(text):
    res = judge(MIXES, text)
    assert res.verdict == "correct", res.feedback


# ---- choice items: the option a contrast keeps -----------------------------------------------------

@pytest.mark.parametrize("text,picked", [
    ("not B but A", ["A"]),
    ("B is wrong; it is A", ["A"]),
    ("not B, A", ["A"]),
    ("Not A, B.", ["B"]),
    ("A, not B", ["A"]),
    ("It's D, not C", ["D"]),
    ("Option A I think", ["A"]),
    ("I'd say A because rows are receivers", ["A"]),
    ("A or B", ["A", "B"]),  # no commitment
    ("A row sums to one over the keys", ["A"]),  # the article, and the option found by its words
    ("A column sums to one", ["B"]),  # the article is no letter
])
def test_choice_letters_under_contrast(text, picked):
    assert chosen_option(QUIZ.item("softmax-axis"), text) == picked


def test_choice_contrast_verdicts():
    item = QUIZ.item("softmax-axis")
    assert judge(item, "not B but A").verdict == "correct"
    assert judge(item, "not A but B").verdict == "incorrect"


# ---- an elliptical denial takes back the clause just before it ------------------------------------

@pytest.mark.parametrize("text", [
    # the paraphrase of the intervention
    "Sums say nothing about causality. Perturb a future token and see whether earlier outputs move; they must not.",
    "Sums prove nothing about causality. Alter the last input and check if the earlier rows change. They should not.",
])
def test_elliptical_denial_negates_the_clause_it_follows(text):
    res = judge(QUIZ.item("row-sums-vs-causality"), text)
    assert res.verdict == "correct", res.feedback


def test_elliptical_denial_reaches_only_the_clause_it_ends():
    # "they should not" denies "move", not the perturbation two verbs back; and without it the claim is unread.
    text = "Sums prove nothing about causality. Alter the last input and check whether earlier rows move."
    assert judge(QUIZ.item("row-sums-vs-causality"), text).verdict != "correct"


# ---- a numeric item is answered by its asked parts -----------------------------------------------

def test_optional_remark_beside_wrong_numbers_is_not_partial():
    # "1/7" is the optional point's fraction, but the change asked for is wrong and the weights unsaid.
    res = judge(QUIZ.item("value-change"), "The first output coordinate moves by 1/7.")
    assert res.verdict == "incorrect", res.feedback
    res = judge(QUIZ.item("value-change"), "The first output coordinate moves by 7 x 1/7 = 1.")
    assert res.verdict == "partial", res.feedback  # negative control: an asked part right
