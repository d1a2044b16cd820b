"""VMCBench conformance, and the VQA rulesets' compares and reports (chartqa, docvqa, infovqa, omni3dbench).

Per-quirk cases live in tests/golden/<ruleset>.yaml; this file checks what golden cases cannot:
agreement with the labels on the whole corpus, the report shapes, and the compares against
independent implementations.
"""
from __future__ import annotations

import random

import pytest

from rulekit import Evaluator, load_ruleset
from rulekit.language import schema as S
from rulekit.run.evaluate import evaluate
from rulekit.metrics import basic_metrics
from rulekit.core.records import Record
from rulekit.language.compares import anls_distance, mra, relaxed_correct, verdict
from rulekit.core.trace import Decision


# ---------------------------------------------------------------- VMCBench conformance
@pytest.mark.slow  # corpus-wide
def test_vmcbench_matches_every_multiple_choice_label(labelled_records):
    """VLMEvalKit's VMCBench parser on all 21,784 MCQ records (every option of a record, as the labels
    were made), with its random letters replayed from one stream seeded 0 in label order."""
    labels, records = labelled_records
    evaluator = Evaluator(load_ruleset("vmcbench"), 0)
    mismatches, checked, fallbacks, hits = [], 0, 0, 0
    for lab, record in zip(labels, records):
        d = evaluator.decide(record)
        if lab["question_type"] != "multiple-choice":
            assert d is None, "vmcbench has no open section"
            continue
        checked += 1
        is_fallback = d.outcome == "fallback"
        fallbacks += is_fallback
        hits += d.correct is True
        if (d.pred != lab["vmcbench_pred"] or is_fallback != (lab["vmcbench_fallback"] == "random")
                or d.correct != lab["vmcbench_hit"]):
            mismatches.append((lab["id"], lab["vmcbench_pred"], lab["vmcbench_fallback"], d.pred, d.outcome, d.step))
    assert checked == 21_784
    assert mismatches == []
    assert (fallbacks, hits) == (2690, 9327)


def test_vmcbench_reports_categories_and_the_four_groups():
    opts = {"A": "x", "B": "y"}
    rows = [("SEEDBench", "(A)", "A"), ("SEEDBench", "(B)", "A"),     # 1/2
            ("MMStar", "(A)", "A"),                                   # 1
            ("MMMU", "(B)", "A"),                                     # 0
            ("TextVQA", "(A)", "A"), ("TextVQA", "(A)", "A"), ("TextVQA", "(B)", "A")]   # 2/3
    recs = [Record(str(i), "multiple-choice", resp, gold, opts, meta={"category": cat})
            for i, (cat, resp, gold) in enumerate(rows)]
    [res] = evaluate([load_ruleset("vmcbench")], recs, keep=True)
    m = res.metrics
    assert m["accuracy"] == pytest.approx(4 / 7)                       # Overall: row mean
    assert m["by_category"]["TextVQA"]["accuracy"] == pytest.approx(2 / 3)
    roll = m["by_category_rollup"]
    assert roll["General"]["accuracy"] == pytest.approx((1 / 2 + 1) / 2)   # unweighted over datasets
    assert roll["General"]["n"] == 3 and roll["General"]["values"] == ["SEEDBench", "MMStar"]
    assert "A-OKVQA" in roll["General"]["missing"]
    assert roll["Reasoning"]["accuracy"] == 0.0
    assert roll["OCR"]["accuracy"] == pytest.approx(2 / 3)
    assert roll["Doc & Chart"]["accuracy"] is None and roll["Doc & Chart"]["n"] == 0


# ---------------------------------------------------------------- Omni3DBench report
def test_omni3dbench_reports_its_four_numbers():
    data = [("int", "<ans>3</ans>", "3"), ("int", "<ans>three</ans>", "3"),               # count 1/2
            ("str", "<ans>yes</ans>", "yes"), ("str", "<ans>no</ans>", "yes"),            # yes/no 1/2
            ("str", "<ans>cube</ans>", "cube"),                                           # MC 1/1
            ("float", "<ans>12</ans>", "10"), ("float", "<ans>10</ans>", "10")]          # MRA (0.6 + 1) / 2
    recs = [Record(str(i), "open", resp, gold, meta={"answer_type": t}) for i, (t, resp, gold) in enumerate(data)]
    [res] = evaluate([load_ruleset("omni3dbench")], recs, keep=True)
    kinds = res.metrics["by_answer-kind"]
    assert list(kinds) == ["Numeric (count)", "Yes/No", "Multiple Choice", "Numeric (other)"]
    assert kinds["Numeric (count)"]["accuracy"] == 0.5
    assert kinds["Yes/No"]["accuracy"] == 0.5
    assert kinds["Multiple Choice"]["accuracy"] == 1.0
    assert kinds["Numeric (other)"]["score"] == pytest.approx(0.8)
    assert res.metrics["score"] == pytest.approx((1 + 0 + 1 + 0 + 1 + 0.6 + 1) / 7)


