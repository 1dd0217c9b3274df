"""Issue 26, the classes of error found on the fifth blind set once it became a tuning set (2026-12-02).

Each class is fixed by a general mechanism and each test here failed before its fix. The sentences are written
for these tests (none is a labelled set's answer), so that they check the mechanism, not one answer."""

import pytest
from support.quiz_items import CHANGE, MIXES, QUIZ, ROWS, ZERO

from grader.quiz.judge import judge

# ---- wrong vectors mixed after a right point ---------------------------------------------------

@pytest.mark.parametrize("text", [
    "Queries against keys give the weights. What gets blended, though, is the token embeddings themselves.",
    "q.k makes the shares; the output is then a weighted average of the raw input embeddings.",
    "Weights come from query-key scores, fine, but the mixture is of the inputs X, and V only feeds the scores.",
    "The query matched with each key sets the weights, and the value vectors are only used for the scores.",
])
def test_a_wrong_vector_mixed_after_the_right_weights_is_not_praised(text):
    res = judge(MIXES, text)
    assert res.verdict == "incorrect", res.feedback
    assert res.misconceptions, res.feedback


@pytest.mark.parametrize("text", [
    "Queries matched with keys give the weights; the values, projections of the embeddings, are what gets mixed.",
    "The weights come from queries against keys. The values get mixed, not the raw embeddings.",
])
def test_the_embeddings_named_beside_the_values_are_no_misconception(text):
    # Negative controls: the embeddings named as what the values come from, or denied as what is mixed.
    res = judge(MIXES, text)
    assert res.verdict == "correct", res.feedback


# ---- code as an answer ---------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "A = softmax(Q @ K.T / sqrt(d_k) + M); out = A @ V",
    "att = (q @ k.transpose(-2, -1) / d_k ** 0.5).masked_fill(mask, float('-inf')).softmax(dim=-1); y = att @ v",
])
def test_code_is_read_as_what_it_computes(text):
    res = judge(MIXES, text)
    assert res.verdict == "correct", res.feedback


def test_code_with_the_roles_swapped_is_not_praised():
    # Negative control: values in the scores, keys mixed.
    res = judge(MIXES, "w = softmax(q @ v.T / sqrt(d_k)); out = w @ k")
    assert res.verdict == "incorrect", res.feedback


# ---- the chapter's analogy ---------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "Each shopping list is checked against every label, which gives the shares; the packages are what is combined.",
    "The shopping list matched with the labels sets the weights, and the packages get mixed with those weights.",
])
def test_the_chapters_analogy_names_the_vectors(text):
    res = judge(MIXES, text)
    assert res.verdict == "correct", res.feedback


def test_the_analogy_with_the_roles_swapped_is_not_praised():
    res = judge(MIXES, "The packages are compared with the labels to give the shares, and the shopping lists get mixed.")
    assert res.verdict != "correct", res.feedback


# ---- the intervention in other words -------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "Replace the final token with another one and compare the earlier rows of the output: they must be exactly equal.",
    "Swap the last word for a random one, rerun, and check the earlier rows of the output are bit-for-bit equal.",
    "The earlier outputs must not move when you alter the last token.",
    "Edit only the last input and see if the earlier outputs move. Under a correct mask they must not move.",
])
def test_the_intervention_in_other_words(text):
    res = judge(ROWS, text)
    assert "intervention" in res.matched, res.feedback


@pytest.mark.parametrize("text", [
    "Swap the last token for another one and compare the earlier rows of the output: they must differ.",
    "Edit only the last input and see if the earlier outputs move. Under a correct mask they must move.",
])
def test_an_intervention_expecting_a_change_is_not_credited(text):
    # Negative controls: the same test expecting the earlier rows to change.
    res = judge(ROWS, text)
    assert "intervention" not in res.matched, res.feedback


@pytest.mark.parametrize("text,misconception", [
    ("Rows sum to one anyway. Swap the first token and compare the later rows: they must be equal.",
     "backwards-intervention"),
    ("Rows sum to one anyway. Replace the last token and compare the last position's output: it must be exactly equal.",
     "checks-changed-position"),
])
def test_the_same_words_for_the_wrong_test_are_still_its_misconception(text, misconception):
    # "equal" read as "unchanged" for the intervention must be read so for the tests run the wrong way too.
    res = judge(ROWS, text)
    assert res.verdict == "incorrect" and misconception in res.misconceptions, res.feedback


def test_a_denial_does_not_reach_into_a_when_clause():
    # "should not change when you edit the last token": the edit is asserted, only the change is denied.
    res = judge(ROWS, "The earlier rows should not change when you modify the final token.")
    assert "intervention" in res.matched, res.feedback
    res = judge(ROWS, "The earlier rows should change when you modify the final token.")
    assert "intervention" not in res.matched, res.feedback


def test_only_before_a_phrase_is_no_condition():
    # "change only the last input and see if ...": "only" restricts the input, the "if" opens a new clause.
    res = judge(ROWS, "Change only the last input and see if the earlier outputs move; they must not.")
    assert "intervention" in res.matched, res.feedback


# ---- causality defined, and the sum's meaning, as the why-point -----------------------------------

@pytest.mark.parametrize("text", [
    "Causal means each output depends only on earlier inputs. A row sum only says the weights form a distribution.",
    "Summing to one merely says the row is a distribution; it is silent about where the weight sits.",
    "Causality is about which inputs each output depends on; a row sum is only about normalisation.",
    "A leaky row can add up to one while still blending in later tokens.",
])
def test_what_a_sum_says_as_the_why_point(text):
    res = judge(ROWS, text)
    assert "sums-insufficient" in res.matched and res.verdict == "partial", res.feedback


