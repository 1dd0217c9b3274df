"""Every message is about THIS submission: its line, its error, its names, its call, its numbers.

Each test builds the observations a file like the one described would produce, runs the engine,
and reads the message: the submission's own evidence must be there, the catalogue file's story must not.
"""

from __future__ import annotations

import math
import re

import pytest
import torch

from grader.checks.base import CheckOutcome
from grader.checks.observations import Observations, Reply
from grader.probes import build_probes


def loaded_badly(error_type: str, message: str, lineno: int | None, source: str) -> Observations:
    load = Reply(False, error_type=error_type, error=message, lineno=lineno)
    return Observations(build_probes(None), {}, source=source, load_error=load)


def one(messages, obs) -> tuple[str, str]:
    found = messages(obs)
    assert len(found) >= 1, found
    return next(iter(found.items()))


def no_x_not_x(message: str) -> None:
    """Never "X, not X": a sentence that contrasts a number with itself."""
    for a, b in re.findall(r"(\[[^\]]*\]|-?\d[\d.e+-]*),? not (\[[^\]]*\]|-?\d[\d.e+-]*)", message):
        assert a != b, message


# ---------------------------------------------------------------- whole-file failures


def test_syntax_error_quotes_the_students_line_and_message(messages):
    source = "import torch\n\ndef causal_attention(q, k, v):\n    s = (q @ k.T / 2\n    return s\n"
    did, message = one(messages, loaded_badly("SyntaxError", "'(' was never closed", 4, source))
    assert did == "syntax_error"
    assert "'(' was never closed" in message and "line 4" in message and "s = (q @ k.T / 2" in message
    assert "colon" not in message and "def line" not in message


def test_import_error_names_the_module_the_student_imported(messages):
    source = "import math\nimport einops\n"
    did, message = one(messages, loaded_badly("ModuleNotFoundError", "No module named 'einops'", 2, source))
    assert did == "import_error" and "`einops`" in message and "line 2" in message
    assert "my_attention_helpers" not in message


def test_an_error_at_import_that_is_not_an_import_says_what_it_is(messages):
    source = "import torch\nx = undefined_name\n"
    did, message = one(messages, loaded_badly("NameError", "name 'undefined_name' is not defined", 2, source))
    assert did == "import_error" and "NameError" in message and "undefined_name" in message
    assert "imports `" not in message


def test_an_empty_file_is_told_it_defines_nothing(messages):
    obs = Observations(build_probes(None), {}, source="", load_names=(), defined=())
    did, message = one(messages, obs)
    assert did == "missing_function"
    assert "empty" in message and "defines nothing" in message
    assert "causal_atention" not in message and "math is right" not in message


def test_a_missing_function_lists_the_names_the_file_defines(messages):
    source = "def attention(q, k, v):\n    pass\n\nclass SingleHead:\n    pass\n"
    obs = Observations(build_probes(None), {}, source=source, load_names=("SingleHead",),
                       defined=("SingleHead", "attention"))
    did, message = one(messages, obs)
    assert did == "missing_function" and "`attention`" in message and "`causal_attention`" in message


def _failed_calls(kind: str, error: str) -> Observations:
    probes = build_probes(None)
    replies = {}
    for i, p in enumerate(probes.probes):
        text = error if i == 0 else f"not run: gave up after the child failed 3 times ({error})"
        replies[p.id] = Reply(False, error_type=kind, error=text, skipped=i > 0)
    return Observations(probes, replies, source="def causal_attention(q, k, v): ...\n")


def test_timeout_names_the_call_and_its_input_shapes(messages):
    did, message = one(messages, _failed_calls("timeout", "no answer within 1 s (wall clock)"))
    assert did == "timeout"
    assert "causal_attention on q (3, 2), k (3, 2), v (3, 2)" in message and "1 s" in message
    assert "while True" not in message


def test_memory_limit_says_what_the_call_tried_to_allocate(messages):
    error = ("[enforce fail at alloc_cpu.cpp:127] DefaultCPUAllocator: can't allocate memory: you tried to "
             "allocate 8589934592 bytes. Error code 12 (Cannot allocate memory)")
    did, message = one(messages, _failed_calls("MemoryError", error))
    assert did == "memory_limit" and "8 GiB" in message and "causal_attention on q (3, 2)" in message
    assert "65536" not in message


