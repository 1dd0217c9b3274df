"""Judge one answer to one item, offline: numbers by tolerance, words by key points and misconceptions."""

from __future__ import annotations

import re
from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from grader.quiz.models import (
    ChoiceItem,
    Claim,
    ConceptsItem,
    KeyPoint,
    Misconception,
    NumericItem,
    NumericTarget,
    Quiz,
    SelfItem,
)
from grader.quiz.phrases import (
    ClaimPattern,
    Doc,
    Phrasing,
    Rivals,
    as_number,
    compile_accept,
    normalise,
    said_alone,
)

# "undetermined": the answer talks about what a required point is about, credits nothing and claims nothing
# wrong, and the judge cannot tell what it says; it asks one question instead of marking it wrong.
Verdict = Literal["correct", "partial", "incorrect", "undetermined", "unanswered", "self"]


class ItemResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    verdict: Verdict
    score: float
    max_score: float
    feedback: str
    missing: list[str] = Field(default_factory=list, description="Key point ids (and numeric target names).")
    matched: list[str] = Field(default_factory=list)
    misconceptions: list[str] = Field(default_factory=list)
    question: str | None = Field(
        None, description="The one question the judge asks about a required point it could not decide "
        "(always set when the verdict is undetermined).")


class CheckResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: list[ItemResult]
    score: float
    max_score: float


@cache
def _compiled(entry: str | tuple[str, ...]) -> tuple[Phrasing, ...]:
    return tuple(compile_accept(list(entry) if isinstance(entry, tuple) else entry))


@cache
def _rivals(phrasings: tuple[str, ...]) -> Rivals | None:
    return Rivals(phrasings) if phrasings else None


def entry_matches(entries, doc: Doc, rivals: tuple[str, ...] = ()) -> bool:
    """An accept list is satisfied when any entry matches; a list entry needs all its phrasings."""
    for entry in entries:
        key = tuple(entry) if isinstance(entry, list) else entry
        if all(p.matches(doc, _rivals(rivals)) for p in _compiled(key)):
            return True
    return False


_PATTERNS: dict[tuple[int, tuple[str, ...]], tuple[Claim, ClaimPattern]] = {}


def _claim_pattern(claim: Claim, rivals: tuple[str, ...] = ()) -> ClaimPattern:
    # Models are unhashable; keyed by identity, the claim kept alive beside its compiled pattern.
    key = (id(claim), rivals)
    if key not in _PATTERNS:
        _PATTERNS[key] = (claim, ClaimPattern(
            claim.subject, claim.relation, claim.object, denied=claim.polarity == "denied",
            window=claim.window, negators=claim.negators, rivals=_rivals(rivals),
            one_clause=claim.scope == "clause"))
    return _PATTERNS[key][1]


def claims_match(claims, doc: Doc, rivals: tuple[str, ...] = ()) -> bool:
    """Like accept lists: any entry; an entry that is a list needs all its claims."""
    return any(all(_claim_pattern(c, rivals).matches(doc) for c in (entry if isinstance(entry, list) else [entry]))
               for entry in claims)


def recognised(thing: KeyPoint | Misconception, doc: Doc) -> bool:
    """A key point or misconception is in the answer when one of its phrasings or claims is, with no rival
    in the role it gives its subject."""
    phrasings = thing.accept if isinstance(thing, KeyPoint) else thing.match
    rivals = tuple(thing.rivals)
    return entry_matches(phrasings, doc, rivals) or claims_match(thing.claims, doc, rivals)


@cache
def _groups(groups: tuple[tuple[str, ...], ...]) -> list[list[Phrasing]]:
    return [[Phrasing("~" + p.removeprefix("~")) for p in group] for group in groups]


def contradicted(point: KeyPoint, doc: Doc) -> str | None:
    """What the answer says acts alone where the point says several act together ("the keys alone")."""
    if not point.together:
        return None
    return said_alone(doc, _groups(tuple(tuple(g) for g in point.together)))


