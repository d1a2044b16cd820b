"""The outputs file of `rulekit generate`: JSONL appended in batches of whole lines.

Each batch is encoded first and written with one `os.write` loop on an `O_APPEND` descriptor,
then fsync-ed, so a run that is killed leaves only complete lines.

Nothing is written to the file before the first batch is ready: a run that cannot start, or is killed
before its first batch, leaves the file as it found it (none, or the old one under `--overwrite`). A
file is created exclusively and never through a link (`O_EXCL|O_NOFOLLOW`; `--overwrite` replaces
the file, or a link, at the path, never what a link points to).

With `resume=True` the file must first be recognised as ours — every complete line a JSON record
with an `id` and a `response` — before anything is done to it; a file that is not (a JSON report, a
CSV, someone's notes) is error E300 at its first line that is not a record, and is left untouched.
Then a last record without its newline is kept (a newline is written before the next batch), and a
torn last line — the start of a record, which only a crash of the machine can leave — is cut off.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

import orjson

from rulekit.core.errors import InputError, Loc, UsageError

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class OutputFile:
    """Append-only JSONL output. `done` holds the ids already written (with `resume=True`)."""

    def __init__(self, path: str | Path, resume: bool = False, overwrite: bool = False):
        self.path = Path(path)
        self.done: set[str] = set()
        self.repaired = 0
        self.appended = 0
        self.fd = -1
        self.overwrite = overwrite and not resume
        self._newline = False  # the last record lacks its newline: write one before the next batch
        info = _lstat(self.path)
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise self._cannot("a directory of that name is in the way")
        if info is not None and not self.overwrite:
            if stat.S_ISLNK(info.st_mode):
                raise self._cannot("it is a symbolic link (rulekit writes its outputs only to a file of its own)")
            if not stat.S_ISREG(info.st_mode):
                raise self._cannot("it is not a regular file")
            if resume:
                self._resume()
            elif info.st_size > 0:
                raise UsageError(f"{self.path} already exists",
                                 help="--resume to skip the ids it holds and append, or --overwrite", code="E400")
        self.created = info is None  # by us, at the first batch
        self._check_parent()

    def _cannot(self, why: str) -> UsageError:
        return UsageError(f"cannot write the outputs to {self.path}: {why}", code="E406",
                          help="give --output a path of a file you can write")

    def _check_parent(self) -> None:
        """E406 now, not after the first batch, when the file's directory cannot be made or written."""
        parent = self.path.absolute().parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if not parent.is_dir():
            raise self._cannot(f"{parent} is not a directory")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise self._cannot(f"{parent} cannot be written")

    def _resume(self) -> None:
        """Read the ids of a file that is ours (see the module's doc); untouched when it is not."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | _NOFOLLOW | _CLOEXEC)
        except OSError as exc:
            raise self._cannot(exc.strerror or str(exc)) from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise self._cannot("it is not a regular file")
            with os.fdopen(os.dup(fd), "rb") as f:
                data = f.read()
            end = data.rfind(b"\n") + 1
            records = 0
            for n, line in enumerate(data[:end].splitlines(), 1):
                if line.strip():
                    self.done.add(self._record_id(line, n))
                    records += 1
            tail = data[end:]
            if tail.strip():
                try:
                    self.done.add(self._record_id(tail, data.count(b"\n") + 1))
                    self._newline = True  # a whole record: kept, its newline written before the next batch
                except InputError:
                    if not records or not tail.lstrip().startswith(b"{"):
                        raise  # nothing here is ours: not a torn record either
                    os.ftruncate(fd, end)  # a torn record after whole ones: cut off
                    self.repaired = len(tail)
            elif tail:
                self._newline = True
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd

    def _record_id(self, line: bytes, n: int) -> str:
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            obj = None
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), (str, int)) or "response" not in obj:
            raise InputError("cannot resume: this line of the outputs file is not a record with an `id` and a "
                             "`response` (the file is left as it is)", Loc(str(self.path), n, 1), code="E300",
                             help="--resume continues a file `rulekit generate` wrote; give another --output, or "
                                  "--overwrite to replace this one")
        return str(obj["id"])

    def _open(self) -> None:
        """The descriptor the batches go to: the resumed file's, else a file created now (exclusively)."""
        try:
            if self.overwrite and _lstat(self.path) is not None:
                os.unlink(self.path)  # the file, or a link: never what a link points to
            self.path.parent.mkdir(parents=True, exist_ok=True)
            flags = os.O_WRONLY | os.O_APPEND | _NOFOLLOW | _CLOEXEC
            if self.overwrite or self.created:
                flags |= os.O_CREAT | os.O_EXCL
            self.fd = os.open(self.path, flags, 0o644)
        except OSError as exc:
            raise self._cannot(exc.strerror or str(exc)) from None
        if not stat.S_ISREG(os.fstat(self.fd).st_mode):
            os.close(self.fd)
            self.fd = -1
            raise self._cannot("it is not a regular file")
        self.created = self.created or self.overwrite

    def append(self, rows: list[dict]) -> None:
        """Write the rows as whole lines in one go and fsync."""
        if not rows:
            return
        if self.fd < 0:
            self._open()
        blob = b"".join(orjson.dumps(r, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS) + b"\n"
                        for r in rows)
        if self._newline:
            blob = b"\n" + blob
        view = memoryview(blob)
        while view:
            written = os.write(self.fd, view)
            view = view[written:]
        os.fsync(self.fd)
        self._newline = False
        self.appended += len(rows)
        self.done.update(str(r["id"]) for r in rows)

    def close(self, failed: bool = False) -> None:
        """Close the descriptor. A run that failed before its first batch leaves the file as it found it (no
        file, or the old one under --overwrite); a run that succeeded with nothing to write leaves an empty
        file (a replaced one under --overwrite)."""
        if self.fd < 0 and not failed and (self.overwrite or self.created):
            self._open()
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> "OutputFile":
        return self

    def __exit__(self, kind, value, tb) -> None:
        self.close(failed=kind is not None)


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:  # absent (or its directory cannot be looked into: creating it will say why)
        return None
