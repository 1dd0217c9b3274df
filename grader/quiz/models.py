"""The quiz file's shape: items (numeric, choice, concepts, self) and recall cards.

These models are the contract; `python -m grader schemas` publishes them as grader/schemas/quiz.schema.json.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from grader.quiz.phrases import Phrasing

Id = Annotated[str, Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")]


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


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KeyPoint(_Model):
    id: Id
    text: str = Field(description="The point itself, as an instructor's rubric line.")
    accept: list[AcceptEntry] = Field(min_length=1)
    required: bool = True
    weight: float = Field(1.0, gt=0)
    feedback: str = Field(description="Told to the learner when the point is missing.")
    follow_up: str | None = Field(None, description="One question asked when the point is missing.")


class Misconception(_Model):
    id: Id
    match: list[AcceptEntry] = Field(min_length=1)
    feedback: str


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


class ConceptsItem(_Item, _Rubric):
    type: Literal["concepts"]

    @model_validator(mode="after")
    def _needs_required(self) -> ConceptsItem:
        if not any(k.required for k in self.key_points):
            raise ValueError("a concepts item needs at least one required key point")
        return self


class ChoiceOption(_Model):
    label: str = Field(pattern=r"^[A-Z]$")
    text: str
    correct: bool = False
    feedback: str
    accept: list[AcceptEntry] = Field(
        default_factory=list, description="Phrasings that pick this option when the learner answers in words."
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


class Quiz(_Model):
    schema_version: Literal[1] = 1
    chapter: str
    title: str
    items: list[Item] = Field(min_length=1)
    cards: list[Card] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_ids(self) -> Quiz:
        ids = [i.id for i in self.items] + [c.id for c in self.cards]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"duplicate ids: {', '.join(dupes)}")
        return self

    def item(self, item_id: str):
        return next((i for i in self.items if i.id == item_id), None)