def test_a_sum_said_to_prove_causality_is_still_wrong():
    res = judge(ROWS, "The row sum says the weights are a distribution, so the mask is correct.")
    assert "sums-insufficient" not in res.matched and res.verdict == "incorrect", res.feedback


# ---- arithmetic working in the numeric items ----------------------------------------------------

@pytest.mark.parametrize("text", [
    "each source gets a third. (4+2+2)/3 = 8/3 and (3+0+3)/3 = 2, so [2.67, 2]",
    "every position gets 1/3; (2+0+6)/3 = 2.667 and (0+4+2)/3 = 2.0, which gives o = [2.667, 2]",
])
def test_a_share_said_for_each_then_working_then_the_result(text):
    res = judge(ZERO, text)
    assert res.verdict == "correct", res.feedback


def test_working_that_ends_on_a_wrong_result_is_not_praised():
    res = judge(ZERO, "each source gets a third. (2+0+6)/3 = 8/3 and (0+4+2)/3 = 2, so the sum [8, 6]")
    assert res.verdict != "correct", res.feedback


@pytest.mark.parametrize("text", [
    "A only depends on Q and K, so A is unchanged. The first coordinate increases by 7/7 = 1.",
    "The shares come from the queries and keys, none of which changed. The first coordinate rises by 1.",
])
def test_the_weights_unchanged_said_with_the_reason_or_the_symbol(text):
    res = judge(CHANGE, text)
    assert res.verdict == "correct", res.feedback


def test_a_changed_named_a_is_not_unchanged():
    res = judge(CHANGE, "So A is different now. The first coordinate rises by 1.")
    assert res.verdict != "correct", res.feedback


# ---- two denials in two clauses ------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "Big scores make softmax sharp with tiny gradients; the variance grows with d_k. It does not normalise "
    "the vectors, it is not cosine similarity.",
])
def test_two_denials_in_two_clauses_do_not_cancel(text):
    res = judge(QUIZ.item("scaling"), text)
    assert "cosine" not in res.misconceptions, res.feedback


def test_one_clause_that_asserts_the_claim_still_counts():
    res = judge(QUIZ.item("scaling"), "The scaling makes the score a cosine similarity.")
    assert "cosine" in res.misconceptions, res.feedback


def test_rows_said_unnormalised_after_masking_is_wrong_in_its_own_clause():
    # With denials counted clause by clause, "can not prove ... because ... do not sum to one" no longer reads as
    # "sums prove causality"; the wrong claim it makes is its own misconception.
    res = judge(ROWS, "Sums are no proof, since once the mask is applied the rows do not add up to 1.")
    assert res.verdict == "incorrect" and "masked-rows-unnormalised" in res.misconceptions, res.feedback


# ---- the own token at position i -----------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "the token at i is visible already when we are at i",
    "The token at position i is already known.",
])
def test_the_token_at_i_already_known(text):
    res = judge(QUIZ.item("diagonal"), text)
    assert "own-token-known" in res.matched, res.feedback


@pytest.mark.parametrize("text", ["The token at position i+1 is already known.", "The next token is already visible."])
def test_the_token_after_i_said_known_is_wrong(text):
    # Negative control: the target said known is the leak itself, not the own token's point.
    res = judge(QUIZ.item("diagonal"), text)
    assert res.verdict == "incorrect" and "future-visible" in res.misconceptions, res.feedback


# ---- where the weights come from, hedged or plain -------------------------------------------------

@pytest.mark.parametrize("text", [
    "I believe the weights come from the query and the keys somehow?",
    "The shares are based on the queries and the keys.",
])
def test_the_weights_said_to_come_from_queries_and_keys(text):
    res = judge(MIXES, text)
    assert "weights-from-queries-keys" in res.matched and res.verdict == "partial", res.feedback


@pytest.mark.parametrize("text", [
    "The weights come from the values and the keys.",
    "The weights are calculated from the keys alone.",
])
def test_the_weights_said_to_come_from_the_wrong_vectors_are_not_credited(text):
    res = judge(MIXES, text)
    assert "weights-from-queries-keys" not in res.matched and res.verdict == "incorrect", res.feedback


# ---- a fragment answering the prompt's first term ------------------------------------------------

@pytest.mark.parametrize("text", [
    "One per position; next-token probabilities come from the output head, one per vocabulary word.",
    "per source position. The other is over the vocabulary, from the final layer.",
])
def test_a_fragment_first_answers_the_prompts_first_term(text):
    # "Explain the difference between attention weights and next-token probabilities": a fragment said first,
    # before the second term is named, is said of the first.
    res = judge(QUIZ.item("weights-vs-probabilities"), text)
    assert res.verdict == "correct", res.feedback


def test_per_position_opening_a_sentence_is_no_fragment():
    res = judge(QUIZ.item("weights-vs-probabilities"), "Per position, the output layer gives a score to every vocabulary word.")
    assert "over-positions" not in res.matched, res.feedback


@pytest.mark.parametrize("text", [
    "The weights come from the keys, and the values get mixed.",
    "The query determines the weights; the values are blended.",
])
def test_one_of_query_and_key_named_as_the_weights_source_is_not_the_point(text):
    # Found while probing the wider relation: the weights said to come from the keys (or the query) alone, without
    # "alone", credited the query-key point and praised the answer. The point names both.
    res = judge(MIXES, text)
    assert "weights-from-queries-keys" not in res.matched and res.verdict != "correct", res.feedback


def test_a_value_between_the_key_and_its_verb_is_no_swapped_role():
    # "... from the query and the key, values are mixed": "key ... are mixed" spans the values, their rival.
    res = judge(MIXES, "The weights come from the query and the key, values are mixed.")
    assert res.verdict == "correct", res.feedback
