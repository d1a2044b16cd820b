"""`rulekit reproduce`: give back the numbers a framework published, from its own artifacts.

A VLMEvalKit work dir holds, per model and dataset, the prediction sheet `<model>_<dataset>.xlsx`
(or .tsv) and what its evaluation reported, `<model>_<dataset>_acc.csv` (or `_acc.xlsx`): one row
per split, an `Overall` column and one column per value of the `category` / `l2-category` fields.
For every reported number this module finds the prediction file, names model and benchmark from
the file names, looks the benchmark up in the registry (`rulekit/data/benchmarks.yaml`: which
built-in rulesets score it, newest generation first), scores the predictions with each of them in
one pass, and reports the first generation that gives back every number of the file to all its
printed digits. When none does, the closest one is reported with the records that account for the
difference — compared row by row with the evaluation's own result sheet
(`<model>_<dataset>_*_result.xlsx`, column `hit`) when it is there.

An lmms-eval run (`<date>_results.json` + `<date>_samples_<task>.jsonl`) is reproduced per task the
same way, its per-sample metric values standing in for the result sheet; an MMEvalPro run is its
model-output JSON and `auto_score.py`'s score JSON.
"""
from __future__ import annotations

import csv
import functools
import io
import os
import zlib
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import yaml

from rulekit.core.errors import InputError, Loc, RulekitError, UsageError
from rulekit.core.limits import walk_files

REPORT_SUFFIXES = ("_acc.csv", "_acc.xlsx", "_score.csv", "_score_fine.csv", "_score.json")
# what ImageYORNDataset, OCRBench and the judge benchmarks write instead of `_acc` (MMVet: `_score_fine` too)
SCORE_SUFFIXES = ("_score.csv", "_score_fine.csv", "_score.json")
HEADLINES = ("Overall", "genuine_accuracy_score")  # the number a framework's leaderboard shows, per file


def is_headline(row) -> bool:
    """A number a leaderboard shows: VLMEvalKit's `Overall` (in a report with a row per category, as
    VisuLogic's: the Overall row's `acc`), MMEvalPro's Genuine Accuracy, every metric of an lmms-eval
    results.json (each task's table row)."""
    return (row.framework == "lmms-eval" or row.metric.strip() in HEADLINES
            or (row.split.strip() in HEADLINES and row.metric.strip() == "acc"))
PREDICTION_SUFFIXES = (".xlsx", ".tsv")
# sheets an evaluation writes beside the predictions (per-row verdicts, extracted answers): not predictions
INTERMEDIATE_SUFFIXES = ("_result.xlsx", "_auxmatch.xlsx", "_extract.xlsx")  # MathVerse's first judge stage
_CATEGORY_FIELDS = ("category", "l2-category")  # what VLMEvalKit's report_acc groups by, in its order


# ---------------------------------------------------------------- the registry
@dataclass(frozen=True)
class Family:
    """A way a framework scores a set of benchmarks: the rulesets to try, newest generation first."""

    framework: str
    name: str
    summary: str
    rulesets: tuple[str, ...]
    datasets: tuple[str, ...]
    judged: tuple[str, ...] = ()  # the same generations with a judge fallback, for replayed judge replies
    metrics: tuple[tuple[str, str], ...] = ()  # (published metric, our figure) where it is not a plain mean
    score_file: dict | None = field(default=None, compare=False, hash=False)  # VLMEvalKit `_score.*`: see below
    fields: tuple[tuple[str, str], ...] = ()  # how its prediction sheets' columns map to record fields (`--field`)


@functools.lru_cache(maxsize=1)
def registry() -> tuple[Family, ...]:
    """Every (framework, family) of `rulekit/data/benchmarks.yaml`."""
    from rulekit.data import data_path

    # package data, not user input: the C loader when PyYAML has it (`eval` reads this on every run)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    raw = yaml.load(data_path("benchmarks.yaml").read_text(encoding="utf-8"), Loader=loader)
    return tuple(Family(framework, name, spec.get("summary", ""), tuple(spec["rulesets"]), tuple(spec["datasets"]),
                        tuple(spec.get("judged", ())), tuple((spec.get("metrics") or {}).items()),
                        spec.get("score-file"), tuple((spec.get("fields") or {}).items()))
                 for framework, families in raw.items() for name, spec in families.items())


def families_for(benchmark: str) -> list[Family]:
    """The families whose dataset list names `benchmark` (case-insensitive)."""
    key = benchmark.lower()
    return [f for f in registry() if key in (d.lower() for d in f.datasets)]


def split_name(stem: str, framework: str = "vlmevalkit") -> tuple[str, str, Family | None]:
    """(model, benchmark, family) of a file stem `<model>_<dataset>`: the longest registered dataset name
    that ends it; unknown datasets give (stem before the last `_`, the rest, None)."""
    best: tuple[str, Family] | None = None
    low = stem.lower()
    for family in registry():
        if family.framework != framework:
            continue
        for name in family.datasets:
            if low.endswith("_" + name.lower()) and (best is None or len(name) > len(best[0])):
                best = (name, family)
    if best is not None:
        name, family = best
        return stem[: -len(name) - 1], stem[-len(name):], family
    model, _, bench = stem.rpartition("_")
    return model or stem, bench, None


# ---------------------------------------------------------------- what was published
@dataclass
class Published:
    """One number a framework wrote: its split and metric named as in the report file, as printed."""

    split: str
    metric: str
    text: str
    decimals: int | None = None  # what the framework rounds to, when JSON dropped trailing zeros (52.70 → 52.7)

    @property
    def value(self) -> float:
        return float(self.text)

    def agrees(self, ours: float | None, percent: bool) -> bool:
        """Does `ours` give this number back to all its printed digits?"""
        import math

        if ours is None or not math.isfinite(ours) or not is_finite_number(self.text.strip()):
            return False  # a non-finite figure gives back nothing (inf - inf would "agree" within any bound)
        printed = Decimal(self.text.strip())
        exponent = printed.as_tuple().exponent
        digits = -exponent if isinstance(exponent, int) and exponent < 0 else 0
        if self.decimals is not None:
            digits = max(digits, self.decimals)
        value = Decimal(repr(ours * 100 if percent else ours))
        # a float printed in full (repr, 15+ digits) is given back within 1e-12 of itself: the frameworks
        # sum the same figures in other orders (np.mean * 100 against 100 * right / n), which moves the
        # last bit; one record more or less moves the number by far more than that
        return abs(value - printed) <= max(Decimal(5) * Decimal(10) ** (-digits - 1), abs(printed) * Decimal("1e-12")) \
            + Decimal("1e-12")


def read_report(path: Path, key: str | None = None) -> list[Published]:
    """The numbers of a VLMEvalKit `_acc.csv` / `_acc.xlsx`: one per (split row, metric column). With
    `key` (a family's `score-file: {layout: rows, key: COLUMN}`), each row is named by that column
    instead (VisuLogic: a row per category with tot, hit and acc): one per (row name, column)."""
    if path.suffix == ".json":
        return _read_json_report(path)
    rows = _report_rows(path)
    rows = [r for r in rows if any(c.strip() for c in r)]
    if len(rows) < 2 or not rows[0]:
        raise InputError(f"{path}: a report needs a header row and at least one row of numbers", code="E300")
    header = rows[0]  # names as written: VLMEvalKit keeps a category's stray tab ("Oceans and continents\t")
    stripped = [h.strip() for h in header]
    if key is not None and key not in stripped:
        raise InputError(f"{path}: a report with a row per `{key}` needs a `{key}` column", code="E300")
    split_col = stripped.index(key or "split") if (key or "split") in stripped else None
    out = []
    for n, row in enumerate(rows[1:], 2):
        split = row[split_col].strip() if split_col is not None and split_col < len(row) else "none"
        for i, metric in enumerate(header):
            if i == split_col or i >= len(row) or not row[i].strip():
                continue
            if not is_finite_number(row[i].strip()):
                try:
                    Decimal(row[i].strip())
                    what, why = "a finite number", "a published number is a finite decimal (`inf` and `nan` cannot " \
                                                    "be given back, nor compared)"
                except InvalidOperation:
                    what, why = "a number", None
                raise InputError(f"`{metric.strip()}` is not {what}: {row[i]!r}", loc=Loc(str(path), n, 0),
                                 code="E300", help=why) from None
            out.append(Published(split, metric, row[i].strip()))
    return out


