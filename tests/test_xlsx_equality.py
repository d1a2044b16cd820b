"""The single-pass .xlsx reader (`rulekit.readers.table.sheet_rows`) gives every row and cell exactly as
openpyxl's read-only `iter_rows(values_only=True)` did before it (the reader rulekit used until then):
the same value of the same type in every cell, the same row widths, the same empty rows — on every sheet
in tests/fixtures, on the real VLMEvalKit files in ../shared/realfiles and the issue-30 work dirs where
this machine has them, and on hand-made sheets for what those files lack (inline strings, booleans,
dates, error codes, formulas with and without a cached value, rows without numbers or out of order,
cells without references, `_x000D_` escapes, `1` vs `1.0`, integers past 2**53, a cell openpyxl cannot
read)."""
from __future__ import annotations

import datetime
import math
import os
from pathlib import Path

import pytest

from rulekit.core.errors import RulekitError
from rulekit.readers.table import sheet_rows
from test_bounds import NS, _CT, _RELS, _WB, _WBRELS, _zip, sheet

ROOT = Path(__file__).parent
SHARED = ROOT.parent.parent / "shared" / "realfiles"
# more real sheets to compare on (e.g. work dirs fetched from public repos): RULEKIT_XLSX_EXTRA=DIR
EXTRA = Path(os.environ.get("RULEKIT_XLSX_EXTRA") or SHARED)


def openpyxl_rows(path: Path) -> list[tuple]:
    """The rows as the reader before this one gave them: openpyxl read-only, dimensions reset."""
    import openpyxl

    wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        ws = wb.active
        ws.reset_dimensions()
        return list(ws.iter_rows(values_only=True))
    finally:
        wb.close()


def typed(rows: list[tuple]) -> list[list[tuple]]:
    """Every cell as (type, repr): 1 and 1.0, True and 1, '' and None all differ; NaN equals NaN."""
    return [[(type(c).__name__, repr(c)) for c in r] for r in rows]


def same(path: Path) -> int:
    """Assert new == old on `path`; the number of cells compared. A sheet past the readers' limits (a
    hostile fixture) is refused by both before any row is read, by the same checks: nothing to compare."""
    try:
        new = [cells for _, cells in sheet_rows(str(path))]
    except RulekitError as e:
        assert e.code == "E302", (path, e)
        return 0
    old = openpyxl_rows(path)
    assert len(new) == len(old), path
    for n, (a, b) in enumerate(zip(old, new), 1):
        assert typed([a]) == typed([b]), f"{path}: row {n}"
    return sum(len(r) for r in old)


def sheets(*folders: Path) -> list[Path]:
    return sorted(p for d in folders if d.is_dir() for p in d.rglob("*.xlsx"))


FIXTURES = sheets(ROOT / "fixtures")


def test_there_are_fixture_sheets_to_compare():
    assert len(FIXTURES) >= 30


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(ROOT / "fixtures")))
def test_every_fixture_sheet_reads_as_openpyxl_read_it(path):
    same(path)


@pytest.mark.skipif(not SHARED.is_dir() and not EXTRA.is_dir(), reason="no real VLMEvalKit sheets here")
def test_every_real_vlmevalkit_sheet_reads_as_openpyxl_read_it():
    paths = sheets(*dict.fromkeys((SHARED, EXTRA)))
    assert paths
    assert sum(same(p) for p in paths) > 0


def _sheet_file(tmp_path: Path, rows: bytes, sst: bytes = b"", styles: bytes | None = None) -> Path:
    ct, wbrels = _CT, _WBRELS
    members = [("[Content_Types].xml", ct), ("_rels/.rels", _RELS), ("xl/workbook.xml", _WB),
               ("xl/_rels/workbook.xml.rels", wbrels), ("xl/worksheets/sheet1.xml", sheet(rows)),
               ("xl/sharedStrings.xml", b'<?xml version="1.0" encoding="UTF-8"?><sst ' + NS + b">" + sst + b"</sst>")]
    path = tmp_path / "edge.xlsx"
    _zip(path, members, None)
    return path


