"""Reports computed over several prediction sheets of one run (`parts:` of a registry family): TDBench's
`<model>_tdbench_REresult.csv` is written from the four sheets `<model>_tdbench_rot{0,90,180,270}` (the stem
plus each part's suffix). Each part is scored as its own dataset is; the report's numbers come from the parts'
per-record verdicts joined by record id and key field, as this module's `part_rollup` counts them."""
from __future__ import annotations

from typing import Any


def part_rollup(key: str, parts: list[tuple[str, list, list]]) -> dict[str, Any]:
    """The figures a parts report's `score-file: numbers:` name, from (part name, records, correct per record)
    of each part: the questions are the (id, `key` value) pairs every part holds (an inner join, as pandas'
    merge of the parts' sheets on index and category); per value of `key`, `by.VALUE.questions` (their number),
    `by.VALUE.all` / `.none` (the share right in every part / in none) and `by.VALUE.part.NAME` (the share
    right in part NAME); `mean.*` is the unweighted mean of each figure over the values (a table's `Average`
    row)."""
    tables = [{(r.id, str(r.meta.get(key))): bool(ok) for r, ok in zip(records, correct)}
              for _, records, correct in parts]
    common = set(tables[0]).intersection(*tables[1:]) if tables else set()
    names = [name for name, _, _ in parts]
    by: dict[str, dict[str, Any]] = {}
    for pair in sorted(common):
        hits = [t[pair] for t in tables]
        tally = by.setdefault(pair[1], {"questions": 0, "all": 0, "none": 0, "part": dict.fromkeys(names, 0)})
        tally["questions"] += 1
        tally["all"] += all(hits)
        tally["none"] += not any(hits)
        for name, hit in zip(names, hits):
            tally["part"][name] += hit
    for tally in by.values():
        n = tally["questions"]
        tally["all"], tally["none"] = tally["all"] / n, tally["none"] / n
        tally["part"] = {name: count / n for name, count in tally["part"].items()}
    mean: dict[str, Any] = {}
    if by:
        rows = list(by.values())
        mean = {figure: sum(r[figure] for r in rows) / len(rows) for figure in ("questions", "all", "none")}
        mean["part"] = {name: sum(r["part"][name] for r in rows) / len(rows) for name in names}
    return {"by": by, "mean": mean}
