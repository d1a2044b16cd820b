"""Spread a large JSONL input over worker processes; results come back in input order.

The input is cut into byte ranges at line ends (`split_jsonl`); each worker reads its range,
decides every record with every ruleset, and sends back the decisions-file bytes and the metric
counts (`rulekit.metrics.accumulate`). The parent writes the bytes and merges the counts in
range order, so the decisions files are byte-identical to a one-process run and the metrics
are the same to the last digit (the counts are exact). Memory per process is bounded by the
range size, not the input size.

A random fallback drawn in stream order (lmms-eval's one `random.seed(42)` stream) depends on
every earlier draw, so workers do not draw it: they hold the record's place in the counts and
send back the decision each letter would make; the parent, which sees the ranges in order, draws
the index for those records in input order.

Workers are forked, so they inherit the compiled rulesets (closures cannot be pickled). Where a
run cannot be split, `evaluate_files` runs in one process; `why_sequential` says why: a judge
fallback (its replies are prefetched concurrently in one process), input that is not a plain
JSONL file (stdin, gzip, other formats), or no `fork` on this platform.
"""
from __future__ import annotations

import dataclasses
import gc
import os
import pickle
import signal
from collections import deque
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, Callable, Iterator


from rulekit.language import schema as S
from rulekit.engine.compiler import CompiledRuleset
from rulekit.engine.decide import MAX_CHARS
from rulekit.run.evaluate import (ChunkAudit, InputAudit, RecordKeys, Result, RulesetRun, commit_writers, evaluate,
                                  finish_results, open_writers, report_regex_limits, row_bytes)
from rulekit.core.errors import InputError, Loc, RulekitError
from rulekit.core.limits import limit, line_too_long, over
from rulekit.readers import ReadPosition, detect_format, is_stream, read_records
from rulekit.readers.jsonl import records_from_lines
from rulekit.run.where import WhereError
from rulekit.core.trace import Decision

MAX_CHUNK_BYTES = 8 << 20  # a worker's byte range at most: bounds its memory and the progress steps
MIN_CHUNK_BYTES = 256 << 10
MIN_SPLIT_BYTES = 4 << 20  # smaller inputs are not worth starting workers for


@dataclass(frozen=True)
class Chunk:
    """Bytes [start, end) of `path`. Its line numbers are counted by the worker that reads it
    (`_Part.lines`), so cutting a file reads only a line at each cut."""

    path: str
    start: int
    end: int


