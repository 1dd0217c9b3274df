"""What a submission's own replies show, read without its code: tensor-level predicates.

Each reader takes the submission's observations and returns the facts it quotes (short strings,
the submission's own numbers) or None when its misconception is not there. Readers see only the
visible probes: a message may quote their inputs, never a hidden one's. One module per part of the
chapter a reader looks at:

- `context`: what every reader may look at, and reading a reply as its probe asks;
- `whole_file`: the file does not compile or import, a call timed out, ran out of memory, ended the process;
- `mask`: hide future positions (where the shares are zero); `shares`: which axis the softmax normalised;
- `scale`: the scale applied to q . k; `fixed_sizes`: sizes written as numbers, calls that raised;
- `numerics`: overflow, underflow, precision, and the full head; `contract`: batches, return value, inputs.

This package's namespace is the readers' one vocabulary (`grader.diagnosis.misconceptions` reads `ev.<name>`).
"""

from grader.checks.observations import fmt
from grader.diagnosis.evidence.context import (
    PROBE,
    SUM_ATOL,
    Context,
    Facts,
    first_slice,
    matches_fingerprint,
    output,
    sizes,
    weights,
)
from grader.diagnosis.evidence.contract import (
    batch_mixing,
    forbidden_api,
    inputs_mutated,
    no_shape_validation,
    swapped_return,
    wrong_return_type,
)
from grader.diagnosis.evidence.fixed_sizes import call_raises, hardcoded_shape, value_width_assumed
from grader.diagnosis.evidence.mask import (
    future_offset,
    future_offset_reader,
    mask_reader,
    mask_shape,
    zero_fill_mask,
    zero_fill_value,
)
from grader.diagnosis.evidence.numerics import (
    detached_graph,
    dtype_downcast,
    hard_attention,
    head_wiring,
    out_not_from_weights,
    row_max_includes_future,
    unstable_softmax,
)
from grader.diagnosis.evidence.scale import (
    fit_scale,
    implied_scale,
    missing_scale,
    probe_implied_scale,
    read_scale,
    wrong_scale,
)
from grader.diagnosis.evidence.shares import normalised_axes, softmax_wrong_axis
from grader.diagnosis.evidence.whole_file import (
    import_error,
    memory_limit,
    missing_function,
    not_implemented,
    process_exit,
    source_line,
    syntax_error,
    timeout,
)

__all__ = ["Context", "Facts", "PROBE", "SUM_ATOL", "batch_mixing", "call_raises", "detached_graph", "dtype_downcast", "first_slice", "fit_scale", "fmt", "forbidden_api", "future_offset", "future_offset_reader", "hard_attention", "hardcoded_shape", "head_wiring", "implied_scale", "import_error", "inputs_mutated", "mask_reader", "mask_shape", "matches_fingerprint", "memory_limit", "missing_function", "missing_scale", "no_shape_validation", "normalised_axes", "not_implemented", "out_not_from_weights", "output", "probe_implied_scale", "process_exit", "read_scale", "row_max_includes_future", "sizes", "softmax_wrong_axis", "source_line", "swapped_return", "syntax_error", "timeout", "unstable_softmax", "value_width_assumed", "weights", "wrong_return_type", "wrong_scale", "zero_fill_mask", "zero_fill_value"]
