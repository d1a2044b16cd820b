"""Tests of rulekit.metrics (basic metrics, outcome counts, breakdowns) and rulekit.metrics.stats."""
from __future__ import annotations

import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulekit.metrics import basic_metrics, breakdown, expected_credit, outcome_counts
from rulekit.metrics.stats import bootstrap_ci, mcnemar_exact, paired_bootstrap_ci
from rulekit.core.records import Record
from rulekit.core.trace import OUTCOMES, Decision


def dec(i, correct, outcome="rule", k=0, step="s"):
    return Decision(id=str(i), pred=None, correct=correct, score=None, outcome=outcome,
                    step=step, k=k)


def rec(i, **meta):
    return Record(id=str(i), question_type="multiple-choice", response="", meta=meta)


# ---------------------------------------------------------------- basic metrics

def test_basic_metrics_counts_none_as_wrong_and_random_fallback_as_one_over_k():
    ds = [
        dec(0, True),                                   # 1
        dec(1, False),                                  # 0
        dec(2, None, outcome="abstain"),                # 0 (None = wrong)
        dec(3, True, outcome="fallback", k=4),          # drawn right, expected 1/4
        dec(4, False, outcome="fallback", k=5),         # drawn wrong, expected 1/5
        dec(5, True, outcome="fallback", k=0),          # constant fallback: keeps 1
        dec(6, None, outcome="error"),                  # 0
    ]
    m = basic_metrics(ds)
    assert m["n"] == 7
    assert m["accuracy"] == pytest.approx(3 / 7)
    # 1 + 0 + 0 + 1/4 + 1/5 + 1 + 0 = 2.45
    assert m["expected_accuracy"] == pytest.approx(2.45 / 7)
    assert m["fallback"] == 3


def test_expected_credit_rule():
    assert expected_credit(dec(0, False, outcome="fallback", k=2)) == 0.5
    assert expected_credit(dec(0, True, outcome="rule", k=4)) == 1.0   # k only matters for fallback
    assert expected_credit(dec(0, None, outcome="fallback", k=0)) == 0.0


def test_basic_metrics_empty():
    assert basic_metrics([]) == {"n": 0, "accuracy": None, "expected_accuracy": None,
                                 "fallback": 0}


def test_outcome_counts_has_every_key():
    counts = outcome_counts([dec(0, True), dec(1, None, outcome="abstain"), dec(2, True)])
    assert list(counts) == list(OUTCOMES)
    assert counts == {"rule": 2, "judge": 0, "fallback": 0, "abstain": 1, "unresolved": 0,
                      "error": 0, "unreadable": 0}
    assert outcome_counts([]) == {o: 0 for o in OUTCOMES}


def test_breakdown_by_meta_field():
    ds = [dec(0, True), dec(1, False), dec(2, True), dec(3, True)]
    rs = [rec(0, cat="x"), rec(1, cat="y"), rec(2, cat="x"), rec(3)]
    out = breakdown(ds, rs, "cat")
    assert list(out) == ["x", "y", "(missing)"]
    assert out["x"]["accuracy"] == 1.0 and out["x"]["n"] == 2
    assert out["y"]["accuracy"] == 0.0
    assert out["(missing)"]["n"] == 1
    assert breakdown(ds, rs, "meta.cat") == out


def test_breakdown_rejects_misaligned_inputs():
    with pytest.raises(ValueError, match="decisions for"):
        breakdown([dec(0, True)], [], "cat")
    with pytest.raises(ValueError, match="id"):
        breakdown([dec(0, True)], [rec(1)], "cat")


# ---------------------------------------------------------------- McNemar

def test_mcnemar_hand_values():
    # n = 8, P(X <= 1) = (C(8,0) + C(8,1)) / 2^8 = 9/256, p = 2 * 9/256 = 0.0703125
    assert mcnemar_exact(1, 7) == 0.0703125
    assert mcnemar_exact(7, 1) == 0.0703125
    # n = 5, P(X <= 0) = 1/32, p = 2/32 = 0.0625
    assert mcnemar_exact(0, 5) == 0.0625
    # b == c: P(X <= n/2) >= 1/2, so p is capped at 1
    assert mcnemar_exact(3, 3) == 1.0
    assert mcnemar_exact(0, 0) == 1.0
    # n = 10, P(X <= 2) = (1 + 10 + 45) / 1024 = 56/1024, p = 112/1024 = 0.109375
    assert mcnemar_exact(2, 8) == 0.109375


