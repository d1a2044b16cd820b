"""Issue 33's hostile inputs, built small and run against a rulekit checkout: exit code, time, peak memory.

    python benchmarks/hostile.py                          # this checkout, every attack
    python benchmarks/hostile.py --checkout ../main xlsx-row-1e8 deep-dir
    python benchmarks/hostile.py --cpu 60 --json out.json

Each attack's files are written to a temporary directory (zip and gzip bombs from one deflate block
repeated after a full flush; 1.9 GB lines as sparse files: nothing large is written to disk). Each
`rulekit` command runs as `python -m rulekit` with the checkout first on PYTHONPATH, under a 4 GiB
address-space cap and a CPU-time cap (`--cpu`, default 120 s; a run stopped there is "killed"), so a
number does not depend on how loaded the machine is: CPU seconds are the time to compare, wall
seconds are printed beside them. Peak memory is the largest resident size of the process and the
children it waited for (os.wait4). `enospc` needs a directory on a full filesystem (`--full DIR`, e.g.
a 64k tmpfs); it is skipped without one.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VILA = ROOT / "tests" / "fixtures" / "reproduce" / "vlmevalkit-vila" / "vila_13b"
NS = b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'


# ---------------------------------------------------------------- file builders
def deflate_bomb(head: bytes, unit: bytes, times: int, tail: bytes) -> tuple[bytes, int]:
    """(raw deflate data, inflated size) of head + unit * times + tail, the unit compressed once."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = c.compress(head) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(unit) + c.flush(zlib.Z_FULL_FLUSH)
    return first + block * times + c.compress(tail) + c.flush(), len(head) + len(unit) * times + len(tail)


def gzip_bomb(head: bytes, unit: bytes, times: int, tail: bytes) -> bytes:
    data, _ = deflate_bomb(head, unit, times, tail)
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + data + struct.pack("<II", 0, 0)  # CRC never reached


def write_zip(path: Path, members: dict[str, bytes], raw: dict | None = None) -> None:
    """A zip written by hand: `members` deflated, `raw` {name: (deflate data, inflated size)} as given."""
    out, central = bytearray(), bytearray()
    entries = []
    for name, data in members.items():
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        entries.append((name, c.compress(data) + c.flush(), len(data), zlib.crc32(data)))
    entries += [(name, data, size, 0) for name, (data, size) in (raw or {}).items()]
    for name, data, size, crc in entries:
        offset, bname = len(out), name.encode()
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(data), size, len(bname), 0)
        out += bname + data
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, crc, len(data), size,
                               len(bname), 0, 0, 0, 0, 0, offset) + bname
    out += central + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), len(out), 0)
    path.write_bytes(bytes(out))


def xlsx(path: Path, sheet: bytes | None, raw: dict | None = None) -> Path:
    ct = (b'<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
          b'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
          b'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/'
          b'workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
          b'<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-'
          b'officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType='
          b'"application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>')
    rels = (b'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/'
            b'2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
            b'relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>')
    wb = (b'<?xml version="1.0" encoding="UTF-8"?><workbook ' + NS + b' xmlns:r="http://schemas.openxmlformats.org/'
          b'officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>')
    wbrels = (b'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/'
              b'2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
              b'2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://'
              b'schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>'
              b'</Relationships>')
    members = {"[Content_Types].xml": ct, "_rels/.rels": rels, "xl/workbook.xml": wb, "xl/_rels/workbook.xml.rels": wbrels}
    if sheet is not None:
        members["xl/worksheets/sheet1.xml"] = sheet
    if "xl/sharedStrings.xml" not in (raw or {}):
        members["xl/sharedStrings.xml"] = b'<?xml version="1.0" encoding="UTF-8"?><sst ' + NS + b"></sst>"
    write_zip(path, members, raw)
    return path


def sheet(rows: bytes, head: bytes = b"") -> bytes:
    return b'<?xml version="1.0" encoding="UTF-8"?><worksheet ' + NS + b">" + head + b"<sheetData>" + rows + \
        b"</sheetData></worksheet>"


