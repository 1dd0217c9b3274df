"""Only our own work in the repository: no tracked file says it came from elsewhere, none quotes a page.

Facts from elsewhere may carry over with their source named (which repository fills with -1e9, what
a platform names its exports); code and sentences written elsewhere never do. This guard reads every
tracked text file and fails on:
- a declaration of provenance: taken "from" somewhere with one of the verbs below, "verbatim",
  "line for line" (not the comprehension `line for line in`), "kept as written";
- a `source:` header naming a repository (owner/name) with a commit, in a file that does not say
  it was written here (a twin says "written in this project from a description");
- a data file (YAML, JSON) with `quote:` fields: a public page's text kept as data.
The negative controls write such files to tmp_path and run the same scanner on them.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SELF = Path(__file__).resolve().relative_to(ROOT).as_posix()  # the one file that must spell the phrases

PROVENANCE = [
    re.compile(r"\b(?:adapted|copied|ported)\s+(?:\w+\s+)?from\b", re.I),
    re.compile(r"\b(?:adapted|ported)\s+(?:\w+\s+)?into\b", re.I),
    re.compile(r"\badapted\s+minimally\b", re.I),
    re.compile(r"\bverbatim\b", re.I),
    re.compile(r"\bline[\s-]+for[\s-]+line\b(?!\s+in\b)", re.I),
    re.compile(r"\bkept\s+as\s+written\b", re.I),
]
HEADER_CHARS = 4000
SOURCE_HEADER = re.compile(r"^\W{0,4}source\s*:(?P<rest>.*)$", re.I | re.M)
REPOSITORY = re.compile(r"\b[\w.-]+/[\w.-]+")
COMMIT = re.compile(r"(?:@|\bcommit\b)\s*[0-9a-f]{7,40}\b", re.I)
WRITTEN_HERE = re.compile(r"\bwritten\s+(?:in\s+this\s+project|here)\b", re.I)
QUOTE_FIELD = {  # by suffix: a YAML key at the start of a line, a JSON key anywhere
    ".yaml": re.compile(r"""^\s*(?:-\s*)?["']?quote["']?\s*:""", re.M),
    ".json": re.compile(r'"quote"\s*:'),
}
QUOTE_FIELD[".yml"] = QUOTE_FIELD[".yaml"]


def findings(name: str, text: str) -> list[str]:
    """What in this file's text breaks the rule, one line each ("name:line: why")."""
    found = []

    def line_of(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    declared: dict[int, str] = {}  # one finding per line, the first phrase found on it
    # A file says where it came from in its header (as the repository's stop hook reads it): further down,
    # "copied from the key line" is a student's edit in the journey corpus, not the file's provenance.
    for pattern in PROVENANCE:
        for m in pattern.finditer(text[:HEADER_CHARS]):
            declared.setdefault(line_of(m.start()), m.group(0))
    found += [f"{name}:{line}: declares where it came from: {phrase!r}" for line, phrase in sorted(declared.items())]
    if not WRITTEN_HERE.search(text):
        for m in SOURCE_HEADER.finditer(text):
            rest = m.group("rest")
            if REPOSITORY.search(rest) and COMMIT.search(rest):
                found.append(f"{name}:{line_of(m.start())}: a source header naming a repository and commit, "
                             "in a file that does not say it was written here")
    quote_field = QUOTE_FIELD.get(Path(name).suffix.lower())
    if quote_field:
        quotes = [line_of(m.start()) for m in quote_field.finditer(text)]
        if quotes:
            found.append(f"{name}:{quotes[0]}: {len(quotes)} quote: field(s): a page's text kept as data")
    return found


def tracked_files() -> list[str]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"the guard reads tracked files and this is not a git checkout ({exc})")
    return [n for n in listed.stdout.decode().split("\0") if n]


def scan(root: Path, names: list[str]) -> list[str]:
    out = []
    for name in names:
        path = root / name
        if name == SELF or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # images and other binary files carry no sentences
        out.extend(findings(name, text))
    return out


def test_no_tracked_file_declares_itself_from_elsewhere_or_quotes_a_page():
    names = tracked_files()
    assert "tests/real/expected.yaml" in names and len(names) > 100  # it saw the repository
    problems = scan(ROOT, names)
    assert not problems, "Only our own work in the repository (docs/maintainers.md, 'Only our own work'):\n" + "\n".join(problems)


@pytest.mark.parametrize(("name", "text", "says"), [
    ("model.py", '"""Attention, adapted from the reference implementation."""\n', "'adapted from'"),
    ("model.py", "# Copied verbatim from a blog post\n", "'Copied verbatim from'"),
    ("notes.md", "The math is kept line for line.\n", "'line for line'"),
    ("notes.md", "Everything else is kept as written.\n", "'kept as written'"),
    ("notes.md", "Ported from the Jax version.\n", "'Ported from'"),
    ("twin.py", "implementations adapted minimally into the contract\n", "'adapted minimally into'"),
    ("twin.py", '"""Attention.\n\nSource: someone/some-repo model.py @ 0123abc\n"""\n',
     "a source header naming a repository and commit"),
    ("answers.yaml", "- id: a1\n  quote: \"A sentence someone wrote.\"\n  url: https://example.org\n",
     "1 quote: field(s)"),
    ("answers.json", '[{"id": "a1", "quote": "A sentence someone wrote."}]\n', "1 quote: field(s)"),
])
def test_the_scanner_finds_each_kind_of_borrowed_text(tmp_path, name, text, says):
    (tmp_path / name).write_text(text)
    problems = scan(tmp_path, [name])
    assert any(says in p for p in problems), problems


@pytest.mark.parametrize(("name", "text"), [
    ("twin.py", '"""Style twin of someone/some-repo model.py @ 0123abc, written in this project from a '
                'description of that code\'s style; no line of it is copied."""\nsource: someone/some-repo @ 0123abc\n'),
    ("code.py", "rows = [line for line in text.splitlines() if line]\n"),
    ("code.py", "def grade(source: str) -> int:\n    return len(source)\n"),
    ("code.py", "# a script exported from a notebook, imported from a library; the id was copied into it\n"),
    ("table.yaml", "- id: a1\n  answer: \"Written here for this item.\"\n  models: https://example.org (a kind of answer)\n"),
    ("platforms.py", '"""Canvas names its exports lastfirst_id (read from canvas-lms lib/content_zipper.rb)."""\n'),
    ("expected.yaml", "# A student's evening.\n" + "- step: 1\n  change: \"one edit\"\n" * 300
                      + "- step: 35\n  change: \"value layer copied from the key line\"\n"),  # a student's edit, past the header
])
def test_the_scanner_passes_our_own_text(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    assert scan(tmp_path, [name]) == []
