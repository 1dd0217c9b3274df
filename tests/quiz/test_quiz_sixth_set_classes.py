"""Issue 26, the classes of error found on the sixth blind set once it became a tuning set (2026-12-02).

Each class is fixed by a general mechanism and each test here failed before its fix. The sentences are written
for these tests (none is a labelled set's answer, unless said), so that they check the mechanism, not one answer."""

import pytest
from support.quiz_items import AXIS, DIAGONAL, MIXES, ROWS, SCALING, WEIGHTS, ZERO

from grader.quiz.judge import judge

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
    "The token predicted is the position with the highest weight.",
    "The probabilities over the vocabulary are what attention outputs.",
    "The most attended position is the next token.",
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


# ---- wrong claims not seen beside a right point (incorrect judged partial) ------------------------

@pytest.mark.parametrize("item,text", [
    (MIXES, "Queries against keys set the weights. The keys and the values both get mixed, I think."),
    (MIXES, "Query-key scores give the weights, and then values and keys are mixed together."),
    (MIXES, "The queries and keys determine the weights, then attention takes the value of the token with the "
            "highest weight."),
    (MIXES, "Query times key gives the weights; the model then returns the position with the largest score."),
    (MIXES, "Weights = softmax of the query-key scores, and what gets mixed is the vocabulary probabilities."),
    (MIXES, "q.k gives the weights, which average the next-token distributions of the earlier positions."),
    (DIAGONAL, "It is allowed because the target is the next token; the leak only comes from positions after i+1."),
    (DIAGONAL, "Row i predicts the next token, and only tokens beyond i+1 would leak it."),
    (SCALING, "The variance of the dot product grows like d_k squared, so you divide by sqrt(d_k)."),
    (SCALING, "Dot products have variance d_k^2 for random unit vectors, hence the sqrt(d_k) scale."),
    (SCALING, "Divide by d_k so the variance is 1 and softmax does not saturate."),
    (SCALING, "The scores grow with the dimension, so we scale them by d_k to keep softmax out of saturation."),
    (SCALING, "The variance grows with d_k, so dividing by sqrt(d_k) gives the scores variance exactly 1, even in "
              "the trained model."),
    (ROWS, "Row sums only say the weights are a distribution, not that the future has no influence. Test: change "
           "the current token and check that the output changes."),
    (ROWS, "Change a future token and check that the earlier positions' weights change."),
    (ROWS, "Sums can be one with a leak. Perturb the last input and verify the earlier rows' outputs move."),
])
def test_a_wrong_claim_beside_a_right_point_is_seen(item, text):
    res = judge(item, text)
    assert res.verdict == "incorrect", res.feedback
    assert res.misconceptions, res.feedback


@pytest.mark.parametrize("item,text", [
    (MIXES, "Queries against keys set the weights; the values get mixed, not the keys."),
    (MIXES, "Query-key scores give the weights and the values are mixed; attention does not take the value with "
            "the highest weight, it blends them all."),
    (MIXES, "The weights come from queries against keys; the values are mixed, not the vocabulary probabilities."),
    (DIAGONAL, "The target of row i is the next token, i+1, and token i is already part of the input; only i+1 "
               "and later would leak."),
    (SCALING, "The variance of q.k grows like d_k for unit-variance coordinates, so dividing by sqrt(d_k) keeps "
              "the scores from growing large and saturating the softmax."),
])
def test_the_right_claim_in_the_same_words_is_no_misconception(item, text):
    res = judge(item, text)
    assert not res.misconceptions, res.feedback


# ---- a required point said in other words -----------------------------------------------------

@pytest.mark.parametrize("item,point,text", [
    (MIXES, "values-mixed", "The weights are applied to V, so O = A V."),
    (MIXES, "values-mixed", "Then the softmax weights multiply the value vectors."),
    (DIAGONAL, "target-is-next", "The target for row i is the token after i."),
    (DIAGONAL, "target-is-next", "Row i's label is the word after position i."),
    (DIAGONAL, "target-is-next", "Seeing token i does not reveal the next-token target."),
    (DIAGONAL, "own-token-known", "It is information the model really has at generation time."),
    (DIAGONAL, "own-token-known", "At inference time the model has that token anyway."),
    (DIAGONAL, "own-token-known", "The current token is really useful context, so you want it in."),
    (DIAGONAL, "own-token-known", "The current token is really useful context."),
    (DIAGONAL, "own-token-known", "Its own word is valuable information for guessing the next one."),
    (ROWS, "intervention", "Make the future inputs huge and see whether the past outputs move; they shouldn't."),
    (ROWS, "intervention", "Swap the last token for another one and assert outputs[:-1] are unchanged."),
    (ROWS, "intervention", "Alter only the positions after t and confirm o_0..o_t are unchanged."),
    (ROWS, "sums-insufficient", "Row sums are about the distribution, not about which positions are used."),
    (ROWS, "sums-insufficient", "Summing to one is about normalisation, not about which tokens get read."),
    (WEIGHTS, "over-positions", "Attention weights are internal routing, how to mix the available information."),
    (WEIGHTS, "over-positions", "Attention weights are like the probability that position i attends to position j."),
    (WEIGHTS, "over-positions", "An attention weight says how strongly token i looks at token j."),
])
def test_a_point_in_other_words_is_credited(item, point, text):
    res = judge(item, text)
    assert point in res.matched, res.feedback


