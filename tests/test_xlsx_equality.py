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


# ---------------------------------------------------------------- the fast path (readers/sheetxml.py)
HEAD = b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
SST = [b"<si><t>plain</t></si>", b'<si><t xml:space="preserve"> a &amp; b &lt;c&gt; &#10;&#x263A; </t></si>',
       b"<si><t>x_x000D_y _x005F_x000D_</t></si>", b"<si><t/></si>"]
REGULAR = (b'<row r="1" spans="1:6"><c r="A1" t="s"><v>0</v></c><c r="B1" s="1" t="s"><v>1</v></c>'
           b'<c r="C1" t="s"><v>2</v></c><c r="D1" t="s"><v>3</v></c><c r="E1"><v>7</v></c><c r="F1"><v>7.0</v></c></row>'
           b'<row r="3"><c r="B3" t="n"><v>123456789012345678901234567890</v></c><c r="C3"><v>-1.5E-3</v></c>'
           b'<c r="D3" t="b"><v>1</v></c><c r="E3" t="e"><v>#DIV/0!</v></c><c r="F3" t="str"><v>a &amp; b</v></c>'
           b'<c r="G3" t="d"><v>2024-07-27T10:11:12</v></c><c r="H3"><v/></c><c r="I3" s="2"/><c r="J3"></c></row>'
           b'<row r="4"><c r="A4" t="inlineStr"><is><t xml:space="preserve"> in &#13;line_x000D_ </t></is></c>'
           b'<c r="B4" t="inlineStr"><is><t/></is></c><c r="C4" t="inlineStr"></c><c r="E4" t="s"><v>0</v></c></row>'
           b'<row r="5"/><row r="2"><c r="A2"><v>9</v></c></row><row r="7"><c r="C7"><v>1</v></c><c r="A7"><v>2</v></c></row>')


def _raw_file(tmp_path: Path, worksheet: bytes, sst: bytes) -> Path:
    members = [("[Content_Types].xml", _CT), ("_rels/.rels", _RELS), ("xl/workbook.xml", _WB),
               ("xl/_rels/workbook.xml.rels", _WBRELS), ("xl/worksheets/sheet1.xml", worksheet),
               ("xl/sharedStrings.xml", sst)]
    path = tmp_path / "fast.xlsx"
    _zip(path, members, None)
    return path


def _ws(rows: bytes, head: bytes = HEAD, root: bytes = b"<worksheet " + NS + b">", tail: bytes = b"") -> bytes:
    return head + root + b"<dimension ref=\"A1:J7\"/><sheetData>" + rows + b"</sheetData>" + tail + b"</worksheet>"


def _sst(items: list[bytes] = SST, head: bytes = HEAD) -> bytes:
    return head + b"<sst " + NS + b' count="4" uniqueCount="4">' + b"".join(items) + b"</sst>"


@pytest.fixture
def paths_taken(monkeypatch):
    """Which path read each sheet and shared-strings table: 'fast' or 'exact'."""
    from rulekit.readers import sheetxml, table

    taken: list[str] = []
    scan, strings = sheetxml.SheetScan.scan, sheetxml.shared_strings

    def counted_scan(self, src):
        out = scan(self, src)
        taken.append("fast" if out is not None else "exact")
        return out

    def counted_strings(data):
        out = strings(data)
        taken.append("fast sst" if out is not None else "exact sst")
        return out

    monkeypatch.setattr(sheetxml.SheetScan, "scan", counted_scan)
    monkeypatch.setattr(table, "shared_strings", counted_strings)
    return taken


