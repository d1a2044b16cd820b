"""Tests of rulekit.metrics.groups: GroupSpec, group_metrics, render_group_table, MMEvalPro demo."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from rich.console import Console

from rulekit.metrics.groups import GroupSpec, group_metrics, render_group_table
from rulekit.core.records import Record
from rulekit.core.trace import Decision

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DEMO = SHARED / "corpus" / "raw" / "mmevalpro"

MMEVALPRO = {"group-by": "triplet_id", "role": "eval_type",
             "roles": ["Origin", "Perception", "Knowledge"], "require": "all",
             "breakdown": "source"}


def build(rows):
    """rows: (triplet_id, eval_type, source, correct) → (decisions, records)."""
    ds, rs = [], []
    for i, (tid, role, src, ok) in enumerate(rows):
        meta = {"triplet_id": tid, "eval_type": role, "source": src}
        rs.append(Record(id=str(i), question_type="multiple-choice", response="", meta=meta))
        ds.append(Decision(id=str(i), pred=None, correct=ok, score=None, outcome="rule",
                           step="s"))
    return ds, rs


def triplet(tid, src, o, p, k):
    return [(tid, "Origin", src, o), (tid, "Perception", src, p), (tid, "Knowledge", src, k)]


# Five well-formed triplets, (Origin, Perception, Knowledge) correctness:
#   source A: T1 = (1,1,1)  T2 = (1,1,0)
#   source B: T3 = (1,0,1)  T4 = (0,1,1)  T5 = (1,0,1)
HAND = (triplet(1, "A", True, True, True) + triplet(2, "A", True, True, False)
        + triplet(3, "B", True, False, True) + triplet(4, "B", False, True, True)
        + triplet(5, "B", True, False, True))


def test_hand_triplets_micro():
    spec = GroupSpec(**MMEVALPRO)
    out = group_metrics(spec, *build(HAND))
    # genuine: only T1 all right → 1/5
    assert out["genuine_accuracy"] == pytest.approx(1 / 5)
    # rows right: 3 + 2 + 2 + 2 + 2 = 11 of 15
    assert out["average_accuracy"] == pytest.approx(11 / 15)
    # origin right in T1, T2, T3, T5 → 4/5
    assert out["origin_accuracy"] == pytest.approx(4 / 5)
    # PA: perception right in T1, T2, T4 → 3/5
    assert out["perception_accuracy"] == pytest.approx(3 / 5)
    # KA: knowledge right in T1, T3, T4, T5 → 4/5
    assert out["knowledge_accuracy"] == pytest.approx(4 / 5)
    # CG = origin - genuine = 4/5 - 1/5 = 3/5
    assert out["consistency_gap"] == pytest.approx(3 / 5)
    # PC: origin right in T1, T2, T3, T5; perception also right in T1, T2 → 2/4
    assert out["perception_consistency"] == pytest.approx(1 / 2)
    # KC: of T1, T2, T3, T5 knowledge right in T1, T3, T5 → 3/4
    assert out["knowledge_consistency"] == pytest.approx(3 / 4)
    assert out["n_rows"] == 15 and out["n_groups"] == 5
    assert out["invalid_group_count"] == 0 and out["invalid_groups"] == []


def test_hand_triplets_by_source_and_macro():
    out = group_metrics(GroupSpec(**MMEVALPRO), *build(HAND))
    a, b = out["by_source"]["A"], out["by_source"]["B"]
    assert list(out["by_source"]) == ["A", "B"]
    # A: T1 (1,1,1), T2 (1,1,0): genuine 1/2, avg 5/6, O 1, P 1, K 1/2, CG 1 - 1/2,
    #    PC 2/2, KC 1/2
    assert a["genuine_accuracy"] == pytest.approx(1 / 2)
    assert a["average_accuracy"] == pytest.approx(5 / 6)
    assert (a["origin_accuracy"], a["perception_accuracy"]) == (1.0, 1.0)
    assert a["knowledge_accuracy"] == pytest.approx(1 / 2)
    assert a["consistency_gap"] == pytest.approx(1 / 2)
    assert a["perception_consistency"] == 1.0
    assert a["knowledge_consistency"] == pytest.approx(1 / 2)
    # B: T3 (1,0,1), T4 (0,1,1), T5 (1,0,1): genuine 0, avg 6/9, O 2/3, P 1/3, K 1,
    #    CG 2/3 - 0, PC: origin right in T3, T5, perception right in neither → 0/2, KC 2/2
    assert b["genuine_accuracy"] == 0.0
    assert b["average_accuracy"] == pytest.approx(2 / 3)
    assert b["origin_accuracy"] == pytest.approx(2 / 3)
    assert b["perception_accuracy"] == pytest.approx(1 / 3)
    assert b["knowledge_accuracy"] == 1.0
    assert b["consistency_gap"] == pytest.approx(2 / 3)
    assert b["perception_consistency"] == 0.0
    assert b["knowledge_consistency"] == 1.0
    # macro = mean of the two sources (unrounded)
    m = out["macro"]
    assert m["genuine_accuracy"] == pytest.approx((1 / 2 + 0) / 2)
    assert m["average_accuracy"] == pytest.approx((5 / 6 + 2 / 3) / 2)
    assert m["origin_accuracy"] == pytest.approx((1 + 2 / 3) / 2)
    assert m["perception_accuracy"] == pytest.approx((1 + 1 / 3) / 2)
    assert m["knowledge_accuracy"] == pytest.approx((1 / 2 + 1) / 2)
    assert m["consistency_gap"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert m["perception_consistency"] == pytest.approx(1 / 2)
    assert m["knowledge_consistency"] == pytest.approx(3 / 4)
    assert set(m) == set(GroupSpec(**MMEVALPRO).metric_names)


def test_none_correct_counts_as_wrong():
    rows = triplet(1, "A", True, True, None)
    out = group_metrics(GroupSpec(**MMEVALPRO), *build(rows))
    assert out["genuine_accuracy"] == 0.0
    assert out["average_accuracy"] == pytest.approx(2 / 3)


def test_invalid_groups_are_listed_and_excluded():
    rows = (HAND[:3]                                                   # T1 (1,1,1)
            + [(6, "Origin", "A", True), (6, "Perception", "A", True)]  # missing Knowledge
            + triplet(7, "A", True, True, True) + [(7, "Origin", "A", False)]  # duplicate Origin
            + triplet(8, "A", True, True, True)[:2] + [(8, "Extra", "A", True)]
            + triplet(9, "A", True, True, True)[:2] + [(9, "Knowledge", "B", True)]
            + [(None, "Origin", "A", True)])
    out = group_metrics(GroupSpec(**MMEVALPRO), *build(rows))
    assert out["invalid_group_count"] == 5
    problems = {g["group"]: g["problem"] for g in out["invalid_groups"]}
    assert problems[None] == "1 row(s) without triplet_id"
    assert problems[6] == "missing role Knowledge"
    assert problems[7] == "duplicate role Origin"
    assert problems[8] == "undeclared role 'Extra'; missing role Knowledge"
    assert problems[9] == "spans source values A, B"
    # group figures only over T1
    assert out["n_groups"] == 1 and out["genuine_accuracy"] == 1.0
    assert out["perception_consistency"] == 1.0
    # row figures over every row: 3 + 2 + 4 + 3 + 3 + 1 = 16 rows, wrong only T7's second Origin
    assert out["n_rows"] == 16
    assert out["average_accuracy"] == pytest.approx(15 / 16)
    # origin rows: T1, T6, T7 (x2), T8, T9, the orphan → 7, one wrong
    assert out["origin_accuracy"] == pytest.approx(6 / 7)
    # breakdown: row of T9's knowledge question counts under B, the group under neither
    assert out["by_source"]["B"]["n_rows"] == 1 and out["by_source"]["B"]["n_groups"] == 0
    assert out["by_source"]["B"]["genuine_accuracy"] is None
    assert out["macro"]["genuine_accuracy"] == 1.0  # mean over sources where it is defined


def test_require_any_and_at_least_for_role_less_groups():
    # CircularEval-like groups of 4 rotations, no roles
    rows = ([("g1", None, "X", ok) for ok in (True, True, True, True)]
            + [("g2", None, "X", ok) for ok in (True, False, True, True)]
            + [("g3", None, "X", ok) for ok in (False, False, True, False)]
            + [("g4", None, "X", ok) for ok in (False, False, False, False)])
    ds, rs = build(rows)
    all_ = group_metrics(GroupSpec(**{"group-by": "triplet_id"}), ds, rs)
    assert all_["genuine_accuracy"] == 1 / 4           # g1
    assert all_["average_accuracy"] == 8 / 16
    assert "consistency_gap" not in all_ and "by_source" not in all_ and "macro" not in all_
    assert all_["invalid_group_count"] == 0
    any_ = group_metrics(GroupSpec(group_by="triplet_id", require="any"), ds, rs)
    assert any_["genuine_accuracy"] == 3 / 4           # g1, g2, g3
    at3 = group_metrics(GroupSpec(group_by="triplet_id", require="at-least 3"), ds, rs)
    assert at3["genuine_accuracy"] == 2 / 4            # g1 (4), g2 (3)


def test_metrics_selection_and_anchor():
    spec = GroupSpec(**MMEVALPRO, metrics=["genuine_accuracy", "knowledge_consistency"])
    out = group_metrics(spec, *build(HAND))
    assert [k for k in out if k.endswith(("accuracy", "consistency", "gap"))] == \
        ["genuine_accuracy", "knowledge_consistency"]
    assert set(out["macro"]) == {"genuine_accuracy", "knowledge_consistency"}
    # anchor Knowledge: CG = KA - GA = 4/5 - 1/5; origin_consistency = P(O | K) over
    # T1, T3, T4, T5 → T1, T3, T5 = 3/4; perception_consistency = T1, T4 = 2/4
    out = group_metrics(GroupSpec(**{**MMEVALPRO, "anchor": "Knowledge"}), *build(HAND))
    assert out["consistency_gap"] == pytest.approx(3 / 5)
    assert out["origin_consistency"] == pytest.approx(3 / 4)
    assert out["perception_consistency"] == pytest.approx(1 / 2)
    # anchor off
    out = group_metrics(GroupSpec(**{**MMEVALPRO, "anchor": None}), *build(HAND))
    assert "consistency_gap" not in out and "perception_consistency" not in out


def test_group_spec_validation():
    spec = GroupSpec(**MMEVALPRO)
    assert spec.anchor == "Origin" and spec.require == "all" and spec.macro is True
    assert spec.breakdown_key == "by_source"
    assert GroupSpec(**{**MMEVALPRO, "breakdown": "meta.source"}).breakdown_key == "by_source"
    assert GroupSpec(group_by="t", require="AT-LEAST   2").require == "at-least 2"
    assert GroupSpec(group_by="t", require="at-least 2").min_correct(5) == 2
    assert spec.min_correct(3) == 3
    assert spec.model_dump(by_alias=True)["group-by"] == "triplet_id"
    with pytest.raises(ValidationError):
        GroupSpec(**MMEVALPRO, colour="red")                       # extra="forbid"
    for bad in ("most", "at-least 0", "at-least"):
        with pytest.raises(ValidationError):
            GroupSpec(group_by="t", require=bad)
    with pytest.raises(ValidationError, match="at-least 4"):
        GroupSpec(**{**MMEVALPRO, "require": "at-least 4"})       # 3 roles
    with pytest.raises(ValidationError, match="go together"):
        GroupSpec(group_by="t", role="eval_type")
    with pytest.raises(ValidationError, match="anchor"):
        GroupSpec(**{**MMEVALPRO, "anchor": "Vision"})
    with pytest.raises(ValidationError, match="unknown group metric"):
        GroupSpec(**MMEVALPRO, metrics=["pc"])
    with pytest.raises(ValidationError):
        spec.require = "any"                                       # frozen


def test_render_group_table():
    out = group_metrics(GroupSpec(**MMEVALPRO), *build(HAND))
    console = Console(record=True, width=200)
    console.print(render_group_table(out, "hand"))
    text = console.export_text()
    for header in ("genuine", "average", "origin", "perception", "knowledge", "CG", "PC", "KC"):
        assert header in text
    for row in ("A", "B", "macro", "micro"):
        assert row in text
    assert "73.33" in text      # micro average 11/15
    assert "58.33" in text      # macro CG (1/2 + 2/3) / 2
    bare = group_metrics(GroupSpec(group_by="triplet_id"), *build(HAND))
    console = Console(record=True, width=200)
    console.print(render_group_table(bare, "bare"))
    text = console.export_text()
    assert "genuine" in text and "CG" not in text and "macro" not in text


# ---------------------------------------------------------------- official MMEvalPro demo

_OFFICIAL_NAMES = {"genuine_accuracy_score": "genuine_accuracy",
                   "average_score": "average_accuracy",
                   "origin_score": "origin_accuracy",
                   "perception_score": "perception_accuracy",
                   "knowledge_score": "knowledge_accuracy"}


def _demo(strip: bool = False):
    rows = json.loads(gzip.open(DEMO / "demo_model_output.json.gz").read())
    ds, rs = [], []
    for i, row in enumerate(rows):
        meta = {"triplet_id": row["triplet_id"], "eval_type": row["eval_type"],
                "source": row["source"]}
        rs.append(Record(id=str(i), question_type="multiple-choice",
                         response=row["model_output"], answer=row["answer"], meta=meta))
        a, o = row["answer"], row["model_output"]
        ok = (a.strip() == o.strip()) if strip else (a == o)   # auto_score.py: answer == output
        ds.append(Decision(id=str(i), pred=o, correct=ok, score=float(ok), outcome="rule",
                           step="given"))
    return ds, rs


needs_demo = pytest.mark.skipif(not (DEMO / "demo_score.json.gz").exists(),
                                reason="MMEvalPro demo files not found")


@needs_demo
def test_demo_reproduces_official_scores():
    ds, rs = _demo()
    official = json.loads(gzip.open(DEMO / "demo_score.json.gz").read())
    out = group_metrics(GroupSpec(**MMEVALPRO), ds, rs)
    assert out["invalid_group_count"] == 0
    assert out["n_groups"] == 2138 and out["n_rows"] == 6414
    targets = {src: out["by_source"][src] for src in ("MMMU", "MathVista", "ScienceQA")}
    targets["Macro_Average"] = out["macro"]
    targets["Micro_Average"] = out
    assert set(official) == set(targets)
    checked = 0
    for section, figures in official.items():
        assert set(figures) == set(_OFFICIAL_NAMES)
        for key, value in figures.items():
            ours = targets[section][_OFFICIAL_NAMES[key]] * 100
            assert abs(ours - value) <= 0.01 + 1e-9, (section, key, ours, value)
            checked += 1
    assert checked == 25
    # consistency_gap is exactly origin - genuine in every section
    for figures in targets.values():
        assert figures["consistency_gap"] == pytest.approx(
            figures["origin_accuracy"] - figures["genuine_accuracy"])


@needs_demo
def test_demo_strip_changes_nothing():
    exact = [d.correct for d in _demo()[0]]
    stripped = [d.correct for d in _demo(strip=True)[0]]
    assert exact == stripped
    assert sum(exact) == 4191