def undecided(point: KeyPoint, doc: Doc) -> bool:
    """The answer names what one of the point's claims is about (its subject and another part, in one
    sentence) without the claim being made or denied in a way the judge can read."""
    rivals = tuple(point.rivals)
    return any(_claim_pattern(c, rivals).near(doc)
               for entry in point.claims for c in (entry if isinstance(entry, list) else [entry]))


def point_present(point: KeyPoint, text: str) -> bool:
    return recognised(point, Doc(text))


def follow_up_answered(point: KeyPoint, reply: str, vocabulary: frozenset[str] = frozenset()) -> bool:
    """A reply is judged against the follow-up question's own rubric: never credited when it says what that
    question's wrong answers say ("sqrt(d_k)" for a variance); credited when it is as short an answer as the
    question invites ("the next token", "d_k") or makes the point itself."""
    doc = Doc(reply, vocabulary)
    if entry_matches(point.follow_up_wrong, doc) or contradicted(point, doc):
        return False
    return entry_matches(point.follow_up_accept, doc) or recognised(point, doc)


# ---- numbers ---------------------------------------------------------------------------------

_NUMBER = re.compile(
    r"(?<![\w.])[+-]?(?:\d+(?:\.\d+)?|\.\d+)(?:e[+-]?\d+)?"  # 2, 0.333, .33, 1e-3
    r"(?:\s*/\s*\d+(?:\.\d+)?)?"  # 1/3
    r"(?:\s*%)?"  # 33%
    r"(?![\w.]\w)"
)
# Written-out exponentials are working, not answers: "e^0/(3e^0)", "exp(0)".
# So are the arguments of a softmax written out: "softmax(0, 0, 0) = ..." (its parentheses are commas by now).
_WORKING = re.compile(r"\d*\s*e\s*\^\s*[-+]?\d+(?:\.\d+)?|\bexp\s*,?\s*[-+]?\d+(?:\.\d+)?"
                      r"|\bsoftmax\s*,?\s*(?:of\s+)?(?:[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?![\d/.])\s*,\s*)*[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?![\d/.])")
# A target's name followed by an operator is an expression ("weights @ V = ..."), not a label for the weights.
_OPERAND = re.compile(r"\s*(?:@|\*|times\b|dot\b|multiplied\b|matmul\b)")
# Written-out arithmetic is working too: "(2+0+6)/3", "7*1/7" (parentheses are commas by now).
# Its first operand may be a fraction ("4/7 * 7"); a "+" spaced before and not after is a sign ("o 0 +1.0").
_ARITHMETIC = re.compile(r"[+-]?\d+(?:\.\d+)?(?:/\d+)?(?:(?:\s*\*\s*|\s+\+\s+|\+)[+-]?\d+(?:\.\d+)?(?:/\d+)?)+"
                         r"(?:\s*,?\s*/\s*\d+(?:\.\d+)?)?")
# A share said once for all of them, at the start of an unlabelled answer: "1/3 each -> ...".
# Or said of each before it: "each source gets 1/3", "every position receives a third" (1/3 by now).
_SHARE = r"([+-]?(?:\d+(?:\.\d+)?|\.\d+)(?:\s*/\s*\d+)?(?:\s*%)?)"
_EACH = re.compile(rf"^\D*?{_SHARE}\s+(?:each|apiece)\b"
                   rf"|^\W*(?:each|every)(?: [a-z]+){{0,3}}? (?:gets?|is|receives?|has|takes?|weighs?) (?:weight )?{_SHARE}")
# A bound is no value: "rises by more than 1" does not say 1.
_BOUND = re.compile(r"\b(?:more|less|greater|bigger|larger|smaller|fewer|higher|lower) than\s+[+-]?(?:\d+(?:\.\d+)?|\.\d+)"
                    r"(?:\s*/\s*\d+)?|\bat (?:least|most)\s+[+-]?(?:\d+(?:\.\d+)?|\.\d+)(?:\s*/\s*\d+)?")
