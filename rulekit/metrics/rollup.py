"""Declared breakdowns: per-value figures by a record field or by a computed label, with rollups.

A `metrics: breakdown:` entry written as a mapping (schema.BreakdownSpec):

* ``{field: category}`` — :func:`rulekit.metrics.basic_metrics` per value of the field, like the
  plain string form.
* ``{name: kind, cases: [{when: CONDITION, value: LABEL}, ...]}`` — per label; the first case that
  holds on the record gives its label (conditions see ``gold`` and ``meta.NAME``), none gives
  ``"(missing)"``. Omni3DBench reports four numbers — yes/no, multiple-choice, count and float —
  which are ``answer_type`` split by the gold: a label computed from both.
* ``rollup: {GROUP: [values]}`` — per group, the unweighted mean of the listed values' figures
  (VMCBench's ``report_vmc_acc``: General / Reasoning / OCR / Doc & Chart are means of per-dataset
  accuracies, not of rows). ``n`` is the rows of the values present; values absent from the data are
  left out of the mean and listed under ``missing`` (the original raises KeyError instead); a group
  with no value present has None figures.

Results go under ``by_<name>`` and ``by_<name>_rollup``; the figures are fractions (unrounded).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rulekit.records import Record
from rulekit.trace import Decision

from .groups import MISSING, group_key, pair_rows

__all__ = ["declared_breakdown"]

_FIGURES = ("accuracy", "expected_accuracy", "score")


def _labels(spec: Any, records: Sequence[Record]) -> list[str]:
    if spec.field is not None:
        return [group_key(r.field(spec.field)) for r in records]
    from rulekit.expr import ConditionFailed, compile_condition
    from rulekit.scoring import RecordEnv

    cases = [(compile_condition(c.when), c.value) for c in spec.cases]
    out = []
    for r in records:
        env = RecordEnv(r)
        label = MISSING
        for condition, value in cases:
            try:
                holds = condition(env)
            except ConditionFailed:
                holds = False
            if holds:
                label = value
                break
        out.append(label)
    return out


def declared_breakdown(spec: Any, decisions: Sequence[Decision], records: Sequence[Record]) -> dict:
    """``{"by_<name>": {value: figures}, "by_<name>_rollup": {group: figures}}`` (rollup only when declared)."""
    from . import basic_metrics

    pairs = pair_rows(decisions, records)
    labels = _labels(spec, [r for _, r in pairs])
    buckets: dict[str, list[Decision]] = {}
    for (d, _), label in zip(pairs, labels):
        buckets.setdefault(label, []).append(d)
    per_value = {k: basic_metrics(v) for k, v in buckets.items()}
    out: dict[str, Any] = {f"by_{spec.key}": per_value}
    if spec.rollup:
        rolled = {}
        for group, values in spec.rollup.items():
            present = [v for v in values if v in per_value]
            figures: dict[str, Any] = {"n": sum(per_value[v]["n"] for v in present)}
            with_score = any("score" in per_value[v] for v in present)
            for name in _FIGURES:
                if name == "score" and not with_score:
                    continue
                vals = [per_value[v].get(name, per_value[v]["accuracy"]) for v in present]
                vals = [x for x in vals if x is not None]
                figures[name] = sum(vals) / len(vals) if vals else None
            figures["values"] = present
            figures["missing"] = [v for v in values if v not in per_value]
            rolled[group] = figures
        out[f"by_{spec.key}_rollup"] = rolled
    return out
