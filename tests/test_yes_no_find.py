"""The `yes-no` find (added in one module, rulekit/language/finds.py): whole-word yes/no words in text
order, answered Yes / No, with the usual picks and conditions. Golden cases name the step that fires."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from rulekit import Evaluator, Record, load_ruleset
from rulekit.cli import main

RULESET = """\
ruleset: yes-no-demo
summary: A prefix check, then the first yes/no word anywhere, then unknown.
open:
  steps:
    - id: prefix
      find: {yes-no: {}}
      where: start == 0
      pick: first
    - id: anywhere
      find: {yes-no: {yes-words: ["yes", "true"], no-words: ["no", "false", "not"]}}
      pick: first
  compare: {exact: {case: ignore}}
examples:
  - {response: "Yes, there is a dog.", answer: "yes", question-type: open, expect: "Yes", via: prefix}
  - {response: "no.", answer: "no", question-type: open, expect: "No", via: prefix}
  - {response: "I think not: there is no dog.", answer: "no", question-type: open, expect: "No", via: anywhere}
  - {response: "It is true that a dog is there", answer: "yes", question-type: open, expect: "Yes", via: anywhere}
  - {response: "Eyes open; nobody here", answer: "no", question-type: open, outcome: unresolved}
"""


@pytest.fixture
def ruleset(tmp_path):
    path = tmp_path / "yes-no-demo.yaml"
    path.write_text(RULESET, encoding="utf-8")
    return str(path)


def test_golden_examples_fire_the_named_steps(ruleset):
    result = CliRunner().invoke(main, ["test", ruleset])
    assert result.exit_code == 0, result.output
    assert "5 passed, 0 failed" in result.output


@pytest.mark.parametrize("response, pick, expected", [
    ("yes and no", "first", "Yes"),
    ("yes and no", "last", "No"),
    ("YES", "only", "Yes"),
    ("yes, definitely yes", "only", "Yes"),
    ("yes or no", "only", None),        # two different answers: `only` does not fire
    ("eyes, nothing", "first", None),   # not whole words
])
def test_picks_choose_among_yes_no_candidates(tmp_path, response, pick, expected):
    path = tmp_path / "r.yaml"
    path.write_text(f"ruleset: r\nopen:\n  steps:\n    - id: s\n      find: {{yes-no: {{}}}}\n      pick: {pick}\n"
                    "  compare: {exact: {case: ignore}}\n", encoding="utf-8")
    d = Evaluator(load_ruleset(str(path))).decide(Record("x", "open", response, "yes"))
    assert d.pred == expected


def test_the_word_is_in_the_schema_and_the_vocabulary(tmp_path):
    assert "find: yes-no" in CliRunner().invoke(main, ["vocabulary"]).output
    assert "YesNoFind" in CliRunner().invoke(main, ["schema"]).output
    path = tmp_path / "bad.yaml"
    path.write_text("ruleset: r\nopen:\n  steps:\n    - id: s\n      find: {yes-no: {yes-words: []}}\n")
    bad = CliRunner().invoke(main, ["check", str(path)])
    assert bad.exit_code == 2 and f"{path}:5:" in bad.stderr and "yes-words" in bad.stderr