_BROADCAST = re.compile(r"\b(each|all|every|uniform|uniformly|equal|equally|evenly|apiece"
                        r"|per (?:source|position|key|token|entry))\b")
# Said of shares, these mean 1/n each, n being the number of shares the target declares.
# "the weights are all the same" too, but not "the same as before" (a comparison, no share).
_UNIFORM = re.compile(r"\b(uniform|uniformly|equal|equally|evenly|same(?! as\b))\b")


_WORD_NUMBERS = {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
                 "seven": "7", "eight": "8", "nine": "9", "ten": "10"}
# Only after "by" ("goes up by one"): elsewhere "one" is usually a pronoun ("the current one").
# So is a result named by a relative pronoun: "one seventh of seven, which is one".
_BY_WORD = re.compile(r"\b(by|(?:which|that|this|it) (?:is|makes|gives|equals)) (" + "|".join(_WORD_NUMBERS) + r")\b")


_NUMBER_WORD = "|".join(_WORD_NUMBERS)
# "one over three": a fraction in words.
_OVER = re.compile(rf"\b({_NUMBER_WORD}|\d+) over ({_NUMBER_WORD}|\d+)\b")
# A number word standing alone as an item of a list ("8/3, two", "eight thirds and two."): a value, not a count
# ("the two vectors"); never "one", usually a pronoun.
_LISTED_WORD = re.compile(rf"(?:(?<=,)|(?<=\band))\s*\b({_NUMBER_WORD.replace('one|', '')})\b(?=\s*(?:[,.;]|$))")


# "two and two thirds" (2 and 2/3 by now): a whole number and a fraction.
_MIXED = re.compile(rf"(?<![/.\d])\b({_NUMBER_WORD}|\d+) and (\d+)/(\d+)\b")


def _word_number(word: str) -> str:
    return _WORD_NUMBERS.get(word, word)


def _mixed(m: re.Match) -> str:
    whole, num, den = int(_word_number(m.group(1))), int(m.group(2)), int(m.group(3))
    return f"{whole * den + num}/{den}" if 0 < num < den else m.group()  # a proper fraction only


# A divisor left after working was taken out ("[e^0, e^0, e^0] / 3" is " ,  ,  / 3" by then) divides that working:
# it is no value either.
_WORKING_DIVISOR = re.compile(r"\x00(?:[\s,]*\x00)*[\s,]*/\s*\d+(?:\.\d+)?")


def numbers_in(text: str) -> list[float]:
    text = _BY_WORD.sub(lambda m: m.group(1) + " " + _WORD_NUMBERS[m.group(2)], text)
    text = _MIXED.sub(_mixed, text)
    text = _OVER.sub(lambda m: f"{_word_number(m.group(1))}/{_word_number(m.group(2))}", text)
    text = _LISTED_WORD.sub(lambda m: " " + _WORD_NUMBERS[m.group(1)], text)
    text = _WORKING_DIVISOR.sub(" ", _WORKING.sub("\x00", text)).replace("\x00", " ")
    text = _BOUND.sub(" ", text)
    text = _ARITHMETIC.sub(" ", text)
    out = []
    for m in _NUMBER.finditer(text):
        token = m.group().replace(" ", "")
        value = as_number(token.rstrip("%"))
        if value is not None:
            out.append(float(value / 100 if token.endswith("%") else value))
    return out


