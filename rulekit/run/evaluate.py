"""Run rulesets over records: stream records through evaluators, write decisions, compute metrics.

This is the `eval` job without the command line: `evaluate(rulesets, records, ...)` returns one
`Result` per ruleset. Decisions files are written to a temporary file and renamed, so an
interrupted run never leaves a truncated file behind.
"""
from __future__ import annotations

import os
import re
import sys
from array import array
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import orjson

from rulekit.core.cachefiles import AtomicFile
from rulekit.core.cachefiles import sweep_stale as _sweep
from rulekit.engine.compiler import CompiledRuleset
from rulekit.engine.decide import MAX_CHARS, DrawLater, Evaluator
from rulekit.core.errors import UsageError, warn
from rulekit.metrics.accumulate import MetricsPlan
from rulekit.metrics.groups import group_key
from rulekit.core.records import MULTIPLE_CHOICE, Record
from rulekit.core.trace import Decision


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
    correct: bytes = b""  # 1/0 per decision in input order (bootstrap intervals)
    decisions: list[Decision] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    output: str | None = None
    errors: dict = field(default_factory=dict)  # outcome `error`: count per reason (Decision.reason)
    # per input record, in input order: RIGHT, WRONG, UNREADABLE (left out) or NOT_SCORED (metrics.accumulate)
    status: bytes = b""
    unreadable: int = 0              # decisions with outcome `unreadable` (multiple-choice records without options)
    count_unreadable: bool = False   # True: they are in `n` and the metrics, counted wrong (--count-unreadable)
    unreadable_by: dict = field(default_factory=dict)  # benchmark → unreadable records (when records name one)
    keys: "RecordKeys | None" = None  # the run's `--by` values per record (shared by the run's Results)

    def as_json(self) -> dict:
        """The `results[]` entry of `--format json` (DESIGN.md §5). `n` and the metrics cover the records in
        the headline; `outcomes` counts every decision, `unreadable` ones included (`unreadable` says whether
        they are in `n`)."""
        out = {"ruleset": self.ruleset, "n": self.n, "metrics": self.metrics, "outcomes": self.outcomes,
               "fingerprint": self.fingerprint, "seed": self.seed}
        if self.skipped:
            out["skipped"] = self.skipped
        if self.unreadable:
            out["unreadable"] = {"n": self.unreadable, "counted": self.count_unreadable,
                                 "why": "multiple-choice without options",
                                 **({"by_benchmark": self.unreadable_by} if self.unreadable_by else {})}
        if self.output:
            out["decisions_file"] = self.output
        if self.errors:
            out["errors"] = self.errors
        return out


class RecordKeys:
    """The value of each `--by` field for every input record, in input order (an index into the field's values,
    4 bytes a record): what comparing rulesets per value on the records all of them scored needs
    (`rulekit.report.joint`). Filled by the reading process, or per worker chunk and merged in input order."""

    __slots__ = ("fields", "values", "rows")

    def __init__(self, fields: list[str]):
        self.fields = list(fields)
        self.values: list[dict[str, int]] = [{} for _ in self.fields]
        self.rows = [array("I") for _ in self.fields]

    def add(self, record: Record) -> None:
        """Note one record's values."""
        for name, values, rows in zip(self.fields, self.values, self.rows):
            key = group_key(record.field(name))
            index = values.get(key)
            if index is None:
                index = values[key] = len(values)
            rows.append(index)

    def merge(self, other: "RecordKeys") -> None:
        """Append `other`'s records (which came right after these)."""
        for values, rows, theirs, their_rows in zip(self.values, self.rows, other.values, other.rows):
            remap = [values.setdefault(key, len(values)) for key in theirs]  # `theirs` in index order
            rows.extend(remap[i] for i in their_rows)

    def labels(self, j: int) -> list[str]:
        """The values of field number `j`, by index."""
        return list(self.values[j])


