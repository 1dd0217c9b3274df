"""The grader on real code: each file of tests/real is graded as its frozen expectation says.

Two cases per file: the score lies in the instructor's band (checks and rubric), and the diagnoses
are the expected ones (diagnosis). KNOWN_WRONG lists what today's grader gets wrong, each with its
cause: strict xfails, so a fix that makes an entry pass fails the suite until the entry is removed.
Never edit tests/real/expected.yaml to make a case pass.
"""

from __future__ import annotations

SLIP_GATES = "the extra leading dims fail return_contract, which gates every math check"

KNOWN_WRONG = {
    "band_name": {
        "annotated_transformer": f"(1, T, T) mask gives unbatched results a leading 1: {SLIP_GATES} (14)",
        "cs336_bitkira": "softmax summed over dim=1 leaks future queries, but no leak probe changes q (60 > 50)",
        "d2l_dot_product_attention": "crash on unbatched probes errors return_contract, which gates every check (12)",
        "fairseq_multihead_attention": "crash on unbatched probes errors return_contract, which gates every check (6.7)",
        "hf_gpt2_attention": f"4-D bias buffer: {SLIP_GATES} (8.7)",
        "hf_gpt_neo_attention": f"4-D bias buffer: {SLIP_GATES} (8.7)",
        "hf_llama_eager": "float32 softmax graded as wrong math against a 1e-12 tolerance (50)",
        "learn_gpt2_causal_masking": f"4-D bias buffer: {SLIP_GATES} (8.7)",
        "meta_llama_attention": f"4-D mask: {SLIP_GATES} (8.7)",
        "nanogpt_manual": f"4-D bias buffer: {SLIP_GATES} (8.7)",
        "x_transformers_attend": "float32 softmax graded as wrong math against a 1e-12 tolerance (50)",
    },
    "ids_name": {
        "happy_llm_mask_self_attention": "crashes on every length but 4 are not named hardcoded_shape (no diagnosis)",
        "ng_video_lecture_v2_head": "the 8-position buffer's crashes on longer sequences are not named hardcoded_shape",
        "pytorch_pretrained_bert_gpt2": "the -1e4 fill's leak under large scores is not named zero_fill_mask (no probe has such scores)",
    },
}


def test_score_in_the_instructors_band(band_name, real_graded, verdicts):
    expectation, report = real_graded[band_name]
    assert verdicts.band_problem(expectation, report) is None, (
        verdicts.band_problem(expectation, report), expectation.why)


def test_diagnoses_as_expected(ids_name, real_graded, verdicts):
    expectation, report = real_graded[ids_name]
    assert verdicts.id_problem(expectation, report) is None, (verdicts.id_problem(expectation, report), expectation.why)


def test_every_file_has_a_frozen_expectation(verdicts):
    assert sorted(p.stem for p in verdicts.real_files()) == sorted(verdicts.load_manifest())
    assert len(verdicts.real_files()) >= 20