def row(n: int, *texts: str, extra: bytes = b"") -> bytes:
    cells = b"".join(f'<c r="{"ABCDEFG"[i]}{n}" t="inlineStr"><is><t>{t}</t></is></c>'.encode() for i, t in enumerate(texts))
    return f'<row r="{n}">'.encode() + cells + extra + b"</row>"


PRED = row(1, "index", "prediction", "answer", "A", "B") + row(2, "1", "B", "B", "cat", "dog")


def sparse(path: Path, head: bytes, size: int) -> Path:
    path.write_bytes(head)
    os.truncate(path, size)
    return path


def predictions(folder: Path, n: int = 20) -> None:
    (folder / "m_MMStar.tsv").write_text("index\tquestion\tA\tB\tanswer\tprediction\tcategory\n"
                                          + "".join(f"{i}\tq\tx\ty\tA\tA\tc{i % 2}\n" for i in range(n)))


def png(path: Path, width: int, height: int) -> str:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))
    return path.name


def items(folder: Path, images: list[str]) -> list[str]:
    path = folder / "items.jsonl"
    path.write_text(json.dumps({"id": "q1", "question": "?", "choices": ["a", "b"], "answer": "A", "images": images}) + "\n")
    return ["generate", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--data", str(path),
            "--output", str(folder / "out.jsonl"), "--prompt", "vlmevalkit-mcq"]


def lmms_run(folder: Path, lines: int, configs) -> None:
    import gzip

    (folder / "20250101_results.json").write_text(json.dumps({
        "results": {"mme": {"mme_perception_score,none": 1.0}}, "model_name": "m", "configs": configs}))
    with gzip.open(folder / "20250101_samples_mme.jsonl.gz", "wb", compresslevel=1) as f:
        line = b'{"doc_id": %d, "target": "Yes", "filtered_resps": ["Yes"], "mme_perception_score": {"question_id": ' \
               b'"q%d", "category": "color", "score": 1.0}}\n'
        for start in range(0, lines, 100_000):
            f.write(b"".join(line % (i, i) for i in range(start, min(lines, start + 100_000))))


# ---------------------------------------------------------------- the attacks: name -> builder(folder) -> args
def a_xlsx_sst_bomb(d: Path):
    head = b'<?xml version="1.0" encoding="UTF-8"?><sst ' + NS + b">"
    bomb = deflate_bomb(head, b"<si><t>aaaaaaaaaaaaaaa</t></si>" * 32768, 1650, b"</sst>")  # 1.65 GB
    return ["eval", "-r", "vlmevalkit", str(xlsx(d / "p.xlsx", sheet(PRED), {"xl/sharedStrings.xml": bomb}))]


def a_xlsx_row_1e8(d: Path):
    return ["eval", "-r", "vlmevalkit", str(xlsx(d / "p.xlsx", sheet(PRED + row(100_000_000, "2", "A", "A", "x", "y"))))]


def a_xlsx_300k_columns(d: Path):
    head = row(1, "index", "prediction", "answer").replace(b"</row>", b"")
    cells = b"".join(f'<c t="inlineStr"><is><t>c{i}</t></is></c>'.encode() for i in range(300_000))
    return ["eval", "-r", "vlmevalkit", str(xlsx(d / "p.xlsx", sheet(head + cells + b"</row>")))]


def a_padded_acc_xlsx(d: Path):
    predictions(d)
    last = b'<row r="1048576"><c r="XFD1048576" t="inlineStr"><is><t></t></is></c></row>'
    xlsx(d / "m_MMStar_acc.xlsx", sheet(row(1, "split", "Overall") + row(2, "none", "1.0") + last,
                                        b'<dimension ref="A1:XFD1048576"/>'))
    return ["reproduce", str(d)]