def test_a_process_exit_at_import_quotes_the_line(messages):
    source = "import sys\nprint('ok')\nsys.exit(3)\n"
    did, message = one(messages, loaded_badly("SystemExit", "3", 3, source))
    assert did == "process_exit" and "sys.exit(3)" in message and "line 3" in message


# ---------------------------------------------------------------- numbers from the student's own weights


def scale_message(messages, observe, attention, scale_of) -> tuple[str, str]:
    obs = observe(lambda q, k, v: attention(q, k, v, scale=scale_of(q, k, v)))
    return one(messages, obs)


@pytest.mark.parametrize(("scale_of", "means", "direction"), [
    (lambda q, k, v: 1 / q.shape[-1], "dividing by d_k instead of its square root", "flatter"),
    (lambda q, k, v: 1 / math.sqrt(v.shape[-1]), "dividing by sqrt(d_v)", None),
    (lambda q, k, v: 1 / math.sqrt(q.shape[-2]), "dividing by sqrt(T)", None),
    (lambda q, k, v: math.sqrt(q.shape[-1]), "multiplying by sqrt(d_k)", "sharper"),
])
def test_wrong_scale_says_what_the_fitted_scale_is_and_its_direction(messages, observe, attention, scale_of, means,
                                                                    direction):
    did, message = scale_message(messages, observe, attention, scale_of)
    assert did == "wrong_scale" and means in message, message
    said = "sharper" if "sharper" in message else "flatter"
    assert direction in (None, said)
    # The direction is true of the quoted sizes: sharper exactly when the scale is above 1/sqrt(d_k).
    d_k = int(re.search(r"d_k = (\d+)", message).group(1))
    scale = float(re.search(r"scaled by ([\d.e+-]+)", message).group(1))
    assert (said == "sharper") == (scale > 1 / math.sqrt(d_k))
    assert "divides by d_k" not in message or means.startswith("dividing by d_k")
    no_x_not_x(message)


def test_missing_scale_is_named_with_its_factor(messages, observe, attention):
    did, message = scale_message(messages, observe, attention, lambda q, k, v: 1.0)
    assert did == "missing_scale" and "no scaling at all" in message and "sharper" in message


@pytest.mark.parametrize("fill", [0.0, -1.0, 3.0])
def test_zero_fill_mask_quotes_the_real_fill_value(messages, observe, attention, fill):
    did, message = one(messages, observe(lambda q, k, v: attention(q, k, v, fill=fill)))
    assert did == "zero_fill_mask"
    shown = "0" if fill == 0 else f"{fill:g}"
    assert f"as if its score were {shown}," in message and f"exp({shown}) = {math.exp(fill):.6g}" in message


def test_a_large_finite_fill_is_told_its_own_value(messages, observe, attention):
    """-1e4 is right while allowed scores stay far above it; the probes at its edge (allowed scores near -1e4)
    show the leak, and the message quotes -10000. Nothing diagnosed fails: the edge probes exist for this."""
    found = messages(observe(lambda q, k, v: attention(q, k, v, fill=-1e4)))
    assert "as if its score were -10000" in found.get("zero_fill_mask", ""), found


def test_a_weight_row_is_never_contrasted_with_itself(messages, observe, attention):
    # sqrt(d_v): on the worked example d_v = d_k, so its rows are right there.
    found = messages(observe(lambda q, k, v: attention(q, k, v, scale=1 / math.sqrt(v.shape[-1]))))
    assert "wrong_scale" in found, found  # a message to read: nothing diagnosed would pass the loop below
    for message in found.values():
        no_x_not_x(message)


# ---------------------------------------------------------------- bugs that only some probes show


def test_crashing_at_every_other_length_names_hardcoded_shape(messages, observe, attention):
    def three_only(q, k, v):
        allowed = torch.ones(3, 3, dtype=torch.bool).tril()
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        return weights @ v, weights

    did, message = one(messages, observe(three_only))
    assert did == "hardcoded_shape" and "only when T = 3" in message and "RuntimeError" in message


def test_a_mask_right_only_at_three_positions_names_hardcoded_shape(names, observe, attention):
    def shifted(T):
        return torch.ones(T, T, dtype=torch.bool).tril(T - 3)

    assert "hardcoded_shape" in names(observe(lambda q, k, v: attention(q, k, v, mask=shifted)))


