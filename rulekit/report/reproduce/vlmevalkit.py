"""VLMEvalKit's work-dir layout: per model and dataset the prediction sheet `<model>_<dataset>.xlsx` (or
.tsv), what its evaluation reported (`_acc.csv`, `_acc.xlsx`, a score file `_score.csv` / `_score.json`,
some named after the judge), and the evaluation's own per-row sheet (`_<judge>_result.xlsx`)."""
from __future__ import annotations

import os
from pathlib import Path

from rulekit.core.errors import InputError, RulekitError
from rulekit.report.reproduce.files import TREES, sheet_records, within
from rulekit.report.reproduce.found import Artifact, Note, error_note
from rulekit.report.reproduce.names import Dataset, family_of, folder_model, name_dataset, parse_stem
from rulekit.report.reproduce.published import read_report
from rulekit.report.reproduce.registry import Family, parts_families, report_family

REPORT_SUFFIXES = ("_acc.csv", "_acc.xlsx", "_acc.json", "_score.csv", "_score_fine.csv", "_score.json",
                   "_score.xlsx", "_prefetch.xlsx")
# what ImageYORNDataset, OCRBench and the judge benchmarks write instead of `_acc` (MMVet: `_score_fine` too;
# 2023: MMVet's `_gpt4_score.xlsx`, the prefetch table `_score.xlsx` → `_prefetch.xlsx`, family `prefetch-table`)
SCORE_SUFFIXES = ("_score.csv", "_score_fine.csv", "_score.json", "_score.xlsx", "_prefetch.xlsx")
PREDICTION_SUFFIXES = (".xlsx", ".tsv")
# sheets an evaluation writes beside the predictions (per-row verdicts, extracted answers): not predictions
INTERMEDIATE_SUFFIXES = ("_result.xlsx", "_auxmatch.xlsx", "_extract.xlsx")  # MathVerse's first judge stage
# report formats VLMEvalKit wrote that rulekit recognises but does not read yet: each is a missed-file note
# naming the format (never a prediction sheet without its `_acc.csv`, never silence)
NOT_READ_SUFFIXES: dict[str, str] = {}


def vlmevalkit_reports(files: list[Path]):
    """(Artifact, None) for each VLMEvalKit report among `files` with its prediction file (and the
    evaluation's per-row sheet, when there is one), (None, Note) for a report that cannot be reproduced
    (no prediction file beside it, a score file no family maps, a file that cannot be read: each says
    why, and the other reports go on)."""
    present = set(files)
    over_parts = {s: fam for fam in parts_families() for s in fam.spec.get("reports", ())}
    for f in files:
        whole = next((s for s in over_parts if f.name.endswith(s)), None)
        if whole is not None:  # a report over several sheets (TDBench's `_REresult.csv`)
            try:
                yield _parts_report(f, whole, over_parts[whole], files)
            except Exception as exc:  # one file that cannot be read never ends the run (issue 30)
                yield None, error_note(f, exc)
            continue
        suffix = next((s for s in REPORT_SUFFIXES if f.name.endswith(s)), None)
        old = next((s for s in NOT_READ_SUFFIXES if f.name.endswith(s)), None)
        if suffix == "_score.xlsx" and f.with_suffix(".csv") in present:
            continue  # written beside the `_score.csv` it copies (MathVerse, 2024 →): not the 2023 table
        if suffix is None and old is not None:
            yield None, Note(str(f), f"{NOT_READ_SUFFIXES[old]}: a report format rulekit does not read yet; not "
                                     "reproduced", True)
            continue
        if suffix is None:
            continue
        try:
            yield _report(f, suffix, files)
        except Exception as exc:  # one file that cannot be read never ends the run (issue 30)
            yield None, error_note(f, exc)


