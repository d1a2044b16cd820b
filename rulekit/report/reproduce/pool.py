"""Reproducing the files of a run apart from each other, in forked worker processes (`reproduce --workers N`).

Each prediction file (an Artifact, its parts included) is read and scored whole by one process, which sends
back a plain-data *outcome* (`file_outcome`): the generations that give every number of the file back
(`best`, the run's votes), the generations `rows_of` would choose among by those votes (`tied`), and the
file's rows for each of them, as dicts of strings, numbers, lists and None — written with `marshal`, which
holds nothing but such values (no object of a file's making is rebuilt on the other side). The parent counts
the votes of every file of a framework, as the one-process run does, takes each file's rows for its chosen
generation, and keeps the files' order: the rows, their notes and the missed files are the same, byte for
byte, whatever the number of workers (tests/test_reproduce_workers.py); the warnings a worker's files
raise (`core.errors.WARNINGS`: W313, formula cells without a value) come back with them and are counted in
the same order. A file that cannot be read or
scored is a note in its rows, made in the worker as it would be in one process; a worker that ends without
its file's outcome (killed by the system) leaves that file unreproduced with a note (E510), and the others
go on.
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import fields

from rulekit.report.reproduce.artifacts import find_artifacts
from rulekit.report.reproduce.found import Artifact, Note, Row
from rulekit.report.reproduce.generations import _failed, _guarded, rows_of, score_artifact, tied_generations

_ROW_FIELDS = tuple(f.name for f in fields(Row))
_JOB: tuple | None = None  # (artifacts, compiled rulesets): what the forked workers inherit


def reproduce(paths: list[str], where=None, workers: int = 1) -> tuple[list[Row], list[Note]]:
    """Every published number under `paths`, reproduced or not, and notes on what was skipped.

    Files of one framework are taken as one run: where several generations give a file back, the
    one that gives back the most files of that framework is named for all of them. A file that cannot
    be read or scored never ends the run: its numbers are rows with nothing reproduced and a note
    saying why (the file, its line, the error). `where` (a `rulekit.run.where.RecordFilter`, `--where`)
    keeps the prediction files it holds for, each read as a record (`artifact_record`). `workers` > 1
    reads and scores several files at once in forked processes; the result is the same."""
    artifacts, notes = find_artifacts(paths)
    if where is not None:
        artifacts = [art for art in artifacts if where(artifact_record(art))]
    loaded: dict = {}  # each ruleset compiled once for the whole run (0.3 s of 3.5 on a 48k-row work dir)
    return merged_rows(outcomes(artifacts, loaded, workers)), notes


def artifact_record(art: Artifact):
    """A prediction file as `--where` reads it: a record whose `id` is the file's name, with its model,
    benchmark and `meta.framework` (`meta.report`: the report file's name)."""
    from rulekit.core.records import Record

    return Record(art.predictions.name, "open", "", None, None, benchmark=art.benchmark, model=art.model,
                  meta={"framework": art.framework, "report": art.report.name}, where=str(art.predictions))


def file_outcome(art: Artifact, loaded: dict) -> dict:
    """`art` read and scored (a failure is a note in its rows), as plain data: {framework, best, tied, rows},
    `rows` holding the file's rows (dicts of Row's fields) for each generation in `tied` ("" when none)."""
    sc = _guarded(lambda a: score_artifact(a, loaded), art)
    best = sc.best()
    try:
        tied = tied_generations(sc)
    except Exception:  # noqa: BLE001 - rows_of meets the same error below and makes the file's note of it
        tied = []
    rows = {}
    for gen in tied or [""]:
        try:
            made = rows_of(sc, [gen] if gen else [])
        except Exception as exc:  # a result sheet that cannot be read while comparing: this file only
            made = rows_of(_failed(sc.art, exc))
        rows[gen] = [{name: getattr(row, name) for name in _ROW_FIELDS} for row in made]
    return {"framework": art.framework, "best": best, "tied": tied, "rows": rows}


def merged_rows(outcomes: list[dict]) -> list[Row]:
    """Every file's rows in the files' order, each file's generation chosen as one process chooses
    it: among its tied generations, the one most files of its framework give back (ties: the registry's order)."""
    rows: list[Row] = []
    for out in outcomes:
        votes = Counter(g for other in outcomes if other["framework"] == out["framework"] for g in other["best"])
        rank = {g: i for i, g in enumerate(sorted(votes, key=lambda g: -votes[g]))}  # stable: ties keep their order
        tied = out["tied"]
        pick = min(tied, key=lambda g: rank.get(g, len(rank))) if tied else ""
        rows += [Row(**data) for data in out["rows"][pick]]
    return rows


def precompile(artifacts: list[Artifact], loaded: dict) -> None:
    """The rulesets the artifacts' families score with, compiled into `loaded` before the workers fork (they
    inherit them instead of compiling each its own), and openpyxl's reader imported when a sheet is to be read.
    A ruleset that fails to compile is left to the file that needs it, which then says why, as in one process."""
    from rulekit.engine.compiler import load_ruleset
    from rulekit.readers.table import preload_xlsx

    if any(f is not None and f.suffix.lower() == ".xlsx" for art in artifacts
           for one in (art, *(part for _, part in art.parts)) for f in (one.predictions, one.result_sheet)):
        preload_xlsx()  # once here, not in every worker
    for art in artifacts:
        for one in (art, *(part for _, part in art.parts)):
            family = one.family
            for name in (family.rulesets if family is not None else ()):
                if name not in family.judged and name not in loaded:
                    try:
                        loaded[name] = load_ruleset(name)
                    except Exception:  # noqa: BLE001 - said by the file that needs it
                        pass


def outcomes(artifacts: list[Artifact], loaded: dict, workers: int) -> list[dict]:
    """`file_outcome` of every artifact, in their order: in this process, or, with `workers` > 1, several files,
    in forked processes (largest prediction files first, each to the next idle worker)."""
    import multiprocessing

    n = min(workers, len(artifacts))
    if n <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [file_outcome(art, loaded) for art in artifacts]
    precompile(artifacts, loaded)
    return _in_workers(artifacts, loaded, n)


def _size(art: Artifact) -> int:
    """Bytes of the prediction files an artifact reads (0 where one cannot be sized)."""
    total = 0
    for one in (art, *(part for _, part in art.parts)):
        try:
            total += os.path.getsize(one.predictions)
        except OSError:
            pass
    return total


def _in_workers(artifacts: list[Artifact], loaded: dict, n: int) -> list[dict]:
    """The outcomes from `n` forked workers; a file whose worker ended without its outcome gets a note (E510);
    one whose outcome would not pass as plain data, or left when every worker has ended, is scored here."""
    import gc
    import marshal
    from multiprocessing.connection import wait

    from rulekit.core.errors import Loc, warn
    from rulekit.run.parallel import Workers

    global _JOB
    todo = sorted(range(len(artifacts)), key=lambda i: (-_size(artifacts[i]), i))
    results: list = [None] * len(artifacts)
    died: set[int] = set()
    _JOB = (artifacts, loaded)
    gc.collect()
    gc.freeze()  # the workers leave the inherited objects alone: no collection walks (and copies) them
    pool = None
    finished = False
    try:
        pool = Workers(n, serve=_serve)
        idle, busy = list(pool.conns), {}
        while todo or busy:
            while idle and todo:
                conn = idle.pop(0)
                i = todo.pop(0)
                try:
                    conn.send(i)
                except OSError:  # the worker has ended while idle: the file goes to another one
                    todo.insert(0, i)
                    continue
                busy[conn] = i
            if not busy:  # every worker has ended: the rest here
                break
            for conn in wait(list(busy)):
                i = busy.pop(conn)
                try:
                    data = conn.recv_bytes()
                except (EOFError, OSError):
                    died.add(i)
                    continue
                results[i] = marshal.loads(data) if data else None
                idle.append(conn)
        finished = True
    finally:  # asked to stop after a finished run; killed on an error or Ctrl-C (a worker may be mid-file)
        if pool is not None:
            pool.stop(finished)
        gc.unfreeze()
        _JOB = None
    for i, art in enumerate(artifacts):  # in the files' order, as one process warns and scores them
        if i in died:
            results[i] = _died(art)
        elif results[i] is None:
            results[i] = file_outcome(art, loaded)
        else:
            for code, count, what, first, loc in results[i].pop("warnings"):
                warn(code, what, first, None if loc is None else Loc(*loc), count)
    return results


def _died(art: Artifact) -> dict:
    """The outcome of a file whose worker ended without sending it: its numbers not reproduced, with a note."""
    from rulekit.run.parallel import WorkerDied

    exc = WorkerDied("the worker process reading this file ended without its results (killed by the system, "
                     "e.g. out of memory?)", help="rerun with `--workers 1`")
    made = rows_of(_failed(art, exc))
    return {"framework": art.framework, "best": [], "tied": [],
            "rows": {"": [{name: getattr(row, name) for name in _ROW_FIELDS} for row in made]}}


def _serve(conn, inherited: list) -> None:
    """A worker's loop: an artifact's index from `conn` (sent by this run's parent), its outcome back as
    marshal bytes (empty bytes: score it in the parent), until the parent sends None or goes away."""
    import marshal
    import signal

    from rulekit.core.errors import WARNINGS

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for other in inherited:
        other.close()
    artifacts, loaded = _JOB  # type: ignore[misc]
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        WARNINGS.found.clear()  # this file's warnings only (W313: formula cells without a value), sent back
        try:
            out = file_outcome(artifacts[msg], loaded)
            out["warnings"] = [(code, count, what, first, None if loc is None else (loc.file, loc.line, loc.col))
                               for code, (count, what, first, loc) in WARNINGS.found.items()]
            data = marshal.dumps(out)
        except Exception:  # noqa: BLE001 - not plain data, or an error one process raises too: the parent's
            data = b""
        try:
            conn.send_bytes(data)
        except OSError:
            return
