"""Accepted phrasings: a tiny pattern language matched against a learner's free text.

A phrasing is either ``re:REGEX`` (searched in the normalised text) or a sequence of slots:

    weight* (stay|stays|remain*) the? same|unchanged|identical

* a slot is one word, ``a|b|c`` alternatives, or ``(multi word|other)`` a parenthesised group;
  ``(group)?`` is an optional slot;
* ``*`` inside a word is a wildcard (``normali*``); a trailing ``?`` makes the last letter optional
  (``keys?``);
* numbers compare by value, so ``1`` matches ``+1`` and ``1.0``;
* words of five letters or more tolerate one typo (two from nine letters), but the first two
  letters must agree, so ``changed`` never passes for ``unchanged``;
* consecutive slots may be separated by up to ``SMALL_GAP`` filler words, and by up to ``MAX_GAP``
  where the phrasing says ``...``; never across a sentence end;
* a leading ``~`` makes the phrasing count whether asserted or denied.

Negation is what keeps reciting the right words from passing: a match counts only when the words
the pattern did not itself consume (the gaps, and a short window before it in the same clause)
hold an even number of negators. "weights are not the same" therefore fails ``weight* same``.
Two more things deny a match: a clause that ends in "instead" ("axis=-2 would normalise the columns
instead"), and a question taken back by the next sentence ("Unchanged? Not at all.").

A ``Claim`` recognises a point by its parts rather than by one word order: a subject, a relation and
an object, each a list of phrasings (its synonyms and paraphrases), found in any order within a few
words of one another in one sentence, asserted or denied. "The attention pattern is unaffected",
"nothing happens to the weights" and "the weights do not change" are three phrasings of one claim.
A pronoun ("they", "it") may stand for a subject named just before it, when their number agrees.
"""

from __future__ import annotations

import fnmatch
import itertools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache

from rapidfuzz.distance import DamerauLevenshtein

SMALL_GAP = 2
MAX_GAP = 5
NEGATION_WINDOW = 5
NEGATORS = frozenset(
    "not no never neither nor without none nothing non cannot hardly "
    "wrong false mistake mistaken myth misconception incorrect untrue".split()
)
_ARTICLES = frozenset("a an the any its their this that".split())
_SENTENCE_END = frozenset(".;!?")
_CLAUSE_END = _SENTENCE_END | {",", "but", "however", "whereas", "although", "though", "while", "because"}
# A sentence that answers a question with one of these takes the question back ("Unchanged? No.").
_RETRACT = frozenset("no not nope never wrong false hardly".split())
_UNSURE = frozenset("sure certain confident".split())
# Words that grade a doubt without changing it: "not 100% sure", "not entirely certain".
_DEGREE = frozenset("100 entirely completely totally quite really fully very so that".split())

# Contrastive phrases deny what follows them ("over positions rather than the vocabulary", "different
# from a cosine similarity", "a separate claim from being causal").
_CONTRAST = re.compile(r"\b(rather than|instead of|as opposed to|unlike|differs? from|independent of|unrelated to"
                       r"|(?:different|distinct|separate)(?: (?:thing|things|claim|question|property|matter))? from)\b")
_CONTRACTIONS = [
    (re.compile(r"\bcan'?t\b|\bcannot\b"), "can not"),
    (re.compile(r"\bwon'?t\b"), "will not"),
    (re.compile(r"\bshan't\b"), "shall not"),
    (re.compile(r"n't\b"), " not"),
    # Typed without the apostrophe ("dont", "isnt"): each is a contraction, never another word.
    (re.compile(r"\b(do|does|did|is|are|was|were|has|have|had|should|would|could|must|need)nt\b"), r"\1 not"),
    (re.compile(r"\b(it|that|what|there|here)'s\b"), r"\1 is"),
    (re.compile(r"\bthats\b"), "that is"),
    (re.compile(r"\btheyre\b"), "they are"),
    # "its" is possessive ("its own token") unless a verb's complement follows ("its not", "its an input").
    (re.compile(r"\bits(?= (?:not|an?|the|just|only|because|what|that|needed|fine|ok|okay|already|like|so|to)\b)"),
     "it is"),
]
# Fractions and counts in words; "one" alone is usually a pronoun ("the current one"), so it is a number only
# where a count is plain ("exactly one", "by one", "sum to one").
_ORDINALS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4,
             "fourths": 4, "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7,
             "eighth": 8, "eighths": 8, "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10}
_CARDINALS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
              "eight": 8, "nine": 9, "ten": 10}
