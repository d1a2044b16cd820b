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
from rulekit.core.limits import LimitError, check_zip, limit, line_too_long, over
from rulekit.core.records import Record
from rulekit.readers.jsonl import LETTERS, READ_ERRORS, corrupt, fail, is_blank, make_record, open_bytes
from rulekit.readers.sheetxml import Fallback, SheetScan, shared_strings

_SKIP = {"id", "index", "response", "prediction", "answer", "choices", "question_type",
         "question", "benchmark", "model", "meta", "image"}
_LETTER_SET = set(LETTERS)


def _key(name: Any) -> str:
    name = str(name).strip()
    return name if name in _LETTER_SET else name.lower()


_KEYS: dict[str, str] = {}  # a text column name → its key, kept for the next row (headers repeat every row)


def table_base(raw: dict) -> tuple[dict, dict]:
    """(base, extras) for one table row given as {column: cell} (mapping in the module docstring)."""
    row = {}
    keys = _KEYS
    for k, v in raw.items():
        key = keys.get(k) if type(k) is str else None  # only str: 1, 1.0 and True would share a dict slot
        if key is None:
            key = _key(k)
            if type(k) is str and len(keys) < 100_000:
                keys[k] = key
        row[key] = None if v is None or (isinstance(v, str) and v == "") or (isinstance(v, float) and v != v) else v
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
        letters = sorted(k for k, v in row.items() if v is not None and k in _LETTER_SET)  # A..Z order
        opts = {k: row[k] for k in letters}
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
    raises InputError at its line. A line, a field or a whole record (a quoted field may span lines)
    longer than the `line-bytes` limit, in characters, and a header with more than `columns` names are
    E302 (`rulekit.core.limits`): no longer line is ever read whole.
    """
    cap = limit("line-bytes")
    csv.field_size_limit(cap)
    kind = "TSV" if delimiter == "\t" else "CSV"
    with io.TextIOWrapper(f if f is not None else open_bytes(path), encoding="utf-8-sig",
                          newline="") as text:
        at = [0, 0]  # lines read, characters of the record being read

        def lines() -> Iterator[str]:
            readline = text.readline
            while True:
                line = readline(cap + 1)
                if not line:
                    return
                at[0] += 1
                at[1] += len(line)
                if at[1] > cap and (line_too_long(line, cap) or at[1] > cap + 1):
                    what = f"line {at[0]} is" if line_too_long(line, cap) else f"the record ending on line {at[0]} is"
                    raise over("line-bytes", f"{what} longer than", Loc(path, at[0], 0))
                yield line

        reader = csv.reader(lines(), delimiter=delimiter)
        try:
            header = next(reader, None)
            if header is None:
                return
            if len(header) > limit("columns"):
                raise over("columns", f"the header has {len(header):,} columns, more than", Loc(path, 1, 0))
            start = reader.line_num + 1
            at[1] = 0
            for cells in reader:
                line, start = start, reader.line_num + 1
                at[1] = 0
                if not cells or (len(cells) == 1 and not cells[0].strip()):
                    continue
                if len(cells) != len(header):
                    raise fail(f"row has {len(cells)} cells, the header has {len(header)}",
                               path, line, "")
                yield _record(line, dict(zip(header, cells)), fields, path, True)
        except csv.Error as e:
            if str(e).startswith("field larger than field limit"):
                raise over("line-bytes", f"a field on line {max(reader.line_num, 1)} is longer than",
                           Loc(path, max(reader.line_num, 1), 0)) from None
            raise fail(f"cannot parse {kind}: {e}", path, max(reader.line_num, 1), "") from None
        except UnicodeDecodeError as e:
            raise fail(f"cannot parse {kind}: {e}", path, max(reader.line_num, 1), "") from None
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


_COLUMNS: dict[str, int] = {}  # "A" → 1 ... "ZZZ" → 18,278, filled on first use
_DIGITS = "0123456789"


def _column(ref: str) -> int:
    """The column number of a cell reference ("B7" → 2; four letters or more are past any sheet's last
    column, 0 when there are no letters: openpyxl then reports the cell)."""
    if not _COLUMNS:
        _COLUMNS.update(_column_names())
    n = _COLUMNS.get(ref.rstrip(_DIGITS))  # the usual "AB12": one look-up
    if n is not None:
        return n
    for i, ch in enumerate(ref):
        if "A" <= ch <= "Z" or "a" <= ch <= "z":
            if i >= 3:
                return 1 << 30
            n = (n or 0) * 26 + (ord(ch.upper()) - 64)
        else:
            break
    return n or 0


def _column_names() -> Iterator[tuple[str, int]]:
    """("A", 1), ..., ("ZZZ", 18278): every column name of one to three letters."""
    abc = [chr(c) for c in range(65, 91)]
    names = abc + [a + b for a in abc for b in abc] + [a + b + c for a in abc for b in abc for c in abc]
    return ((name, i) for i, name in enumerate(names, 1))


def _row_number(text: str) -> int:
    """A row's `r` attribute as openpyxl reads it (a whole number, or a float that is one); ValueError else."""
    try:
        return int(text)
    except ValueError:
        value = float(text)
        if not value.is_integer():
            raise ValueError(f"{text} is not a valid row number") from None
        return int(value)


