"""User errors: located, rendered with a caret and help, exit code 2, never a traceback.

Each fixture in tests/fixtures/bad/NAME.yaml has its exact rendered message in NAME.expected.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main

BAD = Path(__file__).parent / "fixtures" / "bad"


@pytest.mark.parametrize("fixture", sorted(p.stem for p in BAD.glob("*.yaml")))
def test_bad_ruleset_message_is_pinned(fixture, monkeypatch):
    monkeypatch.chdir(BAD)
    result = CliRunner().invoke(main, ["check", f"{fixture}.yaml"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert result.stderr == (BAD / f"{fixture}.expected").read_text(encoding="utf-8")


def test_eval_with_a_bad_ruleset_exits_2_without_traceback(monkeypatch):
    monkeypatch.chdir(BAD)
    result = CliRunner().invoke(main, ["eval", "-r", "unknown_key.yaml"])
    assert result.exit_code == 2
    assert "unknown_key.yaml:6:7: error[E110]: unknown key `pikc`" in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_unknown_builtin_name_suggests_the_closest(tmp_path):
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkitt"])
    assert result.exit_code == 2
    assert "did you mean `vlmevalkit`?" in result.stderr


def test_malformed_input_line_names_its_line(tmp_path):
    data = tmp_path / "outputs.jsonl"
    data.write_text('{"id": "1", "response": "A", "choices": {"A": "x"}, "answer": "A"}\n{"id": 2, broken\n',
                    encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit", str(data), "--output-dir", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert f"{data}:2:" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out" / "vlmevalkit.decisions.jsonl").exists(), "no partial output on failure"


def test_missing_field_is_named(tmp_path):
    data = tmp_path / "outputs.jsonl"
    data.write_text('{"id": "1", "choices": {"A": "x"}, "answer": "A"}\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit", str(data)])
    assert result.exit_code == 2
    assert "response" in result.stderr


def test_missing_input_file_is_a_usage_error():
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit", "no-such-file.jsonl"])
    assert result.exit_code == 2
    assert "input file not found" in result.stderr


@pytest.mark.parametrize("pattern,outcome", [
    ("(a+)+$", "unresolved"),      # the regex module defuses this one: it answers at once
    ("(a|aa)+$", "error"),         # exponential in the regex module too: stopped by the time limit
])
def test_catastrophic_regex_becomes_an_error_outcome_not_a_hang(tmp_path, pattern, outcome):
    from rulekit import Evaluator, Record, load_ruleset
    from rulekit import compiler

    ruleset = tmp_path / "slow.yaml"
    ruleset.write_text('ruleset: slow\nmultiple-choice:\n  steps:\n    - id: evil\n'
                       '      find: {regex: "(?P<answer>' + pattern + ')"}\n  compare: letter\n', encoding="utf-8")
    old = compiler.REGEX_TIMEOUT
    compiler.REGEX_TIMEOUT = 0.2
    try:
        d = Evaluator(load_ruleset(str(ruleset))).decide(Record("r1", "multiple-choice", "a" * 40 + "!", "A", {"A": "x"}))
    finally:
        compiler.REGEX_TIMEOUT = old
    assert d.outcome == outcome
    if outcome == "error":
        assert d.step == "evil" and "time limit" in d.message
