"""Metrics over decisions: accuracy, expected accuracy, outcome counts, breakdowns, groups.

All values are fractions in [0, 1], unrounded (DESIGN.md §5); reports turn them into
percentages. A decision whose `correct` is None (nothing to compare, abstain, error) counts as
wrong everywhere: the denominator is always every decision.

Submodules: :mod:`rulekit.metrics.stats` (McNemar exact test, bootstrap intervals) and
:mod:`rulekit.metrics.groups` (group metrics such as MMEvalPro's genuine accuracy).
"""
from __future__ import annotations

from collections.abc import Sequence

from rulekit.records import Record
from rulekit.trace import OUTCOMES, Decision

from .groups import GroupSpec, group_key, group_metrics, pair_rows, render_group_table
from .stats import bootstrap_ci, mcnemar_exact, paired_bootstrap_ci

__all__ = [
    "basic_metrics", "outcome_counts", "breakdown", "expected_credit",
    "GroupSpec", "group_metrics", "render_group_table", "group_key",
    "mcnemar_exact", "paired_bootstrap_ci", "bootstrap_ci",
]


def expected_credit(d: Decision) -> float:
    """Expected correctness of one decision.

    A random fallback (``outcome == "fallback"`` and ``k > 0``, k = number of letters it drew
    from) is worth ``1/k`` whatever it happened to draw; a constant fallback has ``k == 0`` and
    keeps its drawn correctness. Every other decision is worth 1.0 when correct, else 0.0.
    """
    if d.outcome == "fallback" and d.k and d.k > 0:
        return 1.0 / d.k
    return 1.0 if d.correct is True else 0.0


def basic_metrics(decisions: Sequence[Decision]) -> dict:
    """Headline metrics of a list of decisions.

    Returns ``{"n", "accuracy", "expected_accuracy", "fallback"}``: `accuracy` = correct / n
    (``correct is None`` counts as wrong); `expected_accuracy` counts each random fallback as
    1/k (see :func:`expected_credit`); `fallback` = number of decisions with outcome
    "fallback" (random or constant). With no decisions both accuracies are None.

    When any decision has a fractional ``score`` (partial-credit compares such as ANLS or MRA),
    ``"score"`` is added: the mean of the scores (None counts as 0) — the benchmark's headline.
    """
    n = len(decisions)
    correct = 0
    expected = 0.0
    fallback = 0
    total = 0.0
    fractional = False
    for d in decisions:
        if d.correct is True:
            correct += 1
        expected += expected_credit(d)
        if d.outcome == "fallback":
            fallback += 1
        s = d.score or 0.0
        total += s
        if 0.0 < s < 1.0:
            fractional = True
    out = {
        "n": n,
        "accuracy": correct / n if n else None,
        "expected_accuracy": expected / n if n else None,
        "fallback": fallback,
    }
    if fractional:
        out["score"] = total / n
    return out


def outcome_counts(decisions: Sequence[Decision]) -> dict:
    """Number of decisions per outcome.

    Every outcome of :data:`rulekit.trace.OUTCOMES` is a key, zero included, in that order; an
    outcome outside that list (a bug upstream) is counted under its own key rather than dropped.
    """
    counts = {o: 0 for o in OUTCOMES}
    for d in decisions:
        counts[d.outcome] = counts.get(d.outcome, 0) + 1
    return counts


def breakdown(decisions: Sequence[Decision], records: Sequence[Record], field: str) -> dict:
    """:func:`basic_metrics` per value of a record field (``category``, ``meta.source``, ...).

    `decisions` and `records` are parallel (same order, same ids; ValueError otherwise). Keys
    are the field values as strings in first-appearance order (:func:`group_key`; a missing
    value becomes ``"(missing)"``), so the result serialises to JSON as is.
    """
    buckets: dict[str, list[Decision]] = {}
    for d, r in pair_rows(decisions, records):
        buckets.setdefault(group_key(r.field(field)), []).append(d)
    return {k: basic_metrics(v) for k, v in buckets.items()}