def _scan_sheet(ws: Any, path: str) -> tuple[list[tuple], Exception | None] | None:
    """The rows of the sheet `ws` exactly as openpyxl's read-only `iter_rows(values_only=True)` gives them
    once its dimensions are reset, read in one streaming pass over the sheet's XML that checks it first
    (openpyxl would make up every row missing before a row numbered 100,000,000, and every cell missing
    before a far column), and the error openpyxl would have raised after handing over those rows (a cell
    it cannot read, a bad row number), else None; None for a workbook layout this does not know (openpyxl
    then reads it). A sheet in the regular shapes writers emit is read by the fast path first
    (`rulekit.readers.sheetxml.SheetScan`: C-level `re` scans, the same values and the same checks); any part
    of it that path does not account for is read from the start by the ElementTree pass below:

    - E302 for a row numbered past the `rows` limit, a cell past the `columns` limit, more cells than
      `cells` (`rulekit.core.limits`) — counted as openpyxl hands them over, each row as wide as its last
      cell's column (a row whose one cell is in column XFD is 16,384 cells) —, at the first one, before
      any row is handed on;
    - W313 for formula cells that carry no cached value: openpyxl (like pandas) reads them as empty, so a
      `prediction` computed by a formula and saved by a tool that does not evaluate formulas would
      silently score as an empty reply.

    Values follow openpyxl's `WorkSheetParser.parse_cell` with `data_only` (a formula cell is its cached
    value): numbers are int unless the text has `.`, `e` or `E`, then float (date-styled ones are
    datetimes through the workbook's epoch), shared strings from openpyxl's own table, inline strings as
    its `Text.content` (`_x000D_` escapes kept), booleans, ISO dates, error codes as text; a row is as
    wide as its last cell, a missing row is (), a row numbered at or before one already read is skipped.
    One pass instead of openpyxl's own second one and its per-cell objects: a quarter to a third less CPU
    (benchmarks/xlsx.py); tests/test_xlsx_equality.py compares both on every sheet we have. Unlike
    openpyxl, the sheet's other parts (views, merged cells, margins, ...) are not parsed, so a malformed
    one no longer makes the file E301."""
    import xml.etree.ElementTree as ET

    wb = getattr(ws, "parent", None)
    archive, member = getattr(wb, "_archive", None), getattr(ws, "_worksheet_path", None)
    shared = getattr(ws, "_shared_strings", None)
    if archive is None or member is None or shared is None:  # another openpyxl layout: openpyxl reads it
        return None
    from openpyxl.cell.text import Text
    from openpyxl.utils.cell import coordinate_to_tuple
    from openpyxl.utils.datetime import from_excel, from_ISO8601

    date_formats, timedelta_formats, epoch = wb._date_formats, wb._timedelta_formats, wb.epoch
    _column("A1")  # fills _COLUMNS
    columns = _COLUMNS
    max_rows, max_cols, max_cells = limit("rows"), limit("columns"), limit("cells")

    def number(text: str, style_id: int) -> Any:  # parse_cell's t="n", for the fast path
        v = float(text) if "." in text or "E" in text or "e" in text else int(text)
        if style_id in date_formats:
            try:
                return from_excel(v, epoch, timedelta=style_id in timedelta_formats)
            except (OverflowError, ValueError):
                raise Fallback from None  # openpyxl warns and reads "#VALUE!": the exact pass does both
        return v

    def other(data_type: str, text: str) -> Any:  # parse_cell's t="b", "d", "str", "e"
        return bool(int(text)) if data_type == "b" else from_ISO8601(text) if data_type == "d" else text

    with archive.open(member) as src:  # regular XML first, by C-level scans (readers/sheetxml.py)
        fast = SheetScan(shared, date_formats, number, other, columns, max_rows, max_cols, max_cells).scan(src)
    if fast is not None:
        return fast, None
    ns = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
    cell_tag, row_tag, v_tag, f_tag, is_tag = ns + "c", ns + "row", ns + "v", ns + "f", ns + "is"
    count, first = 0, ""
    row = col = cells = 0  # the last row ended, the column of the last cell of the row being read, cells so far
    width = 0  # cells openpyxl makes of the rows ended so far: each row up to its last cell
    out: list[tuple] = []
    counter = 1  # the row number openpyxl hands over next
    parsed = 0  # openpyxl's own row counter (a row without `r` is the one after the last parsed)
    failed: Exception | None = None  # openpyxl stops there; the checks go on to the end as before

    cc = 0
    with archive.open(member) as src:
        for _, elem in ET.iterparse(src, events=("end",)):
            tag = elem.tag
            if tag == cell_tag:
                ref = elem.get("r")
                if ref:
                    n = columns.get(ref.rstrip("0123456789"))  # the usual "AB12": one look-up
                    col = n if n is not None else _column(ref)
                else:
                    col += 1
                cells += 1
                if col > max_cols or cells > max_cells or width + col > max_cells:
                    at = ref or f"column {col:,} of row {row + 1:,}"
                    where = Loc(path, _row_number(ref[len(ref.rstrip("0123456789")):]) if ref and ref[-1:].isdigit()
                                else row + 1, 0)
                    if col > max_cols:
                        raise over("columns", f"cell {at} is past", where)
                    raise over("cells", "the sheet has more cells (each row counted up to its last cell) than",
                               where)
                if elem.find(f_tag) is not None:
                    v = elem.find(v_tag)
                    if v is None or v.text is None:
                        count += 1
                        first = first or str(elem.get("r", "?"))
            elif tag == row_tag:
                ref = elem.get("r")
                row = _row_number(ref) if ref else row + 1
                if row > max_rows:
                    raise over("rows", f"row {row:,} is numbered past", Loc(path, row, 0))
                width += col
                col = 0
                if failed is not None:
                    elem.clear()
                    continue
                cc = 0
                try:
                    parsed = parsed + 1 if ref is None else _row_number(ref)
                    values = []
                    for el in elem:  # openpyxl's parse_cell, data_only (a formula cell is its cached value)
                        data_type = el.get("t", "n")
                        coordinate = el.get("r")
                        style_id = el.get("s", 0)
                        if style_id:
                            style_id = int(style_id)
                        v = None if data_type == "inlineStr" else (el.findtext(v_tag, None) or None)
                        if coordinate:
                            # 1-3 capitals then digits: one look-up, as openpyxl reads them; else its own parser
                            letters = coordinate.rstrip("0123456789")
                            n = columns.get(letters) if len(letters) < len(coordinate) else None
                            cc = n if n is not None else coordinate_to_tuple(coordinate)[1]
                        else:
                            cc += 1
                        if v is not None:
                            if data_type == "n":
                                v = float(v) if "." in v or "E" in v or "e" in v else int(v)
                                if style_id in date_formats:
                                    try:
                                        v = from_excel(v, epoch, timedelta=style_id in timedelta_formats)
                                    except (OverflowError, ValueError):
                                        import warnings
                                        warnings.warn(f"Cell {coordinate} is marked as a date but the serial value {v} is "
                                                      "outside the limits for dates. The cell will be treated as an error.")
                                        v = "#VALUE!"
                            elif data_type == "s":
                                v = shared[int(v)]
                            elif data_type == "b":
                                v = bool(int(v))
                            elif data_type == "d":
                                v = from_ISO8601(v)
                        elif data_type == "inlineStr":
                            child = el.find(is_tag)
                            if child is not None:
                                v = Text.from_tree(child).content
                        values.append((cc, v))
                except Exception as e:  # what openpyxl raises for a cell it cannot read (ValueError, IndexError)
                    failed = e
                    elem.clear()
                    continue
                elem.clear()
                while counter < parsed:  # rows missing before this one
                    counter += 1
                    out.append(())
                if counter <= parsed:
                    counter += 1
                    if values:
                        line = [None] * values[-1][0]
                        for c, v in values:
                            if 1 <= c <= len(line):
                                line[c - 1] = v
                        out.append(tuple(line))
                    else:
                        out.append(())
    if count:
        row = int("".join(ch for ch in first if ch.isdigit()) or 0)
        warn("W313", "formula cells without a cached value, read as empty", f"cell {first}",
             Loc(path, row, 0), count)
    return out, failed


