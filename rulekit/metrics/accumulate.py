"""Streaming metrics: what a run keeps while decisions flow past, so memory stays flat.

`MetricsPlan(ruleset)` compiles once what a ruleset's metrics need (breakdown fields, declared
breakdown labelers, group spec). `Accumulator` holds only counts: a :class:`~rulekit.metrics.Tally`
overall, per question type, per breakdown value and per declared label, plus the outcome counts and one byte per decision saying whether it was correct (for bootstrap
intervals).
Group metrics (CircularEval, MMEvalPro triplets, WeMath) need every member of a group together,
so for a ruleset that declares `groups:` the accumulator also keeps each (decision, record)
pair, without traces. Accumulators filled by worker processes are merged in input order
(:meth:`Accumulator.merge`), which keeps breakdown keys in first-appearance order and gives the
same metrics as one process.
"""
from __future__ import annotations

from typing import Any

from rulekit.records import Record
from rulekit.trace import OUTCOMES, Decision

from . import Tally
from .groups import group_key, group_metrics
from .rollup import breakdown_figures, labeler

__all__ = ["MetricsPlan", "Accumulator"]


class MetricsPlan:
    """What one ruleset's metrics need from each decided record, compiled once."""

    def __init__(self, ruleset: Any):
        spec = ruleset.model.metrics
        self.fields = [name for name in spec.breakdown if isinstance(name, str)]
        self.declared = [(d, labeler(d)) for d in spec.breakdown if not isinstance(d, str)]
        self.groups = spec.groups

    def accumulator(self) -> "Accumulator":
        """An empty accumulator shaped for this plan."""
        return Accumulator(len(self.fields), len(self.declared))

    def add(self, acc: "Accumulator", d: Decision, r: Record) -> None:
        """Count decision `d` on record `r` into `acc`."""
        acc.total.add(d)
        acc.correct.append(d.correct is True)
        acc.outcomes[d.outcome] = acc.outcomes.get(d.outcome, 0) + 1
        _tally(acc.by_type, r.question_type).add(d)
        for name, buckets in zip(self.fields, acc.by_field):
            _tally(buckets, group_key(r.field(name))).add(d)
        for (_, label), buckets in zip(self.declared, acc.by_label):
            _tally(buckets, label(r)).add(d)
        if self.groups is not None:
            acc.kept.append((Decision(d.id, d.pred, d.correct, d.score, d.outcome, d.step, d.k, str(d.message)), r))

    def reserve(self, acc: "Accumulator", r: Record) -> tuple[int, int]:
        """Hold record `r`'s place in `acc` for a decision made later elsewhere (`fill`): its
        breakdown buckets are created now, so keys keep their first-appearance order. Returns the
        slot: (position in `acc.correct`, position in `acc.kept` or -1)."""
        _tally(acc.by_type, r.question_type)
        for name, buckets in zip(self.fields, acc.by_field):
            _tally(buckets, group_key(r.field(name)))
        for (_, label), buckets in zip(self.declared, acc.by_label):
            _tally(buckets, label(r))
        acc.correct.append(0)
        if self.groups is None:
            return len(acc.correct) - 1, -1
        acc.kept.append((None, r))  # type: ignore[arg-type]
        return len(acc.correct) - 1, len(acc.kept) - 1

    def fill(self, acc: "Accumulator", slot: tuple[int, int], d: Decision, r: Record) -> None:
        """Count decision `d` on record `r` into the place `reserve` held (slot offsets already
        shifted by whatever was merged into `acc` before the reserving accumulator)."""
        size, kept_size = len(acc.correct), len(acc.kept)
        self.add(acc, d, r)
        del acc.correct[size:]
        acc.correct[slot[0]] = d.correct is True
        if self.groups is not None:
            acc.kept[slot[1]] = acc.kept.pop()
        assert len(acc.kept) == kept_size

    def metrics(self, acc: "Accumulator") -> dict[str, Any]:
        """Headline metrics, per-question-type accuracy, breakdowns and group metrics (DESIGN.md §5)."""
        metrics = acc.total.metrics()
        metrics.pop("n", None)
        if len(acc.by_type) > 1:
            metrics["by_question_type"] = _figures(acc.by_type)
        for name, buckets in zip(self.fields, acc.by_field):
            metrics[f"by_{name.removeprefix('meta.')}"] = _figures(buckets)
        for (spec, _), buckets in zip(self.declared, acc.by_label):
            metrics.update(breakdown_figures(spec, _figures(buckets)))
        if self.groups is not None:
            metrics.update(group_metrics(self.groups, [d for d, _ in acc.kept], [r for _, r in acc.kept]))
        return metrics


class Accumulator:
    """Counts of one ruleset's decisions so far (picklable; see :class:`MetricsPlan`)."""

    __slots__ = ("total", "outcomes", "by_type", "by_field", "by_label", "kept", "skipped", "correct")

    def __init__(self, n_fields: int = 0, n_declared: int = 0):
        self.total = Tally()
        self.outcomes: dict[str, int] = {o: 0 for o in OUTCOMES}
        self.by_type: dict[str, Tally] = {}
        self.by_field: list[dict[str, Tally]] = [{} for _ in range(n_fields)]
        self.by_label: list[dict[str, Tally]] = [{} for _ in range(n_declared)]
        self.kept: list[tuple[Decision, Record]] = []
        self.skipped: dict[str, int] = {}  # records of a question type the ruleset has no section for
        self.correct = bytearray()  # 1/0 per decision, in input order: one byte a record, for bootstraps

    def skip(self, record: Record) -> None:
        """Count a record the ruleset does not decide."""
        self.skipped[record.question_type] = self.skipped.get(record.question_type, 0) + 1

    def merge(self, other: "Accumulator") -> None:
        """Add the counts of `other`, which saw the records right after these."""
        self.total.merge(other.total)
        for table, more in ((self.outcomes, other.outcomes), (self.skipped, other.skipped)):
            for key, count in more.items():
                table[key] = table.get(key, 0) + count
        for mine, theirs in zip([self.by_type, *self.by_field, *self.by_label],
                                [other.by_type, *other.by_field, *other.by_label]):
            for key, tally in theirs.items():
                _tally(mine, key).merge(tally)
        self.kept.extend(other.kept)
        self.correct += other.correct


def _tally(buckets: dict[str, Tally], key: str) -> Tally:
    tally = buckets.get(key)
    if tally is None:
        tally = buckets[key] = Tally()
    return tally


def _figures(buckets: dict[str, Tally]) -> dict[str, dict]:
    return {key: tally.metrics() for key, tally in buckets.items()}
