"""`rulekit reproduce` of a ~50k-row VLMEvalKit work dir: this checkout against an older one, same run, with
plain openpyxl reading the same sheets beside them.

    python benchmarks/reproduce.py                    # 2 copies of each model: 48,032 sheet rows
    python benchmarks/reproduce.py --copies 1 --old-ref main --rounds 5

The work dir is tests/fixtures/reproduce/vlmevalkit-vila (two models, six real VLMEvalKit sheets each:
CCBench and its judge sheet, HallusionBench, MME, OCRBench, POPE; 24,016 rows with their `_acc.csv` /
`_score.csv` / `_score.json` reports) copied `--copies` times under new model names, so every copy is
scored and compared with its published numbers like the original. Each command runs in a fresh Python
process, `--rounds` times; the table gives the best round's wall seconds, its CPU seconds (user + system,
the children's rusage before and after) and its peak resident memory (VmHWM, printed by the process itself at exit: ru_maxrss would
carry this script's peak across fork+exec). "old" is `--old-ref`'s rulekit/ (git archive, put first on
PYTHONPATH); "new" is this checkout, with `--workers 1` and with its default (one worker per CPU; CPU seconds then
count the workers too, and the peak is the parent's / the largest worker's); "openpyxl" reads every sheet of the work dir with openpyxl's read-only
`iter_rows(values_only=True)` and does nothing else — the plain-Python floor of any scorer that reads the
sheets as VLMEvalKit (pandas.read_excel) does. The old and new runs must print the same numbers (checked).
Byte-compiled modules are written and used as a user's install does (PYTHONDONTWRITEBYTECODE is dropped for
the runs; the first round warms them).
Nothing here is a test: numbers are printed.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests/fixtures/reproduce/vlmevalkit-vila"

_RUN = r"""
import atexit, json, sys
def _peak():
    hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")]
    import resource  # the workers (`--workers`), joined before exit: the largest one's peak
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print("PEAK " + json.dumps({"peak_mb": int(hwm[0].split()[1]) / 1024 if hwm else 0, "worker_mb": kids,
                                 "rulekit": sys.modules["rulekit"].__file__ if "rulekit" in sys.modules else None}),
          file=sys.stderr)
atexit.register(_peak)
kind, workdir, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
if kind == "openpyxl":
    import pathlib, openpyxl
    rows = 0
    for path in sorted(pathlib.Path(workdir).rglob("*.xlsx")):
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
        ws = wb.active
        ws.reset_dimensions()
        rows += sum(1 for _ in ws.iter_rows(values_only=True))
        wb.close()
    print(f"{rows} rows")
else:
    import runpy
    sys.argv = ["rulekit", "reproduce", workdir, *extra]
    runpy.run_module("rulekit", run_name="__main__")
"""


def make_workdir(dest: Path, copies: int) -> int:
    """SOURCE's model folders copied `copies` times (`vila_13b`, `vila_13b_c2`, ...); the sheet rows in all."""
    import openpyxl

    rows = 0
    for model_dir in sorted(p for p in SOURCE.iterdir() if p.is_dir()):
        for c in range(1, copies + 1):
            name = model_dir.name if c == 1 else f"{model_dir.name}_c{c}"
            (dest / name).mkdir(parents=True)
            for f in model_dir.iterdir():
                shutil.copy(f, dest / name / f.name.replace(model_dir.name, name, 1))
                if f.suffix == ".xlsx" and c == 1:
                    ws = openpyxl.load_workbook(f, read_only=True).active
                    ws.reset_dimensions()
                    rows += copies * sum(1 for _ in ws.iter_rows(values_only=True))
    return rows


def run(kind: str, workdir: Path, pythonpath: Path | None, extra: tuple = ()) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as users run it: modules compiled once, not on every start
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath) + os.pathsep + env.get("PYTHONPATH", "")
    w0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _RUN, kind, str(workdir), *extra], cwd=workdir.parent, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate()
    wall = time.perf_counter() - w0
    peak = json.loads(next(line for line in err.decode().splitlines() if line.startswith("PEAK "))[5:])
    return {"wall_s": wall, "peak_mb": peak["peak_mb"], "worker_mb": peak["worker_mb"], "module": peak["rulekit"],
            "stdout": out.decode(), "rc": proc.returncode}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, default=2, help="copies of each model folder (2: 48,032 rows)")
    ap.add_argument("--old-ref", default="2107b98", help="git revision of the old rulekit (default: before issue 32's reader)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    import resource

    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp) / "workdir"
        rows = make_workdir(workdir, args.copies)
        old = Path(tmp) / "old"
        old.mkdir()
        archive = subprocess.run(["git", "archive", args.old_ref, "rulekit", "rulesets", "grammars", "layouts", "prompts"], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        results: dict[str, dict] = {}
        for _ in range(args.rounds):
            for kind, path, extra in (("openpyxl", None, ()), ("old", old, ()), ("new-1", None, ("--workers", "1")),
                                      ("new", None, ())):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                r = run("openpyxl" if kind == "openpyxl" else "rulekit", workdir, path, extra)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                r["cpu_s"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                if kind == "old":
                    assert r["module"] and r["module"].startswith(str(old)), r["module"]
                if kind in results and results[kind]["stdout"] != r["stdout"]:
                    raise SystemExit(f"{kind}: two rounds printed different output")
                if kind not in results or r["wall_s"] < results[kind]["wall_s"]:
                    results[kind] = r
        if results["new-1"]["stdout"] != results["new"]["stdout"]:
            raise SystemExit("--workers 1 and the default printed different output")
        if results["old"]["stdout"] != results["new"]["stdout"]:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(results["old"]["stdout"].splitlines(True),
                                                       results["new"]["stdout"].splitlines(True), "old", "new", n=0))
            raise SystemExit("old and new printed different numbers")
    summary = [line for line in results["new"]["stdout"].splitlines() if "reproduced" in line and "/" in line]
    print(f"work dir: {rows:,} sheet rows ({args.copies} copies of {SOURCE.relative_to(ROOT)}); "
          f"{summary[0].strip() if summary else '?'}; old = {args.old_ref}; best of {args.rounds}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print()
    print("| run | wall s | CPU s | peak MB (process / largest worker) |")
    print("|---|---:|---:|---:|")
    for kind, label in (("openpyxl", "openpyxl reads the sheets (nothing else)"),
                        ("old", f"rulekit reproduce, {args.old_ref}"),
                        ("new-1", "rulekit reproduce --workers 1, this checkout"),
                        ("new", f"rulekit reproduce (default: --workers {len(os.sched_getaffinity(0))}), this checkout")):
        r = results[kind]
        kids = f" / {r['worker_mb']:.0f}" if kind.startswith("new") and r["worker_mb"] else ""
        print(f"| {label} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} | {r['peak_mb']:.0f}{kids} |")
    if args.json:
        Path(args.json).write_text(json.dumps({k: {x: v for x, v in r.items() if x in ("wall_s", "cpu_s", "peak_mb", "worker_mb")}
                                               for k, r in results.items()}, indent=1))


if __name__ == "__main__":
    main()