class InputAudit:
    """What is worth a warning about the records themselves, counted as they stream past (W310-W312):
    ids seen more than once (each occurrence is still scored: real VLMEvalKit files repeat indexes),
    records without a gold answer (scored wrong), multiple-choice records without options. The first
    occurrence of each is kept for the message. The duplicate check keeps one 64-bit hash per distinct
    id (a Python set: about 70 bytes a record); nothing else grows with the input."""

    __slots__ = ("seen", "counts", "first", "no_options_by")

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.counts = {"W310": 0, "W311": 0, "W312": 0}
        self.first: dict[str, str] = {}
        self.no_options_by: dict[str, int] = {}  # benchmark → multiple-choice records without options

    def see(self, rid: str, no_gold: bool, no_options: bool, where: str, benchmark: Any = None) -> None:
        """Count one record (its id, whether it lacks a gold answer or options, where it is, its benchmark)."""
        h = hash(rid)
        if h in self.seen:
            self._note("W310", f"`{rid}`, {where}")
        else:
            self.seen.add(h)
        if no_gold:
            self._note("W311", where)
        if no_options:
            self._note("W312", where)
            if benchmark is not None:
                key = group_key(benchmark)
                self.no_options_by[key] = self.no_options_by.get(key, 0) + 1

    def record(self, record: Record) -> None:
        """`see` for a Record."""
        self.see(record.id, record.answer is None, record.question_type == MULTIPLE_CHOICE and not record.choices,
                 record.where or f"`{record.id}`", record.benchmark)

    def _note(self, code: str, first: Any) -> None:
        self.counts[code] += 1
        self.first.setdefault(code, first)

    def absorb(self, chunk: "ChunkAudit", path: str, lines_before: int) -> None:
        """Count a worker's chunk of `path` (its lines numbered from `lines_before` + 1), in input order."""
        hashes = chunk.hashes
        if self.seen.isdisjoint(hashes) and len(set(hashes)) == len(hashes):  # the usual case, at C speed
            self.seen.update(hashes)
        else:
            for h, line in zip(hashes, chunk.lines):
                if h in self.seen:
                    self._note("W310", (path, lines_before + line))  # the id is read back from the file
                else:
                    self.seen.add(h)
        for code, count in chunk.counts.items():
            if count:
                self.counts[code] += count
                self.first.setdefault(code, f"{path}:{lines_before + chunk.first[code]}")
        for key, count in chunk.no_options_by.items():
            self.no_options_by[key] = self.no_options_by.get(key, 0) + count

    def report(self, fields: dict | None = None, results: list | None = None) -> None:
        """Send what was found to the warnings collector (`rulekit.core.errors.warn`; raises under --strict).
        Multiple-choice records without options are worth a warning (W312) only where a ruleset of `results`
        cannot read them (outcome `unreadable`): a ruleset that reads the whole reply, or has letters of its
        own, scores them."""
        what = {"W310": "repeated record id(s) (every occurrence is scored)",
                "W311": "record(s) without a gold answer (scored wrong)",
                "W312": self._no_options(results or [])}
        for code, count in self.counts.items():
            if count and what[code]:
                first = self.first[code]
                if isinstance(first, tuple):  # found by a worker: (path, line)
                    first = f"`{_id_at(first[0], first[1], fields)}`, {first[0]}:{first[1]}"
                warn(code, what[code], first, count=count)

    def _no_options(self, results: list) -> str:
        """W312's text: the records, per benchmark, and the rulesets of this run that cannot read them ("" when
        every ruleset reads them)."""
        blind = [r for r in results if r.unreadable]
        if not blind:
            return ""
        names = ", ".join(f"`{r.ruleset}`" for r in blind)
        per = ", ".join(f"{key} {n:,}" for key, n in self.no_options_by.items())
        counted = all(r.count_unreadable for r in blind)
        return (f"multiple-choice record(s) without options{f' ({per})' if per else ''}: {names} cannot read them "
                + ("(outcome unreadable, counted wrong: --count-unreadable)" if counted else
                   "(outcome unreadable, left out of accuracy; --count-unreadable counts them wrong)"))


class ChunkAudit:
    """The worker half of InputAudit (rulekit.run.parallel): a chunk's id hashes and line numbers, and its
    counts of records without gold or options, which the parent absorbs in input order."""

    __slots__ = ("hashes", "lines", "counts", "first", "no_options_by")

    def __init__(self) -> None:
        self.hashes = array("q")
        self.lines = array("q")
        self.counts = {"W311": 0, "W312": 0}
        self.first: dict[str, int] = {}
        self.no_options_by: dict[str, int] = {}

    def record(self, record: Record) -> None:
        """Count one record of the chunk (`record.where` is `path:LINE`, LINE counted in the chunk)."""
        line = int(record.where.rpartition(":")[2])
        self.hashes.append(hash(record.id))
        self.lines.append(line)
        if record.answer is None:
            self.counts["W311"] += 1
            self.first.setdefault("W311", line)
        if record.question_type == MULTIPLE_CHOICE and not record.choices:
            self.counts["W312"] += 1
            self.first.setdefault("W312", line)
            if record.benchmark is not None:
                key = group_key(record.benchmark)
                self.no_options_by[key] = self.no_options_by.get(key, 0) + 1


