"""Reports as users receive them: the JSON contract, determinism, hidden probes, bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import jsonschema
from support.corpora import MUTANTS, REFERENCE, ROOT, SECRET, TEMPLATE, mutant_id

from grader import schemas
from grader.grade import grade_file
from grader.probes import build_probes, hidden_seed


def _without_timing(report) -> dict:
    data = report.model_dump(mode="json")
    data["runtime"].pop("wall_s")
    return data


def test_same_file_secret_and_rubric_give_the_same_report(sandbox):
    zero_fill = next(p for p in MUTANTS if mutant_id(p) == "zero_fill_mask")
    first = grade_file(zero_fill, sandbox=sandbox, secret=SECRET)
    again = grade_file(zero_fill, sandbox=sandbox, secret=SECRET)
    assert _without_timing(first) == _without_timing(again)


def test_hidden_probes_depend_on_secret_and_file():
    a, b = hidden_seed("s1", b"x"), hidden_seed("s2", b"x")
    assert a != b and hidden_seed("s1", b"x") == a != hidden_seed("s1", b"y")
    hidden = [p for p in build_probes(a).probes if p.hidden]
    assert hidden and not [p for p in build_probes(None).probes if p.hidden]
    other = {p.id: p for p in build_probes(b).probes}
    assert not all(p.t["q"].shape == other[p.id].t["q"].shape and (p.t["q"] == other[p.id].t["q"]).all()
                   for p in hidden if p.call.meta["target"] == "attention")


def test_student_report_never_shows_hidden_checks(sandbox):
    from grader.grade import self_check

    report = self_check(REFERENCE, sandbox=sandbox)
    assert all(c.visibility == "visible" for c in report.checks)
    text = report.model_dump_json()
    assert "h.rand" not in text and "h.leak" not in text


def test_grade_json_is_one_array_in_order_and_validates(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def causal_attention(q, k, v):\n    return (\n")
    files = [str(REFERENCE), str(broken), str(TEMPLATE)]
    env = {"GRADER_SECRET": SECRET, "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", *files, "--json"], cwd=ROOT,
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    reports = json.loads(proc.stdout)  # nothing but the array on stdout
    assert [r["submission"] for r in reports] == files
    schema = json.loads(schemas.path_of("report").read_text())
    for report in reports:
        jsonschema.validate(report, schema)
    assert reports[0]["score"] == 100 and reports[0]["runtime"]["isolation"]
    assert [d["id"] for d in reports[1]["diagnoses"]] == ["syntax_error"]
    assert "line 2" in reports[1]["diagnoses"][0]["message"] or "line 3" in reports[1]["diagnoses"][0]["message"]
    assert "Traceback" not in proc.stderr


def test_check_on_the_template_says_nothing_is_implemented(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "GRADER_DATA_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "grader", "check", str(TEMPLATE)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "Nothing is implemented yet" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


def test_unreadable_file_is_graded_not_raised(sandbox, tmp_path):
    report = grade_file(tmp_path / "missing.py", sandbox=sandbox, secret=SECRET)
    assert report.score == 0 and report.diagnoses and report.diagnoses[0].id == "import_error"


def test_gradescope_results_keep_visibility_and_total(tmp_path):
    out = tmp_path / "results" / "results.json"
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", str(MUTANTS[0]), "--gradescope", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={"GRADER_SECRET": SECRET, "PATH": "/usr/bin:/bin", "NO_COLOR": "1"})
    assert proc.returncode == 0, proc.stderr
    results = json.loads(out.read_text())
    jsonschema.validate(results, json.loads(schemas.path_of("gradescope").read_text()))
    total = sum(t["score"] for t in results["tests"])
    capped = [t for t in results["tests"] if "the total is capped" in t.get("output", "")]
    # The sum of the tests, unless a severity band (a rubric ceiling) capped it, which a test says.
    assert abs(total - results["score"]) < 1e-6 or (capped and results["score"] < total)
    assert {t["visibility"] for t in results["tests"]} >= {"visible", "hidden"}


def test_attention_without_single_head_yet_is_graded_on_attention(sandbox, tmp_path):
    source = REFERENCE.read_text()
    path = tmp_path / "attention.py"
    path.write_text(source[: source.index("class SingleHead")])
    report = grade_file(path, sandbox=sandbox, secret=SECRET)
    status = {c.id: c.status for c in report.checks}
    assert status["worked_example"] == status["leak_intervention"] == "passed"
    assert status["single_head"] == status["single_head_gradients"] == "error"
    assert all("does not define SingleHead" in c.feedback for c in report.checks if c.id.startswith("single_head"))
    assert report.diagnoses[0].id == "missing_function" and "SingleHead" in report.diagnoses[0].message


def test_class_run_in_parallel_sandboxes_matches_one_by_one(sandbox):
    from grader.batch.run import grade_files

    picks = [p for p in MUTANTS if mutant_id(p) in ("zero_fill_mask", "syntax_error", "no_mask")]
    paths = [picks[0], REFERENCE, picks[1], picks[2], REFERENCE]
    together = grade_files(paths, secret=SECRET, workers=2)
    one_by_one = [grade_file(p, sandbox=sandbox, secret=SECRET) for p in paths]
    assert [_without_timing(r) for r in together] == [_without_timing(r) for r in one_by_one]