def is_finite_number(text: str) -> bool:
    """Is `text` a decimal number that is finite as a float too (not `inf`, `-Infinity`, `NaN`, `sNaN`, nor
    `1e999999999`, which only Decimal holds)? Only such a number can be given back to its printed digits."""
    import math

    try:
        return Decimal(text).is_finite() and math.isfinite(float(text))
    except (InvalidOperation, ValueError, OverflowError):
        return False


def _report_rows(path: Path) -> list[list[str]]:
    """The cells of a VLMEvalKit report (.csv or .xlsx) as text, within the readers' limits: the file at most
    `report-bytes` (a sparse 1.2 GB `_acc.csv` is refused unread), at most `columns` columns."""
    from rulekit.core.limits import limit, over
    from rulekit.readers.table import sheet_rows

    try:
        if path.stat().st_size > limit("report-bytes"):
            raise over("report-bytes", "the report is larger than", str(path))
        if path.suffix == ".xlsx":
            rows = [["" if c is None else (repr(c) if isinstance(c, float) else str(c)) for c in row]
                    for _, row in sheet_rows(str(path))]
        else:  # not larger than the limit: read whole, as before
            rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    except RulekitError:
        raise
    except (OSError, UnicodeDecodeError, csv.Error, ValueError, KeyError) as exc:
        raise InputError(f"{path}: cannot read this report: {exc}", code="E301") from None
    for n, row in enumerate(rows, 1):
        if len(row) > limit("columns"):
            raise over("columns", f"row {n} has {len(row):,} cells, more than", Loc(str(path), n, 0))
    return rows


def _read_json_report(path: Path) -> list[Published]:
    """The numbers of a flat JSON score file (VLMEvalKit's OCRBench `_score.json`: {name: number})."""
    data = _json_of(path)
    if not isinstance(data, dict) or not data:
        raise InputError(f"{path}: a score file must be a JSON object of numbers", code="E300")
    out = []
    for name, value in data.items():
        if type(value) not in (int, float):
            raise InputError(f"{path}: `{name}` is not a number: {value!r}", code="E300")
        out.append(Published("none", name, repr(value)))
    return out


def _figure(metrics: dict, path: str) -> float | None:
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
        value = _figure(metrics, path.replace("{split}", split).replace("{metric}", metric))
        if value is not None:
            return value
    return None


def _with_counts(result, spec: dict) -> dict:
    """A result's metrics with the counts a score file may print: `n` (records), `outcomes.OUTCOME` (records
    decided so: MathVision's `prefetch` is `outcomes.rule`) and, per value of each `count-by` entry (a
    field name, or a breakdown mapping such as `{field: skills, list-literal: true}`),
    `outcomes_by.NAME.VALUE.OUTCOME` (the field as records carry it: `category` for a `Subject` column
    is named by the numbers' paths)."""
    from rulekit.language.schema import BreakdownSpec
    from rulekit.metrics.rollup import labeler

    outcomes: dict[str, int] = {}
    by: dict[str, dict[str, dict[str, int]]] = {}
    specs = [BreakdownSpec.model_validate(item if isinstance(item, dict) else {"field": item})
             for item in spec.get("count-by") or []]
    labels = [(s.key, labeler(s)) for s in specs]
    for record, decision in zip(result.records, result.decisions):
        outcomes[decision.outcome] = outcomes.get(decision.outcome, 0) + 1
        for name, label in labels:
            found = label(record)
            for value in (found if type(found) is tuple else (found,)):
                counts = by.setdefault(name, {}).setdefault(str(value), {})
                counts[decision.outcome] = counts.get(decision.outcome, 0) + 1
    return dict(result.metrics, n=len(result.decisions), outcomes=outcomes, outcomes_by=by)


def score_file_numbers(numbers: list[Published], metrics: dict, spec: dict) -> dict[tuple[str, str], float | None]:
    """Our value of each number of a VLMEvalKit score file, as the registry's `score-file:` maps it: the
    entry for SPLIT/METRIC, else */METRIC, SPLIT/*, */* ({split} and {metric} filled in), its path (or
    the first of its paths that is present) times the scale — and, with `times: PATH`, times that figure
    (a count: `hit` is the accuracy times `n`; `n` alone is the number of records), with `per: PATH`
    divided by it (a rate), with `count: true` 0 where the path is absent (no record decided so). The
    counts are `_with_counts`'."""
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
        scale, times, per, zero = float(spec.get("scale", 1)), None, None, False
        if isinstance(entry, dict):
            scale, times, per = scale * float(entry.get("scale", 1)), entry.get("times"), entry.get("per")
            zero, entry = bool(entry.get("count")), entry.get("path")
        value = _first_figure(metrics, entry, split, metric)
        if value is None and zero:  # a count of records decided so: none were
            value = 0.0
        for other, divide in ((times, False), (per, True)):  # times: a share times its records; per: a count over them
            if value is None or other is None:
                continue
            figure = _first_figure(metrics, other, split, metric)
            if figure is None or (divide and figure == 0):
                value = None
            else:
                value = value / figure if divide else value * figure
        out[(n.split, n.metric)] = None if value is None else value * scale
    return out


# ---------------------------------------------------------------- artifacts
@dataclass
class Artifact:
    """A prediction file with what its framework reported about it."""

    framework: str
    model: str
    benchmark: str
    family: Family | None
    predictions: Path
    report: Path
    numbers: list[Published]
    result_sheet: Path | None = None
    aggregations: dict[str, str] = field(default_factory=dict)  # lmms-eval: metric -> its aggregation


def find_artifacts(paths: list[str]) -> tuple[list[Artifact], list[str]]:
    """The artifacts under `paths` (work dirs or files), and notes on what was found but cannot be
    reproduced (a prediction file without a report, a report without its prediction file)."""
    files: list[Path] = []
    notes: list[str] = []
    roots: dict[Path, Path] = {}  # each file found → the tree it was found in (a file given: its folder)
    for p in paths:
        path = Path(p)
        if not path.exists():
            raise UsageError(f"no such file or directory: {p}", code="E401")
        if path.is_dir():
            found, outside = _walk(path)
            notes += outside
        else:
            found = [path]
        for f in found:
            roots.setdefault(f, path if path.is_dir() else path.parent)
        files += found
    files = sorted(set(files))
    artifacts, used = [], set()
    _TREES.clear()
    _TREES.update(roots)
    for f in files:
        suffix = next((s for s in REPORT_SUFFIXES if f.name.endswith(s)), None)
        if suffix is None:
            continue
        stem = report_stem = f.name[: -len(suffix)]
        pred = _prediction_file(f, stem)
        model, bench, family = _names(f, stem)
        if pred is None or family is None:  # none, or the judge's own sheet (`<stem>_<judge>.xlsx`)
            cut, judged = _judge_named(f, stem)
            if judged is not None:
                stem, pred = cut, judged
                model, bench, family = _names(f, stem)
        if pred is None:
            notes.append(f"{f}: no prediction file {stem}.xlsx or {stem}.tsv next to it; skipped")
            continue
        if suffix in SCORE_SUFFIXES and (family is None or not family.score_file):
            notes.append(f"{f}: rulekit does not recompute VLMEvalKit's `{bench}` score file (no `score-file:` for "
                         "it in rulekit/data/benchmarks.yaml); skipped")
            continue
        sheet = _result_sheet(stem, f.parent, files, report_stem,
                              ((family.score_file or {}).get("judge-sheet") if family is not None else None))
        layout = (family.score_file or {}) if family is not None else {}
        report = read_report(f, layout.get("key") if layout.get("layout") == "rows" else None)
        artifacts.append(Artifact("vlmevalkit", model, bench, family, pred, f, report, sheet))
        used |= {pred, f} | ({sheet} if sheet else set())
    for finder in (_lmms_eval_runs, _mmevalpro_pairs):  # each yields (artifact, None) or (None, note)
        for art, note in finder([f for f in files if f not in used]):
            if art is not None:
                artifacts.append(art)
                used |= {art.predictions, art.report}
            else:
                notes.append(note)
    for f in files:
        if f.suffix in PREDICTION_SUFFIXES and f not in used and not f.name.endswith(INTERMEDIATE_SUFFIXES) \
                and not any(f.name.endswith(s) for s in REPORT_SUFFIXES):
            notes.append(f"{f}: no published number next to it (no {f.stem}_acc.csv); nothing to reproduce")
    runs = {f.parent for f in files if f.name.endswith("results.json")}
    for f in files:
        if "_samples_" in f.name and f.name.endswith((".jsonl", ".jsonl.gz")) and f.parent not in runs:
            notes.append(f"{f}: an lmms-eval samples log without its run's results.json next to it; nothing to reproduce")
    return artifacts, notes


