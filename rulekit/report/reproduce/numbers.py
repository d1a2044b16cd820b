"""Our value of each published number, from a ruleset's metrics or its per-record decisions, computed
the way the framework's report writer does (VLMEvalKit's report_acc, its score files, CircularEval)."""
from __future__ import annotations

from typing import Any

from rulekit.report.reproduce.published import Published

CATEGORY_FIELDS = ("category", "l2-category")  # what VLMEvalKit's report_acc groups by, in its order

def figure(metrics: dict, path: str) -> float | None:
    """The number at a dotted `path` of a result's metrics (None where any step is missing)."""
    value: Any = metrics
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return float(value) if type(value) in (int, float) else None


def _first_figure(metrics: dict, paths: Any, split: str, metric: str) -> float | None:
    """The figure at the first of `paths` (a dotted path or a list of them, {split} and {metric} filled
    in) that is present."""
    for path in ([paths] if isinstance(paths, str) else paths or []):
        value = figure(metrics, path.replace("{split}", split).replace("{metric}", metric))
        if value is not None:
            return value
    return None


def with_counts(result, spec: dict) -> dict:
    """A result's metrics with the counts a score file may print: `n` (records), `correct` (records scored
    right), `outcomes.OUTCOME` (records decided so: MathVision's `prefetch` is `outcomes.rule`) and, per
    value of each `count-by` entry (a field name, or a breakdown mapping such as `{field: skills,
    list-literal: true}`), `outcomes_by.NAME.VALUE.OUTCOME` and `counts_by.NAME.VALUE.n` / `.correct` (the
    field as records carry it: `category` for a `Subject` column is named by the numbers' paths)."""
    from rulekit.language.schema import BreakdownSpec
    from rulekit.metrics.rollup import labeler

    outcomes: dict[str, int] = {}
    by: dict[str, dict[str, dict[str, int]]] = {}
    counts: dict[str, dict[str, dict[str, int]]] = {}  # per value: records `n`, `correct` of them
    specs = [BreakdownSpec.model_validate(item if isinstance(item, dict) else {"field": item})
             for item in spec.get("count-by") or []]
    labels = [(s.key, labeler(s)) for s in specs]
    right = 0
    for record, decision in zip(result.records, result.decisions):
        outcomes[decision.outcome] = outcomes.get(decision.outcome, 0) + 1
        right += decision.correct is True
        for name, label in labels:
            found = label(record)
            for value in (found if type(found) is tuple else (found,)):
                tally = by.setdefault(name, {}).setdefault(str(value), {})
                tally[decision.outcome] = tally.get(decision.outcome, 0) + 1
                seen = counts.setdefault(name, {}).setdefault(str(value), {"n": 0, "correct": 0})
                seen["n"] += 1
                seen["correct"] += decision.correct is True
    return dict(result.metrics, n=len(result.decisions), correct=right, outcomes=outcomes, outcomes_by=by,
                counts_by=counts)


def score_file_numbers(numbers: list[Published], metrics: dict, spec: dict) -> dict[tuple[str, str], float | None]:
    """Our value of each number of a VLMEvalKit score file, as the registry's `score-file:` maps it: the
    entry for SPLIT/METRIC, else */METRIC, SPLIT/*, */* ({split} and {metric} filled in), its path (or
    the first of its paths that is present) times the scale — and, with `times: PATH`, times that figure
    (a count: `hit` is the accuracy times `n`; `n` alone is the number of records), with `per: PATH`
    divided by it (a rate; `per-zero: V` is the figure where that divides by 0, the divisor then a count that
    is 0 where absent: VLMEvalKit's prefetch table writes 0), with `int: true` cut to a whole number (pandas' astype(int)), with `count: true` 0 where the
    path is absent (no record decided so). The counts are `with_counts`'."""
    table = spec.get("numbers") or {}
    out: dict[tuple[str, str], float | None] = {}
    prefixed = [(k.split("/", 1)[0], k.split("/", 1)[1][:-1], k) for k in table
                if "/" in k and k.endswith("*") and not k.endswith("/*")]
    for n in numbers:
        split, metric = n.split, n.metric.strip()
        entry = next((table[k] for k in (f"{split}/{metric}", f"*/{metric}") if k in table), None)
        if entry is None:  # SPLIT/PREFIX*: a column named PREFIX + a value, {metric} the value (DynaMath's Subject-X)
            found = next(((k, metric[len(pre):]) for sp, pre, k in prefixed
                          if sp in (split, "*") and metric.startswith(pre)), None)
            if found is not None:
                entry, metric = table[found[0]], found[1]
        if entry is None:
            entry = next((table[k] for k in (f"{split}/*", "*/*") if k in table), None)
        scale, times, per, zero, over_zero, whole = float(spec.get("scale", 1)), None, None, False, None, False
        if isinstance(entry, dict):
            scale, times, per = scale * float(entry.get("scale", 1)), entry.get("times"), entry.get("per")
            zero, over_zero, whole = bool(entry.get("count")), entry.get("per-zero"), bool(entry.get("int"))
            entry = entry.get("path")
        value = _first_figure(metrics, entry, split, metric)
        if value is None and zero:  # a count of records decided so: none were
            value = 0.0
        for other, divide in ((times, False), (per, True)):  # times: a share times its records; per: a count over them
            if value is None or other is None:
                continue
            figure = _first_figure(metrics, other, split, metric)
            if divide and over_zero is not None and figure is None:
                figure = 0.0  # a divisor with `per-zero` is a count: absent, no record was decided so
            if divide and figure == 0 and over_zero is not None:  # the writer's own value for x / 0
                value = float(over_zero) / scale if scale else 0.0
            elif figure is None or (divide and figure == 0):
                value = None
            else:
                value = value / figure if divide else value * figure
        if value is not None and whole:  # the writer cast it to int (TDBench's Average total_questions)
            value = float(int(value))
        out[(n.split, n.metric)] = None if value is None else value * scale
    return out


