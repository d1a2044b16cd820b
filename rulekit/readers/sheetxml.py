"""The fast path of the .xlsx reader: a sheet's cells and a workbook's shared strings read by C-level `re`
scans over the XML text, for the regular shapes spreadsheet writers emit (xlsxwriter, which VLMEvalKit
uses, and openpyxl), each value converted from its raw text exactly as openpyxl converts it.

The fast path never guesses. It accepts a part only when every character of it is accounted for:

- the XML declaration is absent or says version 1.0, UTF-8; the text decodes as strict UTF-8 and holds
  none of the code points XML forbids;
- the parts outside `<sheetData>` (or outside the `<si>` list) parse with the exact XML parser
  (ElementTree), which also shows the default namespace is SpreadsheetML's and that no row or cell lies
  outside `<sheetData>`;
- `<sheetData>`'s content, row after row, matches `_ROW` in full: `<row r="N" ...>` with plain attributes
  (each distinct attribute list checked once by the XML parser: no namespace declarations, no duplicates,
  no unbound prefix), and cells written `<c r="A1" [s="N"] [t="T"]>` holding nothing, `<v>text</v>`, `<v/>`
  or an inline `<is><t>text</t></is>`; text without markup, CDATA, `>`, carriage returns or control
  characters, entities only the five predefined ones and character references to allowed code points;
- the shared strings are `<si><t>text</t></si>` (or `<t/>`) one after the other.

Anything else — attributes in another order, a prefix (`x:c`), a formula (`<f>`), rich text, CDATA, a
comment, whitespace between tags, a cell without `r`, a row past a limit, a value openpyxl's conversion
refuses — returns None and the caller reads the part with the exact parser, from its start. So the fast
path is an optimisation only: tests/test_xlsx_equality.py compares both with openpyxl, cell by cell.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import IO, Any, Callable

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
CHUNK = 1 << 20  # bytes of sheet XML read at a time: whole rows are converted before the next read
PREFIX_MAX = 1 << 20  # bytes before <sheetData> (views, columns, ...); past it the exact parser reads
SUFFIX_MAX = 16 << 20  # bytes after </sheetData> (merged cells, margins, ...)

_PLAIN = r'[^<&>\r\x00-\x08\x0b\x0c\x0e-\x1f]*'
_TEXT = _PLAIN + r'(?:&(?:amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});' + _PLAIN + ')*'  # unrolled: one C loop
_CELL = (r'<c r="[A-Z]{1,3}[0-9]{1,7}"(?: s="[0-9]{1,9}")?(?: t="(?:s|n|b|e|str|d|inlineStr)")?'
         r'(?:/>|>(?:<v>' + _TEXT + r'</v>|<v/>|<is><t(?: xml:space="preserve")?>' + _TEXT
         + r'</t></is>|<is><t/></is>)?</c>)')
_ATTRS = r'(?: [A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?="[^"<&>]*")*'
# one whole row, strictly: the scan below checks that rows follow one another with nothing between them
_ROW = re.compile(r'<row r="([0-9]{1,9})"(' + _ATTRS + r')(?:/>|>((?:' + _CELL + r')*)</row>)')
# the captures of one cell of a row `_ROW` matched (so the loose classes here cannot misread it)
_CELLS = re.compile(r'<c r="([A-Z]+)[0-9]+"(?: s="([0-9]+)")?(?: t="([a-zA-Z]+)")?'
                    r'(?:/>|>(?:<v>([^<]*)</v>|<v/>|(<is>)<t[^>]*?(?:/>|>([^<]*)</t>)</is>)?</c>)')
_SI = re.compile(r'(?:<si><t(?: xml:space="preserve")?>' + _TEXT + r'</t></si>|<si><t/></si>)*')
_SI_TEXT = re.compile(r'<si><t[^>]*?(?:/>|>([^<]*)</t>)</si>')
_PROLOG = re.compile(rb'(?:\xef\xbb\xbf)?(?:<\?xml version="1\.0"(?: encoding="[Uu][Tt][Ff]-8")?'
                     rb'(?: standalone="(?:yes|no)")?\s*\?>\s*)?')
_ENTITY = re.compile(r'&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);')
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_FORBIDDEN = re.compile("[\ufffe\uffff]")


class Fallback(Exception):
    """The fast path does not account for this part: read it with the exact parser."""


def _entity(m: re.Match) -> str:
    name = m.group(1)
    if name[0] != "#":
        return _NAMED[name]
    code = int(name[2:], 16) if name[1] == "x" else int(name[1:])
    if code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or 0x10000 <= code <= 0x10FFFF:
        return chr(code)
    raise Fallback  # a reference to a character XML forbids: the parser refuses the file


def unescape(text: str) -> str:
    """`text` with its entity and character references replaced, as the XML parser replaces them."""
    return _ENTITY.sub(_entity, text) if "&" in text else text


def _decode(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Fallback from None
    if _FORBIDDEN.search(text):
        raise Fallback
    return text


def _prolog_end(head: bytes) -> int:
    """Where the root element starts after an accepted XML declaration; Fallback for any other prolog."""
    end = _PROLOG.match(head).end()
    if head[end:end + 1] != b"<" or head[end:end + 2] in (b"<?", b"<!"):
        raise Fallback  # another encoding, a DOCTYPE (entities), a comment or processing instruction
    return end


def _skeleton(xml: bytes, root: str, holder: str, inner: tuple[str, ...]) -> None:
    """Check the part with its repeated content cut out: well-formed, root `root`, one `holder` element
    (unprefixed, so the default namespace inside it is SpreadsheetML's) and no `inner` element elsewhere."""
    try:
        tree = ET.fromstring(xml)
    except ET.ParseError:
        raise Fallback from None
    if tree.tag != f"{{{MAIN}}}{root}":
        raise Fallback
    found = [el for el in tree.iter() if el.tag == f"{{{MAIN}}}{holder}"]
    if len(found) != 1 or found[0].attrib or len(found[0]) or any(
            el.tag in {f"{{{MAIN}}}{t}" for t in inner} for el in tree.iter()):
        raise Fallback


def shared_strings(data: bytes) -> list[str] | None:
    """The shared strings of `xl/sharedStrings.xml` (its bytes) as openpyxl's `read_string_table` reads
    them (each `<si>`'s text, `x005F_` removed), or None when the fast path does not account for them."""
    try:
        start = _prolog_end(data[:4096])
        open_end = data.find(b">", start)
        close = data.rfind(b"</sst>")
        if open_end < 0 or close < open_end or data[close + 6:].strip():
            raise Fallback
        _skeleton(data[:open_end + 1] + b"<si/>" + data[close:], "sst", "si", ("t", "r"))
        body = _decode(data[open_end + 1:close])
        if _SI.fullmatch(body) is None:
            raise Fallback
        return [unescape(t).replace("x005F_", "") for t in _SI_TEXT.findall(body)]
    except Fallback:
        return None


class SheetScan:
    """One fast pass over a sheet's XML (`scan`), giving what `table._scan_sheet` gives: the rows as
    openpyxl's read-only `iter_rows(values_only=True)` hands them over (dimensions reset)."""

    def __init__(self, shared: list, date_formats: set, number: Callable[[str, int], Any],
                 other: Callable[[str, str], Any], columns: dict[str, int],
                 max_rows: int, max_cols: int, max_cells: int):
        self.shared, self.date_formats, self.number, self.other = shared, date_formats, number, other
        self.columns = columns
        self.max_rows, self.max_cols, self.max_cells = max_rows, max_cols, max_cells
        self.out: list[tuple] = []
        self.counter = 1  # the row number openpyxl hands over next
        self.cells = self.width = 0  # cells so far; cells openpyxl makes of the rows so far
        self.root = b""  # the part before <sheetData>, for checking a row's attributes
        self.attrs_ok: set[str] = {""}
        self.dated: dict[str, bool] = {"": 0 in date_formats}  # a cell's `s` → is it a date style
        self.ranges: list[list[int]] = [list(range(1, n + 1)) for n in range(65)]

    def scan(self, src: IO[bytes]) -> list[tuple] | None:
        """The sheet's rows, or None where the fast path does not account for every byte of it."""
        try:
            self._scan(src)
        except Fallback:
            return None
        except Exception:  # a value openpyxl's own conversion refuses: the exact parser says what and where
            return None
        return self.out

    def _scan(self, src: IO[bytes]) -> None:
        buf = b""
        while b"<sheetData" not in buf:
            chunk = src.read(64 << 10)
            buf += chunk
            if not chunk or len(buf) > PREFIX_MAX:
                raise Fallback
        at = buf.index(b"<sheetData")
        if buf[at:at + 11] != b"<sheetData>":
            raise Fallback  # attributes, or an empty <sheetData/>: rare, the exact parser reads it
        self.root = buf[:at + 11]
        _prolog_end(buf[:4096])
        buf = buf[at + 11:]
        while True:
            end = buf.find(b"</sheetData>")
            if end >= 0:
                self._rows(_decode(buf[:end]))
                tail = buf[end:] + src.read(SUFFIX_MAX + 1)
                if len(tail) > SUFFIX_MAX:
                    raise Fallback
                _skeleton(self.root + tail, "worksheet", "sheetData", ("row", "c"))
                return
            cut = buf.rfind(b"</row>")
            if cut >= 0:
                self._rows(_decode(buf[:cut + 6]))
                buf = buf[cut + 6:]
            chunk = src.read(CHUNK)
            if not chunk:
                raise Fallback  # the XML breaks off: the exact parser reports where
            buf += chunk

    def _check_attrs(self, attrs: str) -> None:
        """A row's other attributes, once per distinct list: no namespace declaration, no second `r`, and
        well-formed for the XML parser (no duplicate, no unbound prefix)."""
        if "xmlns" in attrs or " r=" in attrs:
            raise Fallback
        try:
            ET.fromstring(self.root + f'<row r="1"{attrs}/></sheetData></worksheet>'.encode())
        except ET.ParseError:
            raise Fallback from None
        self.attrs_ok.add(attrs)

    def _dated(self, s: str) -> bool:
        self.dated[s] = int(s) in self.date_formats
        return self.dated[s]

    def _rows(self, text: str) -> None:
        """Convert the whole rows in `text` (nothing else may be there), checking the limits row by row."""
        out, shared, columns, date_formats = self.out, self.shared, self.columns, self.date_formats
        ranges, attrs_ok, find, dated = self.ranges, self.attrs_ok, _CELLS.findall, self.dated
        pos, size = 0, len(text)
        match = _ROW.match
        while pos < size:
            m = match(text, pos)
            if m is None:
                raise Fallback
            pos = m.end()
            number, attrs, body = m.groups()
            if attrs not in attrs_ok:
                self._check_attrs(attrs)
            parsed = int(number)
            if parsed > self.max_rows:
                raise Fallback  # the exact parser raises E302 at the same row
            cells = find(body) if body else ()
            if cells:
                cols = [columns[c[0]] for c in cells]
                self.cells += len(cells)
                widest = max(cols)
                if widest > self.max_cols or self.cells > self.max_cells or self.width + widest > self.max_cells:
                    raise Fallback  # E302, raised by the exact parser at the same cell
                self.width += cols[-1]
                amp = "&" in body
                values = []
                for letters, s, t, v, inline, itext in cells:
                    if t == "s":
                        values.append(shared[int(v)] if v else None)
                    elif not t or t == "n":
                        if not v:
                            values.append(None)
                        elif amp or (dated[s] if s in dated else self._dated(s)):
                            values.append(self.number(unescape(v), int(s) if s else 0))
                        else:
                            values.append(float(v) if "." in v or "E" in v or "e" in v else int(v))
                    elif t == "inlineStr":
                        values.append(unescape(itext) if inline else None)
                    else:
                        values.append(self.other(t, unescape(v)) if v else None)
            else:
                cols = values = []
            while self.counter < parsed:  # rows missing before this one
                self.counter += 1
                out.append(())
            if self.counter <= parsed:
                self.counter += 1
                n = len(cols)
                if not n:
                    out.append(())
                elif n < 65 and cols == ranges[n]:  # A, B, C, ... in order: the usual row
                    out.append(tuple(values))
                else:
                    line = [None] * cols[-1]
                    for c, v in zip(cols, values):
                        if 1 <= c <= len(line):
                            line[c - 1] = v
                    out.append(tuple(line))