_TREES: dict[Path, Path] = {}  # find_artifacts' files → the tree each was found in


def _walk(root: Path) -> tuple[list[Path], list[str]]:
    """The regular files under the directory `root` (walked with a stack, E302 past `dir-depth` levels), and a
    note for each symbolic link that leads out of it (never read: a work dir is untrusted, and its link to
    `~/.ssh/id_rsa` named `x_MMStar_acc.csv` must not have its content quoted in an error). Links to
    directories are not followed; a link to a file inside the tree is read like the file."""
    from rulekit.core.limits import walk_files

    top = os.path.realpath(root)
    files, notes = [], []
    for name in sorted(walk_files(str(root), links=True)):
        path = Path(name)
        if path.is_symlink() and not _within(path, top):
            notes.append(f"{path}: a symbolic link to {'a folder' if path.is_dir() else 'a file'} outside "
                         f"{root}; not read")
        elif path.is_file():
            files.append(path)
    return files, notes


def _within(path: Path, top: str) -> bool:
    """Does `path`, its links followed, stay inside the real directory `top`?"""
    real = os.path.realpath(path)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def _prediction_file(report: Path, stem: str) -> Path | None:
    """`<stem>.xlsx` or `<stem>.tsv` beside the report, when there is one inside the tree the report was
    found in (a link out of it is not followed)."""
    top = os.path.realpath(_TREES.get(report, report.parent))
    return next((report.with_name(stem + s) for s in PREDICTION_SUFFIXES
                 if report.with_name(stem + s).is_file() and _within(report.with_name(stem + s), top)), None)


def _names(report: Path, stem: str) -> tuple[str, str, Family | None]:
    """(model, benchmark, family) of a prediction file's stem: `<model>_<dataset>`, the model being the
    work dir's folder when the stem starts with it (VLMEvalKit: outputs/<model>/<model>_<dataset>)."""
    model, bench, family = split_name(stem)
    if report.parent.name and stem.startswith(report.parent.name + "_"):
        model, bench = report.parent.name, stem[len(report.parent.name) + 1:]
        family = family or next((fm for fm in families_for(bench) if fm.framework == "vlmevalkit"), None)
    return model, bench, family


def _judge_named(report: Path, stem: str) -> tuple[str, Path | None]:
    """A report named after the judge (`<model>_VisuLogic_exact_matching_acc.csv` beside
    `<model>_VisuLogic.xlsx`): the longest shorter stem, cut at an `_`, that has a prediction file and
    whose family says its reports are so named (`score-file: {judge-named: true}`)."""
    cut = stem
    while "_" in cut:
        cut = cut.rsplit("_", 1)[0]
        pred = _prediction_file(report, cut)
        if pred is not None:
            family = _names(report, cut)[2]
            if family is not None and (family.score_file or {}).get("judge-named"):
                return cut, pred
            break
    return stem, None


def _sheet_columns(spec: dict) -> list[str]:
    """The columns a `judge-sheet:` entry reads (its grader's too: MathVerse's extract sheet, without
    `score`, is not the one)."""
    own = list(spec.get("json") or [spec.get("reply", "res")])
    return own + (_sheet_columns(spec["grader"]) if spec.get("grader") else [])


def _result_sheet(stem: str, folder: Path, files: list[Path], report_stem: str = "",
                  judge_sheet: dict | None = None) -> Path | None:
    """The evaluation's per-row sheet of the prediction file `<stem>` in `folder`: `<stem>_<judge>_result.xlsx`
    (VLMEvalKit's `_openai_result`, `_exact_matching_result`), else a `<stem>_<judge>.xlsx` (`_gpt4o-mini`,
    `_judge`) holding a `hit` or `log` column. A sheet of a longer dataset name (`<stem>_MINI_...` when
    `<stem>_MINI` has a report too) is not this one's; `report_stem`, the stem of this report itself (one
    named after the judge, `<stem>_<judge>_score.csv`, beside its sheet `<stem>_<judge>.xlsx`), is not another's."""
    here = [g for g in files if g.parent == folder]
    others = {g.name[: -len(suffix)] for g in here for suffix in REPORT_SUFFIXES if g.name.endswith(suffix)} - {stem, report_stem}
    mine = [g for g in here if g.suffix == ".xlsx" and g.name.startswith(stem + "_")
            and not g.name.endswith(REPORT_SUFFIXES)
            and not any(g.name.startswith(o + "_") or g.name == o + ".xlsx" for o in others if len(o) > len(stem))]
    for g in sorted(mine, key=lambda g: (not g.name.endswith("_result.xlsx"), g.name)):
        if g.name.endswith("_result.xlsx"):
            return g
        try:
            rows = _sheet_records(g)
        except InputError:
            continue
        if rows and ("log" in rows[0].meta or "hit" in rows[0].meta or (
                judge_sheet and all(any(c in r.meta for r in rows) for c in _sheet_columns(judge_sheet)))):
            return g
    return None


# ---------------------------------------------------------------- lmms-eval runs
# `lmms-eval --log_samples` writes, per run, `<date>_results.json` ({"results": {task: {"<metric>,<filter>":
# value, "<metric>_stderr,<filter>": ...}}, "configs": {task: {"metric_list": [{metric, aggregation}]}},
# "model_name", ...}) and `<date>_samples_<task>.jsonl` (one line per document, with its per-sample metric
# values); older versions write `results.json` and `<task>.jsonl` / `*_samples_<task>.jsonl`.
_STDERR = ("_stderr", "_stderr_clt", "_stderr_clustered")


def _lmms_samples(results: Path, task: str, files: list[Path]) -> Path | None:
    """The samples log of `task` written by the run of `results`: `<prefix>_samples_<task>.jsonl` beside
    it, else the one `*samples_<task>.jsonl` (or `<task>.jsonl`) there."""
    prefix = results.name[: -len("results.json")]
    here = [f for f in files if f.parent == results.parent]
    named = [f for f in here if f.name in (f"{prefix}samples_{task}.jsonl", f"{prefix}samples_{task}.jsonl.gz")]
    if named:
        return named[0]
    loose = [f for f in here if f.name.endswith((f"samples_{task}.jsonl", f"samples_{task}.jsonl.gz"))
             or f.name in (f"{task}.jsonl", f"{task}.jsonl.gz")]
    return loose[0] if len(loose) == 1 else None


def _model_label(name: str) -> str:
    """A model name for the table: a Hugging Face cache path (`.../models--ORG--NAME/snapshots/...`) as
    ORG/NAME, another local path as its last part, a hub id as it is."""
    cached = _hf_cache_name(name)
    if cached:
        return cached
    return name.rstrip("/").rsplit("/", 1)[-1] if name.startswith(("/", "./", "~")) else name