def a_gzip_bomb_results_json(d: Path):
    (d / "20250101_results.json").write_bytes(gzip_bomb(b'{"results": {"mme": {"x,none": 1.0}}, "configs": {}, "p": "',
                                                        b" " * (1 << 20), 3100, b'"}'))
    return ["reproduce", str(d)]


def a_samples_3m_jsonl_gz(d: Path):
    lmms_run(d, 3_000_000, {"mme": {"metric_list": [{"metric": "mme_perception_score", "aggregation": "mme_aggregate"}]}})
    return ["reproduce", str(d)]


def a_sparse_acc_csv(d: Path):
    predictions(d)
    sparse(d / "m_MMStar_acc.csv", b"split,Overall\nnone,1.0\n", 1_200_000_000)
    return ["reproduce", str(d)]


def a_acc_csv_30k_columns(d: Path):
    predictions(d, 1000)
    cols = [f"c{i}" for i in range(30_000)]
    (d / "m_MMStar_acc.csv").write_text("split,Overall," + ",".join(cols) + "\nnone,1.0," + ",".join("1.0" for _ in cols) + "\n")
    return ["reproduce", str(d)]


def a_csv_field_1_9gb(d: Path):
    return ["eval", "-r", "vlmevalkit", str(sparse(d / "p.csv", b'id,answer,response\n1,A,"', 1_900_000_000))]


def a_jsonl_line_1_9gb(d: Path):
    head = b'{"id": "1", "answer": "A", "choices": {"A": "x"}, "response": "'
    return ["eval", "-r", "vlmevalkit", str(sparse(d / "p.jsonl", head, 1_900_000_000))]


def a_circular_log(d: Path):
    import openpyxl

    for name in ("vila_13b_CCBench.xlsx", "vila_13b_CCBench_acc.csv"):
        shutil.copy(VILA / name, d / name)
    wb = openpyxl.load_workbook(VILA / "vila_13b_CCBench_openai_result.xlsx")
    ws = wb.active
    ws.cell(row=3, column=[c.value for c in ws[1]].index("log") + 1).value = \
        "Rolling 0: Answer is A, Prediction is B, " * 2500
    wb.save(d / "vila_13b_CCBench_openai_result.xlsx")
    return ["reproduce", str(d)]


def a_sympy_1m_mathvision(d: Path):
    (d / "r.jsonl").write_text(json.dumps({"id": "1", "question_type": "open", "answer": "7",
                                           "response": "1+" * 499_990 + "1"}) + "\n")
    return ["eval", "-r", "vlmevalkit-mathvision", str(d / "r.jsonl"), "--format", "json"]


def a_sympy_1m_physics(d: Path):
    (d / "r.jsonl").write_text(json.dumps({"id": "1", "question_type": "open", "answer": ["\\frac{1}{2}"],
                                           "response": "\\boxed{" + "1+" * 499_990 + "1}"}) + "\n")
    return ["eval", "-r", "physics", str(d / "r.jsonl"), "--format", "json"]


def a_eight_9000px_images(d: Path):
    png(d / "big.png", 9000, 9000)
    return items(d, ["big.png"] * 8)


def a_image_bomb(d: Path):
    return items(d, [png(d / "bomb.png", 60000, 60000)])


def a_deep_dir(d: Path):
    here = os.getcwd()
    os.chdir(d)
    try:
        for _ in range(1500):
            os.mkdir("d")
            os.chdir("d")
    finally:
        os.chdir(here)
    return ["reproduce", str(d)]


def a_non_utf8_name_html(d: Path):
    with open(os.fsencode(str(d)) + b"/m\xff_MMStar.xlsx", "wb") as f:
        f.write(b"x")
    return ["reproduce", str(d), "--format", "html"]


def a_configs_list(d: Path):
    lmms_run(d, 3, {"mme": [1]})
    return ["reproduce", str(d)]


def a_bigint_dotted_field(d: Path):
    (d / "p.csv").write_text('id,response,info\n1,A,"{\'gold\': 10**5000}"\n')
    return ["eval", "-r", "vlmevalkit", str(d / "p.csv"), "--field", "id=info.gold"]


