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


def share_all_correct(rows: list[tuple[str, bool]]) -> float | None:
    """Among the groups of (key, correct) rows, the share whose rows are all correct (None: no rows)."""
    groups: dict[str, bool] = {}
    for key, correct in rows:
        groups[key] = groups.get(key, True) and correct
    return sum(groups.values()) / len(groups) if groups else None


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