def _segments(text: str, targets: list[NumericTarget]) -> dict[str, list[tuple[str, str]]]:
    """Text following each mention of a target's alias, up to the next mention of any alias."""
    marks = []
    for t in targets:
        for alias in t.aliases:
            for m in re.finditer(rf"\b{re.escape(normalise(alias))}\b", text):
                if not _OPERAND.match(text, m.end()):
                    marks.append((m.start(), m.end(), t.name))
    marks.sort()
    segs: dict[str, list[tuple[str, str]]] = {}
    for i, (start, end, name) in enumerate(marks):
        stop = marks[i + 1][0] if i + 1 < len(marks) else len(text)
        # "each weight is 1/3": a broadcast word may come just before the label.
        lead = " ".join(text[:start].split()[-2:])
        seg = text[end:stop]
        segs.setdefault(name, []).append((seg, lead + " " + seg))
    return segs


def _is_shares(target: NumericTarget) -> bool:
    """A target of n equal shares summing to one: the only kind "equal" or "uniform" gives a value to."""
    n = len(target.values)
    return n > 1 and all(abs(v - 1 / n) <= 1e-9 for v in target.values)


def _uniform(numbers: list[float], target: NumericTarget, words: str) -> bool:
    """'equal weights', 'split evenly': 1/n each, unless a share written beside it says otherwise."""
    if not (_is_shares(target) and _UNIFORM.search(words)):
        return False
    n = len(target.values)
    return not any(0 < x < 1 and abs(x - 1 / n) > target.tolerance(1 / n) for x in numbers)


def _rounded(got: float, want: float) -> bool:
    """'2.7' for 8/3: the value rounded at the precision written, one or two decimals, if that keeps two significant
    digits ('0.3' for 1/3 keeps one, and is no third)."""
    for places in (1, 2):
        if abs(got - round(want, places)) < 1e-9 and abs(round(got * 10 ** places)) >= 10:
            return True
    return False


def _close_to(got: list[float], want: list[float], target: NumericTarget) -> bool:
    return len(got) == len(want) and all(abs(g - w) <= target.tolerance(w) or _rounded(g, w)
                                         for g, w in zip(got, want, strict=True))


def _fits(numbers: list[float], target: NumericTarget, broadcast: bool) -> bool:
    candidates = [target.values] + [a if isinstance(a, list) else [a] for a in target.also]
    n = len(target.values)
    if n == 1:
        # A scalar may sit among other numbers ("from 26/7 to 33/7, up by 1").
        return any(_close_to([x], c, target) for x in numbers for c in candidates)
    windows = [numbers[:n], numbers[-n:]]
    if broadcast:
        # "each weight is 1/3", "e^0/(3e^0) = 33% each": one number stands for all n.
        windows += [[x] * n for x in numbers]
    return any(_close_to(w, c, target) for w in windows for c in candidates)


# What a conclusion introduces is the answer; the numbers before it were working ("[8, 6]/3... so [2.67, 3]").
_CONCLUSION = re.compile(r"\b(?:so|thus|hence|therefore|i e)\b")


def _concluded(seg: str, n: int) -> list[float]:
    """The numbers of a labelled segment; only those after its last conclusion word when they are all of a
    vector target's n values."""
    ends = [m.end() for m in _CONCLUSION.finditer(seg)]
    if n > 1 and ends and len(tail := numbers_in(seg[ends[-1]:])) == n:
        return tail
    return numbers_in(seg)