@pytest.mark.parametrize("item,point,text", [
    (MIXES, "values-mixed", "The weights are applied to the keys."),
    (DIAGONAL, "target-is-next", "The target for row i is token i itself."),
    (DIAGONAL, "own-token-known", "The current token is hidden at generation time."),
    (DIAGONAL, "own-token-known", "The current token is not useful context."),
    (ROWS, "intervention", "Make the future inputs huge and see whether the past outputs move; they should."),
    (ROWS, "intervention", "Swap the last token for another one and assert outputs[:-1] change."),
    (ROWS, "sums-insufficient", "Row sums are about which positions are used."),
    (WEIGHTS, "over-positions", "Attention weights are the probability of the next word."),
])
def test_the_point_denied_or_reversed_is_not_credited(item, point, text):
    res = judge(item, text)
    assert point not in res.matched, res.feedback


# ---- numbers: rounded at the precision written, working divided, one part wrong ------------------

@pytest.mark.parametrize("text", [
    "weights: 0.33 each, output approx [2.7, 2.0]",
    "weights 1/3 each, output about (2.7, 2)",
    "w = [e^0, e^0, e^0] / 3 = [1/3, 1/3, 1/3]; o = [8/3, 2]",
    "w = [exp(0), exp(0), exp(0)] / 3 = [0.333, 0.333, 0.333], o = [2.667, 2]",
])
def test_numbers_rounded_or_after_working_are_read(text):
    res = judge(ZERO, text)
    assert res.verdict == "correct", res.feedback


@pytest.mark.parametrize("text", [
    "weights: 0.3 each, output [2.7, 2]",  # one significant digit is not 1/3
    "weights: 1/3 each, output [2.6, 2.0]",
    "weights: 1/3 each, output [2.8, 2]",
])
def test_numbers_rounded_wrongly_are_not_praised(text):
    assert judge(ZERO, text).verdict != "correct"


def test_a_sum_for_the_average_alone_is_incorrect():
    res = judge(ZERO, "The output is the sum of the values, [8, 6].")
    assert res.verdict == "incorrect", res.feedback


# ---- a spaced hyphen is a dash: it ends a clause as an em dash does -------------------------------

@pytest.mark.parametrize("text", [
    "Make the future inputs huge and see whether the past outputs move - they shouldnt.",
    "Perturb the last token and check whether the earlier outputs change -- they must not.",
])
def test_a_spaced_hyphen_ends_the_clause_before_it(text):
    # The "not" after the dash answers the check; it does not deny the check itself.
    assert "intervention" in judge(ROWS, text).matched


def test_a_dash_with_no_denial_after_it_credits_nothing():
    assert "intervention" not in judge(ROWS, "Perturb the last token and check whether the earlier outputs "
                                             "change - they must.").matched


# ---- negative controls for the scaling misconceptions: the square root in other notations ---------

@pytest.mark.parametrize("text", [
    "Variance grows with d_k so we divide by d_k^0.5 to keep softmax from saturating.",
    "Variance grows with d_k so we divide by d_k ** 0.5 to keep softmax from saturating.",
    "Variance grows with d_k so we scale by d_k^(1/2) to keep softmax from saturating.",
    "Variance grows with d_k so scores are divided by d_k's square root to keep softmax from saturating.",
    "Variance grows with d_k, so divide by sqrt(d_k) to keep softmax from saturating; the variance is d_k, not "
    "d_k squared.",
])
def test_the_square_root_written_otherwise_is_no_misconception(text):
    res = judge(SCALING, text)
    assert not res.misconceptions, res.feedback


@pytest.mark.parametrize("text", [
    "Attention weights are over positions, probabilities over the vocab; the output layer produces them, not attention.",
    "Weights are over sequence positions, probabilities over the vocab, from the output layer.",
])
def test_two_ranges_in_one_sentence_are_not_read_as_swapped(text):
    # "weights over positions, probabilities over the vocab": the second range belongs to the probabilities.
    res = judge(WEIGHTS, text)
    assert res.verdict == "correct", res.feedback


# ---- false praise not yet written: the diagonal's wrong reasons beside both right points ---------

BOTH = "Row i predicts token i+1, and token i is already known input."


@pytest.mark.parametrize("tail", [
    "The diagonal is kept so that each row sums to one.",
    "We keep it so every row adds up to 1.",
    "Each token mostly attends to itself anyway.",
    "The biggest weight is always on the diagonal.",
    "So the model can just copy the current token as its prediction.",
])
def test_a_wrong_reason_for_the_diagonal_is_not_praised(tail):
    # Rows sum to one whatever is masked (save an all-masked row); a token need not attend mostly to itself; the
    # prediction is no copy of the input.
    res = judge(DIAGONAL, f"{BOTH} {tail}")
    assert res.verdict == "incorrect", res.feedback


