"""Issue 26, the classes of error found on the seventh blind set once it became a tuning set (2026-12-02).

Each class is fixed by a general mechanism and each test here failed before its fix. The sentences are written
for these tests (none is a labelled set's answer, unless said), so that they check the mechanism, not one answer;
each class has negative controls."""

import pytest
from support.quiz_items import DIAGONAL, MIXES, ROWS, SCALING, WEIGHTS

from grader.quiz.judge import judge

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


# ---- wrong claims beside a right point (incorrect judged partial) --------------------------------

DIAG_RIGHT = "Row i predicts token i+1, and token i is already known as input, so seeing it leaks nothing."


@pytest.mark.parametrize("tail", [
    "But during generation it also peeks at i+1 a little bit.",  # blind7
    "It does get a small peek at token i+1 though.",
    "Still, each position glances at the next token a bit.",
])
def test_a_peek_at_the_next_token_is_a_wrong_claim(tail):
    res = judge(DIAGONAL, f"{DIAG_RIGHT} {tail}")
    assert res.verdict == "incorrect", res.feedback


@pytest.mark.parametrize("tail", [
    "It never peeks at i+1.",
    "No peeking at the next token is allowed.",
])
def test_denying_a_peek_costs_nothing(tail):
    assert judge(DIAGONAL, f"{DIAG_RIGHT} {tail}").verdict == "correct"


@pytest.mark.parametrize("text", [
    "weights: distribution over input positions (per row). probs are over positions too, but for the next token",  # blind7
    "Attention weights range over the source positions; the next-token probabilities are also over the positions.",
    "Weights are over positions in the sequence, and the probabilities are over sequence positions as well.",
])
def test_probabilities_said_to_range_over_positions_are_a_wrong_claim(text):
    assert judge(WEIGHTS, text).verdict == "incorrect"


@pytest.mark.parametrize("text", [
    "Weights are over positions, probabilities are over the vocabulary, produced by the output layer.",
    "The probabilities are not over positions but over the vocabulary, from the output layer; attention weights "
    "are over the sequence positions.",
])
def test_probabilities_over_the_vocabulary_stay_right(text):
    assert judge(WEIGHTS, text).verdict == "correct"


@pytest.mark.parametrize("text", [
    "attention weights are like a heatmap of which word the model thinks comes next",  # blind7
    "The attention weights show which token the model expects to come next.",
    "attention is basically a map of which word is predicted next",
])
def test_weights_read_as_the_next_word_are_a_wrong_claim(text):
    assert judge(WEIGHTS, text).verdict == "incorrect"


def test_the_model_saying_which_word_comes_next_is_no_claim_about_the_weights():
    text = ("Attention weights are over positions in the sequence, used to mix values; the output layer's "
            "probabilities over the vocabulary say which word comes next.")
    assert judge(WEIGHTS, text).verdict == "correct"


# ---- scope: an elliptical denial in parentheses -------------------------------------------------

@pytest.mark.parametrize("text", [
    "row sums are always 1 after softmax so they dont tell you anything about future tokens. you should change a "
    "future input and check if earlier outputs changed (they shouldnt)",  # blind7
    "Any softmax row sums to one, even a leaky one. Edit only the last token and see whether the earlier outputs "
    "move (they must not).",
])
def test_a_parenthesised_elliptical_denial_takes_back_its_clause(text):
    res = judge(ROWS, text)
    assert "intervention" not in res.missing, res.feedback


def test_a_parenthesised_ellipsis_followed_by_more_words_is_no_denial():
    # "(they should not be compared ...)" is a new claim, not the elided predicate.
    text = ("Any softmax row sums to one, even a leaky one. Edit only the last token and see whether the earlier "
            "outputs move (they should not be compared with the last one).")
    assert "intervention" in judge(ROWS, text).missing or judge(ROWS, text).verdict != "correct"


# ---- scope: "only" before an index inequality is the mask, no exclusive qualifier ----------------

@pytest.mark.parametrize("text", [
    "a_ij = softmax_j(q_i·k_j / sqrt(d_k)), only j<=i allowed. mixed: v_j, o_i = sum_j a_ij v_j",  # blind7
    "weights = softmax(q_i·k_j / sqrt(d)) for only j ≤ i; the output is the weighted sum of the v_j",
])
def test_only_before_an_index_inequality_is_no_exclusive_qualifier(text):
    assert judge(MIXES, text).verdict == "correct"


def test_only_the_keys_is_still_an_exclusive_qualifier():
    assert judge(MIXES, "Only the keys decide the weights, and the values get mixed.").verdict == "incorrect"


def test_weights_showing_which_token_matters_is_no_next_word_claim():
    text = ("The attention weights show which token is most relevant: a distribution over positions in the sequence, "
            "used to mix values. Next-token probabilities are over the vocabulary, from the output layer.")
    assert judge(WEIGHTS, text).verdict == "correct"


def test_an_index_inequality_says_nothing_of_the_current_token():
    # The mask's "j <= i" restates which positions are allowed; it is not the reason the current one may be.
    assert judge(DIAGONAL, "we predict the next token so j <= i is allowed").verdict == "partial"


# ---- points in other words: a row's length, how much to take, which word to write ----------------

VOCAB = "Next-token probabilities are over the vocabulary, from the output layer."
POSITIONS = "Attention weights are over the positions in the sequence."


@pytest.mark.parametrize("text", [
    f"attention weights: row i of A, length T. {VOCAB}",
    f"Attention: T numbers per row. {VOCAB}",
    f"a weight says how much to take from position j. {VOCAB}",
    f"Each attention weight is how much to draw from that token. {VOCAB}",
])
def test_a_row_of_length_t_or_how_much_to_take_ranges_over_positions(text):
    assert judge(WEIGHTS, text).verdict == "correct", judge(WEIGHTS, text).feedback


