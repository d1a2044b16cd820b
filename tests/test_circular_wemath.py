"""Group metrics for CircularEval (VLMEvalKit, behaviour.md §2.5) and WeMath's four dimensions.

Hand-made groups whose expected figures are worked out in the comments.
"""
from __future__ import annotations

import pytest
from pydantic import ValidationError
from rich.console import Console

from rulekit import Evaluator, load_ruleset
from rulekit.run.evaluate import evaluate
from rulekit.metrics.groups import GroupSpec, group_metrics, render_group_table
from rulekit.core.records import Record
from rulekit.core.trace import Decision

CIRCULAR = {"group-by": ["g_index", "id"], "key-modulo": 1_000_000, "require": "all", "report-pending": True}


def rows(spec_rows):
    """(id, meta, correct, outcome) → (decisions, records)."""
    ds, rs = [], []
    for rid, meta, ok, outcome in spec_rows:
        rs.append(Record(id=str(rid), question_type="multiple-choice", response="", meta=meta))
        ds.append(Decision(id=str(rid), pred=None, correct=ok, score=1.0 if ok else 0.0, outcome=outcome, step="s"))
    return ds, rs


def test_circular_groups_by_index_mod_1e6_and_counts_pending_groups():
    # Question 7 and its rotations 1000007, 2000007, 3000007 (no g_index column): all right.
    # Question 8: one rotation is a wrong prefetch → fails at once, not pending, whatever else.
    # Question 9: right, right, unresolved → pending (a judge would be asked), scores 0 without one.
    # Question 10: a wrong prefetch AND an unresolved rotation → failed, not pending.
    # Question 11 carries a g_index column of 11 on every row (the column wins over the index).
    data = [(7, {}, True, "rule"), (1000007, {}, True, "rule"), (2000007, {}, True, "rule"), (3000007, {}, True, "rule"),
            (8, {}, True, "rule"), (1000008, {}, False, "rule"), (2000008, {}, True, "rule"),
            (9, {}, True, "rule"), (1000009, {}, True, "rule"), (2000009, {}, False, "unresolved"),
            (10, {}, False, "unresolved"), (1000010, {}, False, "abstain"),
            (500, {"g_index": 11}, True, "rule"), (501, {"g_index": 11}, True, "rule")]
    out = group_metrics(GroupSpec(**CIRCULAR), *rows(data))
    assert out["n_groups"] == 5 and out["n_rows"] == 14
    assert out["genuine_accuracy"] == pytest.approx(2 / 5)      # groups 7 and 11
    assert out["pending_groups"] == 1                            # group 9 only
    assert out["invalid_group_count"] == 0
    assert out["average_accuracy"] == pytest.approx(10 / 14)


def test_pending_follows_require():
    # require at-least 2 of 3: one right + two unresolved could still make it → pending
    data = [("a", {"t": 1}, True, "rule"), ("b", {"t": 1}, False, "unresolved"), ("c", {"t": 1}, False, "unresolved"),
            ("d", {"t": 2}, True, "rule"), ("e", {"t": 2}, False, "rule"), ("f", {"t": 2}, False, "rule")]
    out = group_metrics(GroupSpec(group_by="t", require="at-least 2", report_pending=True), *rows(data))
    assert out["genuine_accuracy"] == 0.0 and out["pending_groups"] == 1
    assert "pending_groups" not in group_metrics(GroupSpec(group_by="t"), *rows(data))


def test_key_modulo_leaves_non_numeric_keys_without_a_group():
    data = [("x1", {}, True, "rule"), ("2", {}, True, "rule"), ("1000002", {}, False, "rule")]
    out = group_metrics(GroupSpec(group_by="id", key_modulo=1_000_000), *rows(data))
    assert out["n_groups"] == 1 and out["genuine_accuracy"] == 0.0
    assert out["invalid_groups"] == [{"group": None, "problem": "1 row(s) without id"}]


