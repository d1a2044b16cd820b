"""The `delimited` and `narrow` finds and extract's `take` (issue 16, VisuLogic): each pinned against the
Python an original writes — `re.finditer(OPEN|CLOSE)` with a stack, and `text.split(marker)[-1]`
flag after flag — on generated texts, and through a ruleset as a user writes it."""
from __future__ import annotations

import random
import re

import pytest

from rulekit.core.errors import RulesetError
from rulekit.language.finds import DelimitedFinder, DelimitedOptions, NarrowFinder, NarrowOptions
from rulekit.engine.compiler import load_ruleset
from rulekit.report.cases import check_examples


def _stack_scan(text: str, open_: str, close: str) -> list[str]:
    """What a hand-written scanner (VisuLogic's extract_last_boxed_content, every box) finds."""
    stack, out = [], []
    for m in re.finditer(f"(?P<o>{open_})|(?P<c>{close})", text):
        if m.group("o") is not None:
            stack.append(m.end())
        elif stack:
            start = stack.pop()
            if not stack:
                out.append(text[start:m.start("e") if m.group("e") is not None else m.start()])
    return out


def _split_narrow(text: str, markers: list[str], until: list[str]) -> list[str]:
    out = []
    for marker in markers:
        if marker in text:
            text = text.split(marker)[-1].strip()
            for sep in until:
                text = text.split(sep)[0]
            out.append(text)
    return out


@pytest.mark.parametrize("seed", range(5))
def test_delimited_is_the_stack_scan(seed):
    rng = random.Random(seed)
    finder = DelimitedFinder(DelimitedOptions(open=r"\\boxed\{", close=r"[^\\](?P<end>\})"), None)
    pieces = ["\\boxed{", "}", "}}", "\\}", "{", "A", "x", " ", "\n", "\\text{", "$"]
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(12)))
        want = _stack_scan(text, r"\\boxed\{", r"[^\\](?P<e>\})")
        assert [c.answer for c in finder.find(text, None, False)] == want, text


def test_delimited_spans_point_into_the_text():
    finder = DelimitedFinder(DelimitedOptions(open="<a>", close="</a>"), None)
    text = "x <a>one <a>two</a></a> y <a>three</a> <a>open"
    found = finder.find(text, None, False)
    assert [c.answer for c in found] == ["one <a>two</a>", "three"]
    assert all(text[c.start:c.end] == c.answer for c in found)


def test_delimited_ignores_empty_matches():
    finder = DelimitedFinder(DelimitedOptions(open=r"\(", close=r"x*\)|x*"), None)
    assert [c.answer for c in finder.find("(ab) (c", None, False)] == ["ab"]


@pytest.mark.parametrize("seed", range(5))
def test_narrow_is_split_after_split(seed):
    rng = random.Random(seed)
    markers = ["answer:", "the answer is", "aa", "is"]
    finder = NarrowFinder(NarrowOptions(markers=markers, until=["\n", "."]), None)
    pieces = ["answer:", "the answer is", "a", "aa", "is", " ", "\n", ".", "B", "\x1c"]
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(10)))
        found = finder.find(text, None, False)
        assert [c.answer for c in found] == _split_narrow(text, markers, ["\n", "."]), text
        assert all(text[c.start:c.end] == c.answer for c in found)


@pytest.mark.parametrize("markers,until", [(["answer", ""], []), (["answer"], ["\n", ""])])
def test_narrow_refuses_an_empty_marker_or_cut(markers, until):
    with pytest.raises(RulesetError):
        NarrowFinder(NarrowOptions(markers=markers, until=until), None)


def test_extract_take_last_in_a_ruleset(tmp_path):
    path = tmp_path / "last-box.yaml"
    path.write_text("""
ruleset: last-box
summary: the last delimited box, when it is a letter
multiple-choice:
  steps:
    - id: box
      prepare:
        - extract: [{delimited: {open: '\\\\boxed\\{', close: '\\}'}}]
          take: last
          otherwise: skip
      find: {regex: '\\A(?P<answer>[A-D])\\Z'}
      pick: first
examples:
  - {response: "\\\\boxed{A} then \\\\boxed{B}", options: {A: a, B: b}, answer: B, expect: B, via: box}
  - {response: "\\\\boxed{A} then \\\\boxed{no}", options: {A: a, B: b}, answer: A, expect: null, outcome: unresolved, correct: false}
""", encoding="utf-8")
    ruleset = load_ruleset(str(path), cache=False)
    results = check_examples(ruleset, ruleset.model.examples)
    assert len(results) == 2 and all(not r.problems for r in results), [r.problems for r in results]