def _hf_cache_name(name: str) -> str | None:
    """ORG/NAME of the first `models--ORG--NAME` in a path (ORG the shortest, NAME the longest run of
    characters other than `/`), as re.search(r"models--([^/]+?)--([^/]+)") finds it, in linear time: the
    name comes from a results.json, and that pattern is quadratic on a long name without a match."""
    at = name.find("models--")
    while at >= 0:
        start = at + 8
        end = name.find("/", start)
        end = len(name) if end < 0 else end
        cut = name.find("--", start + 1, end)
        if cut >= 0 and cut + 2 < end:
            return f"{name[start:cut]}/{name[cut + 2:end]}"
        at = name.find("models--", end)  # any later start in this segment fails the same way
    return None


def _lmms_eval_runs(files: list[Path]):
    """(Artifact, None) per task of each lmms-eval results.json whose samples log is beside it, (None, note)
    for a task that cannot be reproduced (no samples log, no task in the registry)."""
    for f in files:
        if not f.name.endswith("results.json"):
            continue
        from rulekit.core.limits import limit

        data = _json_of(f, limit=limit("report-bytes"), strict=True)
        if not (isinstance(data, dict) and isinstance(data.get("results"), dict)
                and ("configs" in data or "versions" in data or "n-samples" in data)):
            continue
        configs = data.get("configs") if isinstance(data.get("configs"), dict) else {}
        model = _model_label(str(data.get("model_name") or data.get("model_name_sanitized") or f.parent.name))
        for task, values in sorted(data["results"].items()):
            if not isinstance(values, dict):
                continue
            numbers = []
            for key, value in values.items():
                metric, comma, filt = key.partition(",")
                if comma and type(value) in (int, float) and not metric.endswith(_STDERR):
                    numbers.append(Published(filt, key, repr(value)))
            if not numbers:
                continue
            samples = _lmms_samples(f, task, files)
            if samples is None:
                yield None, (f"{f}: task `{task}` has no samples log beside it ({f.name[:-len('results.json')]}"
                             f"samples_{task}.jsonl; run lmms-eval with --log_samples); not reproduced")
                continue
            family = next((fm for fm in families_for(task) if fm.framework == "lmms-eval"), None)
            if family is None:
                yield None, (f"{samples}: lmms-eval task `{task}` is not in rulekit/data/benchmarks.yaml; "
                             "not reproduced")
                continue
            config = configs.get(task)  # as lmms-eval writes it, {metric_list: [{metric, aggregation}, ...]}
            metric_list = config.get("metric_list") if isinstance(config, dict) else None
            aggregations = {str(m.get("metric")): str(m.get("aggregation"))
                            for m in (metric_list if isinstance(metric_list, list) else []) if isinstance(m, dict)}
            yield Artifact("lmms-eval", model, task, family, samples, f, numbers, aggregations=aggregations), None


# MMEvalPro's auto_score.py writes {source: {genuine_accuracy_score: 17.11, ...}, "Macro_Average": {...},
# "Micro_Average": {...}} (percent, 2 decimals) for a model-output JSON of triplet rows.
MMEVALPRO_METRICS = {"genuine_accuracy_score": "genuine_accuracy", "average_score": "average_accuracy",
                     "origin_score": "origin_accuracy", "perception_score": "perception_accuracy",
                     "knowledge_score": "knowledge_accuracy"}


def _json_of(path: Path, limit: int = 5 << 20, strict: bool = False) -> Any:
    """A small JSON file (optionally gzipped) decoded, else None (too big, not JSON). Never more than `limit`
    bytes are read or inflated (a gzip bomb stops there); with `strict` (a file whose name says what it is:
    lmms-eval's results.json), over the limit is E302 instead of None."""
    import orjson

    from rulekit.core.limits import GunzipReader, LimitError, over

    try:
        if path.stat().st_size > limit:
            if strict:
                raise over("report-bytes", "the file is larger than", str(path))
            return None
        f = open(path, "rb")
        if f.peek(2)[:2] == b"\x1f\x8b":
            f = GunzipReader(f, str(path))
        with f:
            data = f.read(limit + 1)
        if len(data) > limit:
            if strict:
                raise over("report-bytes", "the file inflates past", str(path))
            return None
        return orjson.loads(data)
    except LimitError:
        if strict:
            raise
        return None
    except (OSError, EOFError, ValueError, zlib.error):
        return None


def _is_mmevalpro_score(data: Any) -> bool:
    return isinstance(data, dict) and bool(data) and all(
        isinstance(v, dict) and "genuine_accuracy_score" in v for v in data.values())


def _mmevalpro_pairs(files: list[Path]):
    """(Artifact, None) for each MMEvalPro score file with its model-output file, (None, note) for a
    score file whose output file is not found. The output is `<prefix>_model_output.json[.gz]` for a
    score `<prefix>_score.json[.gz]`, else the one JSON file beside it that holds triplet rows."""
    jsons = [f for f in files if f.name.endswith((".json", ".json.gz"))]
    for f in jsons:
        data = _json_of(f)
        if not _is_mmevalpro_score(data):
            continue
        base = f.name[:-3] if f.name.endswith(".gz") else f.name
        prefix = base[:-len("_score.json")] if base.endswith("_score.json") else base[:-len(".json")]
        named = [g for g in jsons if g.parent == f.parent and g.name in (f"{prefix}_model_output.json",
                                                                          f"{prefix}_model_output.json.gz")]
        others = named or [g for g in jsons if g.parent == f.parent and g != f and not _is_mmevalpro_score(_json_of(g))]
        if len(others) != 1:
            yield None, (f"{f}: an MMEvalPro score file, but its model output is not found "
                         f"(expected {prefix}_model_output.json next to it)")
            continue
        numbers = []
        for split, scores in data.items():
            for metric, value in scores.items():
                if type(value) not in (int, float):  # a number printed by auto_score.py, never text or a list
                    raise InputError(f"an MMEvalPro score file's `{split}` / `{metric}` is not a number: "
                                     f"{_short(value)}", loc=Loc(str(f), 0, 0), code="E300")
                numbers.append(Published(split, metric, repr(value) if isinstance(value, float) else str(value),
                                         decimals=2))
        family = next(fm for fm in registry() if fm.framework == "mmevalpro")
        yield Artifact("mmevalpro", prefix, "MMEvalPro", family, others[0], f, numbers), None


def _short(value: Any) -> str:
    """A value of a file, shown in a message: its JSON text, cut at 60 characters."""
    import json

    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _mmevalpro_numbers(numbers: list[Published], metrics: dict) -> dict[tuple[str, str], float | None]:
    """Our value of each published MMEvalPro number: a source's from `by_source`, `Macro_Average` from
    `macro`, `Micro_Average` from the whole run."""
    out: dict[tuple[str, str], float | None] = {}
    for n in numbers:
        ours = MMEVALPRO_METRICS.get(n.metric)
        if n.split == "Micro_Average":
            scope = metrics
        elif n.split == "Macro_Average":
            scope = metrics.get("macro") or {}
        else:
            scope = (metrics.get("by_source") or {}).get(n.split) or {}
        out[(n.split, n.metric)] = scope.get(ours) if ours else None
    return out


def _lmms_numbers(art: Artifact, family: Family, result, scores: list[float]) -> tuple[dict, list[str]]:
    """Our value of each published lmms-eval metric: a `mean` aggregation is the mean of our per-record
    scores; another is the figure the registry names for it (`metrics:`), else not recomputed."""
    named = dict(family.metrics)
    out, notes = {}, []
    for n in art.numbers:
        metric = n.metric.partition(",")[0]
        if metric in named:
            out[(n.split, n.metric)] = _figure(result.metrics, named[metric])
        elif art.aggregations.get(metric, "mean") == "mean":
            out[(n.split, n.metric)] = _mean(scores)
        else:
            out[(n.split, n.metric)] = None
            notes.append(f"`{n.metric}` is aggregated by {art.aggregations[metric]}, which rulekit does not "
                         "recompute for this task")
    return out, notes


def _lmms_sample_scores(records: list, metric: str) -> dict[str, float]:
    """{record id: the per-sample value lmms-eval logged for `metric`} where it is a number (or a dict
    with a numeric `score`)."""
    out = {}
    for r in records:
        value = (r.meta.get("metrics") or {}).get(metric)
        if isinstance(value, dict):  # MME logs {question_id, category, score}
            value = value.get("score")
        if type(value) in (int, float, bool):
            out[r.id] = float(value)
    return out


