"""A framework's own per-row verdicts, replayed rather than recomputed: where rulekit has no ruleset for a
benchmark's checker (VGRPBench's puzzle verifiers, after an LLM judge parsed each reply), a family may say
`score-file: {replay: [COLUMN, ...]}` and its report's numbers are the means of those columns of the
evaluation's per-row sheet, grouped as the family's numbers name them. Every row says so."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPLAYED = "(verdicts replayed)"  # what a row names instead of a ruleset


@dataclass
class Replayed:
    """What stands for a ruleset's Result where the verdicts were replayed: no decisions of rulekit's own."""

    records: list
    metrics: dict
    ruleset: str = REPLAYED
    decisions: list = field(default_factory=list)
    fingerprint: str | None = None


def verdict(value: Any) -> float | None:
    """A verdict cell as a number: True / False, 1 / 0, a number, or their text ("True", "0.5"); None for an
    empty cell or NaN (pandas' mean leaves those out)."""
    if isinstance(value, bool):
        return float(value)
    if type(value) in (int, float):
        return None if math.isnan(value) else float(value)
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in ("true", "false"):
            return float(text.lower() == "true")
        try:
            number = float(text)
        except ValueError:
            return None
        return None if math.isnan(number) else number
    return None


def replayed_metrics(sheet: Path, columns: list[str], key: str) -> tuple[Replayed, int]:
    """The means of `columns` of the per-row sheet: `by.VALUE.COLUMN` per value of the field `key`, and
    `all.COLUMN` over every row; and how many rows had no readable verdict in some column."""
    from rulekit.report.reproduce.files import sheet_records

    rows = list(sheet_records(sheet))
    sums: dict[str, dict[str, list[float]]] = {}
    blank = 0
    for r in rows:
        group = str(r.meta.get(key, r.meta.get(key.lower())))
        for column in columns:
            value = verdict(r.meta.get(column))
            if value is None:
                blank += 1
                continue
            for where in (group, "\0all"):
                sums.setdefault(where, {}).setdefault(column, []).append(value)

    def means(found: dict[str, list[float]]) -> dict[str, float]:
        return {column: sum(v) / len(v) for column, v in found.items() if v}

    metrics = {"by": {g: means(v) for g, v in sums.items() if g != "\0all"}, "all": means(sums.get("\0all", {}))}
    return Replayed(rows, metrics), blank
