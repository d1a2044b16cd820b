"""Input readers: every supported file format becomes a stream of `Record`s.

Formats (``FORMATS``): ``jsonl`` (our corpus schema; lmms-eval ``--log_samples`` lines are
detected per line), ``lmms-eval`` (force that mapping on .jsonl/.json), ``json`` (a JSON array of
records; MMEvalPro output auto-detected), ``mmevalpro``, ``csv``, ``tsv``, ``vlmevalkit``
(VLMEvalKit prediction .xlsx/.tsv), ``parquet``, ``xlsx``. Any file may be gzipped. The format
comes from the extension (``.jsonl``/``.ndjson``, ``.json``, ``.csv``, ``.tsv``, ``.parquet``,
``.xlsx``, each optionally + ``.gz``), else from the first bytes of the file.
See each module's docstring for its field mapping.
"""
from __future__ import annotations

import os
from typing import Iterable, Iterator

from ..errors import UsageError
from ..records import Record
from .jsonl import OUR_FIELDS, open_bytes, read_jsonl
from .mmevalpro import read_json
from .table import read_csv, read_parquet, read_xlsx

__all__ = ["FORMATS", "detect_format", "parse_field_map", "read_records"]

FORMATS = ("jsonl", "lmms-eval", "json", "mmevalpro", "csv", "tsv", "vlmevalkit", "parquet",
           "xlsx")
_EXT = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv", ".tsv": "tsv",
        ".parquet": "parquet", ".pq": "parquet", ".xlsx": "xlsx"}


def detect_format(path: str) -> str:
    """Format name of `path` from its extension (a trailing .gz ignored), else from its content."""
    name = path.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    ext = os.path.splitext(name)[1]
    if ext in _EXT:
        return _EXT[ext]
    if path == "-":
        return "jsonl"
    with open_bytes(path) as f:
        head = f.read(4096)
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
    nested objects. Raises UsageError on a malformed, unknown or repeated item.
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


def read_records(paths: list[str], fields: dict[str, str] | None = None,
                 fmt: str | None = None) -> Iterator[Record]:
    """Stream the Records of every file in `paths`, in order.

    `fields` maps our field names to source columns (see `parse_field_map`); `fmt` forces a
    format from FORMATS instead of detecting it per file. Bad input raises InputError naming the
    file (and line, where the format has lines).
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"unknown input format {fmt!r}", help=f"formats: {', '.join(FORMATS)}")
    if fields:
        parse_field_map(f"{k}={v}" for k, v in fields.items())
    for p in paths:
        path = os.fspath(p)
        kind = fmt or detect_format(path)
        lmms = kind == "lmms-eval"
        if lmms:
            kind = "json" if detect_format(path) == "json" else "jsonl"
        elif kind == "vlmevalkit":
            kind = "xlsx" if detect_format(path) == "xlsx" else "tsv"
        if kind == "jsonl":
            yield from read_jsonl(path, fields, lmms=True if lmms else None)
        elif kind in ("json", "mmevalpro"):
            yield from read_json(path, fields, "lmms-eval" if lmms else kind)
        elif kind in ("csv", "tsv"):
            yield from read_csv(path, fields, "\t" if kind == "tsv" else ",")
        elif kind == "parquet":
            yield from read_parquet(path, fields)
        else:
            yield from read_xlsx(path, fields)