@pytest.mark.parametrize("text", [
    f"Attention weights are numbers. {VOCAB}",
    f"A weight says how much it matters. {VOCAB}",
])
def test_weights_said_to_be_numbers_range_over_nothing(text):
    assert judge(WEIGHTS, text).verdict == "partial"


@pytest.mark.parametrize("text", [
    f"{POSITIONS} Next-token: V numbers, which word to write.",
    f"{POSITIONS} The probabilities are |V| numbers.",
    f"{POSITIONS} The probabilities say which word to write next.",
])
def test_v_numbers_or_which_word_to_write_ranges_over_the_vocabulary(text):
    assert judge(WEIGHTS, text).verdict == "correct", judge(WEIGHTS, text).feedback


@pytest.mark.parametrize("text", [
    f"{POSITIONS} The probabilities are numbers.",
    f"{POSITIONS} The probabilities are written at the end.",
])
def test_probabilities_said_to_be_numbers_range_over_nothing(text):
    assert judge(WEIGHTS, text).verdict == "partial"


# ---- points in other words: a broken mask said to give rows that sum to one, an aside between ------

@pytest.mark.parametrize("text", [
    "Even a broken mask (zeros instead of -inf) gives rows that sum to 1, e.g. first row 1/3 1/3 1/3.",  # blind7
    "A leaky mask gives rows that sum to 1.",
    "A buggy mask, say zeros where -inf should go, produces rows summing to one.",
])
def test_a_broken_mask_giving_rows_that_sum_to_one_is_the_sums_point(text):
    res = judge(ROWS, text)
    assert "sums-insufficient" in res.matched, res.feedback


@pytest.mark.parametrize("text", [
    "A broken mask gives rows that do not sum to 1.",
    "A correct mask gives rows that sum to 1.",
])
def test_a_broken_mask_with_unnormalised_rows_or_a_correct_mask_is_not_the_sums_point(text):
    assert "sums-insufficient" not in judge(ROWS, text).matched


# ---- points in other words: one-hot as "all on one position" that kills the gradients ------------

@pytest.mark.parametrize("text", [
    "sqrt(d_k) brings it back so softmax isn't all on one position, which would kill the gradients.",  # blind7
    "Dividing keeps the softmax from putting all its weight on one key, which would make the gradients vanish.",
    "Without it softmax goes all on one token and the gradients die.",
])
def test_all_on_one_position_killing_the_gradients_is_the_saturation_point(text):
    assert "softmax-saturates" in judge(SCALING, text).matched, judge(SCALING, text).feedback


@pytest.mark.parametrize("text", [
    "Putting all the weight on one position does not hurt the gradients.",
    "softmax is all on one position.",
])
def test_one_hot_without_the_gradient_cost_is_not_the_saturation_point(text):
    assert "softmax-saturates" not in judge(SCALING, text).matched


# ---- points in other words: only the positions after i would leak ------------------------------

TARGET = "The next-token label for position i is token i+1;"


@pytest.mark.parametrize("tail", [
    "only positions after i would leak it.",  # blind7
    "only the tokens after position i could give it away.",
    "only the positions beyond i have to be hidden.",
])
def test_only_the_positions_after_i_leaking_is_the_own_token_point(tail):
    res = judge(DIAGONAL, f"{TARGET} {tail}")
    assert res.verdict == "correct", res.feedback


@pytest.mark.parametrize("tail", [
    "only positions after i+1 would leak it.",  # the leak starts at i+1: a misconception
    "positions after i would leak it.",  # no "only": says nothing of i itself
])
def test_positions_after_i_plus_one_or_without_only_are_not_the_own_token_point(tail):
    assert judge(DIAGONAL, f"{TARGET} {tail}").verdict != "correct"


# ---- points in other words, loosely: the current token's information as needed, attention as mixing --

@pytest.mark.parametrize("text", [
    "Because without the diagonal the model loses the information of the current token, which is usually the "
    "most important for what comes next.",  # blind7
    "Masking it would throw away the information from the own token, and that is really useful.",
])
def test_the_current_tokens_information_as_useful_is_a_point(text):
    assert judge(DIAGONAL, text).verdict == "partial", judge(DIAGONAL, text).feedback


def test_losing_information_alone_is_no_point():
    assert judge(DIAGONAL, "Because without the diagonal the model loses information.").verdict == "incorrect"


@pytest.mark.parametrize("text", [
    "Attention is about mixing information, the probabilities are about prediction.",  # blind7
    "Attention weights are for blending the values; the probabilities are the prediction.",
])
def test_attention_as_mixing_is_a_point(text):
    assert judge(WEIGHTS, text).verdict == "partial", judge(WEIGHTS, text).feedback


def test_attention_about_prediction_is_no_point():
    assert judge(WEIGHTS, "Attention is about prediction, the probabilities are about prediction too.").verdict \
        == "incorrect"


# ---- points in other words: a leaking row is "valid too" --------------------------------------

@pytest.mark.parametrize("text", [
    "The sum tells you the weights are valid, but uniform weight over all positions is valid too and that's leaking.",
    "A row that spreads weight over every position, future ones included, is a valid distribution as well, and it leaks.",
])
def test_a_leaking_row_said_valid_too_is_the_sums_point(text):
    assert "sums-insufficient" in judge(ROWS, text).matched, judge(ROWS, text).feedback


def test_a_valid_row_without_a_leak_is_not_the_sums_point():
    assert "sums-insufficient" not in judge(ROWS, "The weights are valid too.").matched