def judge_numbers(item: NumericItem, text: str) -> dict[str, tuple[bool, str]]:
    """For each target: (correct, what the learner seems to have written)."""
    norm = normalise(text)
    segs = _segments(norm, item.targets)
    everything = numbers_in(norm)
    out: dict[str, tuple[bool, str]] = {}
    unlabelled = not segs
    if unlabelled and len(item.targets) > 1 and _is_shares(item.targets[0]):
        # "1/3 each, then [8/3, 2]": a share said once for all n stands for n numbers in the count.
        bare = _WORKING.sub(" ", norm)  # "softmax(0,0,0) gives 1/3 each": the share is still said first
        each = _EACH.search(bare)
        if each and (one := numbers_in(each.group(1) or each.group(2))) and len(one) == 1:
            rest = numbers_in(bare[each.end():])
            everything = one * len(item.targets[0].values) + rest
    offset = 0
    for t in item.targets:
        if t.name in segs:
            said = [(_concluded(seg, len(t.values)), words) for seg, words in segs[t.name]]
            if any(_uniform(nums, t, words) for nums, words in said):
                out[t.name] = (True, "equal shares")
                continue
            tried = [(nums, bool(_BROADCAST.search(words))) for nums, words in said]
            tried = [x for x in tried if x[0]] or [([], False)]
        elif _uniform(everything, t, norm):
            out[t.name] = (True, "equal shares")
            continue
        elif unlabelled and len(item.targets) > 1:
            # No labels at all: accept the numbers in target order when the count fits exactly. With more numbers
            # than that, working stands between the answers: the first target is said first, the last one last
            # ("1/3 each. (2+0+6)/3 = 8/3 and (0+4+2)/3 = 2, so [2.67, 2]").
            total = sum(len(x.values) for x in item.targets)
            chunk = everything[offset:offset + len(t.values)] if len(everything) == total else []
            if len(everything) > total and t is item.targets[0]:
                chunk = everything[:len(t.values)]
            elif len(everything) > total and t is item.targets[-1]:
                chunk = everything[-len(t.values):]
            offset += len(t.values)
            tried = [(chunk, False)]
        else:
            tried = [(everything, bool(_BROADCAST.search(norm)))]
        ok = any(_fits(nums, t, bc) for nums, bc in tried)
        shown = ", ".join(f"{x:g}" for x in tried[0][0]) or "nothing"
        out[t.name] = (ok, shown)
    return out


# ---- verdicts --------------------------------------------------------------------------------


def _verdict(earned: float, asked_made: int | None, required_ok: bool, wrong_claim: bool, wrong_part: bool) -> Verdict:
    """correct: every required point, nothing wrong; incorrect: a wrong claim, or nothing made. In a numeric
    item (`asked_made` not None: the targets and required points it got right) with no asked part right, an
    optional remark ("1/7" beside a wrong change) does not make it partial. A wrong answer to one asked part
    (`wrong_part`: a misconception that `contradicts` it, "the weights shift") leaves the other parts judged
    on their own: partial at best, incorrect only when no other part is right."""
    if wrong_claim or earned == 0 or asked_made == 0:
        return "incorrect"
    return "correct" if required_ok and not wrong_part else "partial"


