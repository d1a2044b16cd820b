"""MMEvalPro's layout: the model-output JSON (triplet rows) and `auto_score.py`'s score JSON beside it."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from rulekit.core.errors import InputError, Loc
from rulekit.report.reproduce.files import json_of, short
from rulekit.report.reproduce.found import Artifact, Note, error_note
from rulekit.report.reproduce.published import Published
from rulekit.report.reproduce.registry import registry

# MMEvalPro's auto_score.py writes {source: {genuine_accuracy_score: 17.11, ...}, "Macro_Average": {...},
# "Micro_Average": {...}} (percent, 2 decimals) for a model-output JSON of triplet rows.
# The first auto_score.py (2024-06-26) wrote a one-element LIST of the run's five scores, `knowledge` for
# `knowledge_score`, no per-source split: its numbers are read under the split `none`, the whole run.
MMEVALPRO_METRICS = {"genuine_accuracy_score": "genuine_accuracy", "average_score": "average_accuracy",
                     "origin_score": "origin_accuracy", "perception_score": "perception_accuracy",
                     "knowledge_score": "knowledge_accuracy",
                     "knowledge": "knowledge_accuracy"}  # the first generation's name (2024-06-26)


def _is_mmevalpro_score(data: Any) -> bool:
    """auto_score.py's score JSON: {source: {genuine_accuracy_score: ...}, ...}, or its first generation's
    one-element list [{genuine_accuracy_score: ..., ...}] (2024-06-26, beside `demo_output.json`)."""
    if isinstance(data, list) and len(data) == 1:
        data = {"none": data[0]}
    return isinstance(data, dict) and bool(data) and all(
        isinstance(v, dict) and "genuine_accuracy_score" in v for v in data.values())


def mmevalpro_pairs(files: list[Path]):
    """(Artifact, None) for each MMEvalPro score file with its model-output file, (None, Note) for a score
    file whose output file is not found or that holds something other than numbers. The output is
    `<prefix>_model_output.json[.gz]` for a score `<prefix>_score.json[.gz]`, else the one JSON file beside
    it that holds triplet rows (the first generation's `demo_output.json`)."""
    jsons = [f for f in files if f.name.endswith((".json", ".json.gz"))]
    for f in jsons:
        try:
            found = _pair(f, jsons)
        except Exception as exc:  # one file that cannot be read never ends the run (issue 30)
            found = None, error_note(f, exc)
        if found is not None:
            yield found


def _pair(f: Path, jsons: list[Path]) -> tuple[Artifact | None, Note | None] | None:
    """What mmevalpro_pairs yields for the JSON file `f` (None: not a score file)."""
    data = json_of(f)
    if not _is_mmevalpro_score(data):
        return None
    if isinstance(data, list):  # the first generation: one object, the whole run (no per-source split)
        data = {"none": data[0]}
    base = f.name[:-3] if f.name.endswith(".gz") else f.name
    prefix = base[:-len("_score.json")] if base.endswith("_score.json") else base[:-len(".json")]
    named = [g for g in jsons if g.parent == f.parent and g.name in (f"{prefix}_model_output.json",
                                                                      f"{prefix}_model_output.json.gz")]
    others = named or [g for g in jsons if g.parent == f.parent and g != f and not _is_mmevalpro_score(json_of(g))]
    if len(others) != 1:
        return None, Note(str(f), f"an MMEvalPro score file, but its model output is not found (expected "
                                  f"{prefix}_model_output.json next to it); not reproduced", True)
    numbers = []
    for split, scores in data.items():
        for metric, value in scores.items():
            if type(value) not in (int, float):  # a number printed by auto_score.py, never text or a list
                raise InputError(f"an MMEvalPro score file's `{split}` / `{metric}` is not a number: "
                                 f"{short(value)}", loc=Loc(str(f), 0, 0), code="E300")
            numbers.append(Published(split, metric, repr(value) if isinstance(value, float) else str(value),
                                     decimals=2))
    family = next(fm for fm in registry() if fm.framework == "mmevalpro")
    return Artifact("mmevalpro", prefix, "MMEvalPro", family, others[0], f, numbers), None


def mmevalpro_numbers(numbers: list[Published], metrics: dict) -> dict[tuple[str, str], float | None]:
    """Our value of each published MMEvalPro number: a source's from `by_source`, `Macro_Average` from
    `macro`, `Micro_Average` and the first generation's list (split `none`) from the whole run."""
    out: dict[tuple[str, str], float | None] = {}
    for n in numbers:
        ours = MMEVALPRO_METRICS.get(n.metric)
        if n.split in ("Micro_Average", "none"):
            scope = metrics
        elif n.split == "Macro_Average":
            scope = metrics.get("macro") or {}
        else:
            scope = (metrics.get("by_source") or {}).get(n.split) or {}
        out[(n.split, n.metric)] = scope.get(ours) if ours else None
    return out