def test_mcnemar_large_counts_are_exact_and_finite():
    p = mcnemar_exact(4000, 4300)
    assert 0 < p < 1
    # normal approximation with continuity correction: z = (|b - c| - 1) / sqrt(b + c)
    z = (300 - 1) / math.sqrt(8300)
    approx = math.erfc(z / math.sqrt(2))
    assert p == pytest.approx(approx, rel=0.05)
    assert mcnemar_exact(0, 1000) == 2.0 ** -999   # exact power of two, no overflow
    assert mcnemar_exact(0, 2000) == 0.0            # 2^-1999 underflows to 0.0, no error
    t = time.perf_counter()
    assert mcnemar_exact(14_900, 15_100) == pytest.approx(0.2506, abs=1e-3)
    assert time.perf_counter() - t < 5.0


@given(st.integers(0, 200), st.integers(0, 200))
@settings(max_examples=100, deadline=None)
def test_mcnemar_equals_math_comb_formula(b, c):
    from fractions import Fraction
    n = b + c
    if n == 0:
        return
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    assert mcnemar_exact(b, c) == float(min(Fraction(1), Fraction(2 * tail, 2 ** n)))


@given(st.integers(0, 300), st.integers(0, 300))
@settings(max_examples=200, deadline=None)
def test_mcnemar_properties(b, c):
    p = mcnemar_exact(b, c)
    assert 0.0 <= p <= 1.0
    assert p == mcnemar_exact(c, b)
    if b == c:
        assert p == 1.0


def test_mcnemar_rejects_bad_input():
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError):
            mcnemar_exact(bad, 1)


# ---------------------------------------------------------------- bootstrap

def test_bootstrap_reproducible_and_seed_dependent():
    rng = np.random.default_rng(123)
    v = (rng.random(500) < 0.6).astype(float)
    a = bootstrap_ci(v, seed=0)
    assert a == bootstrap_ci(v, seed=0)
    assert a != bootstrap_ci(v, seed=1)
    lo, hi = a
    assert lo < v.mean() < hi
    # standard error of a proportion ≈ sqrt(p(1-p)/n); 95% half-width ≈ 1.96 SE
    half = 1.96 * math.sqrt(v.mean() * (1 - v.mean()) / v.size)
    assert (hi - lo) / 2 == pytest.approx(half, rel=0.15)


def test_bootstrap_continuous_values_path():
    v = np.random.default_rng(5).normal(size=300)  # 300 distinct values: index resampling
    a = bootstrap_ci(list(v), seed=7, n_resamples=500)
    assert a == bootstrap_ci(list(v), seed=7, n_resamples=500)
    assert a != bootstrap_ci(list(v), seed=8, n_resamples=500)
    half = 1.96 * v.std() / math.sqrt(v.size)
    assert (a[1] - a[0]) / 2 == pytest.approx(half, rel=0.2)


def test_paired_bootstrap():
    rng = np.random.default_rng(0)
    a = (rng.random(2000) < 0.7).astype(float)
    b = a.copy()
    flip = rng.random(2000) < 0.1
    b[flip] = 1 - b[flip]
    ci = paired_bootstrap_ci(a, b, seed=3)
    assert ci == paired_bootstrap_ci(list(a), list(b), seed=3)
    assert ci != paired_bootstrap_ci(a, b, seed=4)
    assert ci[0] <= a.mean() - b.mean() <= ci[1]
    # identical systems: the interval collapses to zero
    assert paired_bootstrap_ci(a, a, seed=0) == (0.0, 0.0)
    lo99, hi99 = paired_bootstrap_ci(a, b, seed=3, level=0.99)
    assert lo99 <= ci[0] and hi99 >= ci[1]


def test_bootstrap_errors():
    with pytest.raises(ValueError):
        paired_bootstrap_ci([1, 0], [1], seed=0)
    with pytest.raises(ValueError):
        bootstrap_ci([], seed=0)
    with pytest.raises(ValueError):
        bootstrap_ci([1.0], seed=0, level=1.5)


def test_bootstrap_is_fast_on_30k_items():
    rng = np.random.default_rng(0)
    a = (rng.random(30_000) < 0.6).astype(float)
    b = (rng.random(30_000) < 0.6).astype(float)
    scores = rng.random(30_000)  # 30k distinct values: the slower, index-resampling path
    t = time.perf_counter()
    paired_bootstrap_ci(a, b, seed=0)
    bootstrap_ci(a, seed=0)
    bootstrap_ci(scores, seed=0)
    assert time.perf_counter() - t < 10.0


