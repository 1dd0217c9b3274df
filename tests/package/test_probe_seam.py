"""One typed seam between probes and replies: what a probe is and what came back are types, never strings.

- No module outside grader/probes/ tests a probe's id as text (a prefix, a suffix, a literal id):
  a hidden probe is `Probe.hidden`, the worked example `ProbeSet.worked`, ids are named in grader.probes.
- A reply frame's fields are the protocol's: an undeclared one makes the call a protocol error that
  names it, never a field dropped unseen.
- A call the sandbox never made is `Reply.skipped`, read from the sandbox's own record, not its wording.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import torch

from grader.probes import build_probes, hidden_seed
from grader.probes.replies import Reply, read_run
from grader.sandbox import Failure, RunResult
from grader.sandbox.wire import Frame

PACKAGE = Path(__file__).resolve().parents[2] / "grader"
# The readers of probes and replies: checks, diagnosis, pictures and whole-submission judging.
READERS = ("checks", "diagnosis", "report", "rubric", "grade.py")
_STRING_TESTS = {"startswith", "endswith", "removeprefix", "removesuffix", "replace", "split", "rsplit", "partition"}


def _probe_ids() -> set[str]:
    """Every probe id (visible and hidden) that is not also a family or target name ("head" is all three)."""
    probes = build_probes(hidden_seed("seam", b"")).probes
    words = {p.family for p in probes} | {p.target for p in probes}
    return {p.id for p in probes} - words


def _is_probe_id(node: ast.AST) -> bool:
    """`x.id` of a probe, or a name the readers give probe ids (`pid`)."""
    return isinstance(node, ast.Attribute) and node.attr == "id" or isinstance(node, ast.Name) and node.id == "pid"


def string_tests(root: Path = PACKAGE) -> list[str]:
    ids = _probe_ids()
    found = []
    for part in READERS:
        where_ = root / part
        for path in sorted(where_.rglob("*.py") if where_.is_dir() else [where_] if where_.exists() else []):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                where = f"{path.relative_to(root.parent)}:{getattr(node, 'lineno', '?')}"
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                        node.value in ids or node.value.startswith("h.")):
                    found.append(f"{where}: the probe id {node.value!r} written out")
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                        node.func.attr in _STRING_TESTS and _is_probe_id(node.func.value):
                    found.append(f"{where}: a probe id read as text (.{node.func.attr})")
                elif isinstance(node, ast.JoinedStr) and any(
                        isinstance(v, ast.FormattedValue) and _is_probe_id(v.value) for v in node.values) and any(
                        isinstance(v, ast.Constant) and any(i.endswith(v.value) for i in ids) for v in node.values):
                    found.append(f"{where}: a probe id built from another one")
    return found


def test_no_reader_tests_a_probe_id_as_text():
    found = string_tests()
    assert not found, "\n".join(found)


@pytest.mark.parametrize("line", ['    hidden = probe.id.startswith("h.")\n', '    r = obs.reply("we")\n',
                                  '    own = by_id[f"{probe.id}.attention"]\n', '    k = pid.rsplit(".", 1)[1]\n'])
def test_each_string_test_is_caught(tmp_path, line):
    # Negative control: the scan finds each shape it is written against, in a toy reader.
    (tmp_path / "grader" / "checks").mkdir(parents=True)
    (tmp_path / "grader" / "checks" / "toy.py").write_text(f"def f(obs, probe, pid, by_id):\n{line}")
    assert string_tests(tmp_path / "grader"), line


def test_hidden_is_a_field_of_the_probe():
    probes = build_probes(hidden_seed("seam", b"x")).probes
    assert {p.hidden for p in probes} == {True, False}
    assert not any(p.hidden for p in build_probes(None).probes)
    assert all(p.description == "a probe the grade keeps unseen" for p in probes if p.hidden)


def _reply(**meta) -> Frame:
    return Frame("reply", {"id": "we", "ok": True} | meta, {"out": torch.zeros(3, 2), "weights": torch.eye(3)})


def test_an_undeclared_reply_field_is_refused_by_name():
    assert Reply.from_frame(_reply()).ok
    refused = Reply.from_frame(_reply(smuggled=1))
    assert not refused.ok and refused.error_type == "protocol_error"
    assert "smuggled" in refused.error and "does not declare" in refused.error


def test_an_undeclared_load_field_is_refused_by_name():
    run = RunResult(load=Frame("loaded", {"names": ["causal_attention"], "defined": [], "extra": True}))
    load = read_run(run, "").load_error
    assert load is not None and load.error_type == "protocol_error" and "extra" in load.error


def test_a_reply_holds_the_validated_fields_never_a_dict():
    with pytest.raises(TypeError, match="ReplyMeta"):
        Reply(True, {}, {"grad": "ok"})


def test_a_skipped_call_is_a_field_read_from_the_sandbox():
    run = RunResult(load=Frame("loaded", {"names": ["causal_attention"], "defined": []}),
                    failures={"we": Failure("timeout", "no answer within 3 s"),
                              "we.zero_q": Failure("timeout", "stopped (no answer within 3 s)", skipped=True)})
    replies = read_run(run, "").replies
    assert not replies["we"].skipped and replies["we.zero_q"].skipped


def test_the_sandbox_marks_the_calls_it_never_made():
    from grader.sandbox.client import _fail_all

    result, pending = RunResult(load=None), [Frame("call", {"id": "a"}), Frame("call", {"id": "b"})]
    _fail_all(result, pending, Failure("timeout", "no answer"), "not run: the submission was stopped")
    assert all(f.skipped for f in result.failures.values()) and not pending
