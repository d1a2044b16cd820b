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

from typing import Any, Callable

from rulekit.core.records import Record

from rulekit.metrics.groups import MISSING, group_key

__all__ = ["labeler", "breakdown_figures"]

_FIGURES = ("accuracy", "expected_accuracy", "score")


def labeler(spec: Any) -> Callable[[Record], Any]:
    """The function giving a record's label under a declared breakdown (conditions compiled once); with
    `split`, a tuple of labels (the record counts under each)."""
    if spec.field is not None:
        name, sep = spec.field, spec.split
        if spec.cross is not None:
            other = spec.cross
            return lambda r: f"{group_key(r.field(name))} / {group_key(r.field(other))}"
        if spec.list_literal:
            return lambda r: _list_labels(r.field(name))
        if spec.contains:
            wanted = tuple(spec.contains)

            def found(r: Record) -> tuple:  # each listed value the text contains (none: counted nowhere)
                value = r.field(name)
                return tuple(v for v in wanted if v in value) if isinstance(value, str) else ()
            return found
        if sep is None:
            return lambda r: group_key(r.field(name))

        whole = spec.and_whole

        def labels(r: Record) -> tuple:  # several labels: the record is counted under each (a repeat twice)
            value = r.field(name)
            if not isinstance(value, str):
                return (group_key(value),)
            pieces = tuple(dict.fromkeys(part.strip() for part in value.split(sep)))
            return pieces + ((value.replace(sep, whole),) if whole is not None else ())
        return labels
    from rulekit.language.expr import ConditionFailed, compile_condition
    from rulekit.core.record_env import RecordEnv

    cases = [(compile_condition(c.when), c.value) for c in spec.cases]

    def label(r: Record) -> str:
        env = RecordEnv(r)
        for condition, value in cases:
            try:
                holds = condition(env)
            except ConditionFailed:
                holds = False
            if holds:
                return value
        return MISSING
    return label


def _list_labels(value: Any) -> tuple:
    """The labels of a list-literal field: each element of the list its text reads as (parsed, never run),
    a repeated one twice; a text that is not a list literal is its own one label."""
    from rulekit.core.limits import int_too_big
    from rulekit.core.pyliteral import Unreadable, read_literal

    if isinstance(value, str):
        try:
            items = read_literal(value)
        except (Unreadable, RecursionError):
            return (value,)
        if int_too_big(items):  # `[0xfff...]`: an integer no label can print; the text is its own label
            return (value,)
        if isinstance(items, (list, tuple)):
            return tuple(group_key(item) for item in items)
    return (group_key(value),)


def breakdown_figures(spec: Any, per_value: dict[str, dict]) -> dict:
    """The result of a declared breakdown from its per-value figures: adds the declared rollups."""
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