_FRACTION_WORDS = re.compile(r"\b(" + "|".join(_CARDINALS) + r")[ -](" + "|".join(_ORDINALS) + r")\b")
_COUNT_ONE = re.compile(r"\b(exactly|by|to|equals?|plus|minus) one\b(?! (?:of|another|position|token|row))")
# Symbols written inline: "sqrt(d_k)" and "ln(2)" read as "sqrt d k", "ln 2" (a parenthesis would end a
# clause), "QK^T" as the query-key product.
_SYMBOLS = [
    (re.compile(r"\b(sqrt|ln|log|exp)\s*\(\s*([^()]*?)\s*\)"), r" \1 \2 "),
    (re.compile(r"\b(sqrt|ln|log)(?=\d)"), r"\1 "),
    (re.compile(r"\bq\s*k\s*\^\s*t\b|\bqk\b"), " q dot k "),
    (re.compile(r"\bd_?k\b"), " d k "),
    # "d sub k", "d subscript k", "d_{k}": the key width written out.
    (re.compile(r"\bd\s*(?:sub|subscript)\s*k\b|\bd_\{k\}"), " d k "),
    # "R^T", "R^{|V|}": a vector of one entry per position, or per vocabulary word (T is the sequence length).
    (re.compile(r"\b(?:in\s+)?[r\u211d]\s*\^\s*\{?\s*\|\s*v\s*\|\s*\}?"), " over the vocabulary "),
    (re.compile(r"\b(?:in\s+)?[r\u211d]\s*\^\s*\{?[tn]\}?(?![\w|]|\s*(?:x|\*|times)\b)"), " over positions "),
    # A comparison with a number said in words ("sums < 1" is "less than 1"), so its words are read as said.
    (re.compile(r"(?:<=|=<|\u2264)\s*(?=[+-]?\.?\d)"), " at most "),
    (re.compile(r"(?:>=|\u2265)\s*(?=[+-]?\.?\d)"), " at least "),
    (re.compile(r"<\s*(?=[+-]?\.?\d)"), " less than "),
    (re.compile(r">\s*(?=[+-]?\.?\d)"), " more than "),
]
_TOKEN = re.compile(
    r"[+-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?:/\d+(?:\.\d+)?)?"  # numbers, fractions included
    r"|[a-z]+"
    r"|[.;!?,]"
)


# Positions written as indices, read as the words the rubrics use: "rows 0 and 1", "outputs 0..T-2" are the
# earlier rows, "j < k" earlier positions and "j > i" later ones, "T-1" (the length less one) the last.
_INDICES = [
    (re.compile(r"\b(rows?|outputs?|positions?|tokens?|results?|logits)\s+(?:0|1)\s*(?:\.\.\.?|to|through|-|and|,)\s*"
                r"(?:\d+|[a-z](?:\s*-\s*\d+)?)\b(?!\s*/)"), r" earlier \1 "),
    # "y_1..y_{T-1}", "o_0 ... o_{t-2}": the outputs before the last.
    (re.compile(r"\b([yo])_?\{?[01]\}?\s*(?:\.\.\.?|to|through)\s*\1_?\{?[a-z](?:\s*-\s*[12])?\}?(?![\w}])"),
     " earlier outputs "),
    (re.compile(r"\b[yo]_?\{\s*<\s*[tn]\s*\}|\b[yo]_<\s*[tn]\b"), " earlier outputs "),  # "y_{<T}"
    # "j=i", "j == i": an index equal to another (the diagonal), kept as words so that "j=i is known" does not
    # read as "i is known" after "token i+1".
    (re.compile(r"\b([ijkt])\s*={1,2}\s*([ijkt])\b(?!\s*[+-])"), r" \1 equals \2 "),
    # "j <= i", "j ≤ i": the positions the mask allows (so "only j <= i" is the mask, no exclusive qualifier).
    (re.compile(r"\b[a-z]\s*(?:<=|=<|\u2264)\s*[a-z]\b"), " positions up to i "),
    (re.compile(r"\b[a-z]\s*<\s*[a-z]\b"), " earlier positions "),
    (re.compile(r"\b[a-z]\s*>\s*[a-z]\b"), " later positions "),
    # Code's slices and indices: "out[:T-1]", "y_new[:-1]" are the earlier outputs, "y[-1]" the last one, "x[T-1]" and
    # "x[-1]" the last input.
    (re.compile(r"\b(?:out|outs|output|outputs|y|o|res|result|results)\w*\s*\[\s*0?\s*:\s*(?:[tnl]\s*)?-\s*1\s*\]"),
     " earlier outputs "),
    (re.compile(r"\b(?:out|outs|output|outputs|y|o|res|result|results)\w*\s*\[\s*(?:[tnl]\s*)?-\s*1\s*\]"), " last output "),
    (re.compile(r"\bx\w*\s*\[\s*(?:[tnl]\s*)?-\s*1\s*\]"), " last input "),
    # "token T-1", "position n-1": the last token, said with the index after its noun.
    (re.compile(r"\b(tokens?|positions?|inputs?|rows?|outputs?)\s+[tnl]\s*-\s*1\b"), r" last \1 "),
    (re.compile(r"\b[tnl]\s*-\s*1\b"), " last "),
    # "change 0", "max change 0.000000", "zero difference": nothing moved.
    (re.compile(r"\b(?:max(?:imum)?\s+)?(?:abs(?:olute)?\s+)?(?:change|difference|diff|delta)\s*(?:of|is|was|=|:)?\s*"
                r"(?:0(?:\.0+)?|zero)\b(?![.,]\d|\s*/)|\b(?:zero|0) (?:change|difference)\b"), " no change "),
    # "x_T", "x_n": the last input; "weights x values": a product.
    (re.compile(r"\bx_\{?[tnl]\}?(?![a-z0-9])"), " last input "),
    (re.compile(r"(?<=[a-z\])]) [x*] (?=[a-z\[(])"), " times "),
    # "one step ahead", "one position later": the next one.
    (re.compile(r"\b(?:one|1|a) (?:step|position|token|place|slot) (?:ahead|later|forward|further|to the right)\b"), " next "),
    # "leaky or not", "with or without the mask", "either way": regardless.
    (re.compile(r"\b(?:leaky|masked|unmasked|causal|broken|correct|buggy|mask(?:ed)?) or not\b"
                r"|\bwith or without (?:a |the )?mask(?:ing)?\b|\beither way\b|\bno matter (?:what|which|where|how)\b"), " regardless "),
    # "on their own", "by itself": alone (an exclusive qualifier, see `said_alone`).
    (re.compile(r"\b(?:on (?:its|their) own|by (?:itself|themselves))\b"), " alone "),
]