def test_hand_made_cells_of_every_kind_read_as_openpyxl_read_them(tmp_path):
    sst = (b"<si><t>plain</t></si><si><t>a_x000D_\nb _x005F_x000D_ keep</t></si>"
           b"<si><r><t>rich </t></r><r><rPr><b/></rPr><t>text</t></r><rPh sb='0' eb='1'><t>ignored</t></rPh></si><si><t/></si>")
    rows = (b'<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="D1" t="s"><v>2</v></c>'
            b'<c r="E1" t="s"><v>3</v></c></row>'
            b'<row r="2"><c r="A2"><v>1</v></c><c r="B2"><v>1.0</v></c><c r="C2"><v>1E3</v></c>'
            b'<c r="D2"><v>123456789012345678901234567890</v></c><c r="E2"><v>-0.5e-3</v></c><c r="F2"><v></v></c></row>'
            b'<row r="4"><c r="A4" t="b"><v>1</v></c><c r="B4" t="b"><v>0</v></c><c r="C4" t="e"><v>#N/A</v></c>'
            b'<c r="D4" t="str"><v>formula text</v><f>A1</f></c><c r="E4"><f>1+1</f></c><c r="F4"><f>2</f><v>2</v></c>'
            b'<c r="G4" t="d"><v>2024-07-27T10:11:12</v></c></row>'
            b'<row><c t="inlineStr"><is><t> spaced\t</t></is></c><c t="inlineStr"><is><r><t>in</t></r><r><t>line</t></r></is></c>'
            b'<c t="inlineStr"/><c r="E5" t="inlineStr"><is><t>_x000D_</t></is></c></row>'
            b'<row r="3"><c r="A3"><v>9</v></c></row>'  # at or before a row already read: openpyxl skips it
            b'<row r="5"><c r="A5"><v>10</v></c></row>'  # already read (the row without r)
            b'<row r="8"><c r="C8"><v>3</v></c><c r="A8"><v>4</v></c></row>'  # out of order: as wide as its last cell (A)
            b'<row r="9.0"><c r="B9"><v>5</v></c><c r="B9"><v>6</v></c></row><row r="10"/>')
    path = _sheet_file(tmp_path, rows, sst)
    assert same(path) > 20
    new = [cells for _, cells in sheet_rows(str(path))]
    assert new[0] == ("plain", "a_x000D_\nb _x000D_ keep", None, "rich text", "")
    assert typed([new[1]])[0][:5] == [("int", "1"), ("float", "1.0"), ("float", "1000.0"),
                                      ("int", "123456789012345678901234567890"), ("float", "-0.0005")]
    assert new[2] == () and new[3][:4] == (True, False, "#N/A", "formula text") and new[3][4] is None
    assert new[3][6] == datetime.datetime(2024, 7, 27, 10, 11, 12)
    assert new[4] == (" spaced\t", "inline", None, None, "_x000D_")  # row 5: rows 3 and 5 after it are skipped
    assert new[5:] == [(), (), (4,), (None, 6), ()]  # row 8 ends at A8: C8 is dropped, as openpyxl drops it
    assert not any(isinstance(c, float) and math.isnan(c) for r in new for c in r)


def test_date_styled_numbers_read_as_openpyxl_read_them(tmp_path):
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["when", "how long", "n", "flag", "f"])
    ws.append([datetime.datetime(2024, 7, 27, 9, 30), datetime.timedelta(hours=36), 3, True, "=1+1"])
    ws.append([datetime.date(1900, 1, 1), datetime.time(12, 0), 2.5, False, None])
    path = tmp_path / "dates.xlsx"
    wb.save(path)
    assert same(path) >= 10


def test_a_cell_openpyxl_cannot_read_fails_after_the_rows_before_it(tmp_path):
    rows = (b'<row r="1"><c r="A1"><v>1</v></c></row><row r="2"><c r="A2" t="s"><v>7</v></c></row>'
            b'<row r="3"><c r="A3"><v>3</v></c></row>')
    path = _sheet_file(tmp_path, rows)
    got = []
    with pytest.raises(RulekitError) as e:
        for n, cells in sheet_rows(str(path)):
            got.append(cells)
    assert got == [(1,)] and e.value.code == "E301" and e.value.loc.line == 1
    import openpyxl

    ws = openpyxl.load_workbook(path, read_only=True, data_only=True).active
    ws.reset_dimensions()
    it = ws.iter_rows(values_only=True)
    assert next(it) == (1,)
    with pytest.raises(IndexError):
        next(it)
