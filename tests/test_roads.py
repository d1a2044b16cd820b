"""The engine's fast roads decide exactly as its traced road.

Without a trace, a literal find and its pick run as one call that builds no candidates
(`ops.picks.direct_literal_pick`), and token finds locate needles in the space-joined tokens;
`rulekit explain` runs every step through the generic find → where → pick road. Both must give
the same decision on real replies, for every built-in ruleset.
"""
from __future__ import annotations

import pytest

from rulekit.engine.compiler import load_ruleset
from rulekit.language.finds import TokenFinder
from rulekit.core.options import option_set
from rulekit.engine.decide import Evaluator
from rulekit.readers import read_records
from rulekit.core.resources import builtin_rulesets

from conftest import CORPUS

SLOW = ("physics", "olympiadbench")  # SymPy in a worker process: pinned by tests/test_math.py


@pytest.fixture(scope="module")
def corpus_sample():
    """Every 5th corpus record (about 6,200, all benchmarks and models)."""
    return [r for i, r in enumerate(read_records([str(CORPUS)])) if i % 5 == 0]


def _key(d):
    return None if d is None else (d.pred, d.correct, d.score, d.outcome, d.step, d.k)


@pytest.mark.slow  # corpus-wide, over every built-in ruleset
@pytest.mark.parametrize("name", sorted(n for n in builtin_rulesets() if "judge" not in n and not n.startswith(SLOW)))
def test_untraced_decisions_equal_traced_ones(name, corpus_sample):
    rs = load_ruleset(name)
    fast, traced = Evaluator(rs, 0), Evaluator(rs, 0)
    fired = set()
    for record in corpus_sample:
        a, b = fast.decide(record), traced.decide(record, trace=True)
        assert _key(a) == _key(b), (name, record.id)
        if a is not None:
            fired.add(a.step)
    assert fired, name


@pytest.mark.parametrize("text,needle,indices", [
    ("A", "A", [0]),
    ("A A A", "A", [0, 1, 2]),
    ("(A) is it, not B. A!", "A", [0, 5]),
    ("AA A\u00a0A\tA\nA", "A", [1, 2, 3, 4]),  # any Unicode whitespace splits; AA is not A
    ("x,y;A:B", "A", [2]),
    ("BA AB", "A", []),
])
def test_token_indices(text, needle, indices):
    finder = TokenFinder((needle,), ".()[],:;!*#{}", False, 10_000 + len(text), "test")
    TokenFinder._shared.clear()
    cands = finder.find(text, option_set({"A": "x"}), False)
    assert [c.index for c in cands] == indices
    traced = finder.find(text, option_set({"A": "x"}), True)  # with character offsets
    assert [c.index for c in traced] == indices
    spaced = finder.spaced(text)
    assert all(spaced[c.start:c.end] == needle for c in traced)


@pytest.mark.parametrize("template", ["({letter})", "(({letter}", "a{letter}a", "ab{letter}", "({letter}", "Answer: {letter}"])
@pytest.mark.parametrize("lower", [False, True])
def test_one_scan_letter_probe_finds_exactly_the_letters_present(template, lower):
    import random

    from rulekit.language.finds import _expand
    from rulekit.language.picks import _letter_probe

    opts = option_set({"A": "x", "B": "y", "C": "z"})
    needles = _expand((template,), opts, lower)
    probe = _letter_probe(template, needles, lower)
    if template == "(({letter}":  # "((" overlaps itself: "(((A" holds "((A" at 1, which a scan from 0 skips
        assert probe is None
        return
    assert probe is not None
    pattern, at = probe
    rng = random.Random(template)
    for _ in range(3000):
        text = "".join(rng.choice("()aAbBcC:x ") for _ in range(rng.randrange(12)))
        text = text.lower() if lower else text
        hits = pattern.findall(text)
        assert [a for a, n in needles if n[at] in hits] == [a for a, n in needles if n in text], text


