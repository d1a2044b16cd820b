"""Run rulesets over records: stream records through evaluators, write decisions, compute metrics.

This is the `eval` job without the command line: `evaluate(rulesets, records, ...)` returns one
`Result` per ruleset. Decisions files are written to a temporary file and renamed, so an
interrupted run never leaves a truncated file behind.
"""
from __future__ import annotations

import os
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import orjson

from .compiler import CompiledRuleset
from .engine import MAX_CHARS, Evaluator
from .loader import fingerprint
from .metrics import basic_metrics, breakdown, group_metrics, outcome_counts
from .records import Record
from .trace import Decision


@dataclass
class Result:
    """What one ruleset made of the input."""

    ruleset: str
    fingerprint: str
    seed: int | None
    n: int
    metrics: dict
    outcomes: dict
    skipped: dict = field(default_factory=dict)
    decisions: list[Decision] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    output: str | None = None

    def as_json(self) -> dict:
        """The `results[]` entry of `--format json` (DESIGN.md §5)."""
        out = {"ruleset": self.ruleset, "n": self.n, "metrics": self.metrics, "outcomes": self.outcomes,
               "fingerprint": self.fingerprint, "seed": self.seed}
        if self.skipped:
            out["skipped"] = self.skipped
        if self.output:
            out["decisions_file"] = self.output
        return out


class AtomicWriter:
    """A file written under a temporary name and renamed into place on success only."""

    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, self.tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        self.fh = os.fdopen(fd, "wb", buffering=1 << 20)

    def write_row(self, row: dict) -> None:
        """Append one JSON object as a line."""
        self.fh.write(orjson.dumps(row, option=orjson.OPT_SERIALIZE_NUMPY) + b"\n")

    def commit(self) -> None:
        """Flush, fsync and rename into place."""
        self.fh.flush()
        os.fsync(self.fh.fileno())
        self.fh.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        """Drop the temporary file."""
        try:
            self.fh.close()
        finally:
            if os.path.exists(self.tmp):
                os.unlink(self.tmp)


def effective_seed(ruleset: CompiledRuleset, seed: int | None) -> int | None:
    """The seed a run uses: the command line's, else the ruleset's fallback seed."""
    return seed if seed is not None else ruleset.seed


def evaluate(rulesets: list[CompiledRuleset], records: Iterable[Record], *, seed: int | None = None,
             output_dir: str | None = None, on_record: Callable[[], None] | None = None,
             max_chars: int = MAX_CHARS) -> list[Result]:
    """Apply every ruleset to every record (one pass over the input) and compute metrics."""
    evaluators = [Evaluator(rs, seed, max_chars) for rs in rulesets]
    results = [Result(rs.name, fingerprint(rs.data, effective_seed(rs, seed)), effective_seed(rs, seed), 0, {}, {})
               for rs in rulesets]
    with ExitStack() as stack:
        writers: list[AtomicWriter | None] = [None] * len(rulesets)
        if output_dir:
            for i, rs in enumerate(rulesets):
                writers[i] = AtomicWriter(Path(output_dir) / f"{rs.name}.decisions.jsonl")
                stack.callback(writers[i].abort)
        for record in records:
            for ev, res, writer in zip(evaluators, results, writers):
                decision = ev.decide(record)
                if decision is None:
                    res.skipped[record.question_type] = res.skipped.get(record.question_type, 0) + 1
                    continue
                res.decisions.append(decision)
                res.records.append(record)
                if writer is not None:
                    writer.write_row(decision.as_row())
            if on_record is not None:
                on_record()
        for writer, res in zip(writers, results):
            if writer is not None:
                writer.commit()
                res.output = str(writer.path)
        stack.pop_all()
    for rs, res in zip(rulesets, results):
        res.n = len(res.decisions)
        res.metrics = compute_metrics(rs, res.decisions, res.records)
        res.outcomes = outcome_counts(res.decisions)
    return results


def compute_metrics(ruleset: CompiledRuleset, decisions: list[Decision], records: list[Record]) -> dict[str, Any]:
    """Headline metrics, per-question-type accuracy, declared breakdowns and group metrics."""
    metrics = basic_metrics(decisions)
    metrics.pop("n", None)
    types = {r.question_type for r in records}
    if len(types) > 1:
        metrics["by_question_type"] = breakdown(decisions, records, "question_type")
    spec = ruleset.model.metrics
    for name in spec.breakdown:
        if isinstance(name, str):
            metrics[f"by_{name.removeprefix('meta.')}"] = breakdown(decisions, records, name)
        else:  # a declared breakdown: computed labels and rollups (metrics/rollup.py)
            from .metrics.rollup import declared_breakdown

            metrics.update(declared_breakdown(name, decisions, records))
    if spec.groups is not None:
        metrics.update(group_metrics(spec.groups, decisions, records))
    return metrics
