"""The quiz judge against one labelled answer file: `python bench/quiz_agreement.py FILE [FILE ...]`.

FILE is a YAML mapping with `answers:` (a list of {item, answer, verdict}) and optionally `follow_ups:`
(also {item, follow_up, answer, verdict}), the shape of tests/quiz/quiz_blind2_answers.yaml. Prints
three-way agreement, correct-or-not, false praise (a partial or incorrect answer judged correct),
undetermined, agreement by item, the confusion matrix (label by row, judge by column) and, with
`--misses`, every disagreement. A measuring script: it asserts nothing and writes nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from grader.quiz.agreement import Agreement, blind_agreement, follow_up_agreement  # noqa: E402
from grader.quiz.load import DEFAULT_QUIZ, load_quiz  # noqa: E402

VERDICTS = ("correct", "partial", "incorrect", "undetermined")


def confusion_lines(result: Agreement) -> list[str]:
    """Every (label, verdict) pair, agreements on the diagonal included."""
    counts = dict(result.confusion)
    labels = {lab for lab, _ in counts} | set(VERDICTS[:3])
    agreed = result.agree_by_label
    width = max(len(v) for v in VERDICTS) + 2
    out = ["  confusion (rows: label, columns: judge):", "    " + "".ljust(width) + "".join(v.ljust(width) for v in VERDICTS)]
    for lab in [v for v in VERDICTS if v in labels]:
        row = [agreed.get(lab, 0) if lab == v else counts.get((lab, v), 0) for v in VERDICTS]
        out.append("    " + lab.ljust(width) + "".join(str(c).ljust(width) for c in row))
    return out


def problems(quiz, path: Path) -> list[str]:
    """What makes the file unmeasurable, one line each (empty when it can be measured)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        return [f"{path}: not YAML ({exc})"]
    if not isinstance(data, dict) or not isinstance(data.get("answers"), list):
        return [f"{path}: expected a mapping with 'answers:', a list of {{item, answer, verdict}}"]
    out = []
    for key in ("answers", "follow_ups"):
        for i, row in enumerate(data.get(key) or []):
            where = f"{path}: {key}[{i}]"
            if not isinstance(row, dict):
                out.append(f"{where}: not a mapping")
                continue
            if quiz.item(row.get("item")) is None:
                out.append(f"{where}: unknown item {row.get('item')!r}")
            if not isinstance(row.get("answer", row.get("quote")), str):
                out.append(f"{where}: no answer text")
            if row.get("verdict") not in VERDICTS[:3]:
                out.append(f"{where}: verdict {row.get('verdict')!r} is not one of correct, partial, incorrect")
    return out


def report(path: Path, misses: bool) -> list[str]:
    quiz = load_quiz(DEFAULT_QUIZ)
    if bad := problems(quiz, path):
        raise ValueError("\n".join(bad))
    result = blind_agreement(quiz, path)
    lines = [*result.lines(path.name), *confusion_lines(result)]
    if misses:
        lines += [f"  #{i} {label} -> {verdict}: {answer}" for i, label, verdict, answer in result.misses]
    if yaml.safe_load(path.read_text(encoding="utf-8")).get("follow_ups"):
        follow = follow_up_agreement(quiz, path)
        lines += follow.lines(f"{path.name} follow-up replies")
        if misses:
            lines += [f"  #{i} {label} -> {verdict}: {answer}" for i, label, verdict, answer in follow.misses]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, help="labelled answer files (YAML)")
    parser.add_argument("--misses", action="store_true", help="list every disagreement")
    args = parser.parse_args(argv)
    for path in args.files:
        if not path.is_file():
            print(f"{path}: no such file", file=sys.stderr)
            return 2
        try:
            print("\n".join(report(path, args.misses)))
        except ValueError as exc:
            print(f"not a labelled answer file:\n{exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