def preload_xlsx() -> None:
    """Import openpyxl's workbook reader now (about 0.15 s: it imports numpy and PIL), e.g. once before forking
    workers that each read sheets, so that they share it; nothing when openpyxl is missing (reading a sheet
    then says so)."""
    try:
        import openpyxl.cell.text  # noqa: F401
        import openpyxl.reader.excel  # noqa: F401
        import openpyxl.reader.strings  # noqa: F401
        import openpyxl.utils.datetime  # noqa: F401
    except ImportError:
        pass


def _load_workbook(source: Any) -> Any:
    """openpyxl's `load_workbook(source, read_only=True, data_only=True)`, its shared strings read by the fast
    path (`sheetxml.shared_strings`) when that accounts for all of them, else by openpyxl's own reader."""
    from openpyxl.reader.excel import ExcelReader
    from openpyxl.reader.strings import read_string_table
    from openpyxl.xml.constants import SHARED_STRINGS

    class Reader(ExcelReader):
        def read_strings(self) -> None:
            ct = self.package.find(SHARED_STRINGS)
            if ct is not None:
                data = self.archive.read(ct.PartName[1:])
                fast = shared_strings(data)
                self.shared_strings = fast if fast is not None else read_string_table(io.BytesIO(data))

    reader = Reader(source, read_only=True, data_only=True)
    reader.read()
    return reader.wb


