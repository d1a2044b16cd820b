"""Streaming metrics: what a run keeps while decisions flow past, so memory stays flat.

`MetricsPlan(ruleset)` compiles once what a ruleset's metrics need (breakdown fields, declared
breakdown labelers, group spec). `Accumulator` holds only counts: a :class:`~rulekit.metrics.Tally`
overall, per question type, per breakdown value and per declared label, plus the outcome counts and one
status byte per input record (`RIGHT`, `WRONG`, `UNREADABLE` left out, `NOT_SCORED`: no section), which gives
bootstrap intervals and lets several rulesets be compared on the records all of them scored
(`rulekit.report.joint`).
Group metrics (CircularEval, MMEvalPro triplets, WeMath) need every member of a group together,
so for a ruleset that declares `groups:` (or `binary:`, `all-correct:`) the accumulator also keeps each
(decision, record) pair, without traces. Accumulators filled by worker processes are merged in input order
(:meth:`Accumulator.merge`), which keeps breakdown keys in first-appearance order and gives the
same metrics as one process.
"""
from __future__ import annotations

from typing import Any

from rulekit.core.records import Record
from rulekit.core.trace import OUTCOMES, Decision

from rulekit.metrics import Tally
from rulekit.metrics.binary import binary_metrics
from rulekit.metrics.consistency import all_correct_metrics, totals_metrics
from rulekit.metrics.groups import group_key, group_metrics
from rulekit.metrics.rollup import breakdown_figures, labeler

__all__ = ["MetricsPlan", "Accumulator", "WRONG", "RIGHT", "UNREADABLE", "NOT_SCORED"]

# A record's status for one ruleset (`Accumulator.status`, one byte per input record, in input order):
WRONG, RIGHT = 0, 1  # in the headline: scored wrong (or not scored by its compare) / right
UNREADABLE = 2       # outcome `unreadable`, left out of the headline (counted: WRONG, with --count-unreadable)
NOT_SCORED = 3       # the ruleset has no section for the record's question type


class MetricsPlan:
    """What one ruleset's metrics need from each decided record, compiled once."""

    def __init__(self, ruleset: Any):
        spec = ruleset.model.metrics
        self.fields = [name for name in spec.breakdown if isinstance(name, str)]
        self.declared = [(d, labeler(d)) for d in spec.breakdown if not isinstance(d, str)]
        self.groups = spec.groups
        self.binary = spec.binary
        self.all_correct = spec.all_correct
        self.totals = spec.totals
        # metrics that need every (decision, record) pair
        self.keep = self.groups is not None or self.binary is not None or bool(self.all_correct) or bool(self.totals)
        self.plain = not self.fields and not self.declared and not self.keep

    def accumulator(self) -> "Accumulator":
        """An empty accumulator shaped for this plan."""
        return Accumulator(len(self.fields), len(self.declared))

    def keys(self, r: Record) -> tuple:
        """Record `r`'s buckets: (question type, breakdown field values, declared labels)."""
        if not self.fields and not self.declared:  # most rulesets: nothing to look up
            return r.question_type, (), ()
        return (r.question_type, tuple(group_key(r.field(name)) for name in self.fields),
                tuple(label(r) for _, label in self.declared))

    def add(self, acc: "Accumulator", d: Decision, r: Record) -> None:
        """Count decision `d` on record `r` into `acc`."""
        if self.plain:  # no breakdowns, no groups (most rulesets): one tally per question type
            tally = acc.by_type.get(r.question_type) or _tally(acc.by_type, r.question_type)
            tally.add(d)
            acc.outcomes[d.outcome] += 1
            if d.outcome == "error":
                acc.errors[d.reason] = acc.errors.get(d.reason, 0) + 1
            acc.status.append(d.correct is True)
            return
        _count(acc, d, self.keys(r))
        acc.status.append(d.correct is True)
        if self.keep:
            acc.kept.append((_slim(d), r))

    def reserve(self, acc: "Accumulator", r: Record) -> tuple:
        """Hold record `r`'s place in `acc` for a decision made later elsewhere (`fill`): its
        buckets are created now, so breakdown keys keep their first-appearance order. Returns the
        slot: (position in `acc.status`, position in `acc.kept` or -1, the record's bucket keys)."""
        keys = self.keys(r)
        _tally(acc.by_type, keys[0])
        for buckets, key in zip(acc.by_field, keys[1]):
            _tally(buckets, key)
        for buckets, key in zip(acc.by_label, keys[2]):
            for one in (key if type(key) is tuple else (key,)):
                _tally(buckets, one)
        acc.status.append(WRONG)
        if not self.keep:
            return len(acc.status) - 1, -1, keys
        acc.kept.append((None, r))  # type: ignore[arg-type]
        return len(acc.status) - 1, len(acc.kept) - 1, keys

    def fill(self, acc: "Accumulator", slot: tuple, d: Decision) -> None:
        """Count decision `d` into the place `reserve` held (positions already shifted by what was
        merged into `acc` before the reserving accumulator)."""
        at, kept_at, keys = slot
        _count(acc, d, keys)
        acc.status[at] = d.correct is True
        if kept_at >= 0:
            acc.kept[kept_at] = (_slim(d), acc.kept[kept_at][1])

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
        if self.keep:
            decisions, records = [d for d, _ in acc.kept], [r for _, r in acc.kept]
            if self.groups is not None:
                metrics.update(group_metrics(self.groups, decisions, records))
            if self.binary is not None:
                metrics.update(binary_metrics(self.binary, decisions, records))
            if self.all_correct:
                metrics.update(all_correct_metrics(self.all_correct, decisions, records))
            if self.totals:
                metrics.update(totals_metrics(self.totals, self.all_correct, decisions, records))
        return metrics