def split_jsonl(path: str, size: int = MAX_CHUNK_BYTES, taper: int = 0) -> Iterator[Chunk]:
    """Cut `path` into ranges of about `size` bytes that end at a line end: seek `size` bytes on,
    then read to the end of that line (the file itself is read by the workers). With `taper` set,
    a range is at most 1/taper of what is left (and at least MIN_CHUNK_BYTES), so the last ranges
    are small and no worker is left alone with a big one at the end."""
    total = os.path.getsize(path)
    cap = limit("line-bytes")
    with open(path, "rb") as f:
        start = 0
        while start < total:
            step = max(MIN_CHUNK_BYTES, min(size, (total - start) // taper)) if taper else size
            end = start + step
            if end < total:
                f.seek(end)
                rest = f.readline(cap + 1)  # never more than the limit: a 1.9 GB line is not read here
                if line_too_long(rest, cap):
                    raise _long_line(path, end)
                end += len(rest)
            else:
                end = total
            yield Chunk(path, start, end)
            start = end


def _long_line(path: str, at: int) -> InputError:
    """E302 for the line of `path` that runs on past byte `at` beyond the `line-bytes` limit, numbered by
    counting the line ends before it (in 1 MiB pieces)."""
    lines = 1
    with open(path, "rb") as f:
        left = at
        while left > 0:
            chunk = f.read(min(left, 1 << 20))
            if not chunk:
                break
            lines += chunk.count(b"\n")
            left -= len(chunk)
    return over("line-bytes", f"line {lines} is longer than", Loc(path, lines, 0))


def default_workers() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def why_sequential(rulesets: list[CompiledRuleset], paths: list[str]) -> str | None:
    """Why these rulesets and inputs must run in one process (None: they can be split)."""
    for rs in rulesets:
        for name, section in rs.sections.items():
            if isinstance(section.fallback, S.Judge):
                return f"`{rs.name}` has a judge fallback (section {name})"
    import multiprocessing  # here, not at import: a one-process run never needs it (~8 ms of start-up)

    if "fork" not in multiprocessing.get_all_start_methods():
        return "this platform cannot fork worker processes"
    for path in paths:
        if is_stream(path) or detect_format(path) != "jsonl":
            return f"{path} is not a plain JSONL file"
        with open(path, "rb") as f:
            if f.read(2) == b"\x1f\x8b":
                return f"{path} is gzipped"
    return None


# What the forked workers inherit: (rulesets, seed, max_chars, fields, write rows?, count unreadable?, --by fields
# to note per record), set just before forking.
_JOB: tuple | None = None


@dataclass
class _Part:
    """What a worker sends back for one chunk."""

    records: int
    lines: int          # lines in the chunk: the parent numbers the next chunk's lines from it
    rows: list[list]    # per ruleset: decisions-file bytes, and (slot, id, section, options) where the parent draws
    accs: list          # metric Accumulator per ruleset
    error: InputError | WhereError | None = None  # a bad line (or --where failing on one), numbered from the chunk's first line
    audit: ChunkAudit | None = None  # the records' ids, missing golds and options (warnings W310-W312)
    keys: RecordKeys | None = None   # the records' `--by` values (several rulesets compared per value)
    seen: int = 0                    # records read from the chunk (`records` of them kept by `--where`)


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops the pool and drops the unfinished files; SIGTERM
    (how the pool stops them) ends them at once, without the parent's handler (rulekit.cli)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _decide_chunk(chunk: Chunk) -> _Part:
    """In a worker: decide and count every record of one byte range with every ruleset."""
    rulesets, seed, max_chars, fields, write, count_unreadable, compare_by, where = _JOB  # type: ignore[misc]
    with open(chunk.path, "rb") as f:
        f.seek(chunk.start)
        data = f.read(chunk.end - chunk.start)
    lines = data.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    runs = [RulesetRun(rs, seed, max_chars, write=write, count_unreadable=count_unreadable) for rs in rulesets]
    keys = RecordKeys(compare_by) if compare_by else None
    for run in runs:
        run.evaluator.defer_stream = True
    out: list[list] = [[] for _ in runs]
    # one growing buffer per ruleset: orjson hands back each row in a ~4 KB allocation, so a list of
    # rows would hold 4 KB per record until the chunk ends; copied into the buffer, each is freed at once
    rows: list[bytearray] = [bytearray() for _ in runs]
    n = 0
    targets = [(run.row, buf, segments) for run, buf, segments in zip(runs, rows, out)]
    audit = ChunkAudit()
    seen = 0
    try:
        for record in records_from_lines(lines, chunk.path, 1, fields, bom=chunk.start == 0):
            seen += 1
            if where is not None and not where(record):
                continue
            n += 1
            audit.record(record)
            if keys is not None:
                keys.add(record)
            for row_of, buf, segments in targets:
                row = row_of(record)
                if type(row) is bytes:
                    buf += row
                elif row is not None:  # a stream-order draw: the parent makes it
                    segments.append(bytes(buf))
                    del buf[:]
                    segments.append(row)
    except (InputError, WhereError) as exc:  # the parent knows the chunk's first line: it renumbers and raises
        return _Part(n, len(lines), [], [], exc)
    for buf, segments in zip(rows, out):
        segments.append(bytes(buf))
    return _Part(n, len(lines), out, [run.acc for run in runs], audit=audit, keys=keys, seen=seen)


def _renumbered(error: RulekitError, path: str, lines_before: int) -> RulekitError:
    """A worker's InputError (or WhereError) about a line of `path`, moved from the chunk's numbering to the file's."""
    if error.loc is not None and error.loc.line and error.loc.file == path:
        error.loc = dataclasses.replace(error.loc, line=error.loc.line + lines_before)
    return error


def _absorb(run: RulesetRun, segments: list, acc) -> Iterator[bytes]:
    """Merge a worker's counts into `run` and yield its decisions-file bytes in order, drawing the
    stream-order random fallbacks it left to this process."""
    base_correct, base_kept = len(run.acc.status), len(run.acc.kept)
    run.acc.merge(acc)
    for seg in segments:
        if type(seg) is bytes:
            yield seg
            continue
        (at, kept_at, keys), record_id, section, options = seg
        decision = Decision(record_id, *options[run.evaluator.draw_index(section, len(options))])
        run.plan.fill(run.acc, (base_correct + at, base_kept + kept_at if kept_at >= 0 else -1, keys), decision)
        if run.write:
            yield row_bytes(decision)


class WorkerDied(RulekitError):
    """A worker process ended without sending its part back (killed by the system, e.g. out of memory)."""

    code = "E510"


def _serve(conn, inherited: list) -> None:
    """A worker's loop: read a chunk from `conn`, send back its part (or the exception it raised), until
    the parent sends None or goes away. `inherited` are the other workers' pipe ends, copied by the
    fork: closed, so a worker that dies is seen at once on its own pipe."""
    _ignore_interrupts()
    for other in inherited:
        other.close()
    while True:
        try:
            chunk = conn.recv()
        except (EOFError, OSError):
            return
        if chunk is None:
            return
        try:
            part = _decide_chunk(chunk)
        except Exception as exc:  # a bug, not bad input (that is part.error): the parent re-raises it
            part = exc
        try:
            conn.send(part)
        except (TypeError, AttributeError, pickle.PicklingError):  # an exception that does not pickle
            conn.send(RuntimeError(f"in a worker: {part!r}"))


class Workers:
    """`n` forked processes, each with its own pipe: chunk k goes to worker k % n and its part comes back
    on that pipe, so parts are read in input order with nothing shared between processes. Stopping them
    is a kill: multiprocessing.Pool's terminate waits on its task queue's lock, which an idle worker holds
    while it reads (a run that stopped on a bad line could hang there), and Pool waits forever for a
    worker that was killed; here a dead worker's pipe ends and the run says so (E510). `serve(conn,
    inherited)` is each worker's loop (default: deciding chunks); it must return when it receives None,
    which `stop` sends. `reproduce --workers` starts its own loop the same way (report/reproduce/pool.py)."""

    def __init__(self, n: int, serve=None):
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        self.conns: list = []
        self.procs: list = []
        for _ in range(n):
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(target=serve or _serve, args=(theirs, list(self.conns)), daemon=True)
            proc.start()
            theirs.close()
            self.conns.append(mine)
            self.procs.append(proc)

    def send(self, k: int, chunk: Chunk) -> None:
        """Hand chunk number `k` to its worker."""
        self.conns[k % len(self.conns)].send(chunk)

    def receive(self, k: int) -> _Part:
        """The part of chunk number `k` (its worker's next reply); a worker's exception is raised here."""
        i = k % len(self.conns)
        try:
            part = self.conns[i].recv()
        except (EOFError, OSError):
            self.procs[i].join(timeout=5)
            raise WorkerDied(f"worker process {i + 1} ended without its results (exit code "
                             f"{self.procs[i].exitcode}; killed by the system, e.g. out of memory?)",
                             help="rerun with `--workers 1`, or with fewer workers") from None
        if isinstance(part, BaseException):
            raise part
        return part

    def stop(self, finished: bool) -> None:
        """End the workers: asked to (after a finished run) or killed (an error or an interrupt)."""
        for conn, proc in zip(self.conns, self.procs):
            if finished:
                try:
                    conn.send(None)
                except OSError:
                    pass
            else:
                proc.kill()
        for conn, proc in zip(self.conns, self.procs):
            proc.join(timeout=10 if finished else None)
            if proc.is_alive():
                proc.kill()
                proc.join()
            conn.close()


def _in_order(workers: Workers, chunks: Iterator[Chunk], window: int) -> Iterator[_Part]:
    """Each chunk's part, in input order, with at most `window` chunks handed out and not yet taken
    back (finished parts would otherwise pile up whenever this process writes more slowly than the
    workers decide). `window` is a multiple of the worker count, so each worker holds the same share."""
    sent = taken = 0
    for chunk in chunks:
        workers.send(sent, chunk)
        sent += 1
        if sent - taken >= window:
            yield workers.receive(taken)
            taken += 1
    while taken < sent:
        yield workers.receive(taken)
        taken += 1


def evaluate_files(rulesets: list[CompiledRuleset], paths: list[str], fields: dict | None = None, *,
                   seed: int | None = None, output_dir: str | None = None,
                   on_progress: Callable[[int], None] | None = None, max_chars: int = MAX_CHARS,
                   workers: int = 0, min_split_bytes: int = MIN_SPLIT_BYTES,
                   chunk_bytes: int | None = None, position: ReadPosition | None = None,
                   count_unreadable: bool = False, compare_by: list[str] | tuple = (),
                   where: Any = None) -> list[Result]:
    """`evaluate` over input files, split across `workers` processes (0: one per CPU) when the
    input has at least `min_split_bytes` and `why_sequential` finds nothing against it; else in
    this process. Byte ranges are `chunk_bytes` long (default: about a quarter of a worker's share,
    256 KiB to 8 MiB, and smaller towards the end of each file). `on_progress(records so far)` is
    called now and then (split: `on_progress(records, bytes of the input decided)`; in one process,
    `position` follows the bytes read). `count_unreadable` and `compare_by` as for `evaluate`. `where` (a
    `rulekit.run.where.RecordFilter`, `--where`) keeps only the records it holds for; its `read` and `kept`
    counts cover every worker's records."""
    workers = workers or default_workers()
    total = _input_bytes(paths)  # first: a small input is never split, and needs no further look
    if workers > 1 and total >= min_split_bytes and why_sequential(rulesets, paths) is None:
        size = chunk_bytes or min(MAX_CHUNK_BYTES, max(MIN_CHUNK_BYTES, total // (4 * workers)))
        return _evaluate_split(rulesets, paths, fields, seed, output_dir, on_progress, max_chars, workers, size,
                               fixed=chunk_bytes is not None, count_unreadable=count_unreadable,
                               compare_by=list(compare_by) if len(rulesets) > 1 else [], where=where)
    records = read_records(paths, fields, position=position)
    if where is not None:
        records = where.filter(records)
    return evaluate(rulesets, records, seed=seed, output_dir=output_dir,
                    on_progress=on_progress, max_chars=max_chars, count_unreadable=count_unreadable,
                    compare_by=compare_by)


def _input_bytes(paths: list[str]) -> int:
    """Bytes of the regular files among `paths` (a stream or a missing file counts 0: `why_sequential`
    and the reader speak for those)."""
    total = 0
    for path in paths:
        try:
            if not is_stream(path):
                total += os.path.getsize(path)
        except OSError:
            pass
    return total


def _evaluate_split(rulesets, paths, fields, seed, output_dir, on_progress, max_chars, workers, size,
                    fixed: bool = False, count_unreadable: bool = False,
                    compare_by: list | None = None, where: Any = None) -> list[Result]:
    global _JOB
    runs = [RulesetRun(rs, seed, max_chars, write=bool(output_dir), count_unreadable=count_unreadable)
            for rs in rulesets]
    keys = RecordKeys(compare_by) if compare_by else None
    chunks_seen: deque[tuple[int, int]] = deque()  # per chunk handed out and not yet absorbed: (input index, bytes)

    def chunks() -> Iterator[Chunk]:
        for i, path in enumerate(paths):
            for chunk in split_jsonl(path, size, taper=0 if fixed else 2 * workers):
                chunks_seen.append((i, chunk.end - chunk.start))
                yield chunk
    _JOB = (rulesets, seed, max_chars, fields, bool(output_dir), count_unreadable, compare_by or [], where)
    done = read = 0
    audit = InputAudit()
    lines_before = [0] * len(paths)  # per input: lines in its chunks absorbed so far
    try:
        with ExitStack() as stack:
            writers = open_writers(stack, rulesets, output_dir)
            gc.freeze()  # forked workers then leave the inherited objects alone: no collection walks them
            pool = Workers(workers)
            finished = False
            try:
                for part in _in_order(pool, chunks(), window=2 * workers):
                    source, chunk_size = chunks_seen.popleft()
                    if part.error is not None:
                        raise _renumbered(part.error, paths[source], lines_before[source])
                    audit.absorb(part.audit, paths[source], lines_before[source])
                    if keys is not None:
                        keys.merge(part.keys)
                    lines_before[source] += part.lines
                    for run, writer, segments, acc in zip(runs, writers, part.rows, part.accs):
                        for data in _absorb(run, segments, acc):
                            if writer is not None:
                                writer.write(data)
                    done += part.records
                    if where is not None:
                        where.read += part.seen
                        where.kept += part.records
                    read += chunk_size
                    if on_progress is not None:
                        on_progress(done, read)
                finished = True
            finally:
                pool.stop(finished)
            results = finish_results(runs, seed, audit, keys)
            audit.report(fields, results)  # under --strict a warning is an error: raised before any file is committed
            report_regex_limits(runs)
            commit_writers(stack, writers, results)
    finally:
        _JOB = None
        gc.unfreeze()
    return results
