"""What a framework published: the numbers of a report file, each as printed, and whether a figure of
ours gives one back to all its printed digits."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from rulekit.core.errors import InputError, Loc, RulekitError
from rulekit.report.reproduce.files import json_of

@dataclass
class Published:
    """One number a framework wrote: its split and metric named as in the report file, as printed."""

    split: str
    metric: str
    text: str
    decimals: int | None = None  # what the framework rounds to, when JSON dropped trailing zeros (52.70 → 52.7)

    @property
    def value(self) -> float:
        return float(self.text)

    def agrees(self, ours: float | None, percent: bool) -> bool:
        """Does `ours` give this number back to all its printed digits?"""
        import math

        if ours is None or not math.isfinite(ours) or not is_finite_number(self.text.strip()):
            return False  # a non-finite figure gives back nothing (inf - inf would "agree" within any bound)
        printed = Decimal(self.text.strip())
        exponent = printed.as_tuple().exponent
        digits = -exponent if isinstance(exponent, int) and exponent < 0 else 0
        if self.decimals is not None:
            digits = max(digits, self.decimals)
        value = Decimal(repr(ours * 100 if percent else ours))
        # a float printed in full (repr, 15+ digits) is given back within 1e-12 of itself: the frameworks
        # sum the same figures in other orders (np.mean * 100 against 100 * right / n), which moves the
        # last bit; one record more or less moves the number by far more than that
        return abs(value - printed) <= max(Decimal(5) * Decimal(10) ** (-digits - 1), abs(printed) * Decimal("1e-12")) \
            + Decimal("1e-12")


def read_report(path: Path, key: str | None = None, sheets: bool = False) -> list[Published]:
    """The numbers of a VLMEvalKit `_acc.csv` / `_acc.xlsx`: one per (split row, metric column); a report
    without a `split` column whose first column is text throughout names its rows by it. With
    `key` (a family's `score-file: {layout: rows, key: COLUMN}`), each row is named by that column
    instead (VisuLogic: a row per category with tot, hit and acc): one per (row name, column)."""
    if path.suffix == ".json":
        return _read_json_report(path)
    if sheets:
        return _read_sheets(path)
    rows = _report_rows(path)
    rows = [r for r in rows if any(c.strip() for c in r)]
    if len(rows) < 2 or not rows[0]:
        raise InputError(f"{path}: a report needs a header row and at least one row of numbers", code="E300")
    header = rows[0]  # names as written: VLMEvalKit keeps a category's stray tab ("Oceans and continents\t")
    stripped = [h.strip() for h in header]
    if key is None and {"tot", "match", "hit", "match_rate", "acc"} <= set(stripped):
        raise InputError(f"VLMEvalKit's 2023 accuracy table (a row per `{stripped[0]}` with tot, match, hit, "
                         "match_rate, acc; acc = hit / match, over the rows its rules matched): a report layout "
                         "rulekit does not read yet", loc=Loc(str(path), 1, 0), code="E300")
    if key is not None and key not in stripped:
        raise InputError(f"{path}: a report with a row per `{key}` needs a `{key}` column", code="E300")
    split_col = stripped.index(key or "split") if (key or "split") in stripped else None
    if split_col is None and key is None and len(header) > 1 and _text_column(rows[1:], 0):
        split_col = 0  # a key column of text (VGRPBench's `category`: a row per puzzle), never a number to read
    out = []
    for n, row in enumerate(rows[1:], 2):
        split = row[split_col].strip() if split_col is not None and split_col < len(row) else "none"
        for i, metric in enumerate(header):
            if i == split_col or i >= len(row) or not row[i].strip():
                continue
            out.append(Published(split, metric, _number(row[i], metric, Loc(str(path), n, 0))))
    return out


def _number(cell: str, metric: str, loc: Loc) -> str:
    """A report cell that must be a finite number, stripped (E300 at `loc` otherwise)."""
    if not is_finite_number(cell.strip()):
        try:
            Decimal(cell.strip())
            what, why = "a finite number", "a published number is a finite decimal (`inf` and `nan` cannot " \
                                            "be given back, nor compared)"
        except InvalidOperation:
            what, why = "a number", None
        raise InputError(f"`{metric.strip()}` is not {what}: {cell!r}", loc=loc, code="E300", help=why) from None
    return cell.strip()


def _read_sheets(path: Path) -> list[Published]:
    """The numbers of a report with one sheet per grouping (`score-file: {layout: sheets}`: VLMEvalKit's MMMU
    `_acc.xlsx` of Dec 2023, sheets field, subfield, difficulty, image_type): each sheet's rows are named by its
    column of the sheet's own name, its unnamed index column left out; a number's split is `SHEET.ROW`."""
    from rulekit.core.limits import limit, over
    from rulekit.readers.table import sheet_names, sheet_rows

    if path.stat().st_size > limit("report-bytes"):
        raise over("report-bytes", "the report is larger than", str(path))
    out = []
    for name in sheet_names(str(path)):
        rows = [["" if c is None else (repr(c) if isinstance(c, float) else str(c)) for c in row]
                for _, row in sheet_rows(str(path), sheet=name)]
        rows = [r for r in rows if any(c.strip() for c in r)]
        where = f"{path}[{name}]"
        for n, row in enumerate(rows, 1):
            if len(row) > limit("columns"):
                raise over("columns", f"row {n} has {len(row):,} cells, more than", Loc(where, n, 0))
        header = [h.strip() for h in rows[0]] if rows else []
        if name not in header:
            raise InputError(f"sheet `{name}` needs a `{name}` column naming its rows", loc=Loc(where, 1, 0),
                             code="E300")
        k = header.index(name)
        for n, row in enumerate(rows[1:], 2):
            value = row[k].strip() if k < len(row) else ""
            for i, metric in enumerate(header):
                if i == k or not metric or i >= len(row) or not row[i].strip():
                    continue  # the key, and pandas' unnamed index column
                out.append(Published(f"{name}.{value}", metric, _number(row[i], metric, Loc(where, n, 0))))
    if not out:
        raise InputError(f"{path}: no numbers in any sheet", code="E300")
    return out


def _text_column(rows: list[list[str]], i: int) -> bool:
    """Is column `i` of these data rows a key of text: every cell present, none of them a number (a
    table's first column naming its rows, as `split` does in an `_acc.csv`)?"""
    cells = [r[i].strip() if i < len(r) else "" for r in rows]
    if not cells or not all(cells):
        return False
    for cell in cells:
        try:
            Decimal(cell)
            return False
        except InvalidOperation:
            continue
    return True


def is_finite_number(text: str) -> bool:
    """Is `text` a decimal number that is finite as a float too (not `inf`, `-Infinity`, `NaN`, `sNaN`, nor
    `1e999999999`, which only Decimal holds)? Only such a number can be given back to its printed digits."""
    import math

    try:
        return Decimal(text).is_finite() and math.isfinite(float(text))
    except (InvalidOperation, ValueError, OverflowError):
        return False


def _report_rows(path: Path) -> list[list[str]]:
    """The cells of a VLMEvalKit report (.csv or .xlsx) as text, within the readers' limits: the file at most
    `report-bytes` (a sparse 1.2 GB `_acc.csv` is refused unread), at most `columns` columns."""
    from rulekit.core.limits import limit, over
    from rulekit.readers.table import sheet_rows

    try:
        if path.stat().st_size > limit("report-bytes"):
            raise over("report-bytes", "the report is larger than", str(path))
        if path.suffix == ".xlsx":
            rows = [["" if c is None else (repr(c) if isinstance(c, float) else str(c)) for c in row]
                    for _, row in sheet_rows(str(path))]
        else:  # not larger than the limit: read whole, as before
            rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    except RulekitError:
        raise
    except (OSError, UnicodeDecodeError, csv.Error, ValueError, KeyError) as exc:
        raise InputError(f"{path}: cannot read this report: {exc}", code="E301") from None
    for n, row in enumerate(rows, 1):
        if len(row) > limit("columns"):
            raise over("columns", f"row {n} has {len(row):,} cells, more than", Loc(str(path), n, 0))
    return rows


def _read_json_report(path: Path) -> list[Published]:
    """The numbers of a flat JSON score file (VLMEvalKit's OCRBench `_score.json`: {name: number})."""
    data = json_of(path)
    if not isinstance(data, dict) or not data:
        raise InputError(f"{path}: a score file must be a JSON object of numbers", code="E300")
    out = []
    for name, value in data.items():
        if type(value) not in (int, float):
            raise InputError(f"{path}: `{name}` is not a number: {value!r}", code="E300")
        out.append(Published("none", name, repr(value)))
    return out