def _report(f: Path, suffix: str, files: list[Path]) -> tuple[Artifact | None, Note | None]:
    """The artifact of the report `f`, or a note saying why there is none."""
    report_stem = f.name[: -len(suffix)]
    # the judge suffix first (`<model>_<dataset>_<judge>_score.csv`), then the dataset: a known name or a
    # fork's variant of one (names.parse_stem)
    named = parse_stem(report_stem, "vlmevalkit", folder_model(report_stem, (f.parent.name, f.parent.parent.name)),
                       lambda cut: _judge_evidence(f, report_stem, cut))
    stem, model, dataset = named.stem, named.model, named.dataset
    family = report_family(f.name, family_of(dataset), dataset.name if dataset else None)
    # without `<model>_<dataset>.xlsx`, the judge's sheet (which repeats every prediction column) stands in
    pred = _prediction_file(f, stem) or (_prediction_file(f, report_stem) if named.judge else None)
    if pred is None and family is not None and (family.score_file or {}).get("replay"):
        # verdicts replayed: the evaluation's own sheet holds the predictions with them (VGRPBench's `_openai_result`)
        pred = _result_sheet(stem, f.parent, files, report_stem)
    if pred is None:
        return None, Note(str(f), f"no prediction file {stem}.xlsx or {stem}.tsv next to it; not reproduced", True)
    bench = dataset.name if dataset is not None else stem[len(model) + 1:] if model else stem
    if suffix in SCORE_SUFFIXES and family is not None and not family.score_file:
        return None, Note(str(f), f"rulekit does not recompute VLMEvalKit's `{bench}` score file (no "
                                  "`score-file:` for it in rulekit/data/benchmarks.yaml); not reproduced", True)
    said: list[str] = []
    sheet = _result_sheet(stem, f.parent, files, report_stem,
                          (family.judge_sheet if family is not None else None), said)
    layout = (family.score_file or {}) if family is not None else {}
    report = read_report(f, layout.get("key") if layout.get("layout") == "rows" else None,
                         sheets=layout.get("layout") == "sheets")
    return Artifact("vlmevalkit", model or "?", bench, family, pred, f, report, sheet, dataset=dataset,
                    notes=said), None


def _parts_report(f: Path, suffix: str, family: Family, files: list[Path]) -> tuple[Artifact | None, Note | None]:
    """The artifact of a report computed over several prediction sheets (`family`'s `parts:` {NAME: SUFFIX}: the
    sheet `<stem><SUFFIX>` of each, scored as its own dataset with its own result sheet), or a note naming the
    part that is missing."""
    stem = f.name[: -len(suffix)]
    parts = []
    for name, part in family.spec["parts"].items():
        pred = _prediction_file(f, stem + part)
        if pred is None:
            return None, Note(str(f), f"no prediction file {stem + part}.xlsx or .tsv next to it (its part `{name}`); "
                                      "not reproduced", True)
        model, dataset, own = _names(pred, stem + part)
        said: list[str] = []
        sheet = _result_sheet(stem + part, f.parent, files, "", (own.judge_sheet if own is not None else None),
                               said)
        bench = dataset.name if dataset is not None else stem + part
        parts.append((name, Artifact("vlmevalkit", model or "?", bench, own, pred, f, [], sheet, dataset=dataset,
                                     notes=said)))
    first = parts[0][1]
    bench = stem[len(first.model) + 1:] if first.model != "?" and stem.startswith(first.model + "_") else stem
    report = read_report(f, family.score_file.get("key"))
    return Artifact("vlmevalkit", first.model, bench, family, first.predictions, f, report, None, parts=parts), None


def _prediction_file(report: Path, stem: str) -> Path | None:
    """`<stem>.xlsx` or `<stem>.tsv` beside the report, when there is one inside the tree the report was
    found in (a link out of it is not followed)."""
    top = os.path.realpath(TREES.get(report, report.parent))
    return next((report.with_name(stem + s) for s in PREDICTION_SUFFIXES
                 if report.with_name(stem + s).is_file() and within(report.with_name(stem + s), top)), None)


def _names(report: Path, stem: str, variants: bool = True) -> tuple[str, Dataset | None, Family | None]:
    """(model, dataset, family) of a prediction file's stem `<model>_<dataset>`: the model is the work dir's
    folder when the stem starts with it (VLMEvalKit: outputs/<model>/<model>_<dataset>, or
    outputs/<model>/T<date>_G<hash>/...), else what comes before the longest known dataset name that ends the
    stem (names.py); with `variants`, a known name followed by a suffix is a variant of it."""
    hint = folder_model(stem, (report.parent.name, report.parent.parent.name))
    model, dataset = name_dataset(stem, "vlmevalkit", hint, variants)
    return model, dataset, report_family(report.name, family_of(dataset), dataset.name if dataset else None)


