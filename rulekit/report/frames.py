"""The notebook API: decisions and diffs as pandas or polars DataFrames (`rulekit.score`, `rulekit.diff`).

Both run what `rulekit eval` and `rulekit diff` run — the readers' row mapping (`rulekit.readers.frame`,
columns mapped as ``--field`` does), the judge options (`rulekit.run.judging.prepare_eval`), one pass of
`rulekit.run.evaluate.evaluate` — so the decisions are the CLI's, value for value; only the shape differs.
The frame returned is of the input's kind (pandas in, pandas out; polars in, polars out); pandas and
polars are imported only here, and only the one the input came from.

Warnings about the input (W310-W320) become Python warnings (`RulekitWarning`), or errors with
``strict=True``; user errors are `RulekitError`s with the CLI's codes.
"""
from __future__ import annotations

import dataclasses
import warnings
from typing import Any, Iterable

from rulekit.core.errors import WARNINGS, UsageError
from rulekit.core.records import Record
from rulekit.core.trace import Decision
from rulekit.engine.decide import MAX_CHARS
from rulekit.metrics.accumulate import UNREADABLE
from rulekit.readers import parse_field_map
from rulekit.readers.frame import frame_kind, read_frame
from rulekit.run.evaluate import Result, evaluate, unique_names

__all__ = ["RulekitWarning", "SCORE_COLUMNS", "DIFF_COLUMNS", "score_frame", "diff_frame"]

SCORE_COLUMNS = ("ruleset", "row", "id", "benchmark", "gold", "pred", "correct", "score", "outcome", "step",
                 "message", "k", "reason", "counted")
DIFF_COLUMNS = ("row", "id", "gold", "a_pred", "b_pred", "a_correct", "b_correct", "a_outcome", "b_outcome",
                "a_step", "b_step", "category", "direction")


JUDGE_OPTIONS = ("judge_url", "judge_model", "judge_cache", "judge_replay", "judge_concurrency")  # eval's --judge-*


class RulekitWarning(UserWarning):
    """A warning about the input or the run (the CLI's W310-W320 line, code first)."""


def _field_map(fields: Any) -> dict[str, str] | None:
    """`fields` as {our field: column}: a dict, or ``--field`` items ("response=prediction"); E400 if malformed."""
    if not fields:
        return None
    if isinstance(fields, str):
        fields = [fields]
    items = [f"{k}={v}" for k, v in fields.items()] if isinstance(fields, dict) else list(fields)
    return parse_field_map(items)


def _rulesets(rulesets: Any) -> list:
    """Names, paths or compiled rulesets → CompiledRulesets under distinct names (as `eval -r A -r A`)."""
    from rulekit.engine.compiler import CompiledRuleset, load_ruleset

    if isinstance(rulesets, (str, CompiledRuleset)) or hasattr(rulesets, "__fspath__"):
        rulesets = [rulesets]
    loaded = [rs if isinstance(rs, CompiledRuleset) else load_ruleset(str(rs)) for rs in rulesets]
    if not loaded:
        raise UsageError("no ruleset given", help='rulekit.score(df, "vlmevalkit")')
    return [rs if name == rs.name else dataclasses.replace(rs, name=name)
            for rs, name in zip(loaded, unique_names([rs.name for rs in loaded]))]


def _run(data: Any, rulesets: Any, fields: Any, seed: int | None, max_chars: int, count_unreadable: bool,
         where: str | None, strict: bool, keep: bool, judge: dict,
         see: Any = None) -> tuple[str, list, list[Result], list, list[str]]:
    """Score the frame as `rulekit eval` does: (frame kind, rulesets, Results, [(row, record, decisions)],
    warning lines). With `see`, each (row, record, decisions) goes to `see` instead, in input order, and the
    list is empty."""
    from rulekit.run.judging import prepare_eval
    from rulekit.run.where import where_filter

    kind = frame_kind(data)
    unknown = sorted(set(judge) - set(JUDGE_OPTIONS))
    if unknown:
        raise UsageError(f"unknown option {unknown[0]!r}", help=f"judge options: {', '.join(JUDGE_OPTIONS)}")
    field_map = _field_map(fields)
    flt = where_filter(where)
    loaded = _rulesets(rulesets)
    seen: list[tuple[int, Record, list]] = []
    rows: list[int] = []  # the input row of each record evaluated, in order

    def numbered() -> Iterable[Record]:
        for n, record in enumerate(read_frame(data, field_map)):
            if flt is None or flt(record):
                rows.append(n)
                yield record

    WARNINGS.clear()
    WARNINGS.strict = strict
    try:
        loaded, records = prepare_eval(loaded, numbered(), seed, None, **judge)

        count = 0

        def note(record: Record, decisions: list[Decision | None]) -> None:
            nonlocal count
            if see is None:
                seen.append((rows[count], record, decisions))
            else:
                see(rows[count], record, decisions)
            count += 1

        results = evaluate(loaded, records, seed=seed, max_chars=max_chars, keep=keep,
                           count_unreadable=count_unreadable, on_decisions=note)
        lines = WARNINGS.lines()
    finally:
        WARNINGS.clear()
        WARNINGS.strict = False
    for line in lines:
        warnings.warn(line, RulekitWarning, stacklevel=4)
    return kind, loaded, results, seen, lines


