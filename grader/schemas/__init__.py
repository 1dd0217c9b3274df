"""JSON Schemas generated from the pydantic models at each boundary; never edited by hand."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from grader.paths import atomic_write_text

HERE = Path(__file__).resolve().parent


def schema_text(model: type[BaseModel], name: str) -> str:
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": f"{name}.schema.json",
              **model.model_json_schema()}
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def models() -> dict[str, type[BaseModel]]:
    from grader.quiz.judge import CheckResult
    from grader.quiz.models import Quiz
    from grader.report.gradescope import GradescopeResults
    from grader.report.models import Report
    from grader.rubric.model import Rubric
    from grader.sandbox.wire import WireHeader

    return {"report": Report, "rubric": Rubric, "quiz": Quiz, "wire": WireHeader, "gradescope": GradescopeResults,
            "quiz-check": CheckResult}


def path_of(name: str) -> Path:
    return HERE / f"{name}.schema.json"


def write_all() -> list[Path]:
    written = []
    for name, model in models().items():
        atomic_write_text(path_of(name), schema_text(model, name))
        written.append(path_of(name))
    return written