def test_softmax_without_the_row_maximum_names_unstable_softmax(messages, observe):
    def naive(q, k, v):
        T = q.shape[-2]
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        e = torch.exp(scores.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf")))
        weights = e / e.sum(-1, keepdim=True)
        return weights @ v, weights

    did, message = one(messages, observe(naive))
    assert did == "unstable_softmax" and "NaN or inf" in message and "scores reach about 100" in message


def test_softmax_over_dim_1_is_named_from_batched_probes(messages, observe, attention):
    did, message = one(messages, observe(lambda q, k, v: attention(q, k, v, dim=1)))
    assert did == "softmax_wrong_axis"
    assert "dim 1" in message and "dim=-1" in message


def test_time_first_flattening_is_named_batch_mixing(names, observe):
    def time_first(q, k, v):
        if q.dim() == 2:
            q, k, v = (t.unsqueeze(0) for t in (q, k, v))
        B, T = q.shape[0], q.shape[1]
        flat = [t.transpose(0, 1).reshape(T * B, t.shape[-1]) for t in (q, k, v)]
        scores = flat[0] @ flat[1].T / math.sqrt(q.shape[-1])
        allowed = torch.ones(T * B, T * B, dtype=torch.bool).tril()
        w = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        out = (w @ flat[2]).reshape(T, B, -1).transpose(0, 1)
        blocks = torch.stack([w[b::B, b::B] for b in range(B)])
        return out.squeeze(0) if B == 1 else out, blocks.squeeze(0) if B == 1 else blocks

    assert "batch_mixing" in names(observe(time_first))


# ---------------------------------------------------------------- ranking by points lost


def test_points_lost_rank_wrong_math_above_a_contract_slip(names, observe, attention):
    def no_checks_wrong_scale(q, k, v):
        return attention(q, k, v, scale=1 / q.shape[-1])  # never raises on mismatched shapes

    outcomes = {c: CheckOutcome("failed", 0, 1, "") for c in ("worked_example", "random_probes", "shape_validation")}
    lost = {"worked_example": 15.0, "random_probes": 10.0, "shape_validation": 2.0}
    found = names(observe(no_checks_wrong_scale, validate=False), outcomes, lost)
    assert found[0] == "wrong_scale" and "no_shape_validation" in found


def test_a_fixed_size_buffer_crashing_longer_sequences_names_hardcoded_shape(messages, observe, attention):
    def buffer_of_five(q, k, v):
        T = q.shape[-2]
        allowed = torch.ones(5, 5, dtype=torch.bool).tril()[:T, :T]
        if T > 5:
            allowed = allowed.expand(T, T)  # what a registered 5 x 5 buffer does at T = 7
        return attention(q, k, v, mask=lambda _: allowed)

    did, message = one(messages, observe(buffer_of_five))
    assert did == "hardcoded_shape" and "only up to T = 5" in message
    longer = [int(t) for t in re.findall(r"\d+", message.split("longer sequence (T = ")[1].split(")")[0])]
    assert longer and min(longer) > 5


def test_nan_rows_of_other_items_are_no_batch_mixing(names, observe, attention):
    found = names(observe(lambda q, k, v: attention(q, k, v, mask=lambda T: torch.ones(T, T, dtype=torch.bool)
                                                      .tril(-1))))
    assert found[0] == "diagonal_excluded" and "batch_mixing" not in found


def test_a_constant_scale_says_so(messages, observe, attention):
    did, message = one(messages, observe(lambda q, k, v: attention(q, k, v, scale=32 ** -0.5)))
    assert did == "wrong_scale" and "a constant 0.176777 = 1/sqrt(32) whatever d_k" in message


def test_the_worked_examples_own_scale_everywhere_is_hardcoded_shape(messages, observe, attention):
    did, message = one(messages, observe(lambda q, k, v: attention(q, k, v, scale=2 ** -0.5)))
    assert did == "hardcoded_shape" and "1/sqrt(2) whatever d_k" in message


def test_math_is_read_through_a_swapped_pair(names, observe, attention):
    def swapped_zero_fill(q, k, v):
        out, weights = attention(q, k, v, fill=0.0)
        return weights, out

    found = names(observe(swapped_zero_fill))
    assert "zero_fill_mask" in found and "swapped_return" in found
