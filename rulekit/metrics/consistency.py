"""`metrics: all-correct:` — the share of record groups whose records are all correct.

HallusionBench's fAcc (per figure) and qAcc (per question across figures), MME's acc+ (per image):
VLMEvalKit's Hallusion_rating builds the key `f"{l2-category}_{set_id}_{figure_id}"` from parts of
the row's index and counts a group right when `np.all` of its scores holds.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rulekit.core.records import Record
from rulekit.core.trace import Decision
from rulekit.metrics.groups import group_key, pair_rows


def key_of(spec: Any, record: Record) -> str:
    """The record's group key under an AllCorrectSpec: its key parts' values joined with "_"."""
    parts = []
    for part in spec.key:
        if isinstance(part, str):
            parts.append(group_key(record.field(part)))
            continue
        value = record.field(part.field)
        if part.split is not None and value is not None:
            pieces = str(value).split(part.split)
            value = pieces[part.part] if -len(pieces) <= part.part < len(pieces) else None
        parts.append(group_key(value))
    return "_".join(parts)


def groups_all_correct(rows: list[tuple[str, bool]]) -> tuple[int, int]:
    """(groups whose rows are all correct, groups) among (key, correct) rows."""
    groups: dict[str, bool] = {}
    for key, correct in rows:
        groups[key] = groups.get(key, True) and correct
    return sum(groups.values()), len(groups)


def share_all_correct(rows: list[tuple[str, bool]]) -> float | None:
    """Among the groups of (key, correct) rows, the share whose rows are all correct (None: no rows)."""
    right, total = groups_all_correct(rows)
    return right / total if total else None


def all_correct_metrics(specs: Sequence[Any], decisions: Sequence[Decision], records: Sequence[Record]) -> dict:
    """`{"all_correct": {NAME: {"overall": share, "by_<field>": {value: share}}}}` for every
    AllCorrectSpec, over parallel decisions and records."""
    pairs = pair_rows(decisions, records)
    figures: dict[str, Any] = {}
    for spec in specs:
        rows = [(key_of(spec, r), d.correct is True, r) for d, r in pairs]
        entry = figures[spec.name] = {"overall": share_all_correct([(k, c) for k, c, _ in rows])}
        for field in spec.by:
            values: dict[str, list[tuple[str, bool]]] = {}
            for k, c, r in rows:
                values.setdefault(group_key(r.field(field)), []).append((k, c))
            entry[f"by_{field.removeprefix('meta.')}"] = {v: share_all_correct(kc) for v, kc in values.items()}
    return {"all_correct": figures}


def totals_metrics(totals: Sequence[Any], all_correct: Sequence[Any], decisions: Sequence[Decision],
                   records: Sequence[Record]) -> dict:
    """`{"totals": {NAME: {"by_<of>": {value: total}, SUM: total or None, "missing": [...]}}}` of every
    TotalsSpec: per value of `of`, the sum of the named figures in percent, then the listed sums."""
    pairs = pair_rows(decisions, records)
    specs = {spec.name: spec for spec in all_correct}
    out: dict[str, Any] = {}
    for spec in totals:
        values: dict[str, list[tuple[Decision, Record]]] = {}
        for d, r in pairs:
            values.setdefault(group_key(r.field(spec.of)), []).append((d, r))
        per_value = {}
        for value, rows in values.items():
            total = 0.0
            for figure in spec.add:
                if figure == "accuracy":
                    right = sum(d.correct is True for d, _ in rows)
                    total += right if spec.count else 100 * right / len(rows)
                else:
                    group = specs[figure]
                    right, groups = groups_all_correct([(key_of(group, r), d.correct is True) for d, r in rows])
                    total += right if spec.count else 100 * right / groups
            per_value[value] = total
        entry: dict[str, Any] = {f"by_{spec.of.removeprefix('meta.')}": per_value}
        missing = []
        for name, listed in spec.sums.items():
            absent = [v for v in listed if v not in per_value]
            missing += absent
            if spec.absent == "skip":
                present = [v for v in per_value if v in listed]  # in the order the data brings them
                entry[name] = sum(per_value[v] for v in present) if present else None
            else:
                entry[name] = None if absent else sum(per_value[v] for v in listed)
        if missing:
            entry["missing"] = sorted(set(missing))
        out[spec.name] = entry
    return {"totals": out}