# ---------------------------------------------------------------- judge replies from a result sheet
# VLMEvalKit's eval_vanilla logs f"Match Log: {log}. " where `log` is the prediction (matched by the rules),
# the judge's reply (matched on it), "Failed in Prefetch, ..." (no judge: scored Z) or "Failed to predict,
# thus randomly generate one. " (the judge failed every try: an unseeded random.choice).
MATCH_LOG = "Match Log: "
NO_JUDGE_LOG = "Failed in Prefetch"
RANDOM_LOG = "Failed to predict, thus randomly generate one"


def _sheet_records(sheet: Path) -> tuple:
    """The rows of a framework's result sheet, read once (judge replies and `hit` both come from it)."""
    st = sheet.stat()
    return _read_sheet(str(sheet), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=8)
def _read_sheet(path: str, mtime_ns: int, size: int) -> tuple:
    return tuple(kept_records(Path(path)))


def kept_records(path: Path, fields: dict[str, str] | None = None) -> list:
    """Every record of a prediction file, result sheet or samples log, all kept in memory (what `reproduce`
    scores): at most `rows` of them (`rulekit.core.limits`). A line-based file (JSONL, CSV/TSV, gzipped or
    not) has its lines counted first, in 1 MiB pieces, so a 3-million-line samples log is refused before one
    record is parsed; a sheet's rows are checked by the reader before it yields one."""
    from rulekit.core.limits import count_lines
    from rulekit.readers import detect_format, read_records
    from rulekit.readers.jsonl import READ_ERRORS, open_bytes

    if detect_format(str(path)) in ("jsonl", "csv", "tsv"):
        with open_bytes(str(path)) as f:
            try:
                count_lines(f, str(path), "rows")
            except READ_ERRORS:
                pass  # a damaged file: the reader says where (E301)
    return list(read_records([str(path)], fields=fields))


def sheet_judge_replies(sheet: Path) -> tuple[dict[str, str], set[str], set[str]]:
    """({id: the judge's reply}, {ids VLMEvalKit guessed at random}, {ids its rules did not match}) of a
    VLMEvalKit result sheet: a row whose `log` holds something other than its own prediction was
    matched on the judge's reply; "Failed in Prefetch" rows had no judge."""
    replies, guessed, unmatched = {}, set(), set()
    for r in _sheet_records(sheet):
        log = r.meta.get("log")
        if not isinstance(log, str):
            continue
        said = log[len(MATCH_LOG):-2] if log.startswith(MATCH_LOG) and log.endswith(". ") else log
        if said.startswith(RANDOM_LOG):
            guessed.add(r.id)
        elif said.startswith(NO_JUDGE_LOG):
            unmatched.add(r.id)
        elif said != r.response and log.startswith(MATCH_LOG):
            replies[r.id] = said
    return replies, guessed, unmatched | guessed | set(replies)


def judge_sheet_replies(sheet: Path, spec: dict) -> tuple[dict[str, str], set[str], set[str] | None]:
    """({id: the judge's reply}, {}, {ids the rules did not settle} or None) of a judge benchmark's sheet, as
    the registry's `judge-sheet:` reads it: `reply: COLUMN` (MathVision's `res`, MMVet's `score`,
    DynaMath's `extracted`) or `json: [COLUMN, ...]` (the reply is the JSON object of those columns:
    CharXiv's sheet keeps its judge's `extracted_answer` and `score`, not the reply itself); `log: COLUMN`
    with `settled: TEXT` leaves out the rows no judge was asked about (MathVision's "Prefetch succeed").
    With a `log` column every row it keeps was asked; without one the sheet does not say which were
    (DynaMath), so the third item is None. An empty cell is the empty reply; a number is its repr (MMVet's
    score 0.5 is the reply "0.5"); `values: {CELL: REPLY}` names the reply a cell stands for."""
    import json

    def text(value: Any) -> str:
        return "" if value is None else value if isinstance(value, str) else repr(value)

    replies = {}
    for r in _sheet_records(sheet):
        if "settled" in spec and r.meta.get(spec.get("log", "log")) == spec["settled"]:
            continue
        if "json" in spec:  # numbers stay numbers in the object, anything else is its text
            replies[r.id] = json.dumps({c: r.meta.get(c) if type(r.meta.get(c)) in (int, float) else text(r.meta.get(c))
                                        for c in spec["json"]}, ensure_ascii=False)
        else:  # `values`: what a cell stands for (MathVerse's score True for the grader's "1")
            reply = text(r.meta.get(spec.get("reply", "res")))
            replies[r.id] = (spec.get("values") or {}).get(reply, reply)
    return replies, set(), (set(replies) if "log" in spec else None)


def circular_judge_replies(sheet: Path, records: list) -> tuple[dict[str, str], set[str], set[str]]:
    """({id: the judge's reply}, {ids VLMEvalKit guessed at random}, {ids its judge never saw}) of a
    CircularEval result sheet, whose rows are the groups' main questions and whose `log` tells the
    group's story (eval_circular_group): "Rolling i Matched." (the rules read rotation i), "Rolling i:
    Answer is G, Prediction is P, Pre-fetched is X." (the judge answered X, which was right; only the
    letter is kept, so X is its reply here), "Failed in Rolling i: ...; Pre-fetched is X; Match Log is
    REPLY." (the judge's own reply, wrong, or VLMEvalKit's random guess), "Failed in Prefetching ..." /
    "Succeed During Pre-fetching" (no judge). Rotation i is the i-th row of the group in file order; the
    rotations after a failure were never judged, and cannot change their failed group."""
    from rulekit.engine.compiler import load_ruleset
    from rulekit.metrics.groups import group_key

    spec = load_ruleset("vlmevalkit+circular").model.metrics.groups  # the groups the ruleset scores
    groups: dict[str, list] = {}
    for r in records:
        key = spec.key_of(r)
        if key is not None:
            groups.setdefault(group_key(key), []).append(r)
    replies, guessed, never = {}, set(), set()
    for row in _sheet_records(sheet):
        log = row.meta.get("log")
        rows = groups.get(group_key(row.meta.get("g_index", row.id)))
        if not isinstance(log, str) or not rows or "Rolling" not in log or log.startswith("Failed in Prefetching"):
            continue
        judged = set()
        for digits, letter in rolls_judged_right(log):
            i = _rotation(digits)
            if i < len(rows):
                replies[rows[i].id] = letter
                judged.add(i)
        failed = roll_failed(log)
        if failed and _rotation(failed[0]) < len(rows):
            i, said = _rotation(failed[0]), failed[1]
            if said.startswith(RANDOM_LOG):
                guessed.add(rows[i].id)
            else:
                replies[rows[i].id] = said
            judged.add(i)
            never |= {r.id for n, r in enumerate(rows) if n > i}
    return replies, guessed, never


# A `log` cell is untrusted text: it is read with str.find in linear time, never with a regex that
# backtracks (the patterns these functions stand for are cubic on a cell of repeated "Rolling 0: Answer is
# A, Prediction is B, ", and a Python `re` call cannot be interrupted).
def rolls_judged_right(log: str) -> list[tuple[str, str]]:
    """(rotation digits, letter) of each "Rolling i: Answer is G, Prediction is P, Pre-fetched is X." line of a
    CircularEval log, exactly what re.finditer(r"Rolling (\\d+): Answer is .*?, Prediction is .*?, Pre-fetched
    is ([A-Z])\\.(?:\\n|$)", log, re.S) finds (tests/test_bounds.py compares the two)."""
    out, pos, n = [], 0, len(log)
    while True:
        at = log.find("Rolling ", pos)
        if at < 0:
            return out
        k = at + 8
        while k < n and log[k].isdecimal():  # what \d matches in a str pattern
            k += 1
        if k == at + 8 or not log.startswith(": Answer is ", k):
            pos = at + 1
            continue
        said = log.find(", Prediction is ", k + 12)
        if said < 0:
            return out  # a later start has even less text after it: no match there either
        look = said + 16
        while True:
            t = log.find(", Pre-fetched is ", look)
            if t < 0:
                return out
            c = t + 17
            if c + 1 < n and "A" <= log[c] <= "Z" and log[c + 1] == "." and (c + 2 == n or log[c + 2] == "\n"):
                break
            look = t + 1
        out.append((log[at + 8:k], log[c]))
        pos = c + 2 + (c + 2 < n)