def _judge_rubric(item: NumericItem | ConceptsItem, text: str) -> ItemResult:
    doc = Doc(text, item.vocabulary)
    lines: list[str] = []
    matched: list[str] = []
    missing: list[str] = []
    earned = 0.0  # every point made: nothing made is an incorrect answer
    scored_earned = scored = 0.0  # the score's share: required points only, so missing an optional one costs nothing
    required_made = 0
    required_ok = True
    if isinstance(item, NumericItem):
        for t in item.targets:
            ok, shown = judge_numbers(item, doc.text)[t.name]
            scored += 1
            if ok:
                earned += 1
                scored_earned += 1
                required_made += 1
                matched.append(t.name)
                lines.append(f"✓ {t.label}")
            else:
                required_ok = False
                missing.append(t.name)
                lines.append(f"✗ {t.label}: {t.feedback} (read from your answer: {shown})")
    alone: list[str] = []
    undecided_points: list[KeyPoint] = []
    credited = doc.credited()  # a point said only under a doubt ("not sure why ...") is not made
    for kp in item.key_points:
        scored += kp.weight * kp.required
        if (words := contradicted(kp, doc)) is not None:
            missing.append(kp.id)
            required_ok = required_ok and not kp.required
            alone.append(kp.id)
            lines.append(f'! "{words}": not by itself. {kp.text}')
        elif recognised(kp, credited):
            earned += kp.weight
            scored_earned += kp.weight * kp.required
            required_made += kp.required
            matched.append(kp.id)
            lines.append(f"✓ {kp.text}")
        elif kp.required and kp.follow_up and undecided(kp, doc):
            # Talked about, not readable as said or denied: ask, rather than mark it missing.
            missing.append(kp.id)
            required_ok = False
            undecided_points.append(kp)
            lines.append(f"? Could not tell whether your answer says this: {kp.text} {kp.follow_up}")
        else:
            missing.append(kp.id)
            required_ok = required_ok and not kp.required
            lines.append(f"✗ {kp.feedback}" + ("" if kp.required else " (optional: costs nothing)"))
    wrong = [m for m in item.misconceptions if recognised(m, doc)]
    # What is wrong first, then what the judge could not decide, then the rest in rubric order.
    lines = [f"! {m.feedback}" for m in wrong] + sorted(lines, key=lambda x: {"!": 0, "?": 1}.get(x[:1], 2))
    # In a numeric item a misconception that contradicts one asked part is that part answered wrongly.
    numeric = isinstance(item, NumericItem)
    fatal = [m for m in wrong if not (numeric and m.contradicts)]
    verdict = _verdict(earned, required_made if numeric else None, required_ok, bool(fatal or alone),
                       bool(wrong))
    # Nothing credited and nothing wrong, but a required point talked about: no confident verdict.
    if verdict == "incorrect" and earned == 0 and undecided_points and not (wrong or alone):
        verdict = "undetermined"
    question = undecided_points[0].follow_up if undecided_points and verdict != "incorrect" else None
    score = item.points if verdict == "correct" else 0.0 if verdict in ("incorrect", "undetermined") \
        else item.points * scored_earned / (scored or 1)
    return ItemResult(
        id=item.id, verdict=verdict, score=round(score, 6), max_score=item.points,
        feedback="\n".join(lines), missing=missing, matched=matched,
        misconceptions=[m.id for m in wrong] + [f"{k}-alone" for k in alone], question=question,
    )


_LABEL = re.compile(r"^\s*(?:(?:option|answer|choice)\s*)?\(?([A-Za-z])\)?\s*(?:$|[.):]\s*|\s+-\s+)", re.I)
# "The answer is B." / "option (b), because": the letter must end its phrase ("answer is a weighted sum" is no pick).
_NAMED = re.compile(r"\b(?:option|answer|choice)\s+(?:is\s+)?\(?([a-z])\)?(?=\s*(?:$|[.,;:!)]))", re.I)

# How strongly an answer in words supports an option: its letter, explicit evidence, incidental words.
LETTER, EXPLICIT, INCIDENTAL = 3, 2, 1


# A capital letter standing alone names an option where nothing reads it as the article "A": a word that
# introduces a pick before it ("not B", "option A", "it's D"), or punctuation, a conjunction or a verb after it
# ("A, not B", "A or B", "B is wrong"). Not "A row sums to one".
_CAPITAL = re.compile(r"(?<![\w'])\(?([A-Z])\)?(?![\w'])")
_INTRO = re.compile(r"\b(?:option|answer|choice|not|is|it's|its|say|pick|choose|chose|with|be|so|hence|thus)\s*$",
                    re.I)
_AFTER = re.compile(r"^(?:\s*$|\s*[.,;:!?)-]|\s+(?:or|and|but|is|because|since|I|rather|instead)\b)")
# What denies a letter: a negator just before it ("not B"), or a verdict after it in its clause ("B is wrong").
# Letters rejected together: "not C or D", "neither B nor C" ("not B, A" is a contrast: A is kept).
_REJECT_LIST = re.compile(r"(?i:\b(?:not|never|neither))\s+(?:options?\s+)?(?:\(?[A-Z]\)?\s*,\s*)*\(?[A-Z]\)?\s*"
                          r"(?i:or|and|nor)\s*\(?$")
