"""Tests of rulekit.diff: the disagreement set on the conformance corpus, the paired test, the CLI."""
from __future__ import annotations

import io
import json
from math import comb
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from rich.console import Console

from rulekit.cli import main
from rulekit.engine.compiler import load_ruleset
from rulekit.report.diff import diff_results, extraction_band, render_diff
from rulekit.run.evaluate import evaluate
from rulekit.readers import read_records

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus" / "responses.jsonl"
LABELS = SHARED / "conformance" / "labels.jsonl"
needs_corpus = pytest.mark.skipif(not (CORPUS.exists() and LABELS.exists()), reason="shared corpus/labels not available")

CONTRACT_ROW = {"id", "a_pred", "b_pred", "a_correct", "b_correct", "a_outcome", "b_outcome", "a_step", "b_step"}
SUMMARY_KEYS = {"agree", "disagree", "skipped", "accuracy_a", "accuracy_b", "delta", "mcnemar_p", "bootstrap_ci",
                "seed", "groups", "categories", "fingerprint_a", "fingerprint_b"}
GROUP_KEYS = {"a_step", "b_step", "direction", "category", "count", "share_of_delta", "examples"}


@pytest.fixture(scope="module")
def conformance():
    """(labels in order, records by id, the two Results) on the labelled corpus subset."""
    labels = [orjson.loads(line) for line in LABELS.read_bytes().splitlines() if line.strip()]
    order = {row["id"]: i for i, row in enumerate(labels)}
    records = sorted((r for r in read_records([str(CORPUS)]) if r.id in order), key=lambda r: order[r.id])
    results = evaluate([load_ruleset("lmms-eval"), load_ruleset("vlmevalkit")], records, seed=0, keep=True)
    return labels, {r.id: r for r in records}, results


@needs_corpus
def test_disagreements_match_the_conformance_labels(conformance):
    labels, records, (lmms, vlm) = conformance
    expected, n_mc = set(), 0
    for row in labels:
        if row["question_type"] != "multiple-choice":
            continue
        n_mc += 1
        gold = records[row["id"]].answer
        a_pred, b_pred = row["lmms_pred"], row["vlmeval_pred"]
        if a_pred != b_pred or bool(row["lmms_hit"]) != (b_pred == gold):
            expected.add(row["id"])
    report = diff_results(lmms, vlm, seed=0, show=1)
    got = [row["id"] for row in report["disagree"]]
    assert len(got) == len(set(got))
    assert set(got) == expected
    assert report["n"] == n_mc
    assert report["summary"]["skipped"] == len(labels) - n_mc  # open records: vlmevalkit has no open section
    s = report["summary"]
    assert s["agree"] + s["disagree"] == report["n"]
    assert sum(s["categories"].values()) == s["disagree"] == sum(g["count"] for g in s["groups"])
    assert sum(g["share_of_delta"] for g in s["groups"]) == pytest.approx(1.0)
    assert s["delta"] == pytest.approx(s["accuracy_a"] - s["accuracy_b"])
    assert all(set(row) == CONTRACT_ROW for row in report["disagree"])
    fallback = sum(1 for r in report["disagree"] if "fallback" in (r["a_outcome"], r["b_outcome"]))
    assert s["categories"]["fallback"] == fallback


@needs_corpus
def test_bootstrap_is_seeded(conformance):
    _, _, (lmms, vlm) = conformance
    first = diff_results(lmms, vlm, seed=0, show=0)["summary"]["bootstrap_ci"]
    again = diff_results(lmms, vlm, seed=0, show=0)["summary"]["bootstrap_ci"]
    other = diff_results(lmms, vlm, seed=1, show=0)["summary"]["bootstrap_ci"]
    assert first == again
    assert first != other
    lo, hi = first
    assert lo < diff_results(lmms, vlm, seed=0, show=0)["summary"]["delta"] < hi
    band = extraction_band([lmms, vlm], seed=0)
    assert band == extraction_band([lmms, vlm], seed=0)
    assert band["ci"] != extraction_band([lmms, vlm], seed=1)["ci"]
    for r in (lmms, vlm):  # each ruleset's own CI holds its own accuracy; the band's CI its like-for-like one
        lo, hi = band["own"][r.ruleset]["ci"]
        assert lo <= r.metrics["accuracy"] <= hi
        lo, hi = band["ci"][r.ruleset]
        assert lo <= band["accuracy"][r.ruleset] <= hi
    assert band["spread"] == pytest.approx(band["max"] - band["min"])
    # the band is on the records both scored (the multiple-choice ones), as diff compares them
    report = diff_results(lmms, vlm, seed=0, show=0)
    assert band["n"] == report["n"] < lmms.n
    s = report["summary"]
    assert band["max"] == pytest.approx(max(s["accuracy_a"], s["accuracy_b"]))
    assert band["min"] == pytest.approx(min(s["accuracy_a"], s["accuracy_b"]))


def _ruleset(path: Path, name: str, key: str) -> str:
    path.write_text(f"""\
ruleset: {name}
summary: picks the letter after "{key}=".
multiple-choice:
  steps:
    - id: pick-{key}
      find: {{regex: '{key}=(?P<answer>[A-D])', matches: first}}
      pick: first
  compare: letter
""")
    return str(path)


