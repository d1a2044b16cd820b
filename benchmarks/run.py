"""End-to-end speed of `rulekit eval` against hand-written Python doing the same job, in one run.

    python benchmarks/run.py                 # real corpus + 200,000 synthetic MCQ records
    python benchmarks/run.py --n 1000000     # the 1M-record file

For each built-in MCQ ruleset with a plain-Python twin (lmms-eval, vlmevalkit) it times, on the
same JSONL file, `rulekit eval -r NAME FILE --output-dir D` and `benchmarks/baselines.py`, which
reads the same JSONL and writes the same decisions, and reports items/second, peak memory (max
RSS of the child process) and the ratio rulekit time / baseline time (≤ 1.0 means rulekit is at
least as fast). Other rulesets are timed alone. Nothing here is a test: numbers are printed.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent.parent / "shared" / "corpus" / "responses.jsonl"
TWINS = {"lmms-eval": "lmms", "vlmevalkit": "vlmevalkit"}


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, _, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, None) and os.waitstatus_to_exitcode(_) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode()}")
    return seconds, usage.ru_maxrss / 1024


def count_mcq(path: Path) -> int:
    """Multiple-choice records with options (what both sides score)."""
    n = 0
    with path.open("rb") as fh:
        for line in fh:
            if b'"multiple-choice"' in line and b'"choices": null' not in line:
                n += 1
    return n


def bench(path: Path, rulesets: list[str], out: Path) -> list[dict]:
    """Time every ruleset (and its twin) on one file."""
    rows, n = [], count_mcq(path)
    exe = [sys.executable, "-m", "rulekit.cli"]
    for name in rulesets:
        seconds, mem = timed(exe + ["eval", "-r", name, str(path), "--seed", "0", "--format", "json",
                                    "--output-dir", str(out / "rk")])
        row = {"file": path.name, "ruleset": name, "records": n, "rulekit_s": round(seconds, 2),
               "rulekit_items_s": round(n / seconds), "rulekit_peak_mb": round(mem)}
        if name in TWINS:
            b_seconds, b_mem = timed([sys.executable, str(HERE / "baselines.py"), "--parser", TWINS[name], str(path),
                                      "--output", str(out / f"{name}.baseline.jsonl")])
            row.update(baseline_s=round(b_seconds, 2), baseline_items_s=round(n / b_seconds),
                       baseline_peak_mb=round(b_mem), ratio=round(seconds / b_seconds, 2))
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def main() -> None:
    """Parse arguments, build the synthetic file, run, print a table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000, help="synthetic records (default 200,000)")
    ap.add_argument("--rulesets", default="lmms-eval,vlmevalkit,mmmu,vlmevalkit@v2")
    args = ap.parse_args()
    rulesets = args.rulesets.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        synth = out / f"synth-{args.n}.jsonl"
        subprocess.run([sys.executable, str(HERE / "synth.py"), str(args.n), str(synth)], check=True,
                       stdout=subprocess.DEVNULL)
        rows = bench(CORPUS, rulesets, out) + bench(synth, rulesets, out)
    print("\n| file | ruleset | records | rulekit items/s | peak MB | baseline items/s | peak MB | time ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['file']} | {r['ruleset']} | {r['records']:,} | {r['rulekit_items_s']:,} | {r['rulekit_peak_mb']} | "
              f"{r.get('baseline_items_s', '–'):,} | {r.get('baseline_peak_mb', '–')} | {r.get('ratio', '–')} |"
              if 'baseline_items_s' in r else
              f"| {r['file']} | {r['ruleset']} | {r['records']:,} | {r['rulekit_items_s']:,} | {r['rulekit_peak_mb']} | – | – | – |")


if __name__ == "__main__":
    main()
