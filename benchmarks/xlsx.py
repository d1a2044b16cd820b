"""Reading a VLMEvalKit result sheet: this checkout's `sheet_rows` against an older one's, same run.

    python benchmarks/xlsx.py            # 24,000 and 50,000 rows; old = 3a819f1 (openpyxl iter_rows)
    python benchmarks/xlsx.py --rows 24000 --old-ref main --calamine

The sheet is tests/fixtures' vila_13b_CCBench_openai_result.xlsx (a real VLMEvalKit result sheet: 12
columns, a judge `log` per row) repeated to N rows with a fresh `index`, written as xlsxwriter (which
VLMEvalKit uses) writes it: every string in the shared-strings table, numbers as `%.16g`. Each reader runs
in a fresh Python process (`python -c`), which reports its CPU seconds for reading every row and its peak
resident memory (VmHWM: ru_maxrss would carry this script's own peak across fork+exec), so one reader's garbage cannot slow the next. `--old-ref` names the git
revision whose rulekit/readers/table.py is the "old" reader (default 3a819f1, the last one where openpyxl
read the cells after a separate checking pass). `--calamine` also times python-calamine (not a rulekit
dependency: pip install python-calamine) and counts the cells where it differs from openpyxl's value or
type, which is why rulekit does not read through it.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests/fixtures/reproduce/vlmevalkit-vila/vila_13b/vila_13b_CCBench_openai_result.xlsx"
NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'

_CT = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
       '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
       '<Default Extension="xml" ContentType="application/xml"/>'
       '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
       '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
       '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>')
_RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
         '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>')
_WB = (f'<?xml version="1.0" encoding="UTF-8"?><workbook {NS} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
       '<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>')
_WBRELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
           '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
           '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>')


def _col(n: int) -> str:
    s = ""
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(65 + r) + s
    return s


def make_sheet(path: Path, rows: int) -> None:
    """SOURCE's rows repeated to `rows` rows (a header, then a fresh `index`), shared strings as xlsxwriter."""
    import openpyxl

    wb = openpyxl.load_workbook(SOURCE, read_only=True, data_only=True)
    ws = wb.active
    ws.reset_dimensions()
    src = list(ws.iter_rows(values_only=True))
    wb.close()
    header, body = src[0], src[1:]
    index = [str(h) for h in header].index("index")
    strings: dict[str, int] = {}
    # xlsxwriter writes the sheet's <dimension> first: without it, openpyxl's read-only sheet parses the whole
    # sheet once more just to find out there is none (any reader built on openpyxl pays that)
    out = [f'<?xml version="1.0" encoding="UTF-8"?><worksheet {NS}><dimension ref="A1:{_col(len(header))}{rows + 1}"/>'
           '<sheetData>']

    def cells(r: int, values: tuple) -> str:
        parts = []
        for c, v in enumerate(values, 1):
            ref = f"{_col(c)}{r}"
            if v is None:
                continue
            if isinstance(v, bool):
                parts.append(f'<c r="{ref}" t="b"><v>{int(v)}</v></c>')
            elif isinstance(v, (int, float)):
                parts.append(f'<c r="{ref}"><v>{v:.16g}</v></c>')
            else:
                i = strings.setdefault(str(v), len(strings))
                parts.append(f'<c r="{ref}" t="s"><v>{i}</v></c>')
        return f'<row r="{r}">' + "".join(parts) + "</row>"

    out.append(cells(1, header))
    for n in range(rows):
        values = list(body[n % len(body)])
        values[index] = n
        out.append(cells(n + 2, tuple(values)))
    out.append("</sheetData></worksheet>")
    sst = [f'<?xml version="1.0" encoding="UTF-8"?><sst {NS} count="{len(strings)}" uniqueCount="{len(strings)}">']
    sst += [f'<si><t xml:space="preserve">{escape(s)}</t></si>' for s in strings]
    sst.append("</sst>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in (("[Content_Types].xml", _CT), ("_rels/.rels", _RELS), ("xl/workbook.xml", _WB),
                           ("xl/_rels/workbook.xml.rels", _WBRELS), ("xl/worksheets/sheet1.xml", "".join(out)),
                           ("xl/sharedStrings.xml", "".join(sst))):
            z.writestr(name, data.encode())


