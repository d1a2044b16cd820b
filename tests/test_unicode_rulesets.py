"""Issue 29 through built-in rulesets whose originals are not Atropos' (those have fidelity labels,
tests/test_atropos_fidelity.py): where an original reads a reply with Python's `re` or str methods, the
ruleset reads it as this interpreter does — a character newer than its Unicode tables is no letter or
digit here, whatever the `regex` module's tables say."""
from __future__ import annotations

import pytest

from rulekit import Evaluator, load_ruleset
from rulekit.core.records import Record

NEW_UPPER = "\ua7cb"     # LATIN CAPITAL LETTER RAMS HORN, Unicode 16: \p{Uppercase} to the regex module
NEW_DIGIT = "\U0001e4f1"  # NAG MUNDARI DIGIT ONE, Unicode 15: \d to the regex module
NEW_LETTER = "\U0001e4d0"  # NAG MUNDARI LETTER O, Unicode 15


def _decide(ruleset: str, response: str, qtype: str = "multiple-choice", answer="A", choices=None):
    choices = {"A": "cat", "B": "dog"} if qtype == "multiple-choice" and choices is None else choices
    return Evaluator(load_ruleset(ruleset), 0).decide(Record("r", qtype, response, answer, choices))


@pytest.mark.parametrize("first", [NEW_UPPER, "B", "\u01c5", "\u24b6", "b"])
def test_scienceqa_letter_dot_is_pythons_isupper(first):
    """sqa_process_results: `pred[0].isupper() and pred[1] == "."` (not the regex module's \\p{Uppercase})."""
    d = _decide("lmms-eval-scienceqa", f"{first}. the first one")
    assert d.step == ("letter-dot" if first.isupper() else "whole-reply")


def test_lmms_eval_open_numbers_are_pythons_digits():
    """parse_open_response's number patterns (Python `re`): a digit of Unicode 15 is no digit to Python 3.11,
    so "1𞓱2" holds the numbers 1 and 2 there (the regex module read one number, which float() refuses)."""
    d = _decide("lmms-eval", f"so the answer is 1{NEW_DIGIT}2 apples", "open", answer="12")
    assert d.step == "key-phrase"
    assert d.pred[1:] == ([] if NEW_DIGIT.isdecimal() else [1.0, 2.0])
