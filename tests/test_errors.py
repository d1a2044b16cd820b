"""User errors: located, rendered with a caret and help, exit code 2, never a traceback.

Each fixture in tests/fixtures/bad/NAME.yaml has its exact rendered message in NAME.expected.
"""
from __future__ import annotations

import re
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
    from rulekit.core import regex as regex_limits

    ruleset = tmp_path / "slow.yaml"
    ruleset.write_text('ruleset: slow\nmultiple-choice:\n  steps:\n    - id: evil\n'
                       '      find: {regex: "(?P<answer>' + pattern + ')"}\n  compare: letter\n', encoding="utf-8")
    old = regex_limits.REGEX_TIMEOUT
    regex_limits.REGEX_TIMEOUT = 0.2
    try:
        d = Evaluator(load_ruleset(str(ruleset))).decide(Record("r1", "multiple-choice", "a" * 40 + "!", "A", {"A": "x"}))
    finally:
        regex_limits.REGEX_TIMEOUT = old
    assert d.outcome == outcome
    if outcome == "error":
        assert d.step == "evil" and "time limit" in d.message


LINT = Path(__file__).parent / "fixtures" / "lint"
CLI = Path(__file__).parent / "fixtures" / "cli"


@pytest.mark.parametrize("fixture", sorted(p.stem for p in LINT.glob("*.yaml")))
def test_lint_findings_are_pinned_and_exit_1(fixture, monkeypatch):
    monkeypatch.chdir(LINT)
    result = CliRunner().invoke(main, ["check", f"{fixture}.yaml"])
    assert result.exit_code == 1
    assert result.stderr == (LINT / f"{fixture}.expected").read_text(encoding="utf-8")


SLOW_FIXTURES = {"W320_regex_time_limit_strict"}  # waits out regex time limits (seconds): `slow`


@pytest.mark.parametrize("fixture", [pytest.param(stem, marks=pytest.mark.slow) if stem in SLOW_FIXTURES else stem
                                     for stem in sorted(p.stem for p in CLI.glob("*.args"))])
def test_input_and_usage_errors_are_pinned(fixture, monkeypatch):
    monkeypatch.chdir(CLI)
    args = (CLI / f"{fixture}.args").read_text(encoding="utf-8").splitlines()
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert result.stderr == (CLI / f"{fixture}.expected").read_text(encoding="utf-8")


def test_every_error_code_is_documented_and_has_a_pinned_fixture():
    import re

    from rulekit.core.errors import ERROR_CODES

    source = "".join(p.read_text(encoding="utf-8") for p in Path(rulekit_dir()).rglob("*.py"))
    used = set(re.findall(r'code="([EW]\d+)"', source)) | {"E300", "E400"}
    assert used <= set(ERROR_CODES), f"undocumented: {sorted(used - set(ERROR_CODES))}"
    pinned = "".join(p.read_text(encoding="utf-8") for d in (BAD, LINT, CLI) for p in d.glob("*.expected"))
    missing = [code for code in ERROR_CODES if f"[{code}]" not in pinned and code not in PINNED_ELSEWHERE]
    assert missing == []


# Codes no command line can bring about, pinned by the test that causes them
PINNED_ELSEWHERE = {"E510": "tests/test_parallel.py::test_a_worker_killed_by_the_system_is_an_error_not_a_hang",
                    "E409": "tests/test_tiny_vlm.py::test_an_item_the_engine_refuses_is_e409_after_the_items_before_it",
                    # only `reproduce` reads pickles, and a file it cannot read is a note (exit 1), not exit 2
                    "E303": "tests/test_plainpickle.py::test_the_refusal_is_located_and_pinned"}


def rulekit_dir():
    import rulekit
    return Path(rulekit.__file__).parent


def test_a_huge_reply_is_an_error_outcome_not_a_memory_problem(tmp_path):
    import json

    from rulekit import Evaluator, Record, load_ruleset

    d = Evaluator(load_ruleset("vlmevalkit"), max_chars=1000).decide(
        Record("big", "multiple-choice", "A" * 5000, "A", {"A": "x", "B": "y"}))
    assert d.outcome == "error" and "exceeds the limit" in d.message
    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps({"id": "big", "response": "B " * 3000, "choices": {"A": "x", "B": "y"}, "answer": "B"}) + "\n")
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit", str(data), "--max-chars", "100", "--format", "json"])
    assert json.loads(result.stdout)["results"][0]["outcomes"]["error"] == 1


def test_the_errors_page_lists_every_code_with_its_meaning():
    """docs/errors.md (the docs site's Errors page, once README's table) has a row per code, as core/errors.py
    words it."""
    from rulekit.core.errors import ERROR_CODES

    page = (Path(__file__).resolve().parents[1] / "docs" / "errors.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([EW]\d+)` \| (.*) \|$", page, flags=re.M))
    assert rows == ERROR_CODES
