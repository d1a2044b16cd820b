"""Tabular readers: CSV/TSV (optionally gzipped), parquet, and VLMEvalKit prediction .xlsx/.tsv.

All tables share one column mapping. Column names are lower-cased except single capital letters
(as VLMEvalKit does), then:

=============  ===========================================================================
id             ``id``, else ``index`` (VLMEvalKit); integral floats read as ints ("12")
response       ``response``, else ``prediction`` (VLMEvalKit); an empty cell reads as ""
answer         ``answer`` (CSV/TSV cells are strings: numbers are NOT converted back)
choices        ``choices`` (JSON or Python literal: object or list), else the option columns
               A..Z that are present and non-empty/non-NaN, in A..Z order (VLMEvalKit
               ``build_choices``)
question_type  ``question_type``, else multiple-choice when there are choices, else open (so a
               VLMEvalKit MMMU row with an empty A column is open)
question, benchmark, model   the same-named columns
meta           ``meta`` (a JSON object string) plus every other non-empty column (category,
               split, hint, l2-category, ...), except ``image``
=============  ===========================================================================

Empty cells read as None (missing) everywhere except ``response``. Record.where is ``file:LINE``
for CSV/TSV (the line the row starts on) and .xlsx (the sheet row), ``file#N`` for parquet.
pyarrow and openpyxl are imported only when needed.
"""
from __future__ import annotations

import csv
import io
from typing import Any, Iterable, Iterator

from ..errors import InputError
from ..records import Record
from .jsonl import LETTERS, fail, is_blank, make_record, open_bytes

_SKIP = {"id", "index", "response", "prediction", "answer", "choices", "question_type",
         "question", "benchmark", "model", "meta", "image"}
_LETTER_SET = set(LETTERS)


def _key(name: Any) -> str:
    name = str(name).strip()
    return name if name in _LETTER_SET else name.lower()


def table_base(raw: dict) -> tuple[dict, dict]:
    """(base, extras) for one table row given as {column: cell} (mapping in the module docstring)."""
    row = {}
    for k, v in raw.items():
        row[_key(k)] = None if is_blank(v) or (isinstance(v, str) and v == "") else v
    base: dict = {}
    for ours, theirs in (("id", "index"), ("response", "prediction")):
        if ours in row:
            base[ours] = row[ours]
        elif theirs in row:
            base[ours] = row[theirs]
    for k in ("answer", "question_type", "question", "benchmark", "model", "meta"):
        if k in row:
            base[k] = row[k]
    if row.get("choices") is not None:
        base["choices"] = row["choices"]
    else:
        opts = {k: row[k] for k in LETTERS if row.get(k) is not None}
        base["choices"] = opts or None
    extras = {k: v for k, v in row.items()
              if v is not None and k not in _SKIP and k not in _LETTER_SET}
    return base, extras


def _record(n: int, raw: dict, fields: dict[str, str] | None, path: str, lined: bool) -> Record:
    base, extras = table_base(raw)
    return make_record(base, raw, fields, path, n if lined else 0,
                       f"{path}:{n}" if lined else f"{path}#{n}", extras)


def _records(rows: Iterable[tuple[int, dict]], fields: dict[str, str] | None, path: str,
             lined: bool) -> Iterator[Record]:
    for n, raw in rows:
        yield _record(n, raw, fields, path, lined)


def read_csv(path: str, fields: dict[str, str] | None = None,
             delimiter: str = ",") -> Iterator[Record]:
    """Stream Records from a CSV (or, with ``delimiter="\\t"``, TSV) file with a header row.

    Also reads VLMEvalKit prediction TSVs. A row whose cell count differs from the header's
    raises InputError at its line.
    """
    csv.field_size_limit(2**31 - 1)  # VLMEvalKit TSVs may carry base64 images
    with io.TextIOWrapper(open_bytes(path), encoding="utf-8-sig", newline="") as f:
        reader = csv.reader(f, delimiter=delimiter)
        try:
            header = next(reader, None)
            if header is None:
                return
            start = reader.line_num + 1
            for cells in reader:
                line, start = start, reader.line_num + 1
                if not cells or (len(cells) == 1 and not cells[0].strip()):
                    continue
                if len(cells) != len(header):
                    raise fail(f"row has {len(cells)} cells, the header has {len(header)}",
                               path, line, "")
                yield _record(line, dict(zip(header, cells)), fields, path, True)
        except (csv.Error, UnicodeDecodeError) as e:
            raise fail(f"cannot parse {'TSV' if delimiter == chr(9) else 'CSV'}: {e}",
                       path, max(reader.line_num, 1), "") from None


def read_parquet(path: str, fields: dict[str, str] | None = None) -> Iterator[Record]:
    """Stream Records from a parquet file, batch by batch (pyarrow)."""
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read parquet file {path}: {e}") from None

    def rows() -> Iterator[tuple[int, dict]]:
        n = 0
        for batch in pf.iter_batches(batch_size=4096):
            for row in batch.to_pylist():
                n += 1
                yield n, row

    return _records(rows(), fields, path, False)


def read_xlsx(path: str, fields: dict[str, str] | None = None) -> Iterator[Record]:
    """Stream Records from the first sheet of an .xlsx file (VLMEvalKit predictions); needs
    openpyxl, else InputError with an install hint."""
    try:
        import openpyxl
    except ImportError:
        raise InputError(f"{path}: reading .xlsx files needs the optional package openpyxl",
                         help="pip install openpyxl  (or save the sheet as .tsv)") from None
    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as e:  # openpyxl raises many types for a bad file
        raise InputError(f"cannot read .xlsx file {path}: {e}") from None

    def rows() -> Iterator[tuple[int, dict]]:
        try:
            it = wb.active.iter_rows(values_only=True)
            header = next(it, None)
            if header is None:
                return
            cols = [(i, h) for i, h in enumerate(header) if h is not None]
            for n, cells in enumerate(it, 2):
                if all(is_blank(c) or c == "" for c in cells):
                    continue
                yield n, {h: cells[i] if i < len(cells) else None for i, h in cols}
        finally:
            wb.close()

    return _records(rows(), fields, path, True)
