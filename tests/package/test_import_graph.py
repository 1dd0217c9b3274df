"""The house's layers, read from the source with ast: no module imports a layer above its own, the
sandbox's insides are reached only through its public face, and each concept is defined in one module.

The layer order is written out here, bottom first, so that a new module has to be placed on purpose.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "grader"

# Bottom first. A module's layer is its longest matching prefix (relative to grader/, dotted;
# "" is grader/__init__.py). A module may import its own layer and any layer below it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("shared words and where files live", ("vocabulary", "paths")),
    ("inputs as found: files, notebooks, archives", ("intake",)),
    ("running student code: sandbox and wire format", ("sandbox", "process")),
    ("probes: what a submission is asked, as wire frames, with its expected values", ("probes",)),
    ("replies: what came back, read from the frames into types", ("probes.replies",)),
    ("checks: verdicts from returned tensors", ("checks",)),
    ("diagnosis: misconceptions behind the verdicts", ("diagnosis",)),
    ("rubric: points, prerequisites, hints", ("rubric",)),
    ("report: the typed result and its renderers", ("report",)),
    ("one submission end to end", ("grade", "notebook", "watch", "demo")),
    ("a class", ("batch",)),
    ("the quiz and recall cards", ("quiz",)),  # below the service, which serves them in the browser
    ("the course service: uploads in the browser", ("serve",)),
    ("other verbs", ("export", "release", "schemas")),
    ("the command line", ("cli", "__main__", "")),
]

# What other layers may import of the sandbox; its other modules (the runner, the zygote, the
# hardening) are the child's side and are reached only from inside grader/sandbox/. The seed is
# planted by the command line before anything secret is read.
SANDBOX_PUBLIC = {"grader.sandbox", "grader.sandbox.wire", "grader.sandbox.protocol", "grader.sandbox.models",
                  "grader.sandbox.seed"}

# The one module outside the sandbox that reads frames' fields (the protocol's models): every other
# reader gets typed replies from it.
FRAME_READERS = {"grader.probes.replies"}

# One name, two unrelated concepts, each in its own corner (renaming would break public imports).
HOMONYMS = {
    "HEADER": "the gradebook's CSV columns vs the import lines a notebook's graded file starts with",
    "CheckResult": "the notebook's check() result vs the quiz's answer check",
    "Misconception": "a code bug the diagnosis names vs a wrong quiz answer",
    "Text": "the rubric's non-empty stripped text vs a reply frame's free text",
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("grader", *parts))


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str, path: Path) -> list[tuple[str, int]]:
    """Every grader module `name` imports (at any depth: lazy imports count), with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((target, node.lineno))
            # `from grader.x import y` may name a submodule y: that is an import of it too.
            found += [(f"{target}.{a.name}", node.lineno) for a in node.names]
    known = modules()
    return [(t, line) for t, line in found if t in known]


def layer_of(name: str) -> int:
    rel = name.removeprefix("grader").removeprefix(".")
    best, best_len = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (rel == prefix or rel.startswith(prefix + ".") or prefix == "" and rel == "") and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    if best is None:
        raise AssertionError(f"{name} is in no layer: place it in LAYERS in {__file__}")
    return best


def test_every_module_has_a_layer():
    for name in modules():
        layer_of(name)


def test_no_layer_imports_a_higher_one():
    wrong = []
    for name, path in modules().items():
        own = layer_of(name)
        for target, line in imports(name, path):
            if layer_of(target) > own:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {name} ({LAYERS[own][0]}) imports "
                             f"{target} ({LAYERS[layer_of(target)][0]})")
    assert not wrong, "\n".join(wrong)


def test_the_sandbox_is_reached_through_its_public_face():
    wrong = []
    for name, path in modules().items():
        if name.startswith("grader.sandbox"):
            continue
        for target, line in imports(name, path):
            if target.startswith("grader.sandbox.") and target not in SANDBOX_PUBLIC:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {name} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_only_the_replies_module_reads_frames():
    wrong = []
    for name, path in modules().items():
        if name.startswith("grader.sandbox") or name in FRAME_READERS:
            continue
        for target, line in imports(name, path):
            if target == "grader.sandbox.protocol":
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {name} reads frames ({target})")
    assert not wrong, "\n".join(wrong)


def definitions() -> dict[str, list[str]]:
    """Top-level classes and constants (CapWords or UPPER names) by name, with the modules defining them."""
    found: dict[str, list[str]] = defaultdict(list)
    for name, path in modules().items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name) and re.fullmatch(r"[A-Z]\w*", t.id)]
            else:
                continue
            for concept in names:
                if not concept.startswith("_"):
                    found[concept].append(name)
    return found


def test_each_concept_is_defined_in_one_module():
    twice = {c: where for c, where in definitions().items() if len(where) > 1 and c not in HOMONYMS}
    assert not twice, "\n".join(f"{c} is defined in {', '.join(where)}" for c, where in sorted(twice.items()))


def test_the_homonyms_listed_still_exist():
    # A stale exemption would quietly allow the next duplicate of that name.
    found = definitions()
    assert {c for c in HOMONYMS if len(found.get(c, [])) > 1} == set(HOMONYMS)


# Negative controls: each rule catches the shape it is written against, on a toy package.

def toy_package(tmp_path: Path, monkeypatch, files: dict[str, str]) -> None:
    for rel, text in {"__init__.py": "", **files}.items():
        path = tmp_path / "grader" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "__init__.py").touch()
        path.write_text(text)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path / "grader")


def test_a_higher_import_is_caught(tmp_path, monkeypatch):
    toy_package(tmp_path, monkeypatch, {"report/models.py": "X = 1\n",
                                        "rubric/model.py": "from grader.report.models import X\n"})
    with pytest.raises(AssertionError, match=r"grader.rubric.model \(rubric.*imports grader.report.models"):
        test_no_layer_imports_a_higher_one()


def test_a_lazy_import_of_the_runner_is_caught(tmp_path, monkeypatch):
    toy_package(tmp_path, monkeypatch, {"sandbox/runner.py": "",
                                        "diagnosis/fingerprint.py": "def f():\n    from grader.sandbox.runner import x\n"})
    with pytest.raises(AssertionError, match="grader.diagnosis.fingerprint imports grader.sandbox.runner"):
        test_the_sandbox_is_reached_through_its_public_face()


def test_a_second_frame_reader_is_caught(tmp_path, monkeypatch):
    toy_package(tmp_path, monkeypatch, {"sandbox/protocol.py": "",
                                        "checks/observations.py": "from grader.sandbox import protocol\n"})
    with pytest.raises(AssertionError, match="grader.checks.observations reads frames"):
        test_only_the_replies_module_reads_frames()


def test_replies_sit_above_the_probes(tmp_path, monkeypatch):
    toy_package(tmp_path, monkeypatch, {"probes/replies.py": "X = 1\n",
                                        "probes/__init__.py": "from grader.probes.replies import X\n"})
    with pytest.raises(AssertionError, match=r"grader.probes \(probes.*imports grader.probes.replies"):
        test_no_layer_imports_a_higher_one()


def test_a_second_definition_is_caught(tmp_path, monkeypatch):
    toy_package(tmp_path, monkeypatch, {"report/models.py": "Visibility = 1\n", "vocabulary.py": "Visibility = 1\n"})
    with pytest.raises(AssertionError, match="Visibility is defined in"):
        test_each_concept_is_defined_in_one_module()