def test_the_fast_path_reads_the_regular_shapes_as_openpyxl_does(tmp_path, paths_taken):
    path = _raw_file(tmp_path, _ws(REGULAR), _sst())
    assert same(path) > 20
    assert paths_taken == ["fast sst", "fast"]  # nothing fell back: the fast path itself was compared
    new = [cells for _, cells in sheet_rows(str(path))]
    assert new[0] == ("plain", " a & b <c> \n\u263a ", "x_x000D_y _x000D_", "", 7, 7.0)
    assert new[1] == () and new[2][1] == 123456789012345678901234567890 and new[2][3:6] == (True, "#DIV/0!", "a & b")
    assert new[3] == (" in \rline_x000D_ ", "", None, None, "plain")
    assert new[4:] == [(), (), (2,)]  # row 2 after row 5 is skipped; row 7 ends at A7 (C7 dropped)


def test_every_fixture_sheet_takes_the_fast_path(paths_taken):
    """The sheets writers make (xlsxwriter: VLMEvalKit; openpyxl: pandas) are all regular."""
    for path in FIXTURES:
        if "cli" not in path.parts and "bounds" not in str(path):
            list(sheet_rows(str(path)))
    assert paths_taken and "exact" not in paths_taken and "exact sst" not in paths_taken, paths_taken


