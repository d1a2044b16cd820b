"""Input readers: every supported file format becomes a stream of `Record`s.

Formats (``FORMATS``): ``jsonl`` (our corpus schema; lmms-eval ``--log_samples`` lines are
detected per line), ``lmms-eval`` (force that mapping on .jsonl/.json), ``json`` (a JSON array of
records; MMEvalPro output auto-detected), ``mmevalpro``, ``csv``, ``tsv``, ``vlmevalkit``
(VLMEvalKit prediction .xlsx/.tsv), ``parquet``, ``xlsx``. Any file may be gzipped. The format
comes from the extension (``.jsonl``/``.ndjson``, ``.json``, ``.csv``, ``.tsv``, ``.parquet``,
``.xlsx``, each optionally + ``.gz``), else from the first bytes of the file.

A stream (``-`` for stdin, a FIFO, ``/dev/stdin``, a process substitution) is opened once: its
first bytes are read ahead for detection and replayed to the reader, so nothing is lost. JSONL,
JSON and CSV/TSV streams are read as they come; parquet and .xlsx need a seekable file, so such a
stream is first copied to an anonymous temporary file.
Every reader keeps to the limits of `rulekit.core.limits` (inflated bytes, line length, rows,
columns, cells, document size): past one, E302 at the line, row or cell.
See each module's docstring for its field mapping.
"""
from __future__ import annotations

import io
import os
import shutil
import stat
import sys
import tempfile
from typing import IO, Iterable, Iterator

from rulekit.core.errors import InputError, UsageError
from rulekit.core.limits import GunzipReader
from rulekit.core.records import Record
from rulekit.readers.jsonl import OUR_FIELDS, READ_ERRORS, corrupt, open_bytes, read_jsonl
from rulekit.readers.mmevalpro import read_json
from rulekit.readers.table import read_csv, read_parquet, read_xlsx

__all__ = ["FORMATS", "detect_format", "is_stream", "open_stream", "parse_field_map", "read_records"]

FORMATS = ("jsonl", "lmms-eval", "json", "mmevalpro", "csv", "tsv", "vlmevalkit", "parquet",
           "xlsx")
_EXT = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv", ".tsv": "tsv",
        ".parquet": "parquet", ".pq": "parquet", ".xlsx": "xlsx"}


def is_stream(path: str) -> bool:
    """True for stdin (``-``) and any path that is not a regular file (a FIFO, ``/dev/stdin``,
    ``<(...)``): it can be read once only, so it must not be opened twice."""
    if path == "-":
        return True
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False  # the reader reports it


class _Replay(io.RawIOBase):
    """A one-shot stream whose first bytes (`head`) were read ahead: they come back first."""

    def __init__(self, head: bytes, rest: IO[bytes]):
        self._head, self._rest = head, rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def close(self) -> None:
        if self._rest is not sys.stdin.buffer:
            self._rest.close()
        super().close()


def open_stream(path: str) -> IO[bytes]:
    """Open the stream `path` once (``-`` is stdin) as a buffered reader that supports `peek`,
    transparently gunzipping (within the inflate limits); the bytes read ahead for this are replayed, not
    lost."""
    try:
        raw = sys.stdin.buffer if path == "-" else open(path, "rb", buffering=0)
    except OSError as e:
        raise InputError(f"cannot open {path}: {e.strerror or e}") from None
    head = b""
    while len(head) < 2:
        chunk = raw.read(4096)
        if not chunk:
            break
        head += chunk
    f: IO[bytes] = io.BufferedReader(_Replay(head, raw))
    if head[:2] == b"\x1f\x8b":
        f = GunzipReader(f, "<stdin>" if path == "-" else path)
    return f


def _spooled(f: IO[bytes], name: str) -> IO[bytes]:
    """A seekable copy of the stream `f` in an anonymous temporary file (deleted on close)."""
    tmp = tempfile.TemporaryFile(prefix="rulekit-stream-")
    try:
        shutil.copyfileobj(f, tmp, 1 << 20)
    except READ_ERRORS as e:
        tmp.close()
        raise corrupt(name, e) from None
    except BaseException:  # over an inflate limit, interrupted
        tmp.close()
        raise
    finally:
        f.close()
    tmp.seek(0)
    return tmp


def detect_format(path: str, stream: IO[bytes] | None = None) -> str:
    """Format name of `path` from its extension (a trailing .gz ignored), else from its content
    (for a stream opened by `open_stream`, from a `peek` at it that consumes nothing)."""
    name = path.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    ext = os.path.splitext(name)[1]
    if ext in _EXT:
        return _EXT[ext]
    if stream is not None:
        try:
            head = stream.peek(4096)[:4096]  # type: ignore[attr-defined]
        except READ_ERRORS as e:
            raise corrupt("<stdin>" if path == "-" else path, e) from None
    elif path == "-":
        return "jsonl"
    else:
        with open_bytes(path) as f:
            try:
                head = f.read(4096)
            except READ_ERRORS as e:
                raise corrupt(path, e) from None
    if head.startswith(b"PAR1"):
        return "parquet"
    if head.startswith(b"PK\x03\x04"):
        return "xlsx"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"["):
        return "json"
    if text.startswith(b"{"):
        return "jsonl"
    first = text.split(b"\n", 1)[0]
    return "tsv" if b"\t" in first else "csv"


