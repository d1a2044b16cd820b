"""Metrics over decisions: accuracy, expected accuracy, outcome counts, breakdowns, groups.

All values are fractions in [0, 1], unrounded (DESIGN.md §5); reports turn them into
percentages. A decision whose `correct` is None (nothing to compare, abstain, error) counts as
wrong everywhere: the denominator is always every decision.

Submodules: :mod:`rulekit.metrics.stats` (McNemar exact test, bootstrap intervals) and
:mod:`rulekit.metrics.groups` (group metrics such as MMEvalPro's genuine accuracy).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

from rulekit.core.records import Record
from rulekit.core.trace import OUTCOMES, Decision

from rulekit.metrics.groups import GroupSpec, group_key, group_metrics, pair_rows, render_group_table
from rulekit.metrics.stats import bootstrap_ci, mcnemar_exact, paired_bootstrap_ci

__all__ = [
    "basic_metrics", "Tally", "outcome_counts", "breakdown", "expected_credit",
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


_SCALE = 1074  # every finite float in [0, 1] is an integer multiple of 2**-1074


class Tally:
    """Running counts behind :func:`basic_metrics`, filled one decision at a time.

    Sums are exact (integers and fractions, never a running float), so tallies filled in any
    order, or in worker processes and then merged with :meth:`merge`, give bit-identical metrics.
    """

    __slots__ = ("n", "correct", "sure", "fallback", "by_k", "full", "score", "fractional")

    def __init__(self) -> None:
        self.n = self.correct = self.sure = self.fallback = 0
        self.by_k: dict[int, int] = {}  # random fallbacks per number of letters drawn from
        self.full = 0                   # scores of exactly 1.0 (counted apart: a small int, not a 1075-bit one)
        self.score = 0                  # sum of the other scores in units of 2**-1074
        self.fractional = False

    def add(self, d: Decision) -> None:
        """Count one decision."""
        self.n += 1
        correct = d.correct is True
        if correct:
            self.correct += 1
        if d.outcome == "fallback":
            self.fallback += 1
            if d.k and d.k > 0:
                self.by_k[d.k] = self.by_k.get(d.k, 0) + 1
            elif correct:
                self.sure += 1
        elif correct:
            self.sure += 1
        s = d.score
        if s:
            if s == 1.0:
                self.full += 1
            else:
                num, den = float(s).as_integer_ratio()
                self.score += num << (_SCALE - den.bit_length() + 1)
                self.fractional = self.fractional or 0.0 < s < 1.0

    def merge(self, other: "Tally") -> None:
        """Add another tally's counts (e.g. from a worker process) to this one."""
        self.n += other.n
        self.correct += other.correct
        self.sure += other.sure
        self.fallback += other.fallback
        for k, c in other.by_k.items():
            self.by_k[k] = self.by_k.get(k, 0) + c
        self.full += other.full
        self.score += other.score
        self.fractional = self.fractional or other.fractional

    def metrics(self) -> dict:
        """The :func:`basic_metrics` dict of what was counted."""
        n = self.n
        expected = None
        if n:
            credit = Fraction(self.sure) + sum((Fraction(c, k) for k, c in sorted(self.by_k.items())), Fraction(0))
            expected = float(credit / n)
        out = {"n": n, "accuracy": self.correct / n if n else None, "expected_accuracy": expected,
               "fallback": self.fallback}
        if self.fractional:
            out["score"] = float(Fraction((self.full << _SCALE) + self.score, n << _SCALE))
        return out


def basic_metrics(decisions: Iterable[Decision]) -> dict:
    """Headline metrics of a list of decisions.

    Returns ``{"n", "accuracy", "expected_accuracy", "fallback"}``: `accuracy` = correct / n
    (``correct is None`` counts as wrong); `expected_accuracy` counts each random fallback as
    1/k (see :func:`expected_credit`); `fallback` = number of decisions with outcome
    "fallback" (random or constant). With no decisions both accuracies are None.

    When any decision has a fractional ``score`` (partial-credit compares such as ANLS or MRA),
    ``"score"`` is added: the mean of the scores (None counts as 0) — the benchmark's headline.
    Sums are exact (see :class:`Tally`), so the order of the decisions never changes a digit.
    """
    tally = Tally()
    for d in decisions:
        tally.add(d)
    return tally.metrics()


def outcome_counts(decisions: Sequence[Decision]) -> dict:
    """Number of decisions per outcome.

    Every outcome of :data:`rulekit.core.trace.OUTCOMES` is a key, zero included, in that order; an
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