@pytest.mark.parametrize("tail", [
    "Without it the first row would be all -inf, so it could not sum to one: NaN.",
    "A token does not have to attend mostly to itself.",
    "It does not just copy the current token.",
])
def test_the_first_row_remark_and_denials_are_no_misconception(tail):
    res = judge(DIAGONAL, f"{BOTH} {tail}")
    assert not res.misconceptions, res.feedback


# ---- false praise not yet written: wrong claims beside full answers (from the labeller's list) ------

FULL_SCALING = ("Dot products grow with d_k (variance d_k), which would push softmax toward one-hot with tiny "
                "gradients; dividing by sqrt(d_k) prevents that.")
FULL_ROWS_WHY = "A row summing to one only shows normalisation; a leaky mask sums to one too."


@pytest.mark.parametrize("item,text", [
    (SCALING, f"{FULL_SCALING} It is also needed for the mask to work."),
    (SCALING, f"{FULL_SCALING} Its main job is to stop exp from overflowing."),
    (SCALING, f"{FULL_SCALING} Without it the softmax would be too flat."),
    (SCALING, f"{FULL_SCALING} The division also makes the scores sum to one."),
    (WEIGHTS, f"{RANGES} Attention weights do not sum to one."),
    (WEIGHTS, f"{RANGES} Attention weights need not add up to 1."),
    (ROWS, f"{FULL_ROWS_WHY} Instead check that the upper triangle of the weights is zero, which proves causality."),
    (ROWS, f"{FULL_ROWS_WHY} Shuffle the tokens and check the outputs stay the same."),
])
def test_a_listed_wrong_claim_beside_a_full_answer_is_not_praised(item, text):
    res = judge(item, text)
    assert res.verdict == "incorrect", res.feedback


@pytest.mark.parametrize("item,text", [
    (SCALING, f"{FULL_SCALING} It has nothing to do with the mask."),
    (SCALING, f"{FULL_SCALING} Overflow is not its main job."),
    (SCALING, f"{FULL_SCALING} With it the softmax is flatter than without it."),
    (WEIGHTS, f"{RANGES} Both sum to one."),
    (ROWS, f"{FULL_ROWS_WHY} Change the last token and check that the earlier outputs stay the same."),
])
def test_the_listed_claims_denied_or_absent_are_no_misconception(item, text):
    res = judge(item, text)
    assert not res.misconceptions, res.feedback


@pytest.mark.parametrize("item,text", [
    (MIXES, "Queries against keys give the weights, and the values are mixed; it is basically a plain average."),
    (MIXES, "Queries against keys give the weights and the values are mixed, but the weights are fixed for each "
            "position."),
    (ZERO, "weights: 1/3 each, output [8/3, 2]. The last position is masked out."),
    (ZERO, "weights 1/3, 1/3, 1/3 and output [8/3, 2]; with zero queries the weights would really be zero."),
])
def test_more_listed_wrong_claims_beside_right_answers_are_not_praised(item, text):
    res = judge(item, text)
    assert res.verdict != "correct", res.feedback
    assert res.misconceptions, res.feedback


@pytest.mark.parametrize("item,text", [
    (MIXES, "Queries against keys give the weights and the values are mixed: a weighted average, not a plain one."),
    (MIXES, "Queries against keys give the weights and the values are mixed, not a plain average."),
    (MIXES, "Queries against keys give the weights and the values are mixed; if all scores were equal it would be "
            "a plain average."),
    (MIXES, "Queries against keys give the weights and the values are mixed; with equal scores it reduces to a "
            "plain average."),
    (ZERO, "The scores are all zero, so the weights are 1/3 each and the output [8/3, 2], the plain average."),
    (ZERO, "weights: 0.33 each; output [2.67, 2]; nothing is masked out."),
])
def test_those_claims_denied_or_true_here_are_no_misconception(item, text):
    res = judge(item, text)
    assert not res.misconceptions, res.feedback


# ---- false praise not yet written: the right option said to be interchangeable with another -------

@pytest.mark.parametrize("text", [
    "dim=-1, though either axis works since the matrix is square.",
    "A, but B would work just as well.",
    "A. It does not matter which axis, really.",
    "Rows, dim=-1; both would work though.",
])
def test_the_right_option_called_interchangeable_is_not_praised(text):
    # Saying any axis would do is the wrong claim the item asks about, whichever letter comes with it.
    res = judge(AXIS, text)
    assert res.verdict == "incorrect", res.feedback


@pytest.mark.parametrize("text", [
    "A. It matters which axis: B would not work as well.",
    "dim=-1; neither of the others works.",
    "A, not B: the two are not interchangeable.",
])
def test_the_right_option_with_the_others_refused_is_still_right(text):
    assert judge(AXIS, text).verdict == "correct"
