"""The docs stay true to the code they describe: the maintainers' layer table is the import-graph test's,
every relative link (and `#anchor`) in the README and docs/ resolves, and the README stays short.

Each rule has a negative control on a toy document, so a parser that found nothing cannot pass.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _import_graph_test():
    """tests/package/test_import_graph.py, whose LAYERS and SANDBOX_PUBLIC the doc must equal."""
    spec = importlib.util.spec_from_file_location("_declared_layers", Path(__file__).with_name("test_import_graph.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


graph = _import_graph_test()
MAINTAINERS = ROOT / "docs" / "maintainers.md"
# What a reader of the checkout follows links in; docs/accuracy.md is rewritten by `make accuracy`, and
# is read like the others.
LINKED = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
# The student guide ships alone, beside the template and the wheel (`release`): only those can be linked.
STUDENT_GUIDE = ROOT / "student_template" / "README.md"
BUNDLE = {"attention.py", "README.md"}

LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(`{3,}|~{3,}).*?^\1\s*$", re.S | re.M)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)


def between(text: str, start: str, end: str) -> str:
    """The text between the comment markers `<!-- start ...-->` and `<!-- end ...-->`."""
    m = re.search(rf"<!--\s*{re.escape(start)}\b.*?-->(.*?)<!--\s*{re.escape(end)}\b.*?-->", text, re.S)
    assert m, f"no <!-- {start} --> ... <!-- {end} --> block"
    return m[1]


def layer_table(text: str) -> list[tuple[str, tuple[str, ...], str]]:
    """(layer, module prefixes, what it may import) for each row of the maintainers' layer table."""
    rows = []
    for line in between(text, "layers table", "end of layers table").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].isdigit():
            continue  # the header and its rule
        prefixes = tuple("" if m == "__init__" else m for m in re.findall(r"`([^`]+)`", cells[2]))
        rows.append((cells[1], prefixes, cells[3]))
    return rows


def declared_layers() -> list[tuple[str, tuple[str, ...], str]]:
    def may_import(i: int) -> str:
        return "layer 1" if i == 1 else f"layers 1-{i}"

    return [(name, prefixes, may_import(i)) for i, (name, prefixes) in enumerate(graph.LAYERS, start=1)]


def sandbox_face(text: str) -> set[str]:
    return set(re.findall(r"`(grader\.sandbox[\w.]*)`", between(text, "sandbox public face", "end of sandbox public face")))


def test_the_layer_table_is_the_import_graph_tests():
    assert layer_table(MAINTAINERS.read_text(encoding="utf-8")) == declared_layers()


def test_the_sandbox_public_face_is_the_import_graph_tests():
    assert sandbox_face(MAINTAINERS.read_text(encoding="utf-8")) == graph.SANDBOX_PUBLIC


def test_a_layer_table_that_drifted_is_caught():
    good = MAINTAINERS.read_text(encoding="utf-8")
    first = declared_layers()[0]
    moved = good.replace(f"| {first[0]} |", "| shared words |", 1)
    assert moved != good and layer_table(moved) != declared_layers()
    dropped = good.replace("`paths`", "", 1)
    assert dropped != good and layer_table(dropped) != declared_layers()


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation gone, spaces as hyphens."""
    text = re.sub(r"`|\*\*?|__?", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def prose(text: str) -> str:
    """The text without fenced code blocks and code spans, where a `[x](y)` is code, not a link."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(heading)
        n = 0
        while (name := base if n == 0 else f"{base}-{n}") in found:  # repeated headings get -1, -2 ...
            n += 1
        found.add(name)
    return found


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    problems = []
    for target in LINK.findall(prose(path.read_text(encoding="utf-8"))):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # https:, mailto: ...: not a file of the checkout
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        where = f"{path.relative_to(root)}: ({target})"
        if not dest.exists():
            problems.append(f"{where}: no such file")
        elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
            problems.append(f"{where}: no heading #{anchor} in {dest.name}")
    return problems


def test_the_docs_are_where_this_test_looks():
    assert MAINTAINERS in LINKED and all(p.is_file() for p in LINKED)


@pytest.mark.parametrize("path", LINKED, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(path):
    assert not broken_links(path)


def test_the_student_guide_links_only_what_the_bundle_holds():
    targets = LINK.findall(prose(STUDENT_GUIDE.read_text(encoding="utf-8")))
    local = [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t, re.I) and not t.startswith("#")]
    assert all(t.partition("#")[0] in BUNDLE for t in local), local


# What the student guide must never tell: the instructor's verbs, the secret, the solution, the instructor
# rubric, or anything of the hidden probes beyond that they exist (their sizes, lengths, families).
NOT_FOR_STUDENTS = re.compile(r"GRADER_SECRET|reference/|mutants?\b|grader grade\b|grader (?:merge|override|release|"
                              r"export|catalogue)\b|causal_attention\.yaml|hidden (?:probes? )?(?:at |of )?(?:lengths? )?\d",
                              re.I)


def test_the_student_guide_tells_nothing_for_the_instructor_alone():
    assert not NOT_FOR_STUDENTS.findall(STUDENT_GUIDE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("line", ["export GRADER_SECRET=...", "python -m grader grade export/",
                                  "hidden lengths 4 and 7", "see reference/attention.py", "grader release --out b"])
def test_what_a_student_must_not_read_is_caught(line):
    assert NOT_FOR_STUDENTS.search(line)


def test_a_broken_link_or_anchor_is_caught(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "here.md").write_text("# Here\n\n## The `merge` verb\n")
    doc = tmp_path / "README.md"
    doc.write_text("[ok](docs/here.md#the-merge-verb) [top](#a-title) ![pic](docs/here.md)\n"
                   "`[code](nowhere.md)` [web](https://example.org/x)\n\n```\n[fenced](nowhere.md)\n```\n"
                   "# A title\n")
    assert broken_links(doc, tmp_path) == []
    doc.write_text("[gone](docs/gone.md) [bad](docs/here.md#no-such) [self](#missing)\n")
    assert [p.rsplit(": ", 1)[1] for p in broken_links(doc, tmp_path)] == [
        "no such file", "no heading #no-such in here.md", "no heading #missing in README.md"]


def test_the_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines < 200, f"README.md has {lines} lines: move reference material into docs/"


def unlinked(readme: Path, pages: list[Path]) -> list[str]:
    """The pages `readme` does not link to (directly)."""
    targets = {(readme.parent / t.partition("#")[0]).resolve()
               for t in LINK.findall(prose(readme.read_text(encoding="utf-8")))
               if not re.match(r"^[a-z][a-z0-9+.-]*:", t, re.I) and not t.startswith("#")}
    return [p.name for p in pages if p.resolve() not in targets]


def test_the_readme_links_every_page():
    pages = [p for p in LINKED if p.name != "README.md"] + [STUDENT_GUIDE]
    assert not unlinked(ROOT / "README.md", pages)


def test_a_page_the_readme_does_not_link_is_caught(tmp_path):
    (tmp_path / "a.md").write_text("# A\n")
    (tmp_path / "b.md").write_text("# B\n")
    (tmp_path / "README.md").write_text("[a](a.md#a) `[b](b.md)`\n")
    assert unlinked(tmp_path / "README.md", [tmp_path / "a.md", tmp_path / "b.md"]) == ["b.md"]