def score_frame(data: Any, rulesets: Any, fields: Any = None, seed: int | None = None, *,
                max_chars: int = MAX_CHARS, count_unreadable: bool = False, where: str | None = None,
                strict: bool = False, with_summary: bool = False, **judge: Any):
    """`rulekit.score`: one row per input row and ruleset (see its docstring)."""
    kind, loaded, results, seen, lines = _run(data, rulesets, fields, seed, max_chars, count_unreadable, where,
                                              strict, False, judge)
    columns: dict[str, list] = {c: [] for c in SCORE_COLUMNS}
    for j, res in enumerate(results):
        status = res.status
        for i, (row, record, decisions) in enumerate(seen):
            d = decisions[j]
            columns["ruleset"].append(res.ruleset)
            columns["row"].append(row)
            columns["id"].append(record.id)
            columns["benchmark"].append(record.benchmark)
            columns["gold"].append(record.answer)
            if d is None:
                for c in ("pred", "correct", "score", "outcome", "step"):
                    columns[c].append(None)
                columns["message"].append(f"not scored: {res.ruleset} has no {record.question_type} section")
                columns["k"].append(0)
                columns["reason"].append("")
                columns["counted"].append(False)
                continue
            columns["pred"].append(d.pred)
            columns["correct"].append(d.correct)
            columns["score"].append(None if d.score is None else float(d.score))
            columns["outcome"].append(d.outcome)
            columns["step"].append(d.step)
            columns["message"].append(d.message)
            columns["k"].append(d.k)
            columns["reason"].append(d.reason)
            columns["counted"].append(status[i] < UNREADABLE)
    summary = {"results": [r.as_json() for r in results], "warnings": lines}
    return _finish(kind, columns, summary, with_summary)


def diff_frame(data: Any, a: Any, b: Any, fields: Any = None, seed: int | None = None, *,
               max_chars: int = MAX_CHARS, count_unreadable: bool = False, where: str | None = None,
               strict: bool = False, with_summary: bool = False, **judge: Any):
    """`rulekit.diff`: the records two rulesets decide differently (see its docstring). Streamed as `rulekit
    diff` is (`rulekit.report.diff.DiffStream`): per record only the counts are kept, and the disagreeing
    records with their input row, so memory beyond the frame itself grows with the disagreements only."""
    from rulekit.report.diff import DiffStream, _category, _direction, public

    stream = DiffStream(0, list_disagreements=True, count_unreadable=count_unreadable)
    found = []  # (row, record, A's decision, B's) of each disagreeing record, in input order: the stream's own rule

    def see(row: int, record: Record, decisions: list) -> None:
        stream.see(record, decisions)
        da, db = decisions
        if da is None or db is None or (not count_unreadable and "unreadable" in (da.outcome, db.outcome)):
            return
        if not (da.pred == db.pred and (da.correct is True) == (db.correct is True)):
            found.append((row, record, da, db))

    kind, loaded, results, _, lines = _run(data, [a, b], fields, seed, max_chars, count_unreadable, where,
                                           strict, False, judge, see)
    report = public(stream.report(results[0], results[1], seed=seed if seed is not None else 0,
                                  rulesets=tuple(loaded)))
    if len(found) != len(report["disagree"]) or any(f[2].id != r["id"] for f, r in zip(found, report["disagree"])):
        raise RuntimeError("rulekit.diff: the disagreeing records do not line up with the diff report's (a bug)")
    columns: dict[str, list] = {c: [] for c in DIFF_COLUMNS}
    for (row, record, da, db), entry in zip(found, report["disagree"]):
        columns["row"].append(row)
        columns["gold"].append(record.answer)
        for key in ("id", "a_pred", "b_pred", "a_correct", "b_correct", "a_outcome", "b_outcome", "a_step", "b_step"):
            columns[key].append(entry[key])
        columns["category"].append(_category(da, db)[0])
        columns["direction"].append(_direction(da, db))
    summary = {"a": report["a"], "b": report["b"], "n": report["n"], **report["summary"], "warnings": lines}
    return _finish(kind, columns, summary, with_summary)


def _finish(kind: str, columns: dict[str, list], summary: dict, with_summary: bool):
    """The columns as a frame of `kind`; the summary in a pandas frame's attrs, and beside the frame when asked."""
    frame = _pandas(columns) if kind == "pandas" else _polars(columns)
    if kind == "pandas":
        frame.attrs["summary"] = summary
    return (frame, summary) if with_summary else frame


_BOOL = ("correct", "counted", "a_correct", "b_correct")


def _pandas(columns: dict[str, list]):
    """A pandas DataFrame: `correct` nullable booleans, `score` nullable floats, `row`/`k` integers, the
    rest objects (a prediction may be text, a number or a list; None stays None)."""
    import pandas as pd

    out = {}
    for name, values in columns.items():
        if name in _BOOL:
            out[name] = pd.array(values, dtype="boolean")
        elif name == "score":
            out[name] = pd.array(values, dtype="Float64")
        elif name in ("row", "k"):
            out[name] = pd.array(values, dtype="int64")
        else:
            out[name] = pd.Series(values, dtype=object)
    return pd.DataFrame(out)


def _polars(columns: dict[str, list]):
    """A polars DataFrame: typed columns; `gold` and `pred` are text when every value is text (or null), a
    number type when every one is that, else Object columns holding the Python values."""
    import polars as pl

    fixed = {"row": pl.Int64, "k": pl.Int64, "score": pl.Float64, **{b: pl.Boolean for b in _BOOL}}
    schema = {}
    for name, values in columns.items():
        if name in fixed:
            schema[name] = fixed[name]
            continue
        types = {type(v) for v in values if v is not None}
        schema[name] = (pl.String if types <= {str} else pl.Int64 if types == {int} else
                        pl.Float64 if types == {float} else pl.Boolean if types == {bool} else pl.Object)
    return pl.DataFrame(columns, schema=schema)