def sheet_names(path: str) -> list[str]:
    """The names of the sheets of an .xlsx file, in order (its members checked as `sheet_rows` checks them;
    at most `columns` of them). E301 for a file openpyxl cannot open."""
    import openpyxl  # noqa: F401  (missing: the ImportError, as before, not a "corrupt file")

    check_zip(path, path)
    try:
        wb = _load_workbook(path)  # (shared strings by the fast path too)
    except Exception as e:  # openpyxl raises many types for a bad file (zip, XML, KeyError)
        raise corrupt(path, e) from None
    try:
        names = list(wb.sheetnames)
    finally:
        wb.close()
    if len(names) > limit("columns"):
        raise over("columns", f"the workbook has {len(names):,} sheets, more than", path)
    return names


def sheet_rows(path: str, f: IO[bytes] | None = None, sheet: str | None = None) -> Iterator[tuple[int, tuple]]:
    """(row number, cell values) of every row of the first sheet (or the sheet named `sheet`) of an .xlsx file
    (or the seekable file `f` named `path`), as openpyxl's read-only `iter_rows(values_only=True)` gives them, within the readers'
    limits: members that inflate past them are refused before anything is read (a shared-strings bomb),
    openpyxl reads the workbook (active sheet, shared strings, date styles), then `_scan_sheet` reads the
    sheet's cells in the pass that checks it for rows, columns and cells past the limits, before any row is
    handed on; its declared dimensions are ignored (a padded `<dimension ref="A1:XFD1048576"/>` would make
    openpyxl fill 17 billion empty cells). A row holds its cells up to its last one. A damaged file is E301
    after the last whole row read."""
    try:
        import openpyxl
    except ImportError:
        raise InputError(f"{path}: reading .xlsx files needs openpyxl, a dependency of rulekit that is missing",
                         help="reinstall rulekit, or pip install openpyxl (or save the sheet as .tsv)") from None
    check_zip(f if f is not None else path, path)
    try:
        wb = _load_workbook(f if f is not None else path)
    except Exception as e:  # openpyxl raises many types for a bad file (zip, XML, KeyError)
        raise corrupt(path, e) from None
    n = 0
    try:
        ws = wb.active if sheet is None else wb[sheet]
        scanned = _scan_sheet(ws, path)
        if scanned is None:
            ws.reset_dimensions()
            rows: Iterable[tuple] = ws.iter_rows(values_only=True)
        else:
            rows = scanned[0]
        for n, cells in enumerate(rows, 1):
            yield n, cells
        if scanned is not None and scanned[1] is not None:
            raise scanned[1]
    except RulekitError:  # over a limit, W313 under --strict, a bad record
        raise
    except Exception as e:  # a sheet whose XML breaks off (ParseError, zip CRC, ...)
        raise corrupt(path, e, n, "row") from None
    finally:
        wb.close()


def read_xlsx(path: str, fields: dict[str, str] | None = None,
              f: IO[bytes] | None = None) -> Iterator[Record]:
    """Stream Records from the first sheet of an .xlsx file (or the seekable file `f` named
    `path`; VLMEvalKit predictions), read by `sheet_rows`; needs openpyxl, else InputError with an
    install hint."""

    def rows() -> Iterator[tuple[int, dict]]:
        it = sheet_rows(path, f)
        first = next(it, None)
        if first is None:
            return
        cols = [(i, h) for i, h in enumerate(first[1]) if h is not None]
        for n, cells in it:
            if all(is_blank(c) or c == "" for c in cells):
                continue
            yield n, {h: cells[i] if i < len(cells) else None for i, h in cols}

    return _records(rows(), fields, path, True)