def test_letter_probe_is_not_used_for_longer_letters():
    from rulekit.language.finds import _expand
    from rulekit.language.picks import _letter_probe

    opts = option_set({"A": "x", "AB": "y"})
    assert _letter_probe("({letter})", _expand(("({letter})",), opts, False), False) is None


@pytest.mark.parametrize("find,pick", [
    ("{literal: '{option}', case: ignore}", "{rightmost: {}}"),
    ("{literal: '{option}'}", "first"),
    ("{literal: ['({letter})', '{letter}.']}", "{rightmost-of: ' {letter} '}"),
    ("{literal: '({letter})'}", "{rightmost-of: '({letter})', ties: last}"),
    ("{literal: '({letter}'}", "only"),
    ("{literal: '{letter}', case: ignore}", "last"),
    ("{phrases: ['so ', 'is ']}", "first"),
    ("{literal: ''}", "{rightmost: {}}"),
])
def test_fused_literal_picks_decide_as_the_traced_road(tmp_path, corpus_sample, find, pick):
    path = tmp_path / "r.yaml"
    path.write_text(f"ruleset: r\nmultiple-choice:\n  steps:\n    - id: s\n      find: {find}\n      pick: {pick}\n",
                    encoding="utf-8")
    rs = load_ruleset(str(path))
    assert rs.sections["multiple-choice"].steps[0].direct is not None
    for record in corpus_sample[:3000]:
        assert _key(Evaluator(rs, 0).decide(record)) == _key(Evaluator(rs, 0).decide(record, trace=True)), record.id


def test_words_compared_with_a_number_counts_only_as_far_as_it_must():
    """`words > 5` splits the text at most 7 times; every comparison, either side, agrees with the full count."""
    import operator
    import random

    from rulekit.engine.decide import Env
    from rulekit.language.expr import compile_condition
    from rulekit.core.records import Record

    ops = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
    rng = random.Random(7)
    for _ in range(3000):
        n, op = rng.randint(-3, 9), rng.choice(list(ops))
        left = rng.random() < 0.5
        cond = compile_condition(f"words {op} {n}" if left else f"{n} {op} words", None)
        text = "".join(rng.choice(["a", " ", "\n", "bb", "\t", "\u00a0", "  "]) for _ in range(rng.randrange(20)))
        words = len(text.split())
        env = Env(text, Record("x", "open", text), option_set(None, ()))
        assert cond(env) == (ops[op](words, n) if left else ops[op](n, words)), (op, n, text)


@pytest.mark.parametrize("indicators", [["is ", "so ", "="], ["aa", "a"], ["abab", "ab "], ["ana", "=="]])
def test_tail_after_takes_the_text_after_the_last_split_piece(indicators):
    """`tail-after` reads the tail as `str.split`'s last piece, as lmms-eval's `split(indicator)[-1]`
    does: for an indicator that can overlap itself ("aa" in "aaa", "ana" in "banana") that is the text
    after the last occurrence found left to right, not after the rightmost one (a faster rfind road
    must keep this)."""
    import random

    from rulekit.language.finds import TailAfterFind, TailAfterFinder

    finder = TailAfterFinder(TailAfterFind(tail_after=indicators, split=r"\n", last_segment_extra=["=="]), None)
    rng = random.Random(7)

    def reference(text):
        pieces, out, at = text.split("\n"), [], 0
        for i, piece in enumerate(pieces):
            kept = None
            for indicator in indicators + (["=="] if i == len(pieces) - 1 else []):
                if indicator in piece:
                    tail = piece.split(indicator)[-1].strip()
                    if not kept or len(tail) < len(kept):
                        kept = tail
            if kept:
                out.append((kept, at + piece.rfind(kept)))
            at += len(piece) + 1
        return out

    alphabet = ["a", "b", "n", "s", "o", "i", " ", "=", "\n", "x"]
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        assert [(c.answer, c.start) for c in finder.find(text, None, False)] == reference(text), text
