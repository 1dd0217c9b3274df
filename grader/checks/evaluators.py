"""Check evaluators by id. Each reads Observations and returns a CheckOutcome; none runs student code."""

from __future__ import annotations

from grader.checks import contract, gradients, masking, numerics, worked
from grader.checks.registry import CHECK_IDS

EVALUATORS = {
    "worked_example": worked.worked_example,
    "zero_queries": worked.zero_queries,
    "value_intervention": worked.value_intervention,
    "leak_intervention": masking.leak_intervention,
    "mask_structure": masking.mask_structure,
    "shift_invariance": numerics.shift_invariance,
    "random_probes": numerics.random_probes,
    "sdpa_parity": numerics.sdpa_parity,
    "gradient_flow": gradients.gradient_flow,
    "single_head": contract.single_head,
    "single_head_gradients": gradients.single_head_gradients,
    "return_contract": contract.return_contract,
    "inputs_unchanged": contract.inputs_unchanged,
    "shape_validation": contract.shape_validation,
    "forbidden_api": contract.forbidden_api,
}
assert tuple(EVALUATORS) == CHECK_IDS, "every registered check needs exactly one evaluator"
