"""Every check the grader knows: a stable id, what it proves, and where the chapter explains it."""

from __future__ import annotations

from dataclasses import dataclass

HIDE = "Hide future positions before normalization"
SHARES = "Turn scores into shares"
MATCH = "Match every receiving position with every source"
DELIVER = "Deliver the weighted values"
HEAD = "Part 2: the full head"
TEETH = "Part 3: prove the mask has teeth"
TRAINABLE = "Part 4: connect to trainable code"
BASELINE = "Part 1: a baseline you already understand"


@dataclass(frozen=True)
class CheckSpec:
    id: str
    title: str
    group: str
    proves: str
    section: str
    needs: str = "causal_attention"  # the entry point the check calls


_SPECS = [
    CheckSpec("worked_example", "Worked example", "Worked example",
              "The chapter's three-position example gives weights [1,0,0], [1/3,2/3,0], [1/7,2/7,4/7] "
              "and outputs [2,0], [2/3,8/3], [26/7,16/7].", DELIVER),
    CheckSpec("zero_queries", "Zero queries give plain averages", "Worked example",
              "With every query zero, each receiver averages the values it is allowed to see.", BASELINE),
    CheckSpec("value_intervention", "Value-only intervention", "Worked example",
              "Adding 7 to the first value's first coordinate leaves the weights identical and raises "
              "the last output's first coordinate by exactly 1.", DELIVER),
    CheckSpec("leak_intervention", "No information from the future", "Masking",
              "Changing only future keys and values leaves earlier output rows unchanged, and batch "
              "items never see each other.", TEETH),
    CheckSpec("mask_structure", "Causal mask structure", "Masking",
              "Weights are exactly zero above the diagonal and every row sums to one.", HIDE),
    CheckSpec("shift_invariance", "Stable softmax under large scores", "Numerics",
              "Shifting every score by about 1000 changes nothing and produces no NaN or inf.", SHARES),
    CheckSpec("random_probes", "Random probes", "Numerics",
              "Seeded float64 probes with distinct batch, length and widths, with 0, 1 and 2 batch "
              "dimensions and extreme scores, match a trusted reference.", HEAD),
    CheckSpec("sdpa_parity", "Parity with scaled_dot_product_attention", "Numerics",
              "float32 and float64 outputs agree with PyTorch's SDPA within dtype tolerances and keep "
              "the input dtype.", TRAINABLE),
    CheckSpec("gradient_flow", "Gradients reach q, k and v", "Gradients",
              "Gradients of q, k and v are finite, non-zero and match the reference.", TRAINABLE),
    CheckSpec("single_head", "SingleHead module", "Contract",
              "SingleHead(6, 2) has query/key/value Linear layers without bias, 36 parameters, and maps "
              "(2, 4, 6) to out (2, 4, 2) and weights (2, 4, 4) matching the reference.", TRAINABLE, "SingleHead"),
    CheckSpec("single_head_gradients", "Gradients reach every projection", "Gradients",
              "Every projection of SingleHead gets a finite, non-zero gradient matching the reference.",
              TRAINABLE, "SingleHead"),
    CheckSpec("return_contract", "Returns (out, weights)", "Contract",
              "causal_attention returns a pair of plain tensors (out, weights) with the right shapes, "
              "dtype and device.", HEAD),
    CheckSpec("inputs_unchanged", "Inputs are not modified", "Contract",
              "q, k and v hold the same numbers after the call as before.", HEAD),
    CheckSpec("shape_validation", "Shape validation", "Contract",
              "Mismatched batch dimensions or sequence lengths raise ValueError naming the shapes.", HEAD),
    CheckSpec("forbidden_api", "Attention written by hand", "Contract",
              "The submission neither calls scaled_dot_product_attention nor nn.MultiheadAttention.", HEAD),
]

CHECKS: dict[str, CheckSpec] = {spec.id: spec for spec in _SPECS}
CHECK_IDS: tuple[str, ...] = tuple(CHECKS)
GROUPS: tuple[str, ...] = tuple(dict.fromkeys(spec.group for spec in _SPECS))