def test_vlmevalkit_circular_ruleset_end_to_end():
    # Two questions, each asked with its options rotated. VLMEvalKit's matcher, no judge.
    opts1, opts2 = {"A": "cat", "B": "dog"}, {"A": "dog", "B": "cat"}
    recs = [Record("1", "multiple-choice", "B", "B", opts1),           # right
            Record("1000001", "multiple-choice", "A", "A", opts2),     # right → group 1 right
            Record("2", "multiple-choice", "A", "B", opts1),           # wrong prefetch → group 2 fails
            Record("1000002", "multiple-choice", "hmm", "A", opts2),   # unresolved, but the group already failed
            Record("3", "multiple-choice", "B", "B", opts1),
            Record("1000003", "multiple-choice", "no idea", "A", opts2)]  # unresolved → pending
    [res] = evaluate([load_ruleset("vlmevalkit+circular")], recs, keep=True)
    m = res.metrics
    assert m["n_groups"] == 3
    assert m["genuine_accuracy"] == pytest.approx(1 / 3)
    assert m["pending_groups"] == 1
    assert m["accuracy"] == pytest.approx(3 / 6)
    assert res.outcomes["unresolved"] == 2


def test_circular_is_a_few_lines_on_any_mcq_ruleset(tmp_path):
    path = tmp_path / "lmms-circular.yaml"
    path.write_text("ruleset: lmms-eval+circular\nextends: lmms-eval\n"
                    "metrics:\n  groups: {group-by: [g_index, id], key-modulo: 1000000, require: all}\n")
    rs = load_ruleset(str(path))
    recs = [Record("1", "multiple-choice", "(B)", "B", {"A": "x", "B": "y"}),
            Record("1000001", "multiple-choice", "(A)", "A", {"A": "y", "B": "x"})]
    [res] = evaluate([rs], recs, keep=True)
    assert res.metrics["genuine_accuracy"] == 1.0 and res.metrics["n_groups"] == 1


# ---------------------------------------------------------------- WeMath

WEMATH = {"group-by": "ID", "whole": {"field": "key", "pattern": "multi$"}}


def problem(pid, steps, whole_ok):
    """A composite problem: sub-problem rows `steps` (correctness list) and its `multi` row."""
    n = len(steps)
    out = [(f"{pid}-{i}", {"ID": pid, "key": f"{n}steps_{i}"}, ok, "rule") for i, ok in enumerate(steps, 1)]
    return out + [(f"{pid}-m", {"ID": pid, "key": f"{n}steps_multi"}, whole_ok, "rule")]


# P1: steps (1,1) whole 1 → CM (strict and loose)
# P2: steps (1,1) whole 0 → IG
# P3: steps (1,0) whole 0 → IK
# P4: steps (1,0,1) whole 1 → RM strict, CM loose
# P5: steps (0,0) whole 1 → RM strict and loose
# P6: steps (0,0,0) whole 0 → IK
HAND = (problem(1, [True, True], True) + problem(2, [True, True], False) + problem(3, [True, False], False)
        + problem(4, [True, False, True], True) + problem(5, [False, False], True)
        + problem(6, [False, False, False], False))


def test_wemath_four_dimensions():
    out = group_metrics(GroupSpec(**WEMATH), *rows(HAND))
    assert out["n_groups"] == 6
    assert out["mastery_counts"] == {"IK": 2, "IG": 1, "CM": 1, "RM": 2, "CM_loose": 2, "RM_loose": 1}
    assert out["ik"] == pytest.approx(2 / 6)
    assert out["ig"] == pytest.approx(1 / 6)
    assert out["cm"] == pytest.approx(1 / 6)
    assert out["cm_loose"] == pytest.approx(2 / 6)
    assert out["rm"] == pytest.approx(2 / 3)          # RM / (CM + RM)
    assert out["rm_loose"] == pytest.approx(1 / 3)
    assert out["mastery_score"] == pytest.approx((6 - 0.5 * 1 - 2 - 2) / 6)
    assert out["mastery_score_loose"] == pytest.approx((6 - 0.5 * 1 - 1 - 2) / 6)
    assert out["genuine_accuracy"] == pytest.approx(1 / 6)  # every row right: P1 only