# A cleft contrast says its claim of the second subject: "it is not X that R, it is Y" reads "Y R , not X",
# so the negation stays with X.
_CLEFT = re.compile(r"\bit is not ([^,.;]+?) (?:that|which|who) ([^,.;]+?)\s*,\s*(?:but\s+)?it is ([^,.;]+)")


# A chain of working: "o = (1/3)(2,0)+(1/3)(0,4) = (8/3, 6/3) = (2.667, 2)" states its result after the last "=";
# the arithmetic between two "=" (no words in it) is dropped, the label before the first is kept.
_WORKING_CHAIN = re.compile(r"=[\d\s.,+\-*/()\[\]]*(?==)")


# Fractions typed as one character ("⅓", "2⅔" for 8/3), read as "1/3", "8/3".
_VULGAR = re.compile(r"(\d*)\s?([\u00bc-\u00be\u2150-\u215e])")


def _vulgar(m: re.Match) -> str:
    value = Fraction(int(m.group(1) or 0)) + Fraction(unicodedata.numeric(m.group(2))).limit_denominator(10)
    return f" {value.numerator}/{value.denominator} " if value.denominator != 1 else f" {value.numerator} "


_PLAIN_NUMBER = r"[+-]?(?:\d+(?:\.\d+)?|\.\d+)"
# A vector over a divisor, "[1, 1, 1]/3" or "(8, 6)/3": each entry divided, "[1/3, 1/3, 1/3]".
_VECTOR_OVER = re.compile(rf"[\[(]\s*({_PLAIN_NUMBER}(?:\s*,\s*{_PLAIN_NUMBER})+)\s*[\])]\s*/\s*(\d+(?:\.\d+)?)(?![\d.]*\w)")
# Three or more numbers joined by slashes list them ("0.33/0.33/0.33"); a fraction has one slash.
_SLASHED_LIST = re.compile(rf"(?<![\w./]){_PLAIN_NUMBER}(?:\s*/\s*{_PLAIN_NUMBER}){{2,}}(?![\w./])")


def _vector_over(m: re.Match) -> str:
    return "[" + ", ".join(f"{x.strip()}/{m.group(2)}" for x in m.group(1).split(",")) + "]"


def normalise(text: str) -> str:
    """Lower-case, ASCII punctuation, contractions expanded, word-joining hyphens split."""
    text = _VULGAR.sub(_vulgar, text.lower())
    text = _VECTOR_OVER.sub(_vector_over, text)
    text = _SLASHED_LIST.sub(lambda m: ", ".join(x.strip() for x in m.group().split("/")), text)
    for a, b in (("\u2019", "'"), ("\u2018", "'"), ("\u2212", "-"), ("\u2013", "-"), ("\u2014", " , "),
                 ("\u221e", " infinity "), ("\u221a", " sqrt "), ("\u00d7", " times "), ("\u00b7", " dot "),
                 ("\u22c5", " dot "), ("\u2192", " , "), ("\u21d2", " , "), ("=>", " , "), ("->", " , "), ("\u2190", " , "), ("<-", " , "), ("+=", " rises by "), ("-=", " falls by "), ("\u2248", " "),
                 ("\u2260", " is not "), ("!=", " is not "), ("==", " equals "),
                 # Code's matrix product: "A @ V" multiplies the weights into the values, "q @ k.T" the query into the keys.
                 ("@", " times ")):
        text = text.replace(a, b)
    text = _WORKING_CHAIN.sub("", text)
    # A spaced hyphen between words is a dash, closing a clause as an em dash does ("move - they should not").
    text = re.sub(r"(?<=[a-z]{2}) -{1,2} (?=[a-z]{2})", " , ", text)
    for pattern, repl in _CONTRACTIONS + _SYMBOLS + _INDICES:
        text = pattern.sub(repl, text)
    text = _FRACTION_WORDS.sub(lambda m: f"{_CARDINALS[m.group(1)]}/{_ORDINALS[m.group(2)]}", text)
    text = _COUNT_ONE.sub(lambda m: f"{m.group(1)} 1", text)
    text = _CLEFT.sub(r"\3 \2 , not \1", text)
    # "rather not": a contrast's denial, which takes only the phrase it names (see `negated`).
    text = _CONTRAST.sub(" rather not ", text)
    # "next-token", "d_k", "row-wise" become separate words; "-1" and "dim=-1" keep their sign.
    text = re.sub(r"(?<=[a-z0-9])[-_](?=[a-z])", " ", text)
    text = re.sub(r"(?<=[a-z])-(?=\d)", " ", text)
    text = re.sub(r"(?<=[a-z])\.(?=[a-z])", " dot ", text)  # "q.k"
    text = re.sub(r"(?<=\b[a-z]) \. (?=[a-z]\b)", " dot ", text)  # "q_i . k_j": a spaced dot between symbols
    text = re.sub(r"[()]", " , ", text)  # a parenthesis closes a clause for negation
    # A short denial used as a heading closes at its colon ("No leak: row i predicts token i+1" predicts it).
    # A doubt ("not sure:") is no denial and keeps its reach.
    text = re.sub(r"(?:^|(?<=[.;!?] ))((?:no|not|never)\b(?! (?:\S+ ){0,2}(?:sure|certain|confident|idea)\b)[^.;:!?,]{0,30}):",
                  r"\1 , ", text)
    text = re.sub(r"[=\[\]{}\"'`:]", " ", text)
    return re.sub(r"\s+", " ", text).strip()


