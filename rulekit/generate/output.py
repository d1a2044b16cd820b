"""The outputs file of `rulekit generate`: JSONL appended in batches of whole lines.

Each batch is encoded first and written with one `os.write` loop on an `O_APPEND` descriptor,
then fsync-ed, so a run that is killed leaves only complete lines (a torn last line, which only
a crash of the machine can cause, is cut off when the file is opened with `resume=True`).
"""
from __future__ import annotations

import os
from pathlib import Path

import orjson

from rulekit.core.errors import InputError, Loc, UsageError


class OutputFile:
    """Append-only JSONL output. `done` holds the ids already written (with `resume=True`)."""

    def __init__(self, path: str | Path, resume: bool = False, overwrite: bool = False):
        self.path = Path(path)
        self.done: set[str] = set()
        self.repaired = 0
        if self.path.exists() and self.path.stat().st_size > 0:
            if resume:
                self._read_done()
            elif not overwrite:
                raise UsageError(f"{self.path} already exists",
                                 help="--resume to skip the ids it holds and append, or --overwrite", code="E400")
        self.created = not self.path.exists()  # by us: a run that writes nothing removes it again
        self.appended = 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | (os.O_TRUNC if overwrite and not resume else 0)
        self.fd = os.open(self.path, flags, 0o644)

    def _read_done(self) -> None:
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):  # a torn last line: keep only complete lines
            self.repaired = len(data) - end
            with open(self.path, "r+b") as f:
                f.truncate(end)
            data = data[:end]
        for n, line in enumerate(data.splitlines(), 1):
            if not line.strip():
                continue
            try:
                self.done.add(str(orjson.loads(line)["id"]))
            except (orjson.JSONDecodeError, KeyError, TypeError):
                raise InputError("cannot resume: this line of the outputs file is not a record with an `id`",
                                 Loc(str(self.path), n, 1), code="E300") from None

    def append(self, rows: list[dict]) -> None:
        """Write the rows as whole lines in one go and fsync."""
        if not rows:
            return
        blob = b"".join(orjson.dumps(r, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS) + b"\n"
                        for r in rows)
        view = memoryview(blob)
        while view:
            written = os.write(self.fd, view)
            view = view[written:]
        os.fsync(self.fd)
        self.appended += len(rows)
        self.done.update(str(r["id"]) for r in rows)

    def close(self, failed: bool = False) -> None:
        """Close the descriptor; after a failure (`failed`), a file this run created and never wrote to is
        removed, so a run that could not start (no vllm, no server) leaves no empty outputs file behind."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
            if failed and self.created and not self.appended:
                self.path.unlink(missing_ok=True)

    def __enter__(self) -> "OutputFile":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