HOSTILE = {  # name: (worksheet XML, shared strings XML): each must read as openpyxl reads it, through the exact parser
    "attributes in another order": (_ws(REGULAR.replace(b'<c r="B1" s="1" t="s">', b'<c r="B1" t="s" s="1">')), _sst()),
    "x: prefix": (_ws(REGULAR.replace(b"<c ", b"<x:c ").replace(b"</c>", b"</x:c>"),
                      root=b"<worksheet " + NS + b' xmlns:x="' + NS[7:-1] + b'">'), _sst()),
    "other default namespace on a row": (_ws(REGULAR.replace(b'<row r="3">', b'<row r="3" xmlns="urn:other">')), _sst()),
    "unbound prefix in a row attribute": (_ws(REGULAR.replace(b'spans="1:6"', b'x14ac:dyDescent="0.25"')), _sst()),
    "duplicate row attribute": (_ws(REGULAR.replace(b'spans="1:6"', b'spans="1:6" spans="1:6"')), _sst()),
    "CDATA": (_ws(REGULAR.replace(b"<v>#DIV/0!</v>", b"<v><![CDATA[#DIV/0!]]></v>")), _sst()),
    "comment between rows": (_ws(REGULAR.replace(b'<row r="3">', b'<!-- c --><row r="3">')), _sst()),
    "whitespace between tags": (_ws(REGULAR.replace(b"</row><row", b"</row>\n  <row")), _sst()),
    "formula with a cached value": (_ws(REGULAR.replace(b"<v>7</v>", b"<f>3+4</f><v>7</v>")), _sst()),
    "formula without one": (_ws(REGULAR.replace(b"<v>7</v>", b"<f>3+4</f>")), _sst()),
    "rich text inline": (_ws(REGULAR.replace(b"<is><t/></is>", b"<is><r><t>ri</t></r><r><rPr><b/></rPr><t>ch</t></r></is>")), _sst()),
    "rich text shared": (_ws(REGULAR), _sst(SST[:3] + [b"<si><r><t>ri</t></r><r><t>ch</t></r></si>"])),
    "phonetic run shared": (_ws(REGULAR), _sst(SST[:3] + [b"<si><t>a</t><rPh sb='0' eb='1'><t>b</t></rPh></si>"])),
    "carriage return": (_ws(REGULAR.replace(b"a &amp; b</v>", b"a\r\nb\rc</v>")), _sst(SST[:3] + [b"<si><t>x\r\ny</t></si>"])),
    "forbidden character reference": (_ws(REGULAR.replace(b"a &amp; b</v>", b"a &#0; b</v>")), _sst()),
    "undeclared entity": (_ws(REGULAR.replace(b"a &amp; b</v>", b"a &nbsp; b</v>")), _sst()),
    "control character": (_ws(REGULAR.replace(b"a &amp; b</v>", b"a \x01 b</v>")), _sst()),
    "invalid UTF-8": (_ws(REGULAR.replace(b"a &amp; b</v>", b"a \xff b</v>")), _sst()),
    "latin-1 declared": (_ws(REGULAR.replace(b"a &amp; b</v>", b"caf\xe9</v>"),
                             head=b'<?xml version="1.0" encoding="ISO-8859-1"?>'), _sst(head=b"")),
    "byte-order mark": (_ws(REGULAR, head=b"\xef\xbb\xbf" + HEAD), _sst(head=b"\xef\xbb\xbf" + HEAD)),
    "no declaration": (_ws(REGULAR, head=b""), _sst(head=b"")),
    "DOCTYPE with an entity": (_ws(REGULAR.replace(b"a &amp; b</v>", b"&e;</v>"),
                                   head=HEAD + b'<!DOCTYPE worksheet [<!ENTITY e "expanded">]>'), _sst()),
    "cell without r": (_ws(REGULAR.replace(b'<c r="J3">', b"<c>")), _sst()),
    "lower-case column": (_ws(REGULAR.replace(b'<c r="J3">', b'<c r="j3">')), _sst()),
    "row without r": (_ws(REGULAR.replace(b'<row r="5"/>', b"<row/>")), _sst()),
    "row numbered 5.0": (_ws(REGULAR.replace(b'<row r="5"/>', b'<row r="5.0"/>')), _sst()),
    "boolean 2 and a bad date": (_ws(REGULAR.replace(b"<v>1</v></c><c r=\"E3\"", b"<v>2</v></c><c r=\"E3\"")
                                     .replace(b"2024-07-27T10:11:12", b"2024-13-45")), _sst()),
    "shared index past the table": (_ws(REGULAR.replace(b"<v>3</v>", b"<v>99</v>")), _sst()),
    "negative shared index": (_ws(REGULAR.replace(b"<v>3</v>", b"<v>-1</v>")), _sst()),
    "number that is not one": (_ws(REGULAR.replace(b"<v>7.0</v>", b"<v>7,0</v>")), _sst()),
    "int past str digits": (_ws(REGULAR.replace(b"123456789012345678901234567890", b"9" * 5000)), _sst()),
    "row inside another element": (_ws(REGULAR, tail=b'<extLst><row r="9"><c r="A9"><v>1</v></c></row></extLst>'), _sst()),
    "markup after sheetData broken": (_ws(REGULAR, tail=b"<mergeCells>"), _sst()),
    "sheet cut off": (_ws(REGULAR)[:-40], _sst()),
    "sheetData with an attribute": (_ws(REGULAR).replace(b"<sheetData>", b'<sheetData xmlns="urn:x">'), _sst()),
    "empty sheetData": (_ws(b"").replace(b"<sheetData></sheetData>", b"<sheetData/>"), _sst()),
    "v with an attribute": (_ws(REGULAR.replace(b"<v>9</v>", b'<v xml:space="preserve">9</v>')), _sst()),
    "greater-than in text": (_ws(REGULAR.replace(b"a &amp; b</v>", b"a > b ]]> c</v>")), _sst()),
    "far column": (_ws(REGULAR.replace(b'<c r="J3">', b'<c r="XFE3">')), _sst()),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_shapes_read_as_openpyxl_reads_them(tmp_path, name, paths_taken):
    worksheet, sst = HOSTILE[name]
    path = _raw_file(tmp_path, worksheet, sst)
    try:
        old = openpyxl_rows(path)
    except Exception as e:  # openpyxl refuses the file: so must rulekit (E301), after the same rows
        with pytest.raises(RulekitError) as got:
            list(sheet_rows(str(path)))
        assert got.value.code in ("E301", "E302"), (name, e)
        return
    try:
        new = [cells for _, cells in sheet_rows(str(path))]
    except RulekitError as e:
        assert e.code == "E302" and name == "far column", (name, e)
        return
    assert typed(new) == typed(old), name
    assert paths_taken, name