def _judge_evidence(report: Path, report_stem: str, cut: str) -> bool:
    """Is `<report_stem>` the prediction file `<cut>` plus a judge's name VLMEvalKit never wrote (`--judge
    NAME`)? Yes when `<cut>.xlsx` is beside the report and either its dataset's family names its reports after
    the judge (`score-file: {judge-named: true}`: VisuLogic's `_<judge>_acc.csv`, no judge sheet) or
    `<report_stem>.xlsx` is the judge's per-row sheet: every column of the prediction file, and more."""
    pred = _prediction_file(report, cut)
    if pred is None:
        return False
    family = _names(report, cut, variants=False)[2]
    if family is not None and (family.score_file or {}).get("judge-named"):
        return True
    sheet = _prediction_file(report, report_stem)
    if sheet is None:
        return False
    try:
        mine, theirs = sheet_records(sheet), sheet_records(pred)
    except RulekitError:
        return False
    return bool(mine and theirs) and set(mine[0].meta) > set(theirs[0].meta)


def _sheet_columns(spec: dict) -> list[str]:
    """The columns a `judge-sheet:` entry reads (its grader's too: MathVerse's extract sheet, without
    `score`, is not the one)."""
    own = list(spec.get("json") or [spec.get("reply", "res")])
    return own + (_sheet_columns(spec["grader"]) if spec.get("grader") else [])


def _result_sheet(stem: str, folder: Path, files: list[Path], report_stem: str = "",
                  judge_sheet: dict | None = None, said: list[str] | None = None) -> Path | None:
    """The evaluation's per-row sheet of the prediction file `<stem>` in `folder`: `<stem>_<judge>_result.xlsx`
    (VLMEvalKit's `_openai_result`, `_exact_matching_result`), else a `<stem>_<judge>.xlsx` (`_gpt4o-mini`,
    `_judge`) holding a `hit` or `log` column. A sheet of a longer dataset name (`<stem>_MINI_...` when
    `<stem>_MINI` has a report too) is not this one's; `report_stem`, the stem of this report itself (one
    named after the judge, `<stem>_<judge>_score.csv`, beside its sheet `<stem>_<judge>.xlsx`), is not another's.
    With neither, a `<stem>_<judge>_result.pkl` of {index: {hit, log}} read as plain data (files.pickle_rows);
    one that cannot be read is said in `said` and not used."""
    here = [g for g in files if g.parent == folder]
    pickles = [g for g in here if g.name.startswith(stem + "_") and g.name.endswith("_result.pkl")]
    others = {g.name[: -len(suffix)] for g in here for suffix in REPORT_SUFFIXES if g.name.endswith(suffix)} - {stem, report_stem}
    # a `_score.xlsx` beside its `_score.csv` is a sheet (MathVerse's judge sheet), not the 2023 table
    present = set(here)
    mine = [g for g in here if g.suffix == ".xlsx" and g.name.startswith(stem + "_")
            and (not g.name.endswith(REPORT_SUFFIXES)
                 or (g.name.endswith("_score.xlsx") and g.with_suffix(".csv") in present))
            and not any(g.name.startswith(o + "_") or g.name == o + ".xlsx" for o in others if len(o) > len(stem))]
    for g in sorted(mine, key=lambda g: (not g.name.endswith("_result.xlsx"), g.name)):
        if g.name.endswith("_result.xlsx"):
            return g
        try:
            rows = sheet_records(g)
        except InputError:
            continue
        if rows and ("log" in rows[0].meta or "hit" in rows[0].meta or (
                judge_sheet and all(any(c in r.meta for r in rows) for c in _sheet_columns(judge_sheet)))):
            return g
    # no sheet: the verdicts VLMEvalKit kept only in a pickle (`_openai_result.pkl`), read as plain data
    for g in sorted(pickles):
        if any(g.name.startswith(o + "_") for o in others if len(o) > len(stem)):
            continue
        try:
            rows = sheet_records(g)
        except RulekitError as exc:  # refused (E303), damaged, or not verdicts: said, and not used
            if said is not None:
                said.append(f"{g.name} not read: {exc.message} [{exc.code}]")
            continue
        if rows and ("log" in rows[0].meta or "hit" in rows[0].meta):
            return g
    return None
