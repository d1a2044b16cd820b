"""Single-core throughput of the hand-written baselines on the real corpus.

    python benchmarks/bench_baselines.py [--repeat 5] [--json OUT.json]

Parse-only timing: records are loaded first, then each parser runs over the labelled subset
(multiple-choice records with options; open records for the open-ended pair). Best of --repeat.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
import baselines as bl  # noqa: E402

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "responses.jsonl"


def _best(fn, items, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(items)
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    recs = [orjson.loads(line) for line in open(args.corpus, "rb") if line.strip()]
    mcq = [(r["response"], r["choices"]) for r in recs if r["question_type"] == "multiple-choice" and r["choices"]]
    opn = [(r["response"], r["answer"] if isinstance(r["answer"], str) else str(r["answer"]))
           for r in recs if r["question_type"] == "open"]

    def run_mcq(f, **kw):
        def go(items):
            for resp, ch in items:
                f(resp, ch, **kw)
        return go

    def run_open(items):
        for resp, gold in items:
            bl.mmmu_eval_open(gold, bl.mmmu_parse_open(resp))

    cases = [
        ("lmms_mcq", run_mcq(bl.lmms_mcq), mcq),
        ("mmmu_mcq", run_mcq(bl.mmmu_mcq), mcq),
        ("vmcbench_mcq", run_mcq(bl.vmcbench_mcq), mcq),
        ("vlmeval_can_infer v3", run_mcq(bl.vlmeval_can_infer, version=3), mcq),
        ("vlmeval_can_infer v2", run_mcq(bl.vlmeval_can_infer, version=2), mcq),
        ("vlmeval_can_infer v1", run_mcq(bl.vlmeval_can_infer, version=1), mcq),
        ("mmmu_parse_open + mmmu_eval_open", run_open, opn),
    ]
    results = {}
    for name, fn, items in cases:
        dt = _best(fn, items, args.repeat)
        results[name] = {"items": len(items), "seconds": dt, "items_per_s": len(items) / dt}
        print(f"{name:36s} {len(items):6d} items  {len(items) / dt:12,.0f} items/s")
    if args.json:
        args.json.write_bytes(orjson.dumps(results, option=orjson.OPT_INDENT_2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
