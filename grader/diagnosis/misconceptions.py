"""Every misconception the grader can name, each declared once: the one place to add a diagnosis.

A declaration holds the id, the title, the chapter section to reread, the evidence that names it
(strongest first) and the message. The message has two parts: `says`, a template filled with the
facts the evidence read from the submission's own replies (its line, its error, its numbers), and
`explains`, the chapter's reason, true of every file with this misconception. When a fact is not
available, only `explains` is shown: a message never borrows another file's story.

Evidence kinds, strongest first:
  file        how the submission failed as a whole (did not load, exited, hung, ran out of memory)
  contract    what its replies show about the calling contract (inputs modified, no ValueError, ...)
  behaviour   tensor-level predicates on its weights and outputs (grader/diagnosis/evidence/)
  fingerprint its results on the public probes match a catalogued mutant's (reference/mutants/<id>.py,
              recorded by `python -m grader catalogue` into grader/data/catalogue.json)

`costs` lists the checks a misconception makes fail; diagnoses are ranked by the points lost on
them (ALL: every check), so a 2-point contract slip never headlines over wrong math. A `stub`
(a function still raising NotImplementedError) costs only the checks waiting for it, and comes after
every bug in code the student wrote: it is a TO DO line, never the headline over a written bug.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from grader.diagnosis import claims as cl
from grader.diagnosis import evidence as ev
from grader.vocabulary import BUILD, DELIVER, HEAD, HIDE, MATCH, SHARES, TRAINABLE

ALL = ("*",)
STRENGTH = {"file": 0, "contract": 1, "behaviour": 2, "fingerprint": 3}

Reader = Callable[[ev.Context], ev.Facts | None]


@dataclass(frozen=True)
class Evidence:
    kind: str  # one of STRENGTH
    read: Reader | None = None  # None for a fingerprint: matched against the catalogue's data


FINGERPRINT = Evidence("fingerprint")


@dataclass(frozen=True)
class Misconception:
    id: str
    title: str
    section: str
    evidence: tuple[Evidence, ...]
    says: str  # a template over the facts the evidence read
    explains: str = ""  # the chapter's reason, true of any file with this misconception
    costs: tuple[str, ...] = ALL
    explained_by: tuple[str, ...] = ()  # named only when none of these is
    claims: tuple[cl.Premise, ...] = ()  # what `says` asserts, checked against the evidence before it is printed
    # The recall cards and quiz items on its idea (ids in grader/data/quiz.json; a test checks each one).
    cards: tuple[str, ...] = ()
    quiz: tuple[str, ...] = ()
    stub: bool = False  # names code not written yet, not a bug: ranked after every bug in written code

    def __post_init__(self) -> None:
        assert all(e.kind in STRENGTH for e in self.evidence), self.id

    @property
    def fingerprinted(self) -> bool:
        return FINGERPRINT in self.evidence


def file(read: Reader) -> Evidence:
    return Evidence("file", read)


def contract(read: Reader) -> Evidence:
    return Evidence("contract", read)


def behaviour(read: Reader) -> Evidence:
    return Evidence("behaviour", read)


DECLARED: tuple[Misconception, ...] = (
    # ---- the file as a whole
    Misconception(
        "syntax_error", "The file does not compile", HEAD, (file(ev.syntax_error),),
        "Python could not compile your file: {message}{where}.",
        "Nothing in a file that does not compile runs, so no check could run. The mistake is on that line "
        "or just before it (an unclosed bracket is reported where Python noticed it).",
    ),
    Misconception(
        "import_error", "Importing the file fails", BUILD, (file(ev.import_error),),
        "{what}",
        "Nothing can be checked until the file imports without error.",
    ),
    Misconception(
        "process_exit", "The file ends the process", BUILD, (file(ev.process_exit),),
        "{what}",
        "A graded file must define causal_attention and SingleHead and let the grader call them.",
    ),
    Misconception(
        "timeout", "Runs past its time limit", "What “all at once” really means", (file(ev.timeout),),
        "{who} did not finish: {limit}.",
        "Either it never ends (a loop whose condition never changes) or it is far slower than the chapter's "
        "few whole-tensor operations, which take well under a millisecond at these sizes.",
    ),
    Misconception(
        "memory_limit", "A call ran out of memory", "Part 5: account for the matrix", (file(ev.memory_limit),),
        "{who} {limit}.",
        "The score matrix needs T squared entries per head, a few hundred bytes at these sizes: nothing "
        "larger has to be allocated.",
    ),
    Misconception(
        "missing_function", "A required name is not defined", HEAD, (file(ev.missing_function),),
        "{has}, so the grader cannot find {missing}.",
        "The grader looks up causal_attention(q, k, v) and the SingleHead class by exactly these names.",
    ),
    Misconception(
        "not_implemented", "Not implemented yet", HEAD, (file(ev.not_implemented), FINGERPRINT),
        "{what}. {next}",
        stub=True,
    ),
    # ---- the calling contract
    Misconception(
        "forbidden_api", "Uses PyTorch's ready-made attention", HEAD, (contract(ev.forbidden_api), FINGERPRINT),
        "{what}.",
        "The exercise is to write the scores, the mask, the softmax and the weighted sum yourself; "
        "scaled_dot_product_attention and nn.MultiheadAttention are not allowed in a submission.",
    ),
    Misconception(
        "wrong_return_type", "Does not return the pair (out, weights)", TRAINABLE,
        (contract(ev.wrong_return_type), FINGERPRINT),
        "Your {on} returned something else: {what}.",
        "causal_attention returns both the mixed values and the weights that produced them, as a tuple "
        "(out, weights) of plain tensors.",
        costs=("return_contract",),
    ),
    Misconception(
        "swapped_return", "Returns (weights, out) instead of (out, weights)", DELIVER,
        (contract(ev.swapped_return), FINGERPRINT),
        "Your {on} returned first a tensor of shape {first}, the weights' shape, then {second}, the output's.",
        "The weights are the routing and out = weights @ v is what gets delivered; the contract returns "
        "(out, weights) in that order.",
        costs=("return_contract",),
    ),
    Misconception(
        "inputs_mutated", "Modifies its inputs in place", "Part 3: prove the mask has teeth",
        (contract(ev.inputs_mutated), FINGERPRINT),
        "After your {on}, the caller's {name} had changed (by up to {by}).",
        "Callers reuse their tensors, and the chapter's interventions run the same inputs twice: attention "
        "must leave q, k and v as it found them (no in-place ops such as /=, masked_fill_ or slice assignment).",
        costs=("inputs_unchanged",),
    ),
    Misconception(
        "no_shape_validation", "Inputs of the wrong shape are not refused with ValueError", HEAD,
        (contract(ev.no_shape_validation), FINGERPRINT),
        "Your {on} ({kind}) {did}.",
        "q, k and v need at least two dimensions (positions, features), and their leading dimensions are "
        "independent batch items that must be identical; any other input must raise ValueError naming the "
        "shapes instead of broadcasting unrelated batches together or failing somewhere else.",
        costs=("shape_validation",),
        claims=cl.NOT_REFUSED,
    ),
    # ---- the mask
    Misconception(
        "zero_fill_mask", "Forbidden scores filled with a finite value, not negative infinity", HIDE,
        (behaviour(ev.zero_fill_mask), FINGERPRINT),
        "Your first weight row is {row0} on {where}: every forbidden source of a row gets the same non-zero "
        "share, as if its score were {fill}{exp}.",
        "Only a score of negative infinity has exponential zero, so only -inf blocks a source; rows still sum "
        "to one, which is why normalisation alone misses this.",
        claims=cl.MASK_LEAK,
        cards=('card-mask-negative-infinity',), quiz=('zero-queries',),
    ),
    Misconception(
        "out_not_from_weights", "The output is not the weights times the values", DELIVER,
        (behaviour(ev.out_not_from_weights),),
        "On the worked example your own weights times v give {mine} at receiving position {row}, but your out "
        "there is {out}: the output was computed from other shares than the weights you return.",
        "Output row i blends the value vectors with the shares in row i: out = weights @ v, with the same "
        "masked weights you return, so whatever the weights hide the output cannot use.",
        costs=("worked_example", "zero_queries", "value_intervention", "leak_intervention", "random_probes"),
        cards=('card-mechanism-roles', 'card-value-separation'), quiz=('what-mixes', 'value-change'),
    ),
    Misconception(
        "mask_after_softmax", "Masks after softmax without renormalising", SHARES,
        (behaviour(ev.mask_reader("mask_after_softmax")), FINGERPRINT),
        "Your weight rows sum to {sums} on {where}: future shares were removed after softmax had already "
        "counted them in the denominator.",
        "Mask the scores before softmax; the allowed shares then sum to one and cannot depend on future scores.",
        claims=cl.ROWS_SHORT,
        cards=('card-mask-before-softmax',), quiz=('row-sums-vs-causality',),
    ),
    Misconception(
        "no_mask", "No causal mask", HIDE, (behaviour(ev.mask_reader("no_mask")), FINGERPRINT),
        "Your first weight row is {row0} on {where}: the first position took shares from sources after it.",
        "Row i may use sources 0..i only; without a mask, earlier outputs change when a later input changes.",
        claims=cl.MASK_LEAK,
        cards=('card-causality-test',), quiz=('row-sums-vs-causality',),
    ),
    Misconception(
        "wrong_mask_direction", "Keeps the upper triangle instead of the lower", HIDE,
        (behaviour(ev.mask_reader("wrong_mask_direction")), FINGERPRINT),
        "Your first weight row is {row0} and your last is {row_last} on {where}: the allowed triangle is flipped.",
        "With rows as receiving positions, the allowed sources form the lower triangle including the diagonal.",
        claims=cl.MASK_LEAK,
        cards=('card-causality-test',),
    ),
    Misconception(
        "diagonal_excluded", "Masks the diagonal too", HIDE,
        (behaviour(ev.mask_reader("diagonal_excluded")), FINGERPRINT),
        "Your first weight row is {row0} on {where}: with the diagonal masked, the first position has no "
        "allowed source at all.",
        "Seeing the current input token does not reveal the next-token target, so the diagonal is allowed.",
        cards=('card-mask-diagonal',), quiz=('diagonal',),
    ),
    Misconception(
        "future_offset", "Each position also sees positions after it", HIDE,
        (behaviour(ev.future_offset_reader), FINGERPRINT),
        "Your first weight row is {row0} on {where}: each position also takes a share of {ahead}.",
        "Row i may use positions up to and including i, never i + 1: that is the token it must predict.",
        claims=cl.MASK_LEAK,
        cards=('card-causality-test',), quiz=('diagonal',),
    ),
    Misconception(
        "batch_mixing", "Batch items attend to each other", TRAINABLE, (behaviour(ev.batch_mixing), FINGERPRINT),
        "Changing only the other items of a batch of {B} moved your first item's output by up to {moved}.",
        "Leading dimensions hold independent examples: each must be computed as if it were alone, so "
        "flattening batch and time into one sequence (in either order) lets items see each other.",
        explained_by=("softmax_wrong_axis",),  # a softmax over the batch axis mixes items too
        cards=('card-causality-test',),
    ),
    # ---- the scores and the softmax
    Misconception(
        "softmax_wrong_axis", "Softmax over the wrong axis", SHARES, (behaviour(ev.softmax_wrong_axis), FINGERPRINT),
        "Your weights of shape {shape} sum to one along dim {dim}, {axis}, not along the sources.{only}",
        "Each row of weights is a distribution over the sources one receiving position may use: softmax runs "
        "along dim=-1.",
        quiz=('softmax-axis',),
    ),
    Misconception(
        "missing_scale", "Scores not divided by sqrt(d_k)", MATCH, (behaviour(ev.missing_scale), FINGERPRINT),
        "At {at} your weights are those of scores with {means} (scale {scale}); the chapter's scale there is "
        "1/sqrt(d_k) = {right}, so your scores are {direction}.",
        "Dividing q.k by sqrt(d_k) keeps the scores' variance from growing with d_k.",
        claims=cl.SCALE,
        cards=('card-mechanism-scaling',), quiz=('scaling',),
    ),
    Misconception(
        "wrong_scale", "Scores scaled by something other than 1/sqrt(d_k)", MATCH,
        (behaviour(ev.wrong_scale), FINGERPRINT),
        "At {at} your weights are those of scores scaled by {scale}, which is {means}; the chapter's scale there "
        "is 1/sqrt(d_k) = {right}, so your scores are {direction}.",
        "The chapter divides q.k by the square root of d_k, the width of the vectors in the dot product, because "
        "its variance grows with d_k.",
        claims=cl.SCALE,
        cards=('card-mechanism-scaling',), quiz=('scaling',),
    ),
    # ---- sizes written as numbers: after the bugs that are wrong at every length
    Misconception(
        "hardcoded_shape", "Sizes written as numbers instead of read from the inputs", HEAD,
        (behaviour(ev.hardcoded_shape), FINGERPRINT),
        "{what}.",
        "Read T from q.shape[-2] and d_k from q.shape[-1]: the last two dimensions always mean positions and "
        "features, whatever their sizes.",
    ),
    Misconception(
        "value_width_assumed", "Assumes the value width d_v equals d_k", DELIVER,
        (behaviour(ev.value_width_assumed),),
        "Your causal_attention ran on all {ran} inputs where d_v equals d_k{worked} and raised on every one where "
        "they differ: your {on} (d_v = {d_v}, d_k = {d_k}) raised {raised}.",
        "The value width d_v is v.shape[-1] and need not equal d_k: weights (..., T, T) times v (..., T, d_v) give "
        "out (..., T, d_v), so nothing after the scores depends on q's width.",
        claims=cl.WIDTH_RAISED,
        cards=('card-mechanism-roles',), quiz=('what-mixes',),
    ),
    Misconception(
        "unstable_softmax", "Softmax overflows on large scores", SHARES,
        (behaviour(ev.unstable_softmax), FINGERPRINT),
        "Your {at}, returned NaN or inf in {bad} output values, while on small scores it is finite.",
        "exp of a large score overflows to inf, and inf / inf is NaN; subtracting each row's maximum before "
        "exponentiating (what torch.softmax does) leaves the shares unchanged and keeps every exponential at "
        "most one.",
        explained_by=("row_max_includes_future",),  # NaN from underflow, not overflow
        claims=cl.NOT_FINITE,
    ),
    Misconception(
        "row_max_includes_future", "Subtracts a row maximum that includes forbidden scores", SHARES,
        (behaviour(ev.row_max_includes_future),),
        "Your {on} returned NaN in {bad} output rows, exactly the rows where a forbidden score is far above "
        "every allowed one (at receiving position {row}, about {gap} above): after subtracting that "
        "maximum, every allowed exponential underflows to 0, and 0 / 0 is NaN.",
        "The maximum subtracted for stability must be taken over the allowed sources only: hide the future "
        "(fill it with -inf) before taking the row's maximum and exponentiating, as torch.softmax does on "
        "masked scores.",
        claims=cl.NOT_FINITE,
    ),
    Misconception(
        "hard_attention", "Selects one source (argmax) instead of mixing", "Common mistakes and misconceptions",
        (behaviour(ev.hard_attention), FINGERPRINT),
        "Your weights are one-hot: the last row of a {T}-position probe is {row_last}.",
        "Softmax attention mixes every permitted value by its share; an argmax selects one and passes no "
        "gradient to the queries and keys.",
        cards=('card-mechanism-worked-example',), quiz=('explain-it-back',),
    ),
    Misconception(
        "head_wiring", "SingleHead passes its projections in the wrong roles", TRAINABLE,
        (behaviour(ev.head_wiring),),
        "Your SingleHead's output on x {x} is attention with {wiring}, while your causal_attention itself is "
        "right on the same projections.",
        "The query projection of each position asks, the key projections answer and the value projections are "
        "what gets mixed: causal_attention(self.query(x), self.key(x), self.value(x)), in that order.",
        costs=("single_head",),
        claims=cl.HEAD_DIFFERS,
        cards=('card-mechanism-roles',), quiz=('what-mixes',),
    ),
    Misconception(
        "detached_graph", "Part of the computation is cut off from autograd", TRAINABLE,
        (behaviour(ev.detached_graph), FINGERPRINT),
        "No gradient reached {missing}.",
        "Every step from the scores to the output must stay differentiable: .detach(), .item(), .numpy() and "
        "argmax all cut the path, and the projections then never learn.",
        explained_by=("hard_attention",),
        claims=cl.CUT,
    ),
    Misconception(
        "dtype_downcast", "Computes in lower precision than its inputs", TRAINABLE,
        (behaviour(ev.dtype_downcast), FINGERPRINT),
        "{what}.",
        "Float32 carries about 7 significant digits and float64 about 16, so any step computed in float32 (a "
        "cast, a float32 constant, a float32 softmax) leaves about nine of the caller's digits behind.",
        claims=cl.FLOAT32,
    ),
    # ---- last: a crash no other diagnosis explains
    Misconception(
        "call_raises", "A call raises an error", "Common mistakes and misconceptions",
        (behaviour(ev.call_raises),),
        "{share} raised an error; the first, your {on}, raised {raised}.{line_note}",
        "Every input the contract allows must return (out, weights).",
        # Named only when no diagnosis says why it raised.
        explained_by=("hardcoded_shape", "value_width_assumed", "not_implemented", "forbidden_api",
                      "wrong_return_type", "timeout", "memory_limit", "process_exit", "import_error",
                      "missing_function", "syntax_error", "head_wiring"),
        claims=cl.RAISED,
    ),
)

MISCONCEPTIONS: dict[str, Misconception] = {m.id: m for m in DECLARED}
assert len(MISCONCEPTIONS) == len(DECLARED), "two declarations share an id"