def _id_at(path: str, line: int, fields: dict | None) -> str:
    """The record id on line `line` of the JSONL file `path` (read once, for a warning)."""
    from rulekit.readers.jsonl import records_from_lines

    with open(path, "rb") as f:
        for n, data in enumerate(f, 1):
            if n == line:
                return next(iter(records_from_lines([data], path, n, fields)), None).id
    return "?"  # pragma: no cover - the worker read that line


REGEX_LIMIT_REASONS = ("regex time limit in ", "regex budget in ")  # Decision.reason of a record a regex limit stopped


def report_regex_limits(runs: list) -> None:
    """W320: the records whose regex calls ran past a time limit (outcome `error`), per ruleset and
    step, counted from the runs' error reasons (workers' included). Each such record is `error` on
    its own; the limits are wall-clock, so a busy machine can add some: the warning says so."""
    for run in runs:
        hits = sorted(((n, reason) for reason, n in run.acc.errors.items() if reason.startswith(REGEX_LIMIT_REASONS)),
                      key=lambda h: (-h[0], h[1]))
        if hits:
            where = "; ".join(f"{reason.partition(' in ')[2]} {n:,}" for n, reason in hits[:3])
            more = f"; {len(hits) - 3} more" if len(hits) > 3 else ""
            warn("W320", "record(s) stopped by a regex time limit (outcome error; wall-clock limits, a busy machine "
                 "can add some)", f"{run.ruleset.name}: {where}{more}", count=sum(n for n, _ in hits))


def sweep_stale(directory: Path) -> list[str]:
    """Delete the temporary decisions files a killed run left in `directory` (`core.cachefiles.sweep_stale`:
    only this machine's, boot's and pid namespace's, whose process is gone) and say on stderr which
    temporary files of runs elsewhere (another container or host sharing the directory) were left alone.
    Returns the names deleted."""
    removed, left = _sweep(directory)
    if left:
        from rulekit.core.terminal import safe

        more = f" and {len(left) - 1} more" if len(left) > 1 else ""
        print(safe(f"note: {directory} holds temporary files of another run (another machine or container, or an "
                   f"older rulekit): {left[0]}{more}; left alone — delete them if no run is writing there"),
              file=sys.stderr)
    return removed


def _cannot_write(path: Path, why: str) -> UsageError:
    return UsageError(f"cannot write decisions to {path}: {why}",
                      help="give --output-dir a directory you can write to", code="E406")


