"""The answer table: right answers judged correct, wrong ones (negated, swapped, recited) not."""

from pathlib import Path

import pytest
import yaml

from grader.quiz.judge import chosen_option, judge, numbers_in
from grader.quiz.load import DEFAULT_QUIZ, load_quiz
from grader.quiz.phrases import Doc, Phrasing

HERE = Path(__file__).resolve().parent
TABLE = yaml.safe_load((HERE / "quiz_answer_table.yaml").read_text())
QUIZ = load_quiz(DEFAULT_QUIZ)
CASES = [(iid, kind, text) for iid, rows in TABLE.items() for kind in ("right", "wrong") for text in rows[kind]]


def test_table_covers_every_free_text_item_with_three_of_each():
    free_text = [i.id for i in QUIZ.items if i.type in ("concepts", "numeric", "choice")]
    assert set(free_text) <= set(TABLE)
    for iid in free_text:
        assert len(TABLE[iid]["right"]) >= 3 and len(TABLE[iid]["wrong"]) >= 3, iid


@pytest.mark.parametrize("iid,kind,text", CASES, ids=[f"{i}-{k}-{n}" for n, (i, k, _) in enumerate(CASES)])
def test_answer_table(iid, kind, text):
    res = judge(QUIZ.item(iid), text)
    if kind == "right":
        assert res.verdict == "correct", (res.verdict, res.missing, res.misconceptions, res.feedback)
    else:
        assert res.verdict != "correct", (res.verdict, res.feedback)


@pytest.mark.parametrize("iid,text", [
    ("row-sums-vs-causality", "if every row sums to one the attention is causal"),
    ("weights-vs-probabilities", "the attention weights are the next-token probabilities"),
])
def test_named_traps_are_flagged_as_misconceptions(iid, text):
    res = judge(QUIZ.item(iid), text)
    assert res.verdict == "incorrect" and res.misconceptions and res.score == 0


def test_reciting_right_words_to_wrong_claim():
    # Every key-point word appears, but the claim is reversed.
    res = judge(QUIZ.item("value-change"), "The weights are not the same any more; the output rises by 1.")
    assert res.verdict != "correct" and "weights-unchanged" in res.missing
    res = judge(QUIZ.item("weights-vs-probabilities"),
                "Attention weights are the next token probabilities over the vocabulary and over positions.")
    assert res.verdict == "incorrect"


# ---- the phrasing language: each feature with its negative control ----------------------------

@pytest.mark.parametrize("pattern,yes,no", [
    ("weight* ... same", "the weights stay the same", "the weights are not the same"),
    ("weight* ... same", "it is not true that the weights are not the same", "it is wrong that weights stay the same"),
    ("(not|never) (chang*)", "they do not change", "they change"),
    ("unchanged", "unchangd", "changed"),
    ("probabilit*", "probabilty", "prob"),
    ("causal", "casual", "causes"),
    ("keys?", "key", "kex"),
    ("(dim|axis) -1", "dim=-1", "dim=-2"),
    ("by 1", "by +1.0", "by 7"),
    ("over (the)? positions", "over the positions", "over a great many distinct positions"),
    ("over ... positions", "over a great many distinct positions", "over. positions"),
    ("re:row.?wise", "a row-wise softmax", "column-wise"),
    ("~saturat*", "so softmax does not saturate", "softmax is smooth"),
    ("still ... sum*", "a zero mask (not -inf), still sums to one", "it does not still sum to one"),
    ("vocab*", "over the vocabulary rather than positions", "over positions rather than the vocabulary"),
])
def test_phrasing_features(pattern, yes, no):
    p = Phrasing(pattern)
    assert p.matches(Doc(yes)), (pattern, yes)
    assert not p.matches(Doc(no)), (pattern, no)


@pytest.mark.parametrize("bad", ["re:(", "(a|)", "(the)?", "a (b"])
def test_bad_phrasings_raise_valueerror(bad):
    with pytest.raises(ValueError):
        Phrasing(bad)


def test_numbers_from_free_text():
    assert numbers_in("weights 1/3, 0.5 and -2; output [8/3, 2e-1]") == pytest.approx([1 / 3, 0.5, -2, 8 / 3, 0.2])
    assert numbers_in("d_k and W_Q") == []
    assert numbers_in("it rises by one, the current one") == [1.0]


def test_zero_queries_needs_each_named_vector():
    item = QUIZ.item("zero-queries")
    res = judge(item, "output: [8/3, 2]")
    assert res.verdict == "partial" and res.missing == ["weights"]
    # Outside tolerance (atol 0.005): 0.32 is not 1/3.
    assert judge(item, "weights 0.32 0.32 0.32 output 2.667 2").verdict == "partial"
    assert judge(item, "weights 0.334 0.334 0.334 output 2.667 2").verdict == "correct"


def test_choice_by_label_or_words():
    item = QUIZ.item("softmax-axis")
    assert chosen_option(item, "A") == ["A"]
    assert chosen_option(item, "(b)") == ["B"]
    assert chosen_option(item, "a row-wise softmax") == ["A"], "the article 'a' is not the label A"
    assert chosen_option(item, "across the keys, not the queries") == ["A"]
    assert judge(item, "E").verdict == "incorrect"


def test_unanswered_and_self():
    assert judge(QUIZ.item("scaling"), "  ").verdict == "unanswered"
    res = judge(QUIZ.item("explain-it-back"), "anything")
    assert res.verdict == "self" and res.max_score == 0