def test_omni3dbench_gold_zero_is_an_error_that_is_counted():
    recs = [Record("z", "open", "<ans>1</ans>", "0", meta={"answer_type": "float"}),
            Record("ok", "open", "<ans>1</ans>", "1", meta={"answer_type": "float"})]
    [faithful, fixed] = evaluate([load_ruleset("omni3dbench"), load_ruleset("omni3dbench@fixed")], recs, keep=True)
    assert faithful.outcomes["error"] == 1 and faithful.n == 2 and faithful.metrics["accuracy"] == 0.5
    assert faithful.decisions[0].message.startswith("compare `mra`: division by a gold of 0")
    assert fixed.outcomes["error"] == 0 and fixed.decisions[0].score == 0.0


# ---------------------------------------------------------------- compares against independent code
def _levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def test_anls_distance_agrees_with_a_plain_dynamic_programme():
    rng = random.Random(6)
    alphabet = "abAB ß\tİ1"
    for _ in range(400):
        gold = "".join(rng.choice(alphabet) for _ in range(rng.randrange(8)))
        pred = "".join(rng.choice(alphabet) for _ in range(rng.randrange(8)))
        g, p = " ".join(gold.strip().lower().split()), " ".join(pred.strip().lower().split())
        length = max(len(gold.upper()), len(pred.upper()))
        want = 0.0 if length == 0 else _levenshtein(g, p) / length
        assert anls_distance(gold, pred) == want, (gold, pred)
        n = max(len(g), len(p))
        assert anls_distance(gold, pred, raw_denominator=False) == (0.0 if n == 0 else _levenshtein(g, p) / n)


@pytest.mark.parametrize("target,pred,want", [
    ("100", "95", True), ("100", "94.9", False), ("0.05", "5%", True), ("0", "0", True), ("0", "0.0", False),
    ("inf", "inf", False), ("abc", "ABC", True), ("10", " 10 ", True), ("10%", "0.1", True), ("-0", "0", False),
])
def test_relaxed_correctness(target, pred, want):
    assert relaxed_correct(target, pred, S.RelaxedOptions()) is want


def test_relaxed_without_percent_suffix_and_other_tolerance():
    spec = S.RelaxedOptions(tolerance=0.1, percent_suffix=False)
    assert relaxed_correct("100", "109", spec) and not relaxed_correct("0.05", "5%", spec)


def test_mra_thresholds_are_strict_and_configurable():
    spec = S.MraOptions(thresholds=[0.5, 0.1], divide_by="gold", zero_gold="error")
    assert mra("11", "10", spec) == (0.5, None)          # 0.1 < 0.1 is false
    assert mra("10", "10", spec) == (1.0, None)
    assert mra("x", "0", spec) == (0.0, None)
    assert mra("1", "0", spec)[1] is not None
    assert mra("1", "one", spec)[1] is not None
    assert mra("nan", "1", spec) == (0.0, None)


def test_verdict_of_a_list_prediction_takes_the_best_and_anls_is_fractional():
    rec = Record("r", "open", "", ["November 1"])
    assert verdict(S.Anls(), ["Novembr 1", "nope"], rec) == (False, pytest.approx(0.9), None)
    assert verdict("int", None, rec) == (False, 0.0, None)


def test_basic_metrics_reports_score_only_when_partial_credit_happened():
    whole = [Decision("a", "x", True, 1.0, "rule", "s"), Decision("b", "y", False, 0.0, "rule", "s")]
    assert "score" not in basic_metrics(whole)
    partial = whole + [Decision("c", "z", False, 0.5, "rule", "s"), Decision("d", None, None, 0.0, "error", "s")]
    m = basic_metrics(partial)
    assert m["score"] == pytest.approx(1.5 / 4) and m["accuracy"] == pytest.approx(1 / 4)


def test_cases_condition_errors_are_located(tmp_path):
    from rulekit.core.errors import RulekitError

    path = tmp_path / "bad.yaml"
    path.write_text("ruleset: bad\nopen:\n  steps: [{id: w, find: {whole: true}}]\n"
                    "  compare:\n    cases:\n      - {when: \"meta.x == \", compare: int}\n")
    with pytest.raises(RulekitError) as info:
        load_ruleset(str(path))
    assert "bad.yaml:6" in str(info.value)
    path.write_text("ruleset: bad\nopen:\n  steps: [{id: w, find: {whole: true}}]\n  compare: int\n"
                    "metrics:\n  breakdown:\n    - {name: k, cases: [{when: 'wrods > 1', value: v}]}\n")
    with pytest.raises(RulekitError, match="wrods"):
        load_ruleset(str(path))


def test_new_rulesets_and_words_are_documented():
    from rulekit.report.vocabulary import vocabulary_entries

    words = dict(vocabulary_entries())
    for word in ("compare: relaxed", "compare: anls", "compare: mra", "compare: yes-no", "compare: cases",
                 "compare: int", "breakdown", "condition name: gold"):
        assert words.get(word), word
    for name in ("vmcbench", "chartqa", "docvqa", "docvqa@fixed", "infovqa", "omni3dbench", "omni3dbench@fixed",
                 "vlmevalkit+circular"):
        rs = load_ruleset(name)
        assert rs.model.summary and rs.model.description, name
