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
from typing import IO, Any, Iterable, Iterator

from rulekit.core.errors import InputError, Loc, RulekitError, warn
from rulekit.core.records import Record
from rulekit.readers.jsonl import LETTERS, READ_ERRORS, corrupt, fail, is_blank, make_record, open_bytes

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
             delimiter: str = ",", f: IO[bytes] | None = None) -> Iterator[Record]:
    """Stream Records from a CSV (or, with ``delimiter="\\t"``, TSV) file with a header row.

    Also reads VLMEvalKit prediction TSVs. A row whose cell count differs from the header's
    raises InputError at its line.
    """
    csv.field_size_limit(2**31 - 1)  # VLMEvalKit TSVs may carry base64 images
    with io.TextIOWrapper(f if f is not None else open_bytes(path), encoding="utf-8-sig",
                          newline="") as f:
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
        except READ_ERRORS as e:
            raise corrupt(path, e, reader.line_num) from None


def read_parquet(path: str, fields: dict[str, str] | None = None,
                 f: IO[bytes] | None = None) -> Iterator[Record]:
    """Stream Records from a parquet file (or the seekable file `f` named `path`), batch by batch
    (pyarrow)."""
    import pyarrow.parquet as pq

    import pyarrow as pa

    try:
        pf = pq.ParquetFile(f if f is not None else path)
    except (OSError, ValueError, pa.ArrowException) as e:
        raise corrupt(path, e) from None

    def rows() -> Iterator[tuple[int, dict]]:
        n = 0
        try:
            for batch in pf.iter_batches(batch_size=4096):
                for row in batch.to_pylist():
                    n += 1
                    yield n, row
        except (OSError, ValueError, pa.ArrowException) as e:
            raise corrupt(path, e, n, "row") from None

    return _records(rows(), fields, path, False)


def _warn_uncached_formulas(ws: Any, path: str) -> None:
    """W313 for the sheet's formula cells that carry no cached value: openpyxl (like pandas) reads
    them as empty, so a `prediction` computed by a formula and saved by a tool that does not
    evaluate formulas would silently score as an empty reply. One streaming pass over the sheet's XML."""
    import xml.etree.ElementTree as ET

    archive, member = getattr(ws.parent, "_archive", None), getattr(ws, "_worksheet_path", None)
    if archive is None or member is None:  # another openpyxl layout: nothing to check against
        return
    ns = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
    count, first = 0, ""
    with archive.open(member) as src:
        for _, elem in ET.iterparse(src, events=("end",)):
            if elem.tag == ns + "c":
                v = elem.find(ns + "v")
                if elem.find(ns + "f") is not None and (v is None or v.text is None):
                    count += 1
                    first = first or str(elem.get("r", "?"))
                elem.clear()
            elif elem.tag == ns + "row":
                elem.clear()
    if count:
        row = int("".join(ch for ch in first if ch.isdigit()) or 0)
        warn("W313", "formula cells without a cached value, read as empty", f"cell {first}",
             Loc(path, row, 0), count)


def read_xlsx(path: str, fields: dict[str, str] | None = None,
              f: IO[bytes] | None = None) -> Iterator[Record]:
    """Stream Records from the first sheet of an .xlsx file (or the seekable file `f` named
    `path`; VLMEvalKit predictions); needs openpyxl, else InputError with an install hint."""
    try:
        import openpyxl
    except ImportError:
        raise InputError(f"{path}: reading .xlsx files needs openpyxl, a dependency of rulekit that is missing",
                         help="reinstall rulekit, or pip install openpyxl (or save the sheet as .tsv)") from None
    try:
        wb = openpyxl.load_workbook(f if f is not None else path, read_only=True, data_only=True)
    except Exception as e:  # openpyxl raises many types for a bad file (zip, XML, KeyError)
        raise corrupt(path, e) from None

    def rows() -> Iterator[tuple[int, dict]]:
        n = 0
        try:
            _warn_uncached_formulas(wb.active, path)
            it = wb.active.iter_rows(values_only=True)
            header = next(it, None)
            if header is None:
                return
            n = 1
            cols = [(i, h) for i, h in enumerate(header) if h is not None]
            for n, cells in enumerate(it, 2):
                if all(is_blank(c) or c == "" for c in cells):
                    continue
                yield n, {h: cells[i] if i < len(cells) else None for i, h in cols}
        except RulekitError:  # W313 under --strict, a bad record
            raise
        except Exception as e:  # a sheet whose XML breaks off (ParseError, zip CRC, ...)
            raise corrupt(path, e, n, "row") from None
        finally:
            wb.close()

    return _records(rows(), fields, path, True)
