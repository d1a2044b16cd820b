"""What the judge tests share: the CLI runner, clean judge settings, and records written as JSONL."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from rulekit.engine import judge
from rulekit.cli import main


def invoke(*args):
    """Run `rulekit ARGS...` in-process; user errors (SystemExit) are results, anything else fails."""
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


@pytest.fixture(autouse=True)
def fresh_settings(monkeypatch):
    """No judge settings from the environment, and the defaults back after each test."""
    for name in (judge.ENV_URL, judge.ENV_MODEL, judge.ENV_CACHE):
        monkeypatch.delenv(name, raising=False)
    yield
    judge.configure()


def write_records(path, records):
    """Write Records as our JSONL schema; returns `path`."""
    path.write_text("".join(json.dumps({"id": r.id, "question_type": r.question_type, "question": r.question,
                                        "choices": r.choices, "answer": r.answer, "response": r.response,
                                        "meta": r.meta}) + "\n" for r in records), encoding="utf-8")
    return path