def roll_failed(log: str) -> tuple[str, str] | None:
    """(rotation digits, the judge's reply) of a "Failed in Rolling i: ...; Match Log is REPLY." log, exactly
    what re.search(r"Failed in Rolling (\\d+): .*?; Match Log is (.*)\\.\\n?$", log, re.S) finds."""
    pos, n = 0, len(log)
    while True:
        at = log.find("Failed in Rolling ", pos)
        if at < 0:
            return None
        k = at + 18
        while k < n and log[k].isdecimal():
            k += 1
        if k == at + 18 or not log.startswith(": ", k):
            pos = at + 1
            continue
        mark = log.find("; Match Log is ", k + 2)
        end = log.rfind(".")  # (.*)\\.\\n?$: the last "." with at most two line ends after it
        if mark < 0 or end < mark + 15 or log[end + 1:] not in ("", "\n", "\n\n"):
            return None  # a later start cannot do better
        return log[at + 18:k], log[mark + 15:end]


def _rotation(digits: str) -> int:
    """A rotation number from a log (digits of any script, as int() reads them); a number too long to be a
    rotation (a 5,000-digit one, which int() refuses) is past every group."""
    return int(digits) if len(digits) <= 9 else 1 << 40


def replayed(names: tuple[str, ...], records: list, replies: dict[str, str], guessed: set[str],
             sheet: Path, grades: dict[str, str] | None = None) -> list[tuple[Any, str | None]]:
    """Each judged generation run with the sheet's judge replies imported into a temporary judge cache
    (model `imported:<sheet>`, never a server): (Result, None), or (None, why it cannot be replayed)
    when rows it would send to the judge have no reply in the sheet. A sheet keeps one reply per row,
    the one the framework kept, so it stands for every try: one the judge's rules refuse (LogicVista's
    "" after five refused tries) is refused at each. A row VLMEvalKit guessed at random gets unusable
    replies, so the ruleset's own (seeded) guess decides it. `grades` are a two-stage judge's second
    replies (MathVerse's grader), put under the prompts the first replies lead to."""
    import tempfile

    from rulekit.engine.compiler import load_ruleset
    from rulekit.engine.judge import client_for, configure
    from rulekit.run.evaluate import evaluate
    from rulekit.run.judging import grader_pending, pending, with_overrides

    url, model = "http://imported.invalid/v1", f"imported:{sheet.name}"
    out: list[tuple[Any, str | None]] = []
    with tempfile.TemporaryDirectory(prefix="rulekit-replay-") as tmp:
        cache = str(Path(tmp) / "judge.sqlite")
        try:
            configure(base_url=url, model=model, cache=cache)
            ready = []
            for name in names:
                rs = with_overrides(load_ruleset(name))
                missing = []
                for section, record, prompts, _ in pending(rs, records):
                    client = client_for(section.fallback.judge)
                    if record.id in replies or record.id in guessed:
                        reply = replies.get(record.id, "")
                        for attempt in range(1, client.spec.retries + 1):
                            client.cache.put(client.key(prompts[0], attempt), client.model, prompts[0], attempt, reply)
                    else:
                        missing.append(record.id)
                for _, record, grader, prompts in (grader_pending(rs, records) if grades is not None else []):
                    if record.id not in grades:
                        missing.append(record.id)
                        continue
                    for attempt in range(1, grader.spec.retries + 1):
                        grader.cache.put(grader.key(prompts[0], attempt), grader.model, prompts[0], attempt,
                                         grades[record.id])
                ready.append((rs, missing))
            configure(base_url=url, model=model, cache=cache, replay=True)
            for rs, missing in ready:
                if missing:
                    out.append((None, f"`{rs.name}` would ask the judge about {len(missing)} rows the sheet "
                                      f"has no judge reply for (first: {missing[0]})"))
                else:
                    out.append((evaluate([rs], records, keep=True, count_unreadable=True)[0], None))
        finally:
            configure()
    return out


# ---------------------------------------------------------------- reproducing
@dataclass
class Row:
    """One published number and what rulekit made of it."""

    file: str
    framework: str
    model: str
    benchmark: str
    metric: str
    split: str
    reported: str
    reproduced: float | None
    ruleset: str | None
    matched: bool
    notes: list[str] = field(default_factory=list)
    differences: list[dict] = field(default_factory=list)
    percent: bool = False  # `reproduced` is a fraction of a number published in percent
    report: str = ""  # the file the number was published in (MMVet writes two beside one prediction file)
    fingerprint: str | None = None  # of `ruleset` as run (the same as `eval` and `explain` print for it)

    def shown(self) -> float | None:
        """`reproduced` on the published number's scale."""
        return None if self.reproduced is None else self.reproduced * (100 if self.percent else 1)

    def as_dict(self) -> dict:
        """The JSON form (`rulekit reproduce --format json`)."""
        return {"file": self.file, "framework": self.framework, "model": self.model, "benchmark": self.benchmark,
                "metric": self.metric, "split": self.split, "reported": self.reported,
                "reproduced": self.reproduced, "ruleset": self.ruleset, "matched": self.matched,
                "notes": self.notes, **({"differences": self.differences} if self.differences else {}),
                **({"report": self.report} if self.report else {}),
                **({"fingerprint": self.fingerprint} if self.fingerprint else {})}


def _mean(values: list) -> float | None:
    return sum(values) / len(values) if values else None


def _by_split(records: list) -> dict[str, list[int]]:
    """The records' indexes per `split` value (as text), in record order."""
    out: dict[str, list[int]] = {}
    for i, r in enumerate(records):
        out.setdefault(str(r.meta.get("split")), []).append(i)
    return out


def _numbers(numbers: list[Published], records: list, correct: list[float]) -> dict[tuple[str, str], float | None]:
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
            out[(number.split, number.metric)] = _mean([correct[i] for i in rows])
            continue
        value = None
        for name in _CATEGORY_FIELDS + (("split",) if number.split == "none" else ()):
            hits = scores(number.split, name).get(number.metric)
            if hits:
                value = _mean(hits)
                break
        out[(number.split, number.metric)] = value
    return out


def _circular_numbers(numbers: list[Published], result, spec) -> dict[tuple[str, str], float | None]:
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
        for name in reversed(_CATEGORY_FIELDS):  # a value of both fields: category's figure, as report_acc
            by = group_metrics(spec.model_copy(update={"breakdown": name}), decisions, records)
            for value, m in (by.get(f"by_{name}") or {}).items():
                figures[value] = m.get("genuine_accuracy")
        for n in wanted:
            out[(split, n.metric)] = figures.get(n.metric.strip() if n.metric.strip() == "Overall" else n.metric)
    return out


def _differences(sheet: Path, records: list, decisions: list, correct: list[bool]) -> tuple[list[dict], float | None]:
    """The records our decision scores differently from the framework's own `hit` (its result sheet),
    and the mean of those `hit`s (what the sheet itself says Overall is)."""
    hits = {}
    for r in _sheet_records(sheet):
        hit = r.meta.get("hit")
        if hit is not None:
            try:
                hits[r.id] = bool(int(float(hit)))
            except (TypeError, ValueError, OverflowError):  # "nan", "inf", text: not a verdict the sheet gives
                continue
    out = []
    for rec, d, ok in zip(records, decisions, correct):
        if rec.id in hits and hits[rec.id] != ok:
            out.append({"id": rec.id, "framework_hit": hits[rec.id], "ours": ok, "pred": d.pred, "outcome": d.outcome,
                        "step": d.step, "response": rec.response[:200]})
    return out, (sum(hits.values()) / len(hits) if hits else None)