def test_totals_absent_none_or_skip():
    """`absent: none` (VLMEvalKit's MME: a listed category missing makes the sum None) against `absent: skip`
    (lmms-eval: the categories present, summed in the order the records bring them)."""
    from rulekit.core.records import Record
    from rulekit.core.trace import Decision
    from rulekit.language.schema import AllCorrectSpec, TotalsSpec
    from rulekit.metrics.consistency import totals_metrics

    rows = [("b", "q1", True), ("b", "q1", True), ("a", "q2", True), ("a", "q2", False)]
    records = [Record(str(i), "open", "x", "yes", None, None, None, meta={"category": c, "question_id": q})
               for i, (c, q, _) in enumerate(rows)]
    decisions = [Decision(str(i), "yes" if ok else "no", ok, None, "rule", "s") for i, (_, _, ok) in enumerate(rows)]
    plus = AllCorrectSpec(name="plus", key=["question_id"])
    for absent, want in (("none", None), ("skip", 200.0 + 50.0)):
        spec = TotalsSpec(name="t", of="category", add=["accuracy", "plus"], absent=absent,
                          sums={"s": ["a", "b", "c"]})
        out = totals_metrics([spec], [plus], decisions, records)["totals"]["t"]
        assert out["by_category"] == {"b": 200.0, "a": 50.0}
        assert out["s"] == want and out["missing"] == ["c"]



def _eval_json(tmp_path, ruleset_yaml: str, rows: list[dict]) -> dict:
    import json

    from click.testing import CliRunner

    from rulekit.cli import main

    (tmp_path / "rs.yaml").write_text(ruleset_yaml, encoding="utf-8")
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "-r", str(tmp_path / "rs.yaml"), str(data), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["results"][0]["metrics"]


SPLIT_RULESET = """ruleset: tags
multiple-choice:
  steps: [{id: letter, find: {regex: '(?P<answer>[A-D])', matches: first}}]
metrics:
  breakdown:
    - {field: meta.tags, split: ",", name: tags}
    - {field: meta.tags, split: ",", and-whole: "_", name: both}
"""


def test_a_split_breakdown_counts_a_record_under_each_piece_and_and_whole_in_one_table(tmp_path):
    """`split`: "ocr, math" counts under `ocr` and `math`; `and-whole`: also under "ocr_math" in the same
    table, so a one-tag record counts twice under its tag (VLMEvalKit's MMVet_acc)."""
    rows = [{"id": str(i), "question_type": "multiple-choice", "choices": {"A": "a", "B": "b"}, "answer": "A",
             "response": reply, "meta": {"tags": tags}}
            for i, (reply, tags) in enumerate([("A", "ocr, math"), ("B", "ocr"), ("A", "rec")])]
    m = _eval_json(tmp_path, SPLIT_RULESET, rows)
    assert {k: (v["n"], v["accuracy"]) for k, v in m["by_tags"].items()} == \
        {"ocr": (2, 0.5), "math": (1, 1.0), "rec": (1, 1.0)}
    assert {k: (v["n"], v["accuracy"]) for k, v in m["by_both"].items()} == \
        {"ocr": (3, 1 / 3), "math": (1, 1.0), "ocr_ math": (1, 1.0), "rec": (2, 1.0)}


def test_and_whole_needs_split(tmp_path):
    from click.testing import CliRunner

    from rulekit.cli import main

    (tmp_path / "rs.yaml").write_text(SPLIT_RULESET.replace('split: ",", and-whole', 'and-whole'), encoding="utf-8")
    result = CliRunner().invoke(main, ["test", str(tmp_path / "rs.yaml")])
    assert result.exit_code == 2 and "give `split` too" in result.output


def test_a_list_literal_breakdown_counts_each_element_a_repeat_twice(tmp_path):
    """`list-literal: true` (VLMEvalKit's MathVista_acc tallies `eval(skills)`): each element of the list the
    text reads as — parsed, never run — a repeated one twice; a text that is not a list literal is itself."""
    ruleset = SPLIT_RULESET.replace('''    - {field: meta.tags, split: ",", name: tags}
    - {field: meta.tags, split: ",", and-whole: "_", name: both}''', "    - {field: meta.tags, list-literal: true, name: tags}")
    rows = [{"id": str(i), "question_type": "multiple-choice", "choices": {"A": "a", "B": "b"}, "answer": "A",
             "response": reply, "meta": {"tags": tags}}
            for i, (reply, tags) in enumerate([("A", "['algebra', 'logic']"), ("B", "['logic', 'logic']"),
                                               ("A", "geometry"), ("A", "__import__('os')")])]
    m = _eval_json(tmp_path, ruleset, rows)
    assert {k: (v["n"], v["accuracy"]) for k, v in m["by_tags"].items()} == \
        {"algebra": (1, 1.0), "logic": (3, 1 / 3), "geometry": (1, 1.0), "__import__('os')": (1, 1.0)}