def test_wemath_total_reproduces_the_hard_coded_525():
    out = group_metrics(GroupSpec(**WEMATH, total=525), *rows(HAND))
    assert out["ik"] == pytest.approx(2 / 525)
    assert out["rm"] == pytest.approx(2 / 3)          # RM's denominator is CM + RM either way
    assert out["mastery_score"] == pytest.approx((525 - 0.5 - 2 - 2) / 525)


def test_wemath_invalid_groups_are_listed_not_counted():
    broken = (problem(1, [True, True], True)
              + [("7-1", {"ID": 7, "key": "2steps_1"}, True, "rule"), ("7-2", {"ID": 7, "key": "2steps_2"}, True, "rule")]
              + [("8-m", {"ID": 8, "key": "2steps_multi"}, True, "rule")]
              + problem(9, [True], True) + [("9-x", {"ID": 9, "key": "3steps_multi"}, True, "rule")])
    out = group_metrics(GroupSpec(**WEMATH), *rows(broken))
    assert out["n_groups"] == 1 and out["cm"] == 1.0
    problems = {g["group"]: g["problem"] for g in out["invalid_groups"]}
    assert problems == {7: "0 rows match whole pattern 'multi$'", 8: "a whole question without parts",
                        9: "2 rows match whole pattern 'multi$'"}


def test_wemath_by_breakdown_and_table():
    data = [(rid, {**meta, "src": "a" if meta["ID"] <= 3 else "b"}, ok, o) for rid, meta, ok, o in HAND]
    out = group_metrics(GroupSpec(**WEMATH, breakdown="src"), *rows(data))
    assert out["by_src"]["a"]["mastery_counts"] == {"IK": 1, "IG": 1, "CM": 1, "RM": 0, "CM_loose": 1, "RM_loose": 0}
    assert out["by_src"]["b"]["ik"] == pytest.approx(1 / 3)
    assert out["macro"]["ik"] == pytest.approx((1 / 3 + 1 / 3) / 2)
    console = Console(record=True, width=240)
    console.print(render_group_table(out, "wemath"))
    text = console.export_text()
    for header in ("IK", "IG", "CM", "RM", "score"):
        assert header in text


def test_wemath_spec_validation():
    with pytest.raises(ValidationError, match="do not go together"):
        GroupSpec(**WEMATH, role="r", roles=["a"])
    with pytest.raises(ValidationError, match="needs `whole`"):
        GroupSpec(group_by="ID", total=525)
    with pytest.raises(ValidationError, match="invalid regex"):
        GroupSpec(group_by="ID", whole={"field": "key", "pattern": "("})
    spec = GroupSpec(**WEMATH, metrics=["ik", "rm"])
    out = group_metrics(spec, *rows(HAND))
    assert "ik" in out and "rm" in out and "cm" not in out and "mastery_counts" in out


def test_wemath_metric_in_a_ruleset(tmp_path):
    path = tmp_path / "wemath.yaml"
    path.write_text("ruleset: wemath-demo\nextends: vlmevalkit\n"
                    "metrics:\n  groups: {group-by: ID, whole: {field: key, pattern: 'multi$'}, total: 525}\n")
    rs = load_ruleset(str(path))
    opts = {"A": "1", "B": "2"}
    recs = [Record(f"{pid}-{k}", "multiple-choice", reply, "A", opts, meta={"ID": pid, "key": k})
            for pid, answers in ((1, ("A", "A", "A")), (2, ("A", "B", "B")))
            for k, reply in zip(("2steps_1", "2steps_2", "2steps_multi"), answers)]
    [res] = evaluate([rs], recs, keep=True)
    assert res.metrics["mastery_counts"] == {"IK": 1, "IG": 0, "CM": 1, "RM": 0, "CM_loose": 1, "RM_loose": 0}
    assert res.metrics["mastery_score"] == pytest.approx((525 - 1) / 525)
    assert Evaluator(rs).decide(recs[0]).correct is True