def a_bigint_list_literal_gold(d: Path):
    big = "[0x" + "f" * 5000 + "]"
    (d / "p.jsonl").write_text(json.dumps({"id": "1", "question_type": "open", "response": "12", "answer": big,
                                           "meta": {"skills": big}}) + "\n")
    return ["eval", "-r", "mathvista", str(d / "p.jsonl"), "--by", "skills"]


def a_mmevalpro_score_not_number(d: Path):
    (d / "m_model_output.json").write_text(json.dumps([{"index": 0, "triplet_id": 1, "model_output": "A", "answer": "A",
                                                        "source": "s", "eval_type": "Origin"}]))
    (d / "m_score.json").write_text('{"s": {"genuine_accuracy_score": "abc"}}')
    return ["reproduce", str(d)]


def a_enospc(d: Path, full: Path | None):
    if full is None:
        return None
    (d / "p.jsonl").write_text("".join(json.dumps({"id": str(i), "response": "A" * 200, "answer": "A",
                                                   "choices": {"A": "x", "B": "y"}}) + "\n" for i in range(2000)))
    shutil.rmtree(full / "out", ignore_errors=True)
    return ["eval", "-r", "vlmevalkit", str(d / "p.jsonl"), "--output-dir", str(full / "out")]


ATTACKS = {name[2:].replace("_", "-"): fn for name, fn in list(globals().items()) if name.startswith("a_")}


# ---------------------------------------------------------------- running
def run(checkout: Path, args: list[str], cpu: int) -> dict:
    """Exit code, CPU and wall seconds, peak MB and whether a traceback was printed, of `rulekit ARGS`."""
    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))

    env = {**os.environ, "PYTHONPATH": str(checkout), "RULEKIT_CACHE_DIR": "off"}
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-m", "rulekit", *args], stdout=subprocess.DEVNULL, stderr=err,
                                env=env, preexec_fn=limits)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    lines = [line for line in text.splitlines() if "error[" in line or "Error" in line]
    return {"exit": code, "killed": code in (-signal.SIGXCPU, -signal.SIGKILL), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "wall_s": round(time.perf_counter() - start, 2), "peak_mb": round(usage.ru_maxrss / 1024),
            "traceback": "Traceback" in text, "message": (lines[-1] if lines else "")[:200]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("attacks", nargs="*", help=f"default: all of {', '.join(ATTACKS)}")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the rulekit source tree to run (default: this one)")
    parser.add_argument("--cpu", type=int, default=120, help="CPU seconds before a run is stopped (default 120)")
    parser.add_argument("--full", type=Path, help="a directory on a full filesystem, for `enospc`")
    parser.add_argument("--json", type=Path, help="also write the results here")
    opts = parser.parse_args()
    results = {}
    print("| attack | exit | CPU s | wall s | peak MB | traceback | message |\n|---|---:|---:|---:|---:|---|---|")
    for name in opts.attacks or list(ATTACKS):
        with tempfile.TemporaryDirectory(prefix=f"rulekit-hostile-{name}-") as tmp:
            build = ATTACKS[name]
            args = build(Path(tmp), opts.full) if name == "enospc" else build(Path(tmp))
            if args is None:
                continue
            r = results[name] = run(opts.checkout.resolve(), args, opts.cpu)
            shown = "killed" if r["killed"] else r["exit"]
            print(f"| {name} | {shown} | {r['cpu_s']} | {r['wall_s']} | {r['peak_mb']} | {'yes' if r['traceback'] else ''} | "
                  f"{r['message'].replace('|', '/')} |", flush=True)
            if name == "deep-dir":  # shutil.rmtree recurses: take the tree down from its bottom
                for depth in range(1500, 0, -1):
                    os.rmdir(Path(tmp).joinpath(*["d"] * depth))
    if opts.json:
        opts.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
