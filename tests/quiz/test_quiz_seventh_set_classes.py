"""Issue 26, the classes of error found on the seventh blind set once it became a tuning set (2026-12-02).

Each class is fixed by a general mechanism and each test here failed before its fix. The sentences are written
for these tests (none is a labelled set's answer, unless said), so that they check the mechanism, not one answer;
each class has negative controls."""

import pytest

from grader.quiz.judge import judge
from grader.quiz.load import DEFAULT_QUIZ, load_quiz

QUIZ = load_quiz(DEFAULT_QUIZ)
MIXES = QUIZ.item("what-mixes")
DIAGONAL = QUIZ.item("diagonal")
SCALING = QUIZ.item("scaling")
ROWS = QUIZ.item("row-sums-vs-causality")
WEIGHTS = QUIZ.item("weights-vs-probabilities")


# ---- false praise: the query-key scores said to be symmetric -----------------------------------

MIXED = "The weights come from the queries dotted with the keys, scaled and softmaxed; the values get mixed as a weighted blend."


@pytest.mark.parametrize("tail", [
    "Because the query and key come from the same token the score is symmetric.",  # blind7
    "The attention matrix is symmetric, since i attends to j exactly as much as j attends to i.",
    "So the scores are symmetric: score(i, j) equals score(j, i).",
    "The score matrix is symmetrical.",
])
def test_symmetric_scores_are_a_wrong_claim(tail):
    # Queries and keys are separate projections, so q_i·k_j is not q_j·k_i, and the mask alone breaks symmetry.
    res = judge(MIXES, f"{MIXED} {tail}")
    assert res.verdict == "incorrect", res.feedback


@pytest.mark.parametrize("tail", [
    "The scores are not symmetric, because queries and keys are different projections.",
    "Unlike a plain dot product of the embeddings, the scores need not be symmetric.",
    "",
])
def test_denying_symmetry_costs_nothing(tail):
    assert judge(MIXES, f"{MIXED} {tail}".strip()).verdict == "correct"


# ---- false praise: the attention weights said to be trained to predict the next token ------------

RANGES = ("Attention weights are a distribution over positions in the sequence, used to mix values; next-token "
          "probabilities are over the vocabulary, from the output layer.")


@pytest.mark.parametrize("tail", [
    "The attention weights are trained directly to predict the next token.",  # blind7
    "The weights are learned to predict the next word.",
    "Each attention row is optimised to predict which token comes next.",
    "The attention weights are trained on the next-token target.",
])
def test_weights_trained_to_predict_the_next_token_is_a_wrong_claim(tail):
    # Nothing supervises the attention weights against the next token; only the output layer's
    # distribution meets the target, and the weights are recomputed from q and k for every input.
    res = judge(WEIGHTS, f"{RANGES} {tail}")
    assert res.verdict == "incorrect", res.feedback


@pytest.mark.parametrize("tail", [
    "The attention weights are not trained to predict the next token; the whole model is.",
    "The model is trained to predict the next token.",
    "The output layer is trained to predict the next token.",
    "",
])
def test_the_model_trained_on_the_next_token_costs_nothing(tail):
    assert judge(WEIGHTS, f"{RANGES} {tail}".strip()).verdict == "correct"