def mean(values: list) -> float | None:
    """The mean of `values`, None for none."""
    return sum(values) / len(values) if values else None


def _by_split(records: list) -> dict[str, list[int]]:
    """The records' indexes per `split` value (as text), in record order."""
    out: dict[str, list[int]] = {}
    for i, r in enumerate(records):
        out.setdefault(str(r.meta.get("split")), []).append(i)
    return out


def report_acc_numbers(numbers: list[Published], records: list, correct: list[float]) -> dict[tuple[str, str], float | None]:
    """Our value of each published (split, metric), computed as VLMEvalKit's report_acc does: per split,
    `Overall` over its rows, any other column over the rows whose category / l2-category is that name —
    or, in a report without a split column, whose `split` is (ImageVQADataset writes one column per
    split). `correct` holds each record's score: 1/0, or a fraction (ANLS). The records are grouped once
    per split and field, so a report of 30,000 columns costs one pass, not 30,000."""
    out: dict[tuple[str, str], float | None] = {}
    splits = _by_split(records)
    everything = list(range(len(records)))
    groups: dict[tuple[str, str], dict[str, list[float]]] = {}

    def scores(split: str, name: str) -> dict[str, list[float]]:  # {value of field `name`: scores, in record order}
        found = groups.get((split, name))
        if found is None:
            found = groups[(split, name)] = {}
            for i in (everything if split == "none" else splits.get(split, [])):
                found.setdefault(str(records[i].meta.get(name)), []).append(correct[i])
        return found

    for number in numbers:
        if number.metric.strip() == "Overall":
            rows = everything if number.split == "none" else splits.get(number.split, [])
            out[(number.split, number.metric)] = mean([correct[i] for i in rows])
            continue
        value = None
        for name in CATEGORY_FIELDS + (("split",) if number.split == "none" else ()):
            hits = scores(number.split, name).get(number.metric)
            if hits:
                value = mean(hits)
                break
        out[(number.split, number.metric)] = value
    return out


def circular_numbers(numbers: list[Published], result, spec) -> dict[tuple[str, str], float | None]:
    """Our value of each published CircularEval number, as mcq_circular_eval reports it: per split, the
    share of question groups right in every rotation (the ruleset's `groups:`) — `Overall` over all of
    them, a category column over the groups of that category / l2-category value."""
    from rulekit.metrics.groups import group_metrics

    out: dict[tuple[str, str], float | None] = {}
    splits = _by_split(result.records)
    asked: dict[str, list[Published]] = {}
    for n in numbers:
        asked.setdefault(n.split, []).append(n)
    for split, wanted in asked.items():
        rows = range(len(result.records)) if split == "none" else splits.get(split, [])
        decisions = [result.decisions[i] for i in rows]
        records = [result.records[i] for i in rows]
        figures = {"Overall": group_metrics(spec, decisions, records).get("genuine_accuracy")}
        for name in reversed(CATEGORY_FIELDS):  # a value of both fields: category's figure, as report_acc
            by = group_metrics(spec.model_copy(update={"breakdown": name}), decisions, records)
            for value, m in (by.get(f"by_{name}") or {}).items():
                figures[value] = m.get("genuine_accuracy")
        for n in wanted:
            out[(split, n.metric)] = figures.get(n.metric.strip() if n.metric.strip() == "Overall" else n.metric)
    return out