@lru_cache(maxsize=1 << 14)  # pure, and asked of the same few tokens hundreds of thousands of times a table
def as_number(token: str) -> Fraction | None:
    try:
        if "/" in token:
            num, den = token.split("/")
            return Fraction(num) / Fraction(den) if Fraction(den) != 0 else None
        return Fraction(token)
    except (ValueError, ZeroDivisionError):
        return None


@dataclass(frozen=True)
class Token:
    text: str
    start: int  # character offset in the normalised text
    end: int


# Words are corrected only when long enough to carry a typo and not known as they are.
SPELL_MIN = 5
_INFLECTIONS = ("s", "es", "ed", "d", "ing", "ly", "er", "ers")


# An English word as typed is no typo, though one edit from a quiz word: "think" is not "thing", "edits" not
# "emits". pyspellchecker's bundled English frequency list decides; rarer entries than this (odd spellings
# that list keeps) do not shield a word from correction.
ENGLISH_MIN_COUNT = 50


@cache
def _english() -> dict[str, int]:
    from spellchecker import SpellChecker  # loaded once, on the first answer judged with a vocabulary

    return dict(SpellChecker(language="en").word_frequency.dictionary)


def english_word(word: str) -> bool:
    return _english().get(word, 0) >= ENGLISH_MIN_COUNT


def correct_spelling(text: str, vocabulary: frozenset[str]) -> str:
    """Replace each unknown word by the one vocabulary word within a typo of it ("sofmax", "wieghts").

    A word is known when it, or it less a common ending, is in the vocabulary, or when it is a common English
    word; a typo is one edit (two from ten letters) with the first letter kept; a word with two equally near
    candidates is left as typed."""
    if not vocabulary:
        return text
    # Never corrected into a negation ("note" is no "not"): a denial must be typed.
    vocabulary = frozenset(v for v in vocabulary if len(v) >= SPELL_MIN and v not in NEGATORS)

    def fix(m: re.Match) -> str:
        word = m.group()
        if len(word) < SPELL_MIN or word in vocabulary or word in NEGATORS or any(
                (word.endswith(e) and word[:-len(e)] in vocabulary) or word + e in vocabulary for e in _INFLECTIONS):
            return word
        if english_word(word):
            return word
        limit = 2 if len(word) >= 10 else 1
        best = _nearest(word, vocabulary, limit)
        return best or word

    return re.sub(r"[a-z]+", fix, text)


def _nearest(word: str, vocabulary: frozenset[str], limit: int) -> str | None:
    found: dict[int, list[str]] = {}
    for v in vocabulary:
        if v[0] != word[0] or abs(len(v) - len(word)) > limit:
            continue
        d = DamerauLevenshtein.distance(word, v, score_cutoff=limit)
        if d <= limit:
            found.setdefault(d, []).append(v)
    if not found:
        return None
    nearest = found[min(found)]
    return nearest[0] if len(nearest) == 1 else None


