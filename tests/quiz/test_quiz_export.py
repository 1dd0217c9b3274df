"""LMS exports parse, and every numeric item keeps its tolerance."""

import html
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from grader.quiz.export import to_gift, to_moodle_xml
from grader.quiz.load import DEFAULT_QUIZ, load_quiz

ROOT = Path(__file__).resolve().parents[2]
QUIZ = load_quiz(DEFAULT_QUIZ)


def expected_numbers() -> list[tuple[str, float, float]]:
    """(item id, value, absolute tolerance) for every number the quiz expects."""
    out = []
    for item in QUIZ.items:
        for t in getattr(item, "targets", []):
            for v in t.values + [a for a in t.also if not isinstance(a, list)]:
                out.append((item.id, v, t.atol + t.rtol * abs(v)))
    return out


def test_moodle_xml_parses_and_keeps_tolerances(tmp_path):
    out = tmp_path / "quiz.xml"
    proc = subprocess.run([sys.executable, "-m", "grader", "quiz", "export", "--format", "moodle-xml",
                           "--out", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    root = ET.parse(out).getroot()
    assert root.tag == "quiz"
    found = []
    for q in root.iter("question"):
        name = q.findtext("name/text") or ""
        iid = name.split(":")[0]
        if q.get("type") == "numerical":
            for a in q.findall("answer"):
                found.append((iid, float(a.findtext("text")), float(a.findtext("tolerance"))))
        if q.get("type") == "cloze":
            for v, tol in re.findall(r"\{1:NUMERICAL:=([-\d.e]+):([-\d.e]+)#", q.findtext("questiontext/text")):
                found.append((iid, float(v), float(tol)))
    want = expected_numbers()
    assert len(found) == len(want)
    for (iid, v, tol), (wid, wv, wtol) in zip(sorted(found), sorted(want), strict=True):
        assert iid == wid and v == pytest.approx(wv, abs=1e-9) and tol == pytest.approx(wtol, abs=1e-12)

    types = {q.findtext("name/text"): q.get("type") for q in root.iter("question") if q.get("type") != "category"}
    assert types["softmax-axis"] == "multichoice"
    assert types["what-mixes"] == "essay" and types["explain-it-back"] == "essay"
    assert types["value-change: explanation"] == "essay", "the words part of the combined item"
    choice = next(q for q in root.iter("question") if q.findtext("name/text") == "softmax-axis")
    fractions = [a.get("fraction") for a in choice.findall("answer")]
    assert fractions.count("100") == 1 and all(a.findtext("feedback/text") for a in choice.findall("answer"))
    essay = next(q for q in root.iter("question") if q.findtext("name/text") == "row-sums-vs-causality")
    info = essay.findtext("graderinfo/text")
    for kp in QUIZ.item("row-sums-vs-causality").key_points:
        assert html.escape(kp.text, quote=False) in info


def _gift_questions(text: str) -> list[tuple[str, str, str]]:
    """A minimal GIFT reader: (name, question text, answer block) with escapes honoured."""
    out = []
    for block in re.split(r"\n\s*\n", text):
        lines = [ln for ln in block.splitlines() if not ln.startswith(("//", "$CATEGORY"))]
        if not lines:
            continue
        src = "\n".join(lines)
        m = re.match(r"::((?:\\.|[^:\\])*)::(.*)$", src, re.S)
        assert m, f"no title in {src[:60]!r}"
        rest, depth, start, stop = m.group(2), 0, None, None
        i = 0
        while i < len(rest):
            ch = rest[i]
            if ch == "\\":
                i += 2
                continue
            if ch == "{":
                depth += 1
                start = i if start is None else start
            elif ch == "}":
                depth -= 1
                stop = i
            assert depth in (0, 1), "unescaped brace inside a question"
            i += 1
        assert depth == 0 and start is not None and rest[stop + 1:].strip() == ""
        out.append((m.group(1), rest[:start], rest[start + 1:stop]))
    return out


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), s)


def test_gift_parses_and_keeps_tolerances(tmp_path):
    out = tmp_path / "quiz.gift"
    subprocess.run([sys.executable, "-m", "grader", "quiz", "export", "--format", "gift", "--out", str(out)],
                   check=True, cwd=ROOT, capture_output=True)
    questions = _gift_questions(out.read_text())
    found = []
    for name, _text, answer in questions:
        if answer.startswith("#"):
            body = answer[1:].split("####")[0]
            for v, tol in re.findall(r"=([-\d.e]+):([-\d.e]+)", body):
                found.append((_unescape(name).split(":")[0], float(v), float(tol)))
    want = expected_numbers()
    assert len(found) == len(want)
    for (iid, v, tol), (wid, wv, wtol) in zip(sorted(found), sorted(want), strict=True):
        assert iid == wid and v == pytest.approx(wv, abs=1e-9) and tol == pytest.approx(wtol, abs=1e-12)
    choice = next(a for n, _, a in questions if _unescape(n) == "softmax-axis")
    parts = re.split(r"(?<!\\)[=~]", choice.split("####")[0])
    assert len([p for p in parts if p.strip()]) == 4 and choice.count("#") >= 4
    essays = [_unescape(n) for n, _, a in questions if a.startswith("####")]
    assert "row-sums-vs-causality: explanation" in essays and "explain-it-back: explanation" in essays


def test_gift_escapes_special_characters():
    # Negative control for the reader above: an unescaped brace is caught.
    with pytest.raises(AssertionError):
        _gift_questions("::x::a { b {=c}}")
    assert "\\=" in to_gift(QUIZ) and "\\:" in to_gift(QUIZ)


def test_moodle_xml_is_deterministic():
    assert to_moodle_xml(QUIZ) == to_moodle_xml(QUIZ)