# ... and the middle of such a list ("not B, C or D": C).
_LIST_HEAD = re.compile(r"(?i:\b(?:not|never|neither))\s+(?:options?\s+)?(?:\(?[A-Z]\)?\s*,\s*)+\(?$")
_LIST_TAIL = re.compile(r"^\)?\s*(?:,\s*\(?[A-Z]\)?\s*)*(?i:or|nor)\s+\(?[A-Z]\b")
# A letter named as the alternative just set aside ("not the columns, that would be B"), or after a contrast
# ("A rather than B", "A instead of B"), is no pick either.
_REJECT_BEFORE = re.compile(r"(?:\b(?:not|no|never|nor|isn't|isnt|rather than|instead of|as opposed to)"
                            r"|\b(?:not|never|isn't|isnt)\b[^.;!?,]*,\s*that(?:'d| would)"
                            r"(?: have)? (?:be|been|mean))\s+(?:option\s+|answer\s+)?\(?$", re.I)
_REJECT_AFTER = re.compile(r"^\)?\s*(?:(?:is|was|would be|seems)?\s*(?:wrong|incorrect|false|not (?:right|correct|it))"
                           r"|(?:is|was) what (?:you|one)(?:'d| would) get)\b", re.I)


def _letters(text: str, labels: set[str]) -> tuple[set[str], set[str]]:
    """(picked, rejected) option letters named in the answer."""
    picked: set[str] = set()
    rejected: set[str] = set()
    for m in _CAPITAL.finditer(text):
        label = m.group(1)
        if label not in labels or not (_INTRO.search(text[:m.start()]) or _AFTER.match(text[m.end():])):
            continue
        before = text[:m.start(1)]
        after = text[m.end(1):]
        denied = (_REJECT_BEFORE.search(before) or _REJECT_LIST.search(before) or _REJECT_AFTER.match(after)
                  or (_LIST_HEAD.search(before) and _LIST_TAIL.match(after)))
        (rejected if denied else picked).add(label)
    return picked - rejected, rejected


def option_evidence(item: ChoiceItem, text: str) -> dict[str, int]:
    """The strongest evidence the answer gives for each option (0: none; an option the answer rejects by its
    letter, "not B", gets none whatever else it says)."""
    labels = {o.label for o in item.options}
    strength = dict.fromkeys(sorted(labels), 0)
    m = _LABEL.match(text)
    stripped = text.strip()
    # A bare "a" could be the article; a letter counts only alone or followed by ")", "." or ":".
    if m and m.group(1).upper() in labels and (
        len(stripped) == 1 or m.group(0).strip()[-1:] in ").:-"
        or stripped.lower().startswith(("option", "answer", "choice", "("))
    ):
        strength[m.group(1).upper()] = LETTER
    for named in _NAMED.finditer(text):
        if named.group(1).upper() in labels:
            strength[named.group(1).upper()] = LETTER
    picked, rejected = _letters(text, labels)
    for label in picked:
        strength[label] = LETTER
    doc = Doc(text, item.vocabulary)
    for o in item.options:
        if o.label in rejected:
            strength[o.label] = 0
            continue
        if strength[o.label] < EXPLICIT and o.accept and entry_matches(o.accept, doc):
            strength[o.label] = EXPLICIT
        elif strength[o.label] < INCIDENTAL and o.hints and entry_matches(o.hints, doc):
            strength[o.label] = INCIDENTAL
    return strength


def chosen_option(item: ChoiceItem, text: str) -> list[str]:
    """The options its strongest evidence supports: one, or several when they tie."""
    strength = option_evidence(item, text)
    best = max(strength.values())
    return [label for label, s in strength.items() if s == best] if best else []