# (response, gold): 3 both right, 1 A right only (B unresolved), 7 B right only, 1 both wrong alike,
# 1 both wrong with different preds, and one open record neither tiny ruleset can score.
HAND = ([("a=A b=A", "A"), ("a=B b=B", "B"), ("a=C b=C", "C"), ("a=A", "A")] + [("a=B b=A", "A")] * 7
        + [("a=D b=D", "A"), ("a=C b=D", "A")])


@pytest.fixture
def hand_case(tmp_path):
    rows = [{"id": f"r{i}", "question_type": "multiple-choice", "choices": {"A": "w", "B": "x", "C": "y", "D": "z"},
             "answer": gold, "response": text} for i, (text, gold) in enumerate(HAND)]
    rows.append({"id": "open-1", "question_type": "open", "answer": "42", "response": "42"})
    data = tmp_path / "hand.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return _ruleset(tmp_path / "a.yaml", "hand-a", "a"), _ruleset(tmp_path / "b.yaml", "hand-b", "b"), str(data)


def test_mcnemar_and_categories_by_hand(hand_case):
    a_path, b_path, data = hand_case
    rs = [load_ruleset(a_path), load_ruleset(b_path)]
    a, b = evaluate(rs, read_records([data]), seed=0, keep=True)
    report = diff_results(a, b, seed=0, show=2, rulesets=tuple(rs))
    s = report["summary"]
    assert report["n"] == 13 and s["skipped"] == 1
    assert (s["a_only_correct"], s["b_only_correct"], s["both_correct"], s["both_wrong"]) == (1, 7, 3, 2)
    # two-sided exact McNemar by hand: 2 * P(X <= 1), X ~ Binomial(8, 1/2)
    assert s["mcnemar_p"] == pytest.approx(2 * (comb(8, 0) + comb(8, 1)) / 2 ** 8) == pytest.approx(0.0703125)
    assert s["accuracy_a"] == pytest.approx(4 / 13) and s["accuracy_b"] == pytest.approx(10 / 13)
    assert s["delta"] == pytest.approx(-6 / 13)
    assert s["categories"] == {"rule": 8, "one_sided": 1, "fallback": 0}
    assert {row["id"] for row in report["disagree"]} == {"r3", *(f"r{i}" for i in range(4, 11)), "r12"}
    groups = {(g["direction"], g["category"]): g for g in s["groups"]}
    b_right = groups[("b_right_only", "rule")]
    assert b_right["count"] == 7 and b_right["examples"] == ["r4", "r5"]
    assert b_right["share_of_delta"] == pytest.approx(7 / 6)
    assert groups[("a_right_only", "one_sided")]["label"] == "rule in A, unresolved in B"
    assert b_right["label"] == "rule vs rule: pick-a vs pick-b"
    ex = report["_examples"]["r4"]  # "a=B b=A": each side's span covers the letter it picked
    for side, letter in (("a", "B"), ("b", "A")):
        spans = ex[side]["spans"]
        assert spans and all(letter in ex[side]["text"][s0:e0] for s0, e0 in spans)
    for fmt in ("table", "markdown", "json"):
        out = io.StringIO()
        render_diff(report, fmt, Console(file=out, width=160))
        assert "pick-a" in out.getvalue()
    assert not any(k.startswith("_") for k in json.loads(out.getvalue()))


def test_cli_json_on_the_bundled_sample():
    result = CliRunner().invoke(main, ["diff", "-r", "lmms-eval", "-r", "vlmevalkit", "--format", "json", "--seed", "0"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {"a", "b", "n", "disagree", "summary"} == set(report)
    assert (report["a"], report["b"]) == ("lmms-eval", "vlmevalkit")
    assert SUMMARY_KEYS <= set(report["summary"])
    assert report["disagree"] and all(set(row) == CONTRACT_ROW for row in report["disagree"])
    assert all(GROUP_KEYS <= set(g) for g in report["summary"]["groups"])
    lo, hi = report["summary"]["bootstrap_ci"]
    assert lo <= report["summary"]["delta"] <= hi
    again = CliRunner().invoke(main, ["diff", "-r", "lmms-eval", "-r", "vlmevalkit", "--format", "json", "--seed", "0"])
    assert again.output == result.output


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_cli_table_and_markdown(fmt):
    result = CliRunner().invoke(main, ["diff", "-r", "lmms-eval", "-r", "vlmevalkit", "--format", fmt, "--show", "1"])
    assert result.exit_code == 0, result.output
    assert "McNemar" in result.output and "lmms-eval" in result.output


def test_cli_with_ruleset_files(hand_case):
    a_path, b_path, data = hand_case
    result = CliRunner().invoke(main, ["diff", "-r", a_path, "-r", b_path, data, "--format", "table"])
    assert result.exit_code == 0, result.output
    assert "rule vs rule: pick-a vs pick-b" in result.output
    bad = CliRunner().invoke(main, ["diff", "-r", a_path, data])
    assert bad.exit_code == 2
