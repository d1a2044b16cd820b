"""`metrics: binary:` — precision, recall and F1 of a yes/no benchmark (VLMEvalKit's POPE_rating).

A record is predicted positive when its decision's prediction is exactly the spec's `positive`
label, and is positive when its gold is. With `negative`, a prediction that is neither label falls in
no cell (lmms-eval's POPE), and a gold that is neither label counts for no side of `positive_share`.
Counts are integers, so the figures do not depend on the order of the records.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rulekit.core.records import Record
from rulekit.core.trace import Decision
from rulekit.metrics.groups import group_key, pair_rows


class Confusion:
    """True/false positives and negatives, and the correct records, of one set of rows."""

    __slots__ = ("tp", "fp", "fn", "tn", "correct", "other", "gold_pos", "gold_neg")

    def __init__(self) -> None:
        self.tp = self.fp = self.fn = self.tn = self.correct = self.other = self.gold_pos = self.gold_neg = 0

    def add(self, predicted: bool | None, actual: bool | None, correct: bool) -> None:
        """Count one row: `predicted` None = neither label predicted (no cell), `actual` None = a gold that is
        neither label (counted as not positive in the cells, on no side of `positive_share`)."""
        self.gold_pos += actual is True
        self.gold_neg += actual is False
        actual = actual is True
        if predicted is None:
            self.other += 1
            self.correct += correct
            return
        if predicted:
            if actual:
                self.tp += 1
            else:
                self.fp += 1
        elif actual:
            self.fn += 1
        else:
            self.tn += 1
        self.correct += correct

    def figures(self) -> dict[str, Any]:
        """{n, accuracy, precision, recall, f1, positive_share, tp, fp, fn, tn}; a ratio whose denominator is 0
        is 0."""
        n = self.tp + self.fp + self.fn + self.tn + self.other
        sides = self.gold_pos + self.gold_neg
        precision = self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0
        recall = self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {"n": n, "accuracy": self.correct / n if n else None, "precision": precision, "recall": recall,
                "f1": f1, "positive_share": self.gold_pos / sides if sides else 0.0,
                "tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn}


def binary_metrics(spec: Any, decisions: Sequence[Decision], records: Sequence[Record]) -> dict[str, Any]:
    """`binary` and `binary_by_<field>` of a BinarySpec over parallel decisions and records."""
    overall = Confusion()
    by: dict[str, dict[str, Confusion]] = {name: {} for name in spec.by}
    for d, r in pair_rows(decisions, records):
        predicted, actual, correct = _side(d.pred, spec), _side(r.answer, spec), d.correct is True
        copies = 1
        for name in spec.by:
            values = _values(r.field(name), spec.split)
            if spec.split is not None:
                copies = max(copies, len(values))
            for value in values:
                buckets = by[name]
                (buckets.get(value) or buckets.setdefault(value, Confusion())).add(predicted, actual, correct)
        for _ in range(copies):
            overall.add(predicted, actual, correct)
    out: dict[str, Any] = {"binary": overall.figures()}
    for name, buckets in by.items():
        out[f"binary_by_{name.removeprefix('meta.')}"] = {k: c.figures() for k, c in buckets.items()}
    return out


def _side(value: Any, spec: Any) -> bool | None:
    """True for the `positive` label, False for the other side (with `negative`: only that label), else None."""
    if value == spec.positive:
        return True
    return False if spec.negative is None or value == spec.negative else None


def _values(value: Any, split: str | None) -> list[str]:
    """A record's `by` value(s): the field as a key, or with `split`, each piece of its text."""
    if split is None or value is None:
        return [group_key(value)]
    return [piece for piece in str(value).split(split)]