# The options called interchangeable ("either axis works", "B would work just as well"): a wrong claim whatever
# letter comes with it, since the item asks which one is right.
_INTERCHANGEABLE = re.compile(
    r"\beither (?:\w+ )?(?:works?|is fine|would work|would do|is ok)\b|\bdoes not matter (?:which|what)\b"
    r"|\bwould (?:also )?work (?:just )?as well\b|\bboth (?:would )?(?:work|are fine|are correct)\b"
    r"|\b(?:would|will) also (?:be fine|work)\b|\bany (?:\w+ )?(?:works|would work|would do)\b"
    # Another option or axis said to give the same numbers ("B would give the same result", "axis -2 is equivalent"),
    # with no denial between them ("B would not give the same result" is a contrast).
    r"|(?:\b[b-d]\b|\b(?:dim|axis) -?\d\b|\bthe other (?:one|axis|option)\b)(?:(?!\bnot\b|\bnever\b)[^.;,]){0,30}?"
    r"\b(?:(?:gives?|produces?|yields?|returns?) (?:the )?(?:same|identical|equivalent)"
    r"|(?:is|are|would be) (?:just )?(?:equivalent|interchangeable|the same))\b")


def _judge_choice(item: ChoiceItem, text: str) -> ItemResult:
    picked = chosen_option(item, text)
    by_label = {o.label: o for o in item.options}
    if _INTERCHANGEABLE.search(normalise(text)):
        feedback = "✗ The options are not interchangeable: only one of them is right (see the model answer)."
        return ItemResult(id=item.id, verdict="incorrect", score=0.0, max_score=item.points, feedback=feedback,
                          matched=picked, misconceptions=["options-interchangeable"])
    if len(picked) == 1:
        opt = by_label[picked[0]]
        verdict: Verdict = "correct" if opt.correct else "incorrect"
        feedback = f"{'✓' if opt.correct else '✗'} {opt.label}) {opt.text}: {opt.feedback}"
    elif picked:
        verdict = "incorrect"
        feedback = f"✗ Your answer fits options {', '.join(picked)} equally well; commit to one."
    else:
        verdict = "incorrect"
        labels = ", ".join(o.label for o in item.options)
        feedback = f"✗ Could not match your answer to an option; answer with a letter ({labels}) or reword it."
    return ItemResult(
        id=item.id, verdict=verdict, score=item.points if verdict == "correct" else 0.0,
        max_score=item.points, feedback=feedback,
        matched=picked,
    )


def judge(item, text: str | None) -> ItemResult:
    if isinstance(item, SelfItem):
        if text is None or not text.strip():  # predict before checking: nothing is shown before an attempt
            return ItemResult(id=item.id, verdict="self", score=0.0, max_score=0.0,
                              feedback="Not tried yet: write your explanation, then check again to compare it "
                                       "with the model answer and its checklist.")
        checklist = "\n".join(f"- {c}" for c in item.checklist)
        return ItemResult(id=item.id, verdict="self", score=0.0, max_score=0.0,
                          feedback=f"Compare with the model answer:\n{item.explanation}\nCheck:\n{checklist}")
    if text is None or not text.strip():
        return ItemResult(id=item.id, verdict="unanswered", score=0.0, max_score=item.points,
                          feedback="No answer given.",
                          missing=[k.id for k in getattr(item, "key_points", [])])
    if isinstance(item, ChoiceItem):
        return _judge_choice(item, text)
    return _judge_rubric(item, text)


def check_answers(quiz: Quiz, answers: dict[str, str | None]) -> CheckResult:
    results = []
    for item in quiz.items:
        res = judge(item, answers.get(item.id))
        if res.verdict == "undetermined":
            # A question is asked, not answered for the learner: the model answer waits for a decidable answer.
            res.feedback += f"\nAnswer that question in your answer and check again.\nReread: {item.section}"
        elif res.verdict == "unanswered":
            res.feedback += " Its model answer stays hidden until you have tried it."
        elif res.verdict not in ("correct", "self"):
            res.feedback += f"\nModel answer: {item.explanation}\nReread: {item.section}"
        results.append(res)
    return CheckResult(
        items=results,
        score=round(sum(r.score for r in results), 6),
        max_score=round(sum(r.max_score for r in results), 6),
    )