@dataclass
class Scored:
    """An artifact scored with every candidate generation: (Result, our numbers, agreement per number,
    correct per record) each, and what the framework's result sheet says its rules left unmatched."""

    art: Artifact
    family: Family
    candidates: list[tuple]
    notes: list[str]
    unmatched: set[str] | None
    percent: bool
    logged: tuple[str, dict[str, float]] | None = None  # lmms-eval: (metric, {id: its per-sample value})

    def distance(self, candidate: tuple) -> int:
        """Rows whose rules-matched status differs from the framework's own sheet, or (lmms-eval) whose
        score differs from the value its samples log holds for them (0 with neither)."""
        if self.logged is not None:
            logged = self.logged[1]
            return sum(1 for d, mine in zip(candidate[0].decisions, candidate[3])
                       if d.id in logged and abs(logged[d.id] - mine) > 1e-9)
        if self.unmatched is None:
            return 0
        # not settled by the rules: left undecided, judged, or decided by the fallback (a judge's `then:` too)
        left = {d.id for d in candidate[0].decisions
                if d.outcome in ("unresolved", "judge", "fallback") or (d.outcome == "abstain" and d.step == "abstain")}
        return len(left ^ self.unmatched)

    def best(self) -> list[str]:
        """Generations that give back every number with the least sheet distance."""
        complete = [c for c in self.candidates if all(c[2].values())]
        if not complete:
            return []
        low = min(self.distance(c) for c in complete)
        return [generation(c[0].ruleset) for c in complete if self.distance(c) == low]


def generation(ruleset: str) -> str:
    """The rules generation of a ruleset name: `vlmevalkit@v1+judge` → `vlmevalkit@v1`."""
    return ruleset.removesuffix("+judge")


def score_artifact(art: Artifact) -> Scored:
    """Score `art`'s predictions with each generation its family lists (and, when its result sheet holds
    judge replies, each judged generation with those replies replayed)."""
    from rulekit.engine.compiler import load_ruleset
    from rulekit.run.evaluate import evaluate

    notes = []
    family = art.family
    if family is None:
        family = next(f for f in registry() if f.framework == art.framework and f.name == "multiple-choice")
        notes.append(f"benchmark `{art.benchmark}` is not in rulekit/data/benchmarks.yaml; tried the "
                     f"{family.name} family")
    # a generation that is also among the judged ones asks a judge about every row (LogicVista, MMVet):
    # it runs only with the sheet's replies replayed
    rulesets = [load_ruleset(name) for name in family.rulesets if name not in family.judged]
    by_name = {rs.name: rs for rs in rulesets}
    records = kept_records(art.predictions, dict(family.fields) or None)
    # a framework's number counts every row: one a ruleset cannot read (no options) is counted wrong, as there
    results = evaluate(rulesets, records, keep=True, count_unreadable=True) if rulesets else []
    records = results[0].records if results else records
    never: set[str] = set()
    grades: dict[str, str] | None = None
    if art.result_sheet is not None and family.name == "circular":
        replies, guessed, never = circular_judge_replies(art.result_sheet, records)
        unmatched = None  # the sheet has one row per group: which rotations the rules matched is not all there
    elif art.result_sheet is not None and (family.score_file or {}).get("judge-sheet"):
        spec = family.score_file["judge-sheet"]
        replies, guessed, unmatched = judge_sheet_replies(art.result_sheet, spec)
        if spec.get("grader"):  # a two-stage judge: its grader's replies, where it was asked
            grades = judge_sheet_replies(art.result_sheet, spec["grader"])[0]
    else:
        replies, guessed, unmatched = (sheet_judge_replies(art.result_sheet) if art.result_sheet is not None
                                       else ({}, set(), None))
    if (replies or guessed) and family.judged:
        notes.append(f"{art.result_sheet.name}: {len(replies)} rows decided on the judge's reply (replayed), "
                     f"{len(guessed)} guessed at random by VLMEvalKit"
                     + (f", {len(never)} never judged (after a failed rotation of their group)" if never else ""))
        judged = []
        for result, why in replayed(family.judged, records, replies, guessed | never, art.result_sheet, grades):
            if result is None:
                notes.append(why)
            else:
                judged.append(result)
        results = judged + results  # with the framework's judge replies first
        if guessed:
            notes.append(f"{len(guessed)} rows were VLMEvalKit's unseeded random guess: rulekit draws its own, "
                         "so those rows can differ")
    if not results:
        notes.append(f"{', '.join(f'`{n}`' for n in family.rulesets)} asks a judge: reproducing needs the judge's "
                     f"replies, in its sheet `{art.predictions.stem}_<judge>.xlsx`"
                     + (f" ({art.result_sheet.name} has none)" if art.result_sheet is not None else ", not found"))
    # a score file, or any report whose family maps its numbers (`score-file:`: VisuLogic's and CharXiv's `_acc.csv`)
    score_file = art.framework == "vlmevalkit" and (art.report.name.endswith(SCORE_SUFFIXES)
                                                    or family.score_file is not None)
    # VLMEvalKit's accuracy tables print fractions or percent; its score files and lmms-eval's results are
    # on the scale of the figure itself (MME's sums)
    percent = any(n.value > 1.0 for n in art.numbers) and not score_file and art.framework != "lmms-eval"
    scored = []
    for result in results:
        records = result.records
        if art.framework == "mmevalpro":
            ours = _mmevalpro_numbers(art.numbers, result.metrics)
            correct = [d.correct is True for d in result.decisions]
        elif art.framework == "lmms-eval":
            correct = [d.score if d.score is not None else float(d.correct is True) for d in result.decisions]
            ours, why = _lmms_numbers(art, family, result, correct)
            notes += [w for w in why if w not in notes]
        elif score_file:
            ours = score_file_numbers(art.numbers, _with_counts(result, family.score_file), family.score_file)
            correct = [d.correct is True for d in result.decisions]
        elif family.name == "circular":
            spec = (by_name.get(result.ruleset) or load_ruleset(result.ruleset)).model.metrics.groups
            ours = _circular_numbers(art.numbers, result, spec)
            correct = [d.correct is True for d in result.decisions]
        else:
            correct = [d.correct is True for d in result.decisions]
            ours = _numbers(art.numbers, records, [float(c) if d.score is None else d.score
                                                   for c, d in zip(correct, result.decisions)])
        agree = {k: n.agrees(ours[(n.split, n.metric)], percent) for k, n in
                 ((n.split + "\0" + n.metric, n) for n in art.numbers)}
        scored.append((result, ours, agree, correct))
    logged = None
    if art.framework == "lmms-eval":  # the per-sample scores of every published metric, where the log has them
        names, values = [], {}
        for metric in dict.fromkeys(n.metric.partition(",")[0] for n in art.numbers):
            found = _lmms_sample_scores(results[0].records, metric)
            if found:
                names.append(metric)
                values.update(found)
        logged = ("`, `".join(names), values) if values else None
    return Scored(art, family, scored, notes, unmatched, percent, logged)


