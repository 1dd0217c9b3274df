"""How often the judge agrees with a teacher's labels: three ways, correct-or-not, false praise, undetermined.

The labelled files are YAML lists of {item, answer, verdict} (follow-ups add the question asked).

Read by tests/quiz/test_quiz_blind.py (which asserts floors) and bench/accuracy.py (which reports them).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from grader.quiz.judge import follow_up_answered, judge
from grader.quiz.models import Quiz


@dataclass
class Agreement:
    n: int = 0
    agree: int = 0  # three ways: correct / partial / incorrect as labelled
    binary: int = 0  # correct-or-not
    false_praise: int = 0  # labelled partial or incorrect, judged correct
    undetermined: int = 0
    by_item: Counter = field(default_factory=Counter)
    agree_by_item: Counter = field(default_factory=Counter)
    confusion: Counter = field(default_factory=Counter)  # (label, verdict) where they differ
    agree_by_label: Counter = field(default_factory=Counter)  # the confusion matrix's diagonal
    misses: list[tuple[int, str, str, str]] = field(default_factory=list)  # (index, label, verdict, answer)

    def add(self, index: int, item: str, label: str, verdict: str, answer: str) -> None:
        self.n += 1
        self.by_item[item] += 1
        if verdict == label:
            self.agree += 1
            self.agree_by_item[item] += 1
            self.agree_by_label[label] += 1
        else:
            self.confusion[(label, verdict)] += 1
            self.misses.append((index, label, verdict, answer))
        self.binary += (verdict == "correct") == (label == "correct")
        self.false_praise += verdict == "correct" and label != "correct"
        self.undetermined += verdict == "undetermined"

    def lines(self, name: str) -> list[str]:
        pct = (lambda k: f"{k}/{self.n} = {k / self.n:.1%}") if self.n else (lambda k: f"{k}/0")
        return [
            f"{name}: three-way {pct(self.agree)}; correct-or-not {pct(self.binary)}; "
            f"false praise {self.false_praise}; undetermined {pct(self.undetermined)}",
            "  by item: " + ", ".join(f"{k} {self.agree_by_item[k]}/{v}" for k, v in self.by_item.items()),
            "  disagreements (label -> judge): "
            + (", ".join(f"{a}->{b} x{c}" for (a, b), c in sorted(self.confusion.items())) or "none"),
        ]


def _rows(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def blind_agreement(quiz: Quiz, path: Path) -> Agreement:
    """Every labelled answer of the file (`answer`, or the `quote` judged as is) against its `verdict`."""
    out = Agreement()
    for i, row in enumerate(_rows(path)["answers"]):
        text = row.get("answer", row.get("quote"))
        out.add(i, row["item"], row["verdict"], judge(quiz.item(row["item"]), text).verdict, text)
    return out


def follow_up_agreement(quiz: Quiz, path: Path) -> Agreement:
    """Replies to follow-up questions, labelled correct or incorrect, judged by the point that asks them."""
    out = Agreement()
    for i, row in enumerate(_rows(path)["follow_ups"]):
        item = quiz.item(row["item"])
        point = next(k for k in item.key_points if k.follow_up == row["follow_up"])
        verdict = "correct" if follow_up_answered(point, row["answer"], item.vocabulary) else "incorrect"
        out.add(i, row["item"], row["verdict"], verdict, row["answer"])
    return out


def second_labeller(path: Path, second: Path) -> tuple[int, int]:
    """(agreeing, sampled): the second labeller's verdicts against the first's on the same answers."""
    first = _rows(path)["answers"]
    labels = _rows(second)["labels"]
    return sum(first[lab["index"]]["verdict"] == lab["verdict"] for lab in labels), len(labels)
