"""The quiz file's shape: items (numeric, choice, concepts, self) and recall cards.

These models are the contract; `python -m grader schemas` publishes them as grader/schemas/quiz.schema.json.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, Field, PrivateAttr, model_validator

from grader.quiz.phrases import Phrasing
from grader.vocabulary import Model as _Model

Id = Annotated[str, Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")]


# Fields written in prose (what the chapter says); every other string is a phrasing or an id.
_PROSE = frozenset({"title", "prompt", "explanation", "text", "feedback", "follow_up", "label", "front", "back",
                    "checklist", "topic"})
_STEM = re.compile(r"[a-z]+\*")  # a wildcard's stem ("normali*") is no word


def quiz_words(model: BaseModel) -> frozenset[str]:
    """The words of a quiz (its prose and its phrasings' literal words): an answer's spelling is corrected
    towards these, and never away from one of them."""
    words: set[str] = set()

    def walk(node, prose: bool) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, k in _PROSE)
        elif isinstance(node, list):
            for v in node:
                walk(v, prose)
        elif isinstance(node, str):
            text = node.lower() if prose else _STEM.sub(" ", node.lower())
            words.update(re.findall(r"[a-z]+", text))

    walk(model.model_dump(), False)
    return frozenset(words)


def _check_phrasing(value: str) -> str:
    Phrasing(value)  # raises ValueError with a readable message
    return value


PhrasingText = Annotated[
    str,
    AfterValidator(_check_phrasing),
    Field(
        min_length=1,
        description="Words with a|b alternatives, (multi word) groups, * wildcards and ? optional "
        "slots; or re:REGEX. See grader/quiz/phrases.py.",
    ),
]
AcceptEntry = Annotated[
    PhrasingText | list[PhrasingText],
    Field(description="One phrasing, or a list of phrasings that must all appear."),
]


def _fraction(value: object) -> object:
    # Authors write exact fractions ("1/7"); the grader compares floats with tolerances.
    if isinstance(value, str):
        try:
            num, _, den = value.partition("/")
            return float(Fraction(num.strip()) / Fraction(den.strip() or "1"))
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"not a number or fraction: {value!r}") from None
    return value


Number = Annotated[
    float,
    BeforeValidator(_fraction, json_schema_input_type=float | str),
    Field(description="A number or a fraction like '1/7'."),
]
NumberOrVector = Number | list[Number]


class Claim(_Model):
    """A point recognised by the claim it makes, whatever the word order and wording.

    Each part lists its synonyms and paraphrases; "@name" stands for the quiz's term `name`. The parts
    must all appear in one sentence, in any order, within `window` words; `polarity` says whether the
    answer must assert the claim or deny it ("the weights do not change").
    """

    subject: list[PhrasingText] = Field(min_length=1)
    relation: list[PhrasingText] = Field(default_factory=list)
    object: list[PhrasingText] = Field(default_factory=list)
    polarity: Literal["asserted", "denied"] = "asserted"
    window: int = Field(8, ge=1, le=40, description="Most words between the first part found and the last.")
    negators: list[str] = Field(
        default_factory=list, description="Extra words that deny this claim only (e.g. 'prevent*', 'would')."
    )
    scope: Literal["sentence", "clause"] = Field(
        "sentence", description="Where its parts must lie: one sentence, or one clause (never across 'so', "
        "'therefore', 'whereas', ', but'), for a claim that is one predication ('looking at the next token') "
        "rather than an inference ('rows sum to one, so it is causal').")

    @model_validator(mode="after")
    def _terms_expanded(self) -> Claim:
        for phrasing in (*self.subject, *self.relation, *self.object):
            if phrasing.startswith("@"):
                raise ValueError(f"unknown term {phrasing!r}; declare it under the quiz's 'terms'")
        return self


ClaimEntry = Annotated[Claim | list[Claim], Field(description="A claim, or a list of claims that must all hold.")]


class _Recognised(_Model):
    """Something found in an answer by phrasings or by claims (either may be empty, not both)."""

    claims: list[ClaimEntry] = Field(default_factory=list)
    rivals: list[PhrasingText] = Field(
        default_factory=list,
        description="What would hold this point's role instead of its subject ('@value' for 'queries and keys "
        "set the weights'): where a rival takes the role (in a phrasing's gaps, nearer a claim's relation than "
        "its subject, or joined to it: 'keys and values decide') the point is not made. '@name' terms allowed.",
    )

    def _needs_evidence(self, phrasings: list) -> None:
        if not phrasings and not self.claims:
            raise ValueError("give at least one phrasing or claim")
        if any(r.startswith("@") for r in self.rivals):
            raise ValueError("unknown term in 'rivals'; declare it under the quiz's 'terms'")


class KeyPoint(_Recognised):
    id: Id
    text: str = Field(description="The point itself, as an instructor's rubric line.")
    accept: list[AcceptEntry] = Field(default_factory=list)
    together: list[list[PhrasingText]] = Field(
        default_factory=list,
        description="What the point says acts together (['@query'], ['@key']): one of them said to act alone "
        "('the keys alone', 'only the query') contradicts the point, a wrong claim. '@name' terms allowed.",
    )
    required: bool = True
    weight: float = Field(1.0, gt=0)
    feedback: str = Field(description="Told to the learner when the point is missing.")
    follow_up: str | None = Field(None, description="One question asked when the point is missing.")
    follow_up_accept: list[AcceptEntry] = Field(
        default_factory=list, description="Short replies that answer the follow-up question ('the next token')."
    )
    follow_up_wrong: list[AcceptEntry] = Field(
        default_factory=list,
        description="Replies that answer the follow-up wrongly ('sqrt(d_k)' for a variance): never credited.",
    )
    follow_up_feedback: str | None = Field(
        None, description="Told when the reply to the follow-up misses: about that question, not the whole item."
    )

    @model_validator(mode="after")
    def _evidence(self) -> KeyPoint:
        self._needs_evidence(self.accept)
        if len(self.together) == 1:
            raise ValueError("'together' names at least two things that act together")
        if (self.follow_up_accept or self.follow_up_wrong or self.follow_up_feedback) and not self.follow_up:
            raise ValueError("follow_up_accept, follow_up_wrong and follow_up_feedback need a follow_up question")
        if any(p.startswith("@") for group in self.together for p in group):
            raise ValueError("unknown term in 'together'; declare it under the quiz's 'terms'")
        return self


class Misconception(_Recognised):
    id: Id
    match: list[AcceptEntry] = Field(default_factory=list)
    feedback: str
    contradicts: Id | None = Field(
        None, description="Numeric items only: the target or key point this misconception answers wrongly ('the "
        "weights shift' for 'the weights do not change'). It marks that part wrong and leaves the other asked parts "
        "judged on their own (partial at best); a misconception without it makes the answer incorrect.")

    @model_validator(mode="after")
    def _evidence(self) -> Misconception:
        self._needs_evidence(self.match)
        return self


class NumericTarget(_Model):
    name: Id
    label: str = Field(description="What the number is, e.g. 'final-row weights'.")
    aliases: list[str] = Field(
        default_factory=list,
        description="Words that introduce this value in free text, so 'weights ... output ...' can be split.",
    )
    value: NumberOrVector
    also: list[NumberOrVector] = Field(default_factory=list, description="Other acceptable answers.")
    rtol: float = Field(0.0, ge=0)
    atol: float = Field(0.0, ge=0)
    feedback: str = Field(description="Told to the learner when the value is wrong.")

    @model_validator(mode="after")
    def _tolerance(self) -> NumericTarget:
        shape = len(self.value) if isinstance(self.value, list) else None
        for alt in self.also:
            if (len(alt) if isinstance(alt, list) else None) != shape:
                raise ValueError(f"'also' entries must have the shape of 'value' ({shape or 'scalar'})")
        return self

    @property
    def values(self) -> list[float]:
        return list(self.value) if isinstance(self.value, list) else [self.value]

    def tolerance(self, expected: float) -> float:
        return self.atol + self.rtol * abs(expected)


class _Item(_Model):
    id: Id
    prompt: str
    section: str = Field(description="Chapter section to reread.")
    points: float = Field(1.0, ge=0)
    explanation: str = Field(description="Model answer, revealed after the learner commits.")
    # The quiz's words, against which an answer's spelling is corrected; set by the quiz that holds the item.
    _vocabulary: frozenset[str] = PrivateAttr(default=frozenset())

    @property
    def vocabulary(self) -> frozenset[str]:
        return self._vocabulary or quiz_words(self)


class _Rubric(_Model):
    key_points: list[KeyPoint] = Field(default_factory=list)
    misconceptions: list[Misconception] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_points(self):
        ids = [k.id for k in self.key_points] + [m.id for m in self.misconceptions]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"duplicate key point or misconception ids: {', '.join(dupes)}")
        return self


class NumericItem(_Item, _Rubric):
    type: Literal["numeric"]
    targets: list[NumericTarget] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_targets(self) -> NumericItem:
        names = [t.name for t in self.targets] + [k.id for k in self.key_points]
        if len(set(names)) != len(names):
            raise ValueError("target names and key point ids must be distinct")
        return self

    @model_validator(mode="after")
    def _contradicted_parts_exist(self) -> NumericItem:
        asked = {t.name for t in self.targets} | {k.id for k in self.key_points if k.required}
        for m in self.misconceptions:
            if m.contradicts is not None and m.contradicts not in asked:
                raise ValueError(f"misconception {m.id!r} contradicts {m.contradicts!r}, which is no target or "
                                 f"required key point of this item")
        return self


class ConceptsItem(_Item, _Rubric):
    type: Literal["concepts"]

    @model_validator(mode="after")
    def _needs_required(self) -> ConceptsItem:
        if not any(k.required for k in self.key_points):
            raise ValueError("a concepts item needs at least one required key point")
        if any(m.contradicts for m in self.misconceptions):
            raise ValueError("'contradicts' is for numeric items: in a concepts item any wrong claim is wrong")
        return self


class ChoiceOption(_Model):
    label: str = Field(pattern=r"^[A-Z]$")
    text: str
    correct: bool = False
    feedback: str
    accept: list[AcceptEntry] = Field(
        default_factory=list,
        description="Explicit evidence for this option in words ('dim=-1', 'last axis', 'over the keys').",
    )
    hints: list[AcceptEntry] = Field(
        default_factory=list,
        description="Incidental words that lean to this option ('receiving'); explicit evidence outweighs them.",
    )


class ChoiceItem(_Item):
    type: Literal["choice"]
    options: list[ChoiceOption] = Field(min_length=2)

    @model_validator(mode="after")
    def _one_correct(self) -> ChoiceItem:
        if sum(o.correct for o in self.options) != 1:
            raise ValueError("a choice item needs exactly one correct option")
        labels = [o.label for o in self.options]
        if len(set(labels)) != len(labels):
            raise ValueError("option labels must be distinct")
        return self


class SelfItem(_Item):
    type: Literal["self"]
    checklist: list[str] = Field(min_length=1, description="What the learner (or a partner) checks.")


Item = Annotated[NumericItem | ChoiceItem | ConceptsItem | SelfItem, Field(discriminator="type")]


class Card(_Model):
    id: Annotated[str, Field(pattern=r"^card-[a-z0-9]+(-[a-z0-9]+)*$")]
    topic: str
    front: str
    back: str
    section: str


def _expand_terms(node, terms: dict, inside_claim: bool = False):
    """Replace "@name" entries of claim parts by the term's phrasings (terms are declared once per quiz)."""
    if isinstance(node, dict):
        claim = inside_claim or "subject" in node
        return {k: [_expand_terms(group, terms, True) for group in v] if k == "together" and isinstance(v, list)
                else _expand_terms(v, terms, (claim and k in ("subject", "relation", "object")) or k == "rivals")
                for k, v in node.items()}
    if isinstance(node, list):
        if inside_claim:
            out = []
            for entry in node:
                if isinstance(entry, str) and entry.startswith("@"):
                    if entry[1:] not in terms:
                        raise ValueError(f"unknown term {entry!r}; declare it under 'terms'")
                    out.extend(terms[entry[1:]])
                else:
                    out.append(entry)
            return out
        return [_expand_terms(v, terms) for v in node]
    return node


class Quiz(_Model):
    schema_version: Literal[1] = 1
    chapter: str
    title: str
    terms: dict[Id, list[PhrasingText]] = Field(
        default_factory=dict,
        description="Synonym lists shared by claims: a claim part '@weights' means every phrasing of 'weights'.",
    )
    items: list[Item] = Field(min_length=1)
    cards: list[Card] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _terms(cls, data):
        if isinstance(data, dict) and isinstance(data.get("terms"), dict) and "items" in data:
            data = {**data, "items": _expand_terms(data["items"], data["terms"])}
        return data

    @model_validator(mode="after")
    def _unique_ids(self) -> Quiz:
        ids = [i.id for i in self.items] + [c.id for c in self.cards]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"duplicate ids: {', '.join(dupes)}")
        return self

    @model_validator(mode="after")
    def _share_vocabulary(self) -> Quiz:
        words = self.vocabulary
        for item in self.items:
            item._vocabulary = words
        return self

    @property
    def vocabulary(self) -> frozenset[str]:
        return quiz_words(self)

    def item(self, item_id: str):
        return next((i for i in self.items if i.id == item_id), None)