def prepare_output_dir(output_dir: str) -> Path:
    """Create `--output-dir` (and its parents) or say, as error E406, why it cannot be used."""
    directory = Path(output_dir)
    if directory.is_symlink() and not directory.exists():
        raise _cannot_write(directory, f"it is a symbolic link to {os.readlink(directory)}, which does not exist")
    for parent in [directory, *directory.parents]:
        if parent.exists() and not parent.is_dir():
            raise _cannot_write(directory, f"{parent} is a file, not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cannot_write(directory, exc.strerror or str(exc)) from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise _cannot_write(directory, "permission denied")
    return directory


class AtomicWriter:
    """A decisions file written under a temporary name and renamed into place on success only
    (`core.cachefiles.AtomicFile`: created exclusively, never through a link); E406 when it cannot be."""

    def __init__(self, path: Path):
        self.path = path
        if path.is_dir():
            raise _cannot_write(path, "a directory of that name is in the way")
        try:
            self.file = AtomicFile(path)
        except OSError as exc:
            raise _cannot_write(path, exc.strerror or str(exc)) from None
        self.fh = self.file.fh
        self.tmp = str(self.file.tmp)

    def write(self, data: bytes) -> None:
        """Append `data`; a disk that is full (ENOSPC), a quota or a file-size limit is E406, not a traceback."""
        try:
            self.fh.write(data)
        except OSError as exc:
            raise _cannot_write(self.path, exc.strerror or str(exc)) from None

    def commit(self) -> None:
        """Flush, fsync and rename into place."""
        try:
            self.file.commit()
        except OSError as exc:
            raise _cannot_write(self.path, exc.strerror or str(exc)) from None

    def abort(self) -> None:
        """Drop the temporary file."""
        self.file.abort()


_UNSAFE = re.compile(r"[^A-Za-z0-9._@+=-]+")


def decisions_file_name(name: str) -> str:
    """The file name a ruleset's decisions go to: `<name>.decisions.jsonl`, where the name keeps
    letters, digits and `._@+=-`, every other run of characters becomes `_` (so `/`, `..`-paths,
    control and markup characters can never leave the output directory or name another file), and
    leading dots and dashes are dropped (no hidden files, no option-like names); at most 120 characters."""
    slug = re.sub(r"\.{2,}", "_", _UNSAFE.sub("_", name)).lstrip(".-")[:120] or "ruleset"
    return f"{slug}.decisions.jsonl"


def unique_names(names: list[str]) -> list[str]:
    """`names` made unique in order: a repeated one gets `-2`, `-3`, ... (the first keeps its name)."""
    seen: set[str] = set()
    out = []
    for name in names:
        candidate, k = name, 1
        while candidate in seen:
            k += 1
            candidate = f"{name}-{k}"
        seen.add(candidate)
        out.append(candidate)
    return out


def effective_seed(ruleset: CompiledRuleset, seed: int | None) -> int | None:
    """The seed a run's decisions depend on: the command line's, else the ruleset's fallback seed; None for
    a ruleset that draws no letter (`CompiledRuleset.run_seed`)."""
    return ruleset.run_seed(seed)


class RulesetRun:
    """One ruleset's pass over records: decide each, write its row, count it into the metrics."""

    def __init__(self, ruleset: CompiledRuleset, seed: int | None, max_chars: int, keep: bool = False,
                 write: bool = True, count_unreadable: bool = False):
        self.ruleset = ruleset
        self.write = write  # False: no decisions file, so rows are not serialized (row() gives b"")
        self.count_unreadable = count_unreadable  # outcome `unreadable` in the headline (counted wrong)?
        self.evaluator = Evaluator(ruleset, seed, max_chars)
        self.plan = MetricsPlan(ruleset)
        self.acc = self.plan.accumulator()
        self.keep = keep
        self.decisions: list[Decision] = []
        self.records: list[Record] = []
        self.last: Decision | None = None  # the decision of the record `row` saw last (None: not this ruleset's)

    def row(self, record: Record) -> bytes | tuple | None:
        """Decide `record` and count it; returns its decisions-file line (None: not this ruleset's).

        In a worker (``evaluator.defer_stream``), a record left to a stream-order random draw
        returns ``(slot, record id, section, options)`` instead: its place is held in the counts
        (`MetricsPlan.reserve`) and `options` holds the decision each letter would make
        (`engine.DrawLater`), so the parent only draws."""
        decision = self.last = self.evaluator.decide(record)
        if decision is None:
            self.acc.skip(record)
            return None
        if type(decision) is DrawLater:
            return self.plan.reserve(self.acc, record), record.id, decision.section, decision.options
        if decision.outcome == "unreadable":  # in the decisions file; in the headline only when asked
            if not self.count_unreadable:
                self.acc.leave_out(decision)
                return row_bytes(decision) if self.write else b""
            self.acc.unreadable += 1
        self.plan.add(self.acc, decision, record)
        if self.keep:
            self.decisions.append(decision)
            self.records.append(record)
        return row_bytes(decision) if self.write else b""

    def result(self, seed: int | None) -> Result:
        """The Result of this run (metrics computed from the accumulated counts)."""
        rs, acc = self.ruleset, self.acc
        correct = acc.correct
        return Result(rs.name, rs.fingerprint_for(seed), rs.run_seed(seed), len(correct), self.plan.metrics(acc),
                      dict(acc.outcomes), dict(acc.skipped), correct, self.decisions, self.records,
                      errors=dict(sorted(acc.errors.items(), key=lambda kv: -kv[1])), status=bytes(acc.status),
                      unreadable=acc.unreadable, count_unreadable=self.count_unreadable)


def finish_results(runs: list[RulesetRun], seed: int | None, audit: InputAudit,
                   keys: RecordKeys | None) -> list[Result]:
    """Every run's Result, with what the run saw of the input: the unreadable records per benchmark, the
    `--by` values per record."""
    results = [run.result(seed) for run in runs]
    for res in results:
        res.keys = keys
        if res.unreadable:
            res.unreadable_by = dict(audit.no_options_by)
    return results


_ROW_OPTIONS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_APPEND_NEWLINE


def row_bytes(decision: Decision) -> bytes:
    """A decision's line of the decisions file (DESIGN.md §5)."""
    return orjson.dumps(decision.as_row(), option=_ROW_OPTIONS)


def open_writers(stack: ExitStack, rulesets: list[CompiledRuleset], output_dir: str | None) -> list[AtomicWriter | None]:
    """One AtomicWriter per ruleset under `output_dir` (all aborted unless the stack is popped)."""
    writers: list[AtomicWriter | None] = [None] * len(rulesets)
    if output_dir:
        directory = prepare_output_dir(output_dir)
        sweep_stale(directory)
        files = [decisions_file_name(rs.name) for rs in rulesets]
        unique = [f"{stem}.decisions.jsonl" for stem in
                  unique_names([f.removesuffix(".decisions.jsonl") for f in files])]
        for i, name in enumerate(unique):
            writers[i] = AtomicWriter(directory / name)
            stack.callback(writers[i].abort)
    return writers


def commit_writers(stack: ExitStack, writers: list[AtomicWriter | None], results: list[Result]) -> None:
    """Rename every decisions file into place and record its path in the results."""
    for writer, res in zip(writers, results):
        if writer is not None:
            writer.commit()
            res.output = str(writer.path)
    stack.pop_all()


def evaluate(rulesets: list[CompiledRuleset], records: Iterable[Record], *, seed: int | None = None,
             output_dir: str | None = None, on_progress: Callable[[int], None] | None = None,
             max_chars: int = MAX_CHARS, keep: bool = False, count_unreadable: bool = False,
             compare_by: list[str] | tuple = (),
             on_decisions: Callable[[Record, list[Decision | None]], None] | None = None) -> list[Result]:
    """Apply every ruleset to every record (one pass over the input, in one process).

    Memory stays flat in the input size: each decision is written and counted, then dropped,
    unless `keep` asks for `Result.decisions` and `Result.records` (what `diff` needs; records left
    out of the headline are not kept). `on_progress(records so far)` is called every 2,000 records.
    Decisions with outcome `unreadable` are written but left out of `n` and the metrics unless
    `count_unreadable`. With several rulesets, `compare_by` fields are noted per record
    (`Result.keys`) for like-for-like breakdowns. `rulekit.run.parallel.evaluate_files` runs the
    same thing over worker processes. `on_decisions(record, decisions)`, when given, is called for every
    record with each ruleset's decision (None: the ruleset has no section for it), in input order
    (`rulekit.score`).
    """
    runs = [RulesetRun(rs, seed, max_chars, keep, write=bool(output_dir), count_unreadable=count_unreadable)
            for rs in rulesets]
    keys = RecordKeys(list(compare_by)) if compare_by and len(rulesets) > 1 else None
    audit = InputAudit()
    with ExitStack() as stack:
        writers = open_writers(stack, rulesets, output_dir)
        pairs = list(zip(runs, writers))
        seen, check = audit.seen, audit.record
        for n, record in enumerate(records, 1):
            if record.answer is None or not record.choices or hash(record.id) in seen:
                check(record)  # something to warn about (or an open question): the audit looks closer
            else:
                seen.add(hash(record.id))
            for run, writer in pairs:
                line = run.row(record)
                if line and writer is not None:
                    writer.write(line)
            if keys is not None:
                keys.add(record)
            if on_decisions is not None:
                on_decisions(record, [run.last for run in runs])
            if on_progress is not None and n % 2000 == 0:
                on_progress(n)
        results = finish_results(runs, seed, audit, keys)
        audit.report(results=results)  # under --strict a warning is an error: raised before any file is committed
        report_regex_limits(runs)
        commit_writers(stack, writers, results)
    return results