def rows_of(sc: Scored, prefer: list[str] = ()) -> list[Row]:
    """One Row per published number of `sc.art`, with the generation chosen: every number given back,
    then the least disagreement with the framework's result sheet, then `prefer` (the generation that
    fits the other files of the same run), then the registry's order."""
    art, scored, notes, unmatched, percent = sc.art, sc.candidates, list(sc.notes), sc.unmatched, sc.percent
    if not scored:  # nothing could be run (a judge-only family without its judge's replies)
        return [Row(str(art.predictions), art.framework, art.model, art.benchmark, n.metric, n.split, n.text, None,
                    None, False, list(notes), [], percent, art.report.name) for n in art.numbers]
    sheet_distance = sc.distance
    rank = {name: i for i, name in enumerate(prefer)}
    complete = [s for s in scored if all(s[2].values())]
    whole = (min(complete, key=lambda s: (sheet_distance(s), rank.get(generation(s[0].ruleset), len(rank))))
             if complete else None)
    overall = next((s for s in scored if any(k.endswith("\0Overall") for k in s[2])
                    and all(v for k, v in s[2].items() if k.endswith("\0Overall"))), None)
    chosen = whole or overall or min(scored, key=lambda s: _distance(s[1], art.numbers))
    result, ours, agree, correct = chosen
    also = [s[0].ruleset for s in scored if s is not chosen and all(s[2].values())]
    if whole is not None and also:
        notes.append(f"also reproduced by {', '.join(f'`{name}`' for name in also)} (they agree on these replies)")
    if sc.logged is not None:
        off = sheet_distance(chosen)
        notes.append(f"its per-record scores equal the samples log's `{sc.logged[0]}` on all {len(sc.logged[1])} records"
                     if off == 0 else f"its per-record scores differ from the samples log's `{sc.logged[0]}` "
                                      f"on {off} records")
    if unmatched is not None:
        off = sheet_distance(chosen)
        notes.append(f"its rules leave the same {len(unmatched)} rows unmatched as {art.result_sheet.name} shows"
                     if off == 0 else f"its rules and {art.result_sheet.name} disagree on which rows the rules "
                                      f"matched: {off} rows")
    if whole is None:
        if overall is not None:
            notes.append("Overall reproduced; some category numbers are not (see their rows)")
        else:
            tried = ", ".join(f"{s[0].ruleset} {_fmt(_overall(s[1]), percent)}" for s in scored)
            notes.append(f"no generation reproduces it; closest `{result.ruleset}` (tried: {tried})")
    differences: list[dict] = []
    if whole is None and art.result_sheet is not None:
        differences, sheet_overall = _differences(art.result_sheet, result.records, result.decisions, correct)
        notes.append(f"{len(differences)} records scored differently from {art.result_sheet.name}'s `hit`")
        reported = next((n for n in art.numbers if n.metric.strip() == "Overall"), None)
        if not differences and sheet_overall is not None and reported is not None \
                and not reported.agrees(sheet_overall, percent):
            notes.append(f"the framework's own per-row `hit` gives Overall {sheet_overall!r}, not the published "
                         f"{reported.text}: the published number does not follow from its result sheet")
    if whole is None and sc.logged is not None:
        metric, logged = sc.logged
        for rec, d, mine in zip(result.records, result.decisions, correct):
            if rec.id in logged and abs(logged[rec.id] - mine) > 1e-9:
                differences.append({"id": rec.id, "framework_score": logged[rec.id], "ours": mine, "pred": d.pred,
                                    "outcome": d.outcome, "step": d.step, "response": rec.response[:200]})
    dup = len(result.records) - len({r.id for r in result.records})
    if dup:
        notes.append(f"{dup} repeated indexes: VLMEvalKit joins predictions and answers by index, so the "
                     "published number may count rows twice (probable bug)")
    rows = []
    for n in art.numbers:
        rows.append(Row(str(art.predictions), art.framework, art.model, art.benchmark, n.metric, n.split, n.text,
                        ours[(n.split, n.metric)], result.ruleset, agree[n.split + "\0" + n.metric], list(notes),
                        differences if n.metric == "Overall" or art.framework == "lmms-eval" else [], percent,
                        art.report.name, result.fingerprint))
    return rows


def _overall(ours: dict) -> float | None:
    return next((v for (split, metric), v in ours.items() if metric == "Overall"), None)


def _distance(ours: dict, numbers: list[Published]) -> float:
    total = 0.0
    for n in numbers:
        v = ours[(n.split, n.metric)]
        total += abs((v if v is not None else 0.0) - (n.value / 100 if n.value > 1 else n.value))
    return total


def _fmt(value: float | None, percent: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value * 100:.2f}" if percent else f"{value:.6f}"


def reproduce(paths: list[str]) -> tuple[list[Row], list[str]]:
    """Every published number under `paths`, reproduced or not, and notes on what was skipped.

    Files of one framework are taken as one run: where several generations give a file back, the
    one that gives back the most files of that framework is named for all of them."""
    from collections import Counter

    artifacts, notes = find_artifacts(paths)
    scored = [score_artifact(art) for art in artifacts]
    rows = []
    for sc in scored:
        votes = Counter(g for other in scored if other.art.framework == sc.art.framework for g in other.best())
        order = sorted(votes, key=lambda g: -votes[g])  # stable: ties keep the registry's order
        rows += rows_of(sc, order)
    return rows, notes


# ---------------------------------------------------------------- output
def _benchmark_labels(rows: list[Row]) -> dict[int, str]:
    """Each row's benchmark as shown: with its report's own ending where one prediction file has several
    reports (MMVet's `_score.csv` and `_score_fine.csv`), so their rows can be told apart."""
    reports: dict[str, set[str]] = {}
    for row in rows:
        reports.setdefault(row.file, set()).add(row.report)
    out = {}
    for row in rows:
        ending = row.report[len(Path(row.file).stem):].rsplit(".", 1)[0] if row.report.startswith(Path(row.file).stem) else row.report
        out[id(row)] = f"{row.benchmark} ({ending})" if len(reports[row.file]) > 1 else row.benchmark
    return out


def render_table(rows: list[Row], notes: list[str], console) -> None:
    """One line per published number (Overall first, then categories), notes under it."""
    from rich.table import Table
    from rich.text import Text

    if not rows:
        for note in notes:
            console.print(Text(f"note: {note}"))
        return
    table = Table(title="rulekit reproduce", title_justify="left")
    for col, justify in (("model", "left"), ("benchmark", "left"), ("metric", "left"), ("split", "left"),
                         ("reported", "right"), ("reproduced", "right"), ("delta", "right"), ("ruleset", "left"),
                         ("", "left")):
        table.add_column(col, justify=justify)
    label = _benchmark_labels(rows)
    for row in sorted(rows, key=lambda r: (r.file, r.report, r.split, not is_headline(r), r.metric)):
        ours = row.shown()
        delta = f"{ours - float(row.reported):+.6f}" if ours is not None else "-"
        table.add_row(Text(row.model), Text(label[id(row)]), Text(row.metric), Text(row.split), row.reported,
                      f"{ours:.6f}" if ours is not None else "-", delta, Text(row.ruleset or "-"),
                      Text("✓" if row.matched else "✗", style="green" if row.matched else "red"))
    console.print(table)
    seen = set()
    for row in rows:
        for note in row.notes:
            if (row.file, note) not in seen:
                seen.add((row.file, note))
                console.print(Text(f"{Path(row.file).name}: {note}"))
    for note in notes:
        console.print(Text(f"note: {note}"))


def render_markdown(rows: list[Row], notes: list[str]) -> str:
    """The summary as a Markdown table, for a paper appendix: each file's headline numbers (VLMEvalKit's
    `Overall`, MMEvalPro's `genuine_accuracy_score`), then the other numbers that did not match."""
    out = ["| model | benchmark | split | metric | reported | reproduced | ruleset | matched |",
           "|---|---|---|---|---:|---:|---|---|"]
    label = _benchmark_labels(rows)
    for row in sorted(rows, key=lambda r: (r.model, r.benchmark, r.report, r.split)):
        if not is_headline(row):
            continue
        ours = "-" if row.reproduced is None else repr(row.shown())
        out.append(f"| {row.model} | {label[id(row)]} | {row.split} | {row.metric} | {row.reported} | {ours} | "
                   f"`{row.ruleset}` | {'yes' if row.matched else 'no'} |")
    missed = [r for r in rows if not is_headline(r) and not r.matched]
    if missed:
        out.append("")
        out.append(f"{len(missed)} other numbers were not reproduced: "
                   + ", ".join(f"{r.model}/{label[id(r)]}/{r.split}/{r.metric}" for r in missed[:20]))
    for note in notes:
        out.append(f"\n- {note}")
    return "\n".join(out) + "\n"


def exit_code(rows: list[Row]) -> int:
    """0 when every published number was reproduced; 1 when one was not, or nothing was found."""
    return 0 if rows and all(r.matched for r in rows) else 1


def as_json(rows: list[Row], notes: list[str]) -> dict[str, Any]:
    """`{"results": [...], "notes": [...]}`."""
    return {"results": [r.as_dict() for r in rows], "notes": notes}