def parse_field_map(items: Iterable[str]) -> dict[str, str]:
    """Parse ``["response=prediction", "answer=doc.answer", ...]`` into {our field: source column}.

    Our field is one of the record fields (id, question_type, choices, answer, response, meta,
    benchmark, model, question) or ``meta.NAME``; the source column may be dotted to reach into
    nested objects (a cell holding a JSON object or a Python dict literal too), ``x[]`` maps the rest of
    the path over the items of the list ``x`` (``answer=doc.answers[].answer``), and ``a|b`` takes the first of those columns that holds a value in each row
    (``answer=answer_option|answer``). Raises UsageError on a malformed, unknown or repeated item.
    """
    out: dict[str, str] = {}
    for item in items:
        name, sep, src = item.partition("=")
        name, src = name.strip(), src.strip()
        if not sep or not name or not src:
            raise UsageError(f"bad --field {item!r}: expected NAME=COLUMN, e.g. response=prediction")
        if name not in OUR_FIELDS and not (name.startswith("meta.") and len(name) > 5):
            raise UsageError(f"bad --field {item!r}: unknown field {name!r}",
                             help=f"fields: {', '.join(OUR_FIELDS)}, or meta.NAME")
        if name in out:
            raise UsageError(f"bad --field {item!r}: {name!r} is mapped twice")
        out[name] = src
    return out


class ReadPosition:
    """How far `read_records` has read its input files, in bytes (a gzip file's compressed bytes), for a
    progress bar that knows its total. `total` is None when an input is a stream (stdin, a pipe)."""

    def __init__(self, paths: list[str]):
        sizes = [_size(os.fspath(p)) for p in paths]
        self.total: int | None = None if None in sizes else sum(sizes)  # type: ignore[arg-type]
        self.finished = 0     # bytes of the files read to the end
        self.current = None   # the raw binary file being read line by line (JSONL, CSV/TSV)

    def bytes_read(self) -> int:
        """Bytes read so far (files whose reader gives no position count when they are done)."""
        here = 0
        if self.current is not None:
            try:
                here = self.current.tell()
            except (OSError, ValueError):  # closed, or not seekable
                here = 0
        return self.finished + here


def _size(path: str) -> int | None:
    """A regular file's size; None for a stream or a path that cannot be read (reported by the reader)."""
    if is_stream(path):
        return None
    try:
        return os.path.getsize(path)
    except OSError:
        return None


def read_records(paths: list[str], fields: dict[str, str] | None = None,
                 fmt: str | None = None, position: ReadPosition | None = None) -> Iterator[Record]:
    """Stream the Records of every file in `paths`, in order.

    `fields` maps our field names to source columns (see `parse_field_map`); `fmt` forces a
    format from FORMATS instead of detecting it per file. Bad input raises InputError naming the
    file (and line, where the format has lines). `position`, when given, follows the bytes read.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"unknown input format {fmt!r}", help=f"formats: {', '.join(FORMATS)}")
    if fields:
        parse_field_map(f"{k}={v}" for k, v in fields.items())
    for p in paths:
        path = os.fspath(p)
        f = open_stream(path) if is_stream(path) else None
        kind = fmt or detect_format(path, f)
        lmms = kind == "lmms-eval"
        if lmms:
            kind = "json" if detect_format(path, f) == "json" else "jsonl"
        elif kind == "vlmevalkit":
            kind = "xlsx" if detect_format(path, f) == "xlsx" else "tsv"
        name = "<stdin>" if path == "-" else path
        if f is not None and kind in ("parquet", "xlsx"):
            f = _spooled(f, name)
        if position is not None and f is None and kind in ("jsonl", "csv", "tsv"):
            f = open_bytes(path)
            position.current = getattr(f, "fileobj", f)  # gzip: how far into the compressed file
        if kind == "jsonl":
            yield from read_jsonl(path, fields, lmms=True if lmms else None, f=f)
        elif kind in ("json", "mmevalpro"):
            yield from read_json(name, fields, "lmms-eval" if lmms else kind, f=f)
        elif kind in ("csv", "tsv"):
            yield from read_csv(name, fields, "\t" if kind == "tsv" else ",", f=f)
        elif kind == "parquet":
            yield from read_parquet(name, fields, f=f)
        else:
            yield from read_xlsx(name, fields, f=f)
        if position is not None:
            position.current = None
            position.finished += _size(path) or 0
