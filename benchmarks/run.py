"""End-to-end speed of `rulekit eval` against hand-written Python doing the same job, in one run.

    python benchmarks/run.py                 # real corpus + 200,000 synthetic MCQ records
    python benchmarks/run.py --n 1000000     # the 1M-record file

For each built-in MCQ ruleset with a plain-Python twin (lmms-eval, mmmu, vmcbench, vlmevalkit and
its v1/v2 variants) it times, on the same JSONL file, `rulekit eval -r NAME FILE --output-dir D` and
`benchmarks/baselines.py`, which reads the same JSONL and writes the same decisions (lmms-eval and
mmmu: open-ended questions scored too, as those rulesets do), reports
items/second, peak memory and the ratio rulekit time / baseline time (≤ 1.0 means rulekit is at
least as fast), and checks that the two predicted the same letter on every record. rulekit runs
once per `--workers` count (default: 1 and one per CPU). Peak memory is given twice: the largest
single process (max RSS) and the whole process tree (parent + workers, summed proportional set
size, so shared pages count once; sampled every 50 ms).
Other rulesets are timed alone. Nothing here is a test: numbers are printed.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent.parent / "shared" / "corpus" / "responses.jsonl"
TWINS = {  # ruleset → the arguments of its hand-written twin in baselines.py
    # lmms-eval and mmmu score open-ended questions too (parse_open_response + eval_open), as rulekit does
    "lmms-eval": ["--parser", "lmms", "--open"], "mmmu": ["--parser", "mmmu", "--open"],
    "vmcbench": ["--parser", "vmcbench"],
    "vlmevalkit": ["--parser", "vlmevalkit"], "vlmevalkit@v2": ["--parser", "vlmevalkit", "--vlmeval-version", "2"],
    "vlmevalkit@v1": ["--parser", "vlmevalkit", "--vlmeval-version", "1"],
}


def _tree_pss_mb(root: int) -> float:
    """Memory (MB) of process `root` and all its descendants: the sum of their proportional set sizes
    (/proc/PID/smaps_rollup), so pages forked workers share with the parent are counted once."""
    parent = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                parent[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, pp in parent.items() if pp in tree and pid not in tree}
        tree |= more
        grew = bool(more)
    total = 0
    for pid in tree:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as fh:
                total += sum(int(line.split()[1]) for line in fh if line.startswith("Pss:"))
        except OSError:
            continue
    return total / 1024


def timed(cmd: list[str]) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MB) of the largest single process, and the peak memory (MB) of the
    whole process tree (parent + worker processes, summed PSS, sampled every 50 ms) of one command."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak_tree, done = [0.0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak_tree[0] = max(peak_tree[0], _tree_pss_mb(proc.pid))
            time.sleep(0.05)
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)  # usage: this child and the workers it waited for
    seconds = time.perf_counter() - start
    done.set()
    sampler.join()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{err.decode()}")
    return seconds, usage.ru_maxrss / 1024, peak_tree[0]


def count_mcq(path: Path) -> int:
    """Multiple-choice records with options (what both sides score)."""
    n = 0
    with path.open("rb") as fh:
        for line in fh:
            if b'"multiple-choice"' in line and b'"choices": null' not in line:
                n += 1
    return n


def same_predictions(ours: Path, twin: Path) -> str:
    """Whether the twin predicted what rulekit did on every record the twin scored ("yes", or how
    many differ; open-ended records: whether both scored it right or wrong): the timing compares two
    programs doing the same job only if it is the same.
    Both files are in input order and the twin's records are a subsequence of ours, so they are
    walked side by side (this process stays small: its children inherit its memory until exec)."""
    import orjson

    differ = total = 0
    with ours.open("rb") as mine, twin.open("rb") as theirs:
        rows = map(orjson.loads, mine)
        for row in map(orjson.loads, theirs):
            total += 1
            for candidate in rows:
                if candidate["id"] == row["id"]:  # an open-ended row of the twin has `correct`, no `pred`
                    key = "pred" if "pred" in row else "correct"
                    differ += candidate[key] != row[key]
                    break
            else:
                return f"{total:,}th record of the twin ({row['id']}) not in rulekit's decisions"
    return "yes" if not differ else f"{differ:,} of {total:,} differ"


def bench(path: Path, rulesets: list[str], out: Path, workers: list[int]) -> list[dict]:
    """Time every ruleset (with 1 and N worker processes) and its twin on one file."""
    rows, n = [], count_mcq(path)
    exe = [sys.executable, "-m", "rulekit.cli"]
    for name in rulesets:
        base = None
        if name in TWINS:
            base = timed([sys.executable, str(HERE / "baselines.py"), *TWINS[name], "--seed", "0", str(path),
                          "--output", str(out / f"{name}.baseline.jsonl")])
        for w in workers:
            seconds, mem, tree = timed(exe + ["eval", "-r", name, str(path), "--seed", "0", "--format", "json",
                                              "--workers", str(w), "--output-dir", str(out / "rk")])
            row = {"file": path.name, "ruleset": name, "workers": w, "records": n, "rulekit_s": round(seconds, 2),
                   "rulekit_items_s": round(n / seconds), "rulekit_peak_mb": round(mem), "rulekit_tree_mb": round(tree)}
            if base is not None:
                row.update(baseline_s=round(base[0], 2), baseline_items_s=round(n / base[0]),
                           baseline_peak_mb=round(base[1]), ratio=round(seconds / base[0], 2),
                           same_decisions=same_predictions(out / "rk" / f"{name}.decisions.jsonl",
                                                           out / f"{name}.baseline.jsonl"))
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def main() -> None:
    """Parse arguments, build the synthetic file, run, print a table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000, help="synthetic records (default 200,000; 0: the corpus only)")
    ap.add_argument("--rulesets", default="lmms-eval,vlmevalkit,mmmu,vlmevalkit@v2,vmcbench")
    ap.add_argument("--workers", default=f"1,{os.cpu_count()}", help="worker counts to time (default 1,CPUs)")
    ap.add_argument("--skip-corpus", action="store_true", help="only the synthetic file")
    args = ap.parse_args()
    rulesets = args.rulesets.split(",")
    workers = sorted({int(w) for w in args.workers.split(",")})
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        rows = [] if args.skip_corpus else bench(CORPUS, rulesets, out, workers)
        if args.n > 0:
            synth = out / f"synth-{args.n}.jsonl"
            subprocess.run([sys.executable, str(HERE / "synth.py"), str(args.n), str(synth)], check=True,
                           stdout=subprocess.DEVNULL)
            rows += bench(synth, rulesets, out, workers)
    print("\n| file | ruleset | workers | records | rulekit items/s | peak MB (largest process / all) "
          "| baseline items/s | peak MB | time ratio | same predictions |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        print(f"| {r['file']} | {r['ruleset']} | {r['workers']} | {r['records']:,} | {r['rulekit_items_s']:,} | "
              f"{r['rulekit_peak_mb']} / {r['rulekit_tree_mb']} | "
              + (f"{r['baseline_items_s']:,} | {r['baseline_peak_mb']} | {r['ratio']} | {r['same_decisions']} |"
                 if "ratio" in r else "– | – | – | – |"))


if __name__ == "__main__":
    main()