class Doc:
    """A learner's answer, normalised and tokenised once, matched against many phrasings.

    `vocabulary` (the quiz's own words) corrects misspellings before anything is matched."""

    def __init__(self, raw: str, vocabulary: frozenset[str] = frozenset(), *, text: str | None = None):
        self.raw = raw
        self.text = correct_spelling(normalise(raw), vocabulary) if text is None else text
        self.tokens = [Token(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(self.text)]
        self.sentence: list[int] = []  # sentence number of each token
        n = 0
        for tok in self.tokens:
            self.sentence.append(n)
            n += tok.text in _SENTENCE_END
        self.retracted = self._retracted()
        self._credited: Doc | None = None

    def hedged_at(self, i: int) -> bool:
        """A doubt opens at token i: "not sure", "not 100% certain", "unsure", "no idea" (no denial of what follows:
        "not sure what is mixed, maybe the keys" still guesses the keys)."""
        words = [t.text for t in self.tokens[i:i + 3]]
        if words[:1] == ["unsure"] or words[:2] == ["no", "idea"]:
            return True
        return self._hedge(i)

    def credited(self) -> Doc:
        """The answer less what it says under a doubt, up to the clause's end: a point said only there is not made
        ("not sure why they do not prove it")."""
        if self._credited is None:
            cut: list[tuple[int, int]] = []
            i = 0
            while i < len(self.tokens):
                if self.hedged_at(i):
                    j = i
                    while j < len(self.tokens) and self.tokens[j].text not in _CLAUSE_END:
                        j += 1
                    cut.append((self.tokens[i].start, self.tokens[j - 1].end))
                    i = j
                i += 1
            text = self.text
            for start, end in reversed(cut):
                text = text[:start] + text[end:]
            self._credited = self if not cut else Doc(self.raw, text=re.sub(r"\s+", " ", text).strip())
        return self._credited

    def _retracted(self) -> frozenset[int]:
        """Tokens of a question that the next sentence denies ("The weights are unchanged? Not at all")."""
        out: set[int] = set()
        start = 0
        for i, tok in enumerate(self.tokens):
            if tok.text not in _SENTENCE_END:
                continue
            if tok.text == "?" and i + 1 < len(self.tokens) and self.tokens[i + 1].text in _RETRACT \
                    and not self._hedge(i + 1):
                out.update(range(start, i))
            start = i + 1
        return frozenset(out)

    def _hedge(self, i: int) -> bool:
        """"not sure", "not 100% certain" after a question doubt it; they do not deny it ("... i think? not sure")."""
        words = [t.text for t in self.tokens[i:i + 3]]
        if len(words) > 2 and words[1] in _DEGREE:
            del words[1]
        return words[0] == "not" and len(words) > 1 and words[1] in _UNSURE

    def token_at(self, offset: int) -> int:
        for i, tok in enumerate(self.tokens):
            if tok.end > offset:
                return i
        return len(self.tokens)


@lru_cache(maxsize=1 << 16)  # pure: a rubric's atoms meet the same words in every answer
def _atom_matches(atom: str, word: str) -> bool:
    if atom == word:
        return True
    if atom.endswith("?") and len(atom) > 2:
        return _atom_matches(atom[:-1], word) or _atom_matches(atom[:-2], word)
    a_num = as_number(atom)
    if a_num is not None:
        w_num = as_number(word)
        return w_num is not None and w_num == a_num
    if "*" in atom:
        if fnmatch.fnmatchcase(word, atom):
            return True
        stem = atom.rstrip("*")
        # A misspelt stem still matches ("probabilty" for "probabilit*"), never a bare wildcard.
        if "*" in stem or len(stem) < 5:
            return False
        return any(_close(stem, word[:n]) for n in range(len(stem) - 1, len(stem) + 2))
    return len(atom) >= 5 and _close(atom, word) and (not english_word(word) or _inflection(atom, word))


def _inflection(atom: str, word: str) -> bool:
    """An English word as typed is another form of the atom only when it is the atom with an ending added or
    dropped ("large" for "larger", "changed" for "change"), its other spelling ("normalization") or its letters
    swapped ("casual" typed for "causal"): "with" is no typo of "width", nor "means" of "meant"."""
    return (word.startswith(atom) or atom.startswith(word) or word.replace("z", "s") == atom.replace("z", "s")
            or sorted(word) == sorted(atom))


def _close(expected: str, word: str) -> bool:
    if len(word) < 4 or word[:2] != expected[:2]:
        return False
    limit = 2 if len(expected) >= 9 else 1
    return DamerauLevenshtein.distance(expected, word, score_cutoff=limit) <= limit


_SLOT = re.compile(r"\(([^()]*)\)(\?)?|([^\s()]+)")


@dataclass(frozen=True)
class Slot:
    alternatives: tuple[tuple[str, ...], ...]  # each alternative is a run of adjacent words
    optional: bool
    gap: int  # words that may separate this slot from the previous one


def parse_sequence(pattern: str) -> list[Slot]:
    """Parse the slot syntax; raises ValueError with a learner-independent message."""
    slots: list[Slot] = []
    pos = 0
    gap = SMALL_GAP
    pattern = pattern.strip().lower()
    while pos < len(pattern):
        if pattern[pos].isspace():
            pos += 1
            continue
        if pattern.startswith("...", pos):
            gap, pos = MAX_GAP, pos + 3
            continue
        m = _SLOT.match(pattern, pos)
        if not m or m.end() == pos:
            raise ValueError(f"cannot parse phrasing near {pattern[pos:]!r}")
        if m.group(1) is not None:
            body, optional = m.group(1), bool(m.group(2))
        else:
            body, optional = m.group(3), False
        alts = tuple(tuple(normalise(alt).split()) for alt in body.split("|"))
        if not body or any(not alt for alt in alts):
            raise ValueError(f"empty alternative in phrasing {pattern!r}")
        slots.append(Slot(alts, optional, gap))
        gap = SMALL_GAP
        pos = m.end()
    if not slots or all(s.optional for s in slots):
        raise ValueError(f"phrasing {pattern!r} has no required word")
    return slots


@dataclass(frozen=True)
class Hit:
    start: int  # token index of the first matched word
    end: int  # one past the last matched word
    consumed: frozenset[int]  # token indices the pattern itself matched


class Phrasing:
    def __init__(self, source: str):
        self.source = source
        # "~" marks a point that counts asserted or denied ("softmax (does not) saturate").
        self.polar = not source.startswith("~")
        source = source.removeprefix("~")
        if source.startswith("re:"):
            try:
                self.regex: re.Pattern[str] | None = re.compile(source[3:], re.IGNORECASE)
            except re.error as exc:
                raise ValueError(f"bad regular expression {source[3:]!r}: {exc}") from None
            self.slots: list[Slot] = []
        else:
            self.regex = None
            self.slots = parse_sequence(source)

    def hits(self, doc: Doc) -> list[Hit]:
        if self.regex is not None:
            out = []
            for m in self.regex.finditer(doc.text):
                first, last = doc.token_at(m.start()), doc.token_at(max(m.end() - 1, m.start()))
                span = range(first, min(last + 1, len(doc.tokens)))
                out.append(Hit(first, last + 1, frozenset(span)))
            return out
        out = []
        for start in range(len(doc.tokens)):
            hit = self._match_from(doc, 0, start, None, ())
            if hit is not None:
                out.append(hit)
        return out

    def _match_from(self, doc, slot_i, pos, prev_end, consumed) -> Hit | None:
        if slot_i == len(self.slots):
            first = min(consumed)
            return Hit(first, max(consumed) + 1, frozenset(consumed))
        slot = self.slots[slot_i]
        # The first slot must start exactly at `pos`; later ones may skip a short gap.
        candidates = [pos] if prev_end is None else list(_gap_positions(doc, prev_end, slot.gap))
        for cand in candidates:
            for alt in slot.alternatives:
                n = len(alt)
                words = doc.tokens[cand:cand + n]
                if len(words) == n and all(_atom_matches(a, w.text) for a, w in zip(alt, words, strict=True)):
                    hit = self._match_from(doc, slot_i + 1, None, cand + n, consumed + tuple(range(cand, cand + n)))
                    if hit is not None:
                        return hit
        if slot.optional:
            return self._match_from(doc, slot_i + 1, pos, prev_end, consumed)
        return None

    def matches(self, doc: Doc, rivals: Rivals | None = None) -> bool:
        """True when some occurrence is not denied by an unconsumed negator, nor spans a rival."""
        return any(not (self.polar and (negated(doc, hit) or conditional(doc, hit)))
                   and not (rivals and rivals.inside(doc, hit)) for hit in self.hits(doc))


def _gap_positions(doc: Doc, after: int, limit: int):
    skipped = 0
    for i in range(after, len(doc.tokens)):
        yield i
        tok = doc.tokens[i].text
        if tok in _SENTENCE_END:
            return
        if tok != ",":
            skipped += 1
            if skipped > limit:
                return


def negated(doc: Doc, hit: Hit, extra: Iterable[str] = ()) -> bool:
    """An odd count of negators bearing on the match, in some clause: each must reach a matched word within
    NEGATION_WINDOW words without crossing a clause boundary ("zero scores (not -inf), still sum") or the
    start of a subordinate clause ("when", "if").
    `extra` adds words (wildcards allowed) that deny this match only ("prevents seeing the future")."""
    extra = tuple(extra)
    # Negators are counted clause by clause: "it does not normalise the vectors, it is not cosine" denies in both
    # clauses, two denials that do not cancel; a clause with an odd count denies the match.
    per_clause: dict[int, int] = {}
    clause = 0
    for n in range(max(0, hit.start - NEGATION_WINDOW), hit.end):
        clause += n > 0 and doc.tokens[n - 1].text in _CLAUSE_END
        word = doc.tokens[n].text
        if n in hit.consumed or not (word in NEGATORS or any(_atom_matches(e, word) for e in extra)) \
                or (word in ("not", "no") and doc.hedged_at(n)):
            continue
        # "without" takes only its own object ("without a mask"), never the clause after it
        # ("without it the dot products grow" states that they grow).
        reach = (2 if n + 1 < len(doc.tokens) and doc.tokens[n + 1].text in _ARTICLES else 1) \
            if word == "without" else _contrast_reach(doc, n) if _contrasted(doc, n) else NEGATION_WINDOW
        if _relative_between(doc, n, hit.end):
            continue  # "not from the values, which are what gets mixed": the relative clause asserts
        for i in range(n + 1, min(n + 1 + reach, hit.end)):
            if i in hit.consumed:
                per_clause[clause] = per_clause.get(clause, 0) + 1
                break
            if doc.tokens[i].text in _CLAUSE_END or doc.tokens[i].text in _SUBORDINATE:
                break
    count = int(any(c % 2 for c in per_clause.values()))
    count += _in_instead_clause(doc, hit) + _denied_by_ellipsis(doc, hit)
    count += any(i in doc.retracted for i in hit.consumed)
    return count % 2 == 1


# What ends the phrase a contrast names: "zero instead of -inf still gives rows that sum to one" denies -inf only.
_PHRASE_END = frozenset("still also so then thus is are was were be gives give gave makes make made does do did "
                        "can could will would should must passes passed fools fooled satisfies survives".split())


def _contrasted(doc: Doc, n: int) -> bool:
    return doc.tokens[n].text == "not" and n > 0 and doc.tokens[n - 1].text == "rather"


def _contrast_reach(doc: Doc, n: int) -> int:
    """How many words after a contrast's "not" it denies: the phrase it names, up to a verb or adverb that
    resumes the main clause, at most NEGATION_WINDOW."""
    reach = 0
    for i in range(n + 1, min(n + 1 + NEGATION_WINDOW, len(doc.tokens))):
        if doc.tokens[i].text in _PHRASE_END or doc.tokens[i].text in _CLAUSE_END:
            break
        reach += 1
    return max(reach, 1)


_RELATIVES = frozenset("which who".split())


def _relative_between(doc: Doc, start: int, end: int) -> bool:
    return any(doc.tokens[i].text == "," and doc.tokens[i + 1].text in _RELATIVES for i in range(start, end - 1))


_CONDITIONS = frozenset("if when once".split())
# A denial stops at the clause these open: "should not change when you edit the last token" asserts the edit.
_SUBORDINATE = frozenset("when whenever if once unless until".split())


def conditional(doc: Doc, hit: Hit) -> bool:
    """A claim restricted to a condition is not asserted: "the weights change only if the keys do", "would
    only change when ..." ("only" in or just after the match, then the condition)."""
    only = False
    for i in range(hit.start, min(hit.end + 3, len(doc.tokens))):
        word = doc.tokens[i].text
        if i >= hit.end and word in _CLAUSE_END:
            return False
        if i not in hit.consumed:
            if word == "only":
                only = True
            elif only and word in _CONDITIONS:
                return True
            else:
                only = False  # "change only the last input and see if ...": "only" restricts a phrase, no condition
    return False


_MODALS = frozenset("should must would will do does did can could shall".split())
_SUBJECT_PRONOUNS = frozenset("they it these those".split())


def _denied_by_ellipsis(doc: Doc, hit: Hit) -> bool:
    """A clause taken back by an elliptical denial right after it: "see whether the outputs move; they
    should not" says the outputs should not move."""
    i = hit.end  # the denial takes back the predicate it elides: the match must end its clause
    if i >= len(doc.tokens) or doc.tokens[i].text not in _CLAUSE_END:
        return False
    words = [t.text for t in doc.tokens[i + 1:i + 5]]
    return (len(words) >= 3 and words[0] in _SUBJECT_PRONOUNS and words[1] in _MODALS and words[2] == "not"
            and (len(words) == 3 or words[3] in _CLAUSE_END))  # "(they should not)": a parenthesis is a comma


def _in_instead_clause(doc: Doc, hit: Hit) -> bool:
    """A clause ending in "instead" describes the alternative, not the answer ("-2 would do X instead").
    ("instead of" never gets here: normalise turns it into "not".)"""
    i = hit.end
    while i < len(doc.tokens) and doc.tokens[i].text not in _CLAUSE_END:
        i += 1
    return doc.tokens[i - 1].text == "instead" if i > hit.end else False


class Rivals:
    """Words that would hold a point's role instead of its subject: "values" for "queries and keys set the
    weights", "queries" and "keys" for "the values get mixed". The point is not made where a rival takes
    the role: inside a phrasing's gaps ("values decide the weights and the keys get mixed" is not "values
    ... get mixed"), nearer a claim's relation than its subject, or joined to the subject ("keys and
    values decide"). A rival named to deny it ("not the values") holds no role."""

    def __init__(self, phrasings: Iterable[str]):
        self.phrasings = [Phrasing("~" + p.removeprefix("~")) for p in phrasings]
        self._last: tuple[Doc, list[Hit]] | None = None  # one answer is asked about many hits in a row

    def hits(self, doc: Doc) -> list[Hit]:
        if self._last is None or self._last[0] is not doc:
            self._last = (doc, [h for p in self.phrasings for h in p.hits(doc) if not _named_to_deny(doc, h)])
        return self._last[1]

    def inside(self, doc: Doc, hit: Hit) -> bool:
        return any(hit.start <= r.start and r.end <= hit.end and not (r.consumed & hit.consumed)
                   for r in self.hits(doc))

    def take_role(self, doc: Doc, subject: Hit, anchor: Hit, used: frozenset[int]) -> bool:
        for r in self.hits(doc):
            if r.consumed & used or doc.sentence[r.start] != doc.sentence[anchor.start]:
                continue
            nearer = _distance(r, anchor) < _distance(subject, anchor) and not _clause_between(doc, r, anchor)
            if nearer or _joined(doc, r, subject):
                return True
        return False


def _named_to_deny(doc: Doc, hit: Hit) -> bool:
    i = hit.start - 1
    if i >= 0 and doc.tokens[i].text in _ARTICLES:
        i -= 1
    return i >= 0 and doc.tokens[i].text in NEGATORS


def _distance(a: Hit, b: Hit) -> int:
    return max(b.start - a.end, a.start - b.end, 0)


def _clause_between(doc: Doc, a: Hit, b: Hit) -> bool:
    lo, hi = (a.end, b.start) if a.end <= b.start else (b.end, a.start)
    return any(doc.tokens[i].text in _CLAUSE_END for i in range(lo, hi))


def _joined(doc: Doc, a: Hit, b: Hit) -> bool:
    """Two nouns coordinated directly: "keys and values", "values or keys"."""
    return _distance(a, b) == 1 and doc.tokens[min(a.end, b.end)].text in ("and", "or", "plus")


def compile_accept(entry: str | list[str]) -> list[Phrasing]:
    """An accept entry is one phrasing, or a list that must all match (anywhere in the answer)."""
    return [Phrasing(p) for p in ([entry] if isinstance(entry, str) else entry)]


# ---- claims ----------------------------------------------------------------------------------

PRONOUNS = {"they": "plural", "them": "plural", "these": "plural", "those": "plural", "both": "plural",
            "it": "singular", "this": "singular"}
PRONOUN_REACH = 12  # how far back a pronoun may look for the subject it stands for


def _plural(doc: Doc, hit: Hit) -> bool:
    word = doc.tokens[max(hit.consumed)].text
    return word.endswith("s") and not word.endswith("ss")


# Words that start a clause of its own: a claim held to one clause never straddles one ("the target is the next
# token, so looking at the current one is fine" says nothing about looking at the next token). Claims that are
# an inference ("the more terms, so the bigger the sum"; "rows sum to one, so it is causal") may.
_CONSEQUENCE = frozenset("so therefore hence thus whereas".split())


def _clauses_joined(doc: Doc, start: int, end: int) -> bool:
    """A consequence or contrast between two clauses lies between `start` and `end` ("X, so Y", "X, but Y")."""
    for i in range(start + 1, end - 1):
        word = doc.tokens[i].text
        if word in _CONSEQUENCE or (word == "but" and doc.tokens[i - 1].text == ","):
            return True
    return False


class ClaimPattern:
    """Subject, relation and object phrasings found in one sentence, in any order, the first and the last
    word found at most `window` words apart."""

    def __init__(self, subject: list[str], relation: list[str], obj: list[str], *, denied: bool, window: int,
                 negators: Iterable[str] = (), rivals: Rivals | None = None, one_clause: bool = False):
        self.parts = [[Phrasing(p) for p in part] for part in (subject, relation, obj) if part]
        self.denied = denied
        self.window = window
        self.negators = tuple(negators)
        self.rivals = rivals  # the relation (or, without one, the object) is what a rival may take from the subject
        self.one_clause = one_clause

    def _hits(self, doc: Doc, part_i: int) -> list[Hit]:
        hits = [h for p in self.parts[part_i] for h in p.hits(doc)]
        if part_i == 0:
            hits += self._pronouns(doc, hits)
        return hits

    @staticmethod
    def _pronouns(doc: Doc, subjects: list[Hit]) -> list[Hit]:
        """A pronoun stands for a subject named within PRONOUN_REACH words before it, if their number agrees."""
        out = []
        for i, tok in enumerate(doc.tokens):
            number = PRONOUNS.get(tok.text)
            if number and any(0 < i - h.end < PRONOUN_REACH and (number == "plural") == _plural(doc, h)
                              for h in subjects):
                out.append(Hit(i, i + 1, frozenset({i})))
        return out

    def matches(self, doc: Doc) -> bool:
        for combo in itertools.product(*(self._hits(doc, i) for i in range(len(self.parts)))):
            consumed = [h.consumed for h in combo]
            used = frozenset().union(*consumed)
            if len(used) != sum(map(len, consumed)):
                continue  # two parts on the same words
            start, end = min(used), max(used) + 1
            if end - 1 - start > self.window or len({doc.sentence[i] for i in used}) > 1:
                continue
            if self.one_clause and _clauses_joined(doc, start, end):
                continue
            if self.rivals and len(combo) > 1 and self.rivals.take_role(doc, combo[0], combo[1], used):
                continue
            span = Hit(start, end, used)
            denied = negated(doc, span, self.negators) != self._qualified_after(doc, end)
            if not denied and conditional(doc, span):
                continue  # neither asserted nor denied
            if denied == self.denied:
                return True
        return False

    def near(self, doc: Doc) -> bool:
        """Every part of the claim in one sentence, but not in a way `matches` can read as said: further apart
        than `window` (up to twice it), or restricted to a condition ("only if ..."). What a teacher would ask
        about rather than mark."""
        for combo in itertools.product(*(self._hits(doc, i) for i in range(len(self.parts)))):
            consumed = [h.consumed for h in combo]
            used = frozenset().union(*consumed)
            if len(combo) < 2 or len(used) != sum(map(len, consumed)) or len({doc.sentence[i] for i in used}) > 1:
                continue
            start, end = min(used), max(used) + 1
            if end - 1 - start > 2 * self.window:
                continue
            if self.rivals and self.rivals.take_role(doc, combo[0], combo[1], used):
                continue
            span = Hit(start, end, used)
            denied = negated(doc, span, self.negators) != self._qualified_after(doc, end)
            if conditional(doc, span) or (end - 1 - start > self.window and denied == self.denied):
                return True
        return False

    def _qualified_after(self, doc: Doc, end: int) -> bool:
        """This claim's own negators may also follow it closely ("seeing the next token would leak")."""
        for tok in doc.tokens[end:end + 3]:
            if tok.text in _CLAUSE_END:
                return False
            if any(_atom_matches(e, tok.text) for e in self.negators):
                return True
        return False


# ---- exclusive qualifiers ----------------------------------------------------------------------

_BEFORE_NP = frozenset("only just solely merely purely exclusively".split())  # "only the keys"
_AFTER_NP = frozenset("alone".split())  # "the keys alone"
_PREPOSITIONS = frozenset("on from by with of".split())
_COORDINATION = frozenset("and or plus , &".split())


def said_alone(doc: Doc, groups: list[list[Phrasing]]) -> str | None:
    """The words of a noun phrase that an exclusive qualifier governs ("only the keys", "by the keys alone"),
    when it names some of `groups` but not all: what the answer says acts alone. None when no such phrase."""
    owner: dict[int, int] = {}  # token index -> group that names it
    for g, phrasings in enumerate(groups):
        for p in phrasings:
            for hit in p.hits(doc):
                for i in hit.consumed:
                    owner.setdefault(i, g)
    toks = [t.text for t in doc.tokens]

    def phrase(i: int, step: int) -> tuple[set[int], int]:
        """Groups named by the noun phrase starting at token i and read in direction `step`, and its far end."""
        named: set[int] = set()
        last = i
        while 0 <= i < len(toks) and (i in owner or toks[i] in _ARTICLES or toks[i] in _COORDINATION):
            if i in owner:
                named.add(owner[i])
                last = i
            i += step
        return named, last

    for n, word in enumerate(toks):
        if word in _BEFORE_NP:
            i = n + 1 + (n + 1 < len(toks) and toks[n + 1] in _PREPOSITIONS)
            while i < len(toks) and toks[i] in _ARTICLES:
                i += 1
            if i not in owner:
                continue
            named, last = phrase(i, 1)
            span = (n, last)
        elif word in _AFTER_NP and n > 0 and n - 1 in owner:
            named, first = phrase(n - 1, -1)
            span = (first, n)
            before = first - 1 - (first > 1 and toks[first - 1] in _ARTICLES)
            if before >= 0 and toks[before].startswith(("leav", "left")):
                continue  # "leave the queries alone": untouched, no claim that they act alone
        elif word in _AFTER_NP and n > 0:
            # Said at the end of its clause ("the keys decide the weights alone"): of what the clause names before
            # it ("the query compared with the keys sets the weights by itself" names both).
            i = n - 1
            while i > 0 and toks[i - 1] not in _CLAUSE_END:
                i -= 1
            named = {owner[j] for j in range(i, n) if j in owner}
            first = min((j for j in range(i, n) if j in owner), default=None)
            if first is None:
                continue
            span = (first, n)
        else:
            continue
        if named and len(named) < len(groups):
            return " ".join(toks[span[0]:span[1] + 1])
    return None