class Accumulator:
    """Counts of one ruleset's decisions so far (picklable; see :class:`MetricsPlan`)."""

    __slots__ = ("outcomes", "by_type", "by_field", "by_label", "kept", "skipped", "status", "errors", "unreadable")

    def __init__(self, n_fields: int = 0, n_declared: int = 0):
        self.outcomes: dict[str, int] = {o: 0 for o in OUTCOMES}
        self.by_type: dict[str, Tally] = {}
        self.by_field: list[dict[str, Tally]] = [{} for _ in range(n_fields)]
        self.by_label: list[dict[str, Tally]] = [{} for _ in range(n_declared)]
        self.kept: list[tuple[Decision, Record]] = []
        self.skipped: dict[str, int] = {}  # records of a question type the ruleset has no section for
        self.status = bytearray()  # per input record, in input order: RIGHT, WRONG, UNREADABLE or NOT_SCORED
        self.errors: dict[str, int] = {}  # outcome `error`: count per reason (Decision.reason)
        self.unreadable = 0  # decisions with outcome `unreadable` (left out or, with --count-unreadable, counted)

    @property
    def total(self) -> Tally:
        """Every decision counted: the question types' tallies merged (each decision is in exactly
        one of them, so it is counted once per record, not twice)."""
        total = Tally()
        for tally in self.by_type.values():
            total.merge(tally)
        return total

    @property
    def correct(self) -> bytes:
        """1/0 per record in the headline, in input order (what bootstrap intervals resample)."""
        return bytes(self.status).translate(None, bytes((UNREADABLE, NOT_SCORED)))

    def skip(self, record: Record) -> None:
        """Count a record the ruleset does not decide."""
        self.skipped[record.question_type] = self.skipped.get(record.question_type, 0) + 1
        self.status.append(NOT_SCORED)

    def leave_out(self, d: Decision) -> None:
        """Count an `unreadable` decision that stays out of the headline: its outcome, nothing else."""
        self.outcomes[d.outcome] = self.outcomes.get(d.outcome, 0) + 1
        self.unreadable += 1
        self.status.append(UNREADABLE)

    def merge(self, other: "Accumulator") -> None:
        """Add the counts of `other`, which saw the records right after these."""
        for table, more in ((self.outcomes, other.outcomes), (self.skipped, other.skipped), (self.errors, other.errors)):
            for key, count in more.items():
                table[key] = table.get(key, 0) + count
        for mine, theirs in zip([self.by_type, *self.by_field, *self.by_label],
                                [other.by_type, *other.by_field, *other.by_label]):
            for key, tally in theirs.items():
                _tally(mine, key).merge(tally)
        self.kept.extend(other.kept)
        self.status += other.status
        self.unreadable += other.unreadable


def _count(acc: Accumulator, d: Decision, keys: tuple) -> None:
    acc.outcomes[d.outcome] = acc.outcomes.get(d.outcome, 0) + 1
    if d.outcome == "error":
        acc.errors[d.reason] = acc.errors.get(d.reason, 0) + 1
    _tally(acc.by_type, keys[0]).add(d)
    for buckets, key in zip(acc.by_field, keys[1]):
        _tally(buckets, key).add(d)
    for buckets, key in zip(acc.by_label, keys[2]):
        for one in (key if type(key) is tuple else (key,)):  # a `split` breakdown: a label each
            _tally(buckets, one).add(d)


def _slim(d: Decision) -> Decision:
    """The decision without trace or text (what group metrics keep)."""
    return Decision(d.id, d.pred, d.correct, d.score, d.outcome, d.step, d.k, str(d.message), reason=d.reason)


def _tally(buckets: dict[str, Tally], key: str) -> Tally:
    tally = buckets.get(key)
    if tally is None:
        tally = buckets[key] = Tally()
    return tally


def _figures(buckets: dict[str, Tally]) -> dict[str, dict]:
    return {key: tally.metrics() for key, tally in buckets.items()}