_RUN = r"""
import json, resource, sys, time, importlib.util
kind, path, module = sys.argv[1], sys.argv[2], sys.argv[3]
t0 = time.process_time(); w0 = time.perf_counter()
if kind == "calamine":
    import python_calamine as pc
    rows = pc.CalamineWorkbook.from_path(path).get_sheet_by_index(0).to_python(skip_empty_area=False)
    n = len(rows)
else:
    spec = importlib.util.spec_from_file_location("table_under_test", module)
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    n = sum(1 for _ in m.sheet_rows(path))
cpu, wall = time.process_time() - t0, time.perf_counter() - w0
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")]  # this process's own peak, not
peak = int(hwm[0].split()[1]) / 1024 if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"rows": n, "cpu_s": cpu, "wall_s": wall, "peak_mb": peak}))  # ru_maxrss: the parent's
"""


def run(kind: str, path: Path, module: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _RUN, kind, str(path), str(module)], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def calamine_mismatches(path: Path) -> tuple[int, int]:
    """(cells compared, cells whose value or type differs from openpyxl's) over the whole sheet."""
    import openpyxl
    import python_calamine as pc

    wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    ws = wb.active
    ws.reset_dimensions()
    old = list(ws.iter_rows(values_only=True))
    new = pc.CalamineWorkbook.from_path(str(path)).get_sheet_by_index(0).to_python(skip_empty_area=False)
    seen = differ = 0
    for a, b in zip(old, new):
        for i, x in enumerate(a):
            y = b[i] if i < len(b) else None
            y = None if y == "" else y
            seen += 1
            differ += type(x) is not type(y) or x != y
    return seen, differ


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, nargs="+", default=[24_000, 50_000])
    ap.add_argument("--old-ref", default="3a819f1", help="git revision of the old reader")
    ap.add_argument("--calamine", action="store_true", help="also time python-calamine and count its differences")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "table_old.py"
        old.write_text(subprocess.run(["git", "show", f"{args.old_ref}:rulekit/readers/table.py"], cwd=ROOT,
                                      capture_output=True, text=True, check=True).stdout)
        new = ROOT / "rulekit/readers/table.py"
        for rows in args.rows:
            path = Path(tmp) / f"sheet_{rows}.xlsx"
            make_sheet(path, rows)
            line = {"rows": rows, "file_mb": round(path.stat().st_size / 2**20, 1)}
            for name, module in (("old", old), ("new", new)) + ((("calamine", new),) if args.calamine else ()):
                r = run(name if name == "calamine" else "rulekit", path, module)
                line[name] = {k: round(v, 2) if isinstance(v, float) else v for k, v in r.items()}
            if args.calamine:
                line["calamine_cells"], line["calamine_differ"] = calamine_mismatches(path)
            results.append(line)
            print(json.dumps(line), flush=True)
    print()
    print("| rows | file MB | old CPU s | new CPU s | speed-up | old peak MB | new peak MB |"
          + (" calamine CPU s | calamine cells differing |" if args.calamine else ""))
    print("|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if args.calamine else ""))
    for r in results:
        o, n = r["old"], r["new"]
        tail = (f" {r['calamine']['cpu_s']} | {r['calamine_differ']:,} / {r['calamine_cells']:,} |"
                if args.calamine else "")
        print(f"| {r['rows']:,} | {r['file_mb']} | {o['cpu_s']} | {n['cpu_s']} | {o['cpu_s'] / n['cpu_s']:.2f}x"
              f" | {o['peak_mb']:.0f} | {n['peak_mb']:.0f} |" + tail)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
