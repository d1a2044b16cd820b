"""Rebuild rulekit/data/sample.jsonl and SAMPLE.md from the shared corpus (deterministic).

    python benchmarks/make_sample.py [--corpus ../shared/corpus/responses.jsonl]

Copies ~400 corpus lines verbatim (byte for byte, in corpus order), picked per bucket with
``random.Random(f"{SEED}:{bucket}")`` over the bucket's records sorted by id. Only
multiple-choice records that ship choices, and open records, are eligible (so no BLINK or
MMEvalPro). A few empty replies and replies with control characters are added on purpose.
"""
from __future__ import annotations

import argparse
import collections
import json
import random
import re
from pathlib import Path

SEED = 20240601
ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "responses.jsonl"
OUT = ROOT / "rulekit" / "data"
MC, OPEN = "multiple-choice", "open"
# (name, benchmark, question_type, model or None, how many)
BUCKETS = [
    ("mmmu-mc-llava", "MMMU", MC, "llava1.5_13b", 60),
    ("mmmu-mc-qwen", "MMMU", MC, "qwen_vl", 60),
    ("mmmu-open-llava", "MMMU", OPEN, "llava1.5_13b", 20),
    ("mmmu-open-qwen", "MMMU", OPEN, "qwen_vl", 20),
    ("mmmu-pro", "MMMU-Pro", MC, None, 25),
    ("mathvista-mc", "MathVista", MC, None, 20),
    ("mathvista-open", "MathVista", OPEN, None, 20),
    ("scienceqa", "ScienceQA", MC, None, 20),
    ("mmbench", "MMBench", MC, None, 20),
    ("mmstar", "MMStar", MC, None, 20),
    ("m3cot", "M3CoT", MC, None, 20),
    ("mmlu-pro", "MMLU-Pro", MC, None, 20),
    ("emma-mc", "EMMA-mini", MC, None, 10),
    ("emma-open", "EMMA-mini", OPEN, None, 10),
    ("math-v-mc", "MATH-Vision", MC, None, 8),
    ("math-v-open", "MATH-Vision", OPEN, None, 8),
    ("m4u", "M4U", MC, None, 8),
    ("gaokao", "GAOKAO-Bench", MC, None, 8),
    ("theoremqa", "TheoremQA", OPEN, None, 6),
    ("hallusionbench", "HallusionBench", OPEN, None, 4),
]
EMPTY_PER_BENCHMARK = 2
CONTROL_PER_BENCHMARK = 4
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def eligible(r: dict) -> bool:
    """Multiple-choice with choices, or open."""
    return r["question_type"] == OPEN or bool(r["choices"])


def pick(cands: list[tuple[int, dict]], k: int, name: str, taken: set[int]) -> list[int]:
    """k line numbers drawn deterministically from `cands`, skipping ones already taken."""
    pool = sorted((r["id"], n) for n, r in cands if n not in taken)
    got = [n for _, n in random.Random(f"{SEED}:{name}").sample(pool, min(k, len(pool)))]
    taken.update(got)
    return got


def main() -> None:
    """Select the sample and write sample.jsonl and SAMPLE.md."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    lines = Path(args.corpus).read_bytes().splitlines(keepends=True)
    recs = [(n, json.loads(line)) for n, line in enumerate(lines)]
    recs = [(n, r) for n, r in recs if eligible(r)]
    taken: set[int] = set()
    why: dict[int, str] = {}
    for name, bench, qt, model, k in BUCKETS:
        cands = [(n, r) for n, r in recs if r["benchmark"] == bench and r["question_type"] == qt
                 and (model is None or r["model"] == model)]
        for n in pick(cands, k, name, taken):
            why[n] = name
    for tag, test, per in (("empty", lambda r: r["response"] == "", EMPTY_PER_BENCHMARK),
                           ("control", lambda r: CONTROL.search(r["response"]), CONTROL_PER_BENCHMARK)):
        by_bench = collections.defaultdict(list)
        for n, r in recs:
            if test(r):
                by_bench[r["benchmark"]].append((n, r))
        for bench in sorted(by_bench):
            for n in pick(by_bench[bench], per, f"{tag}:{bench}", taken):
                why[n] = tag
    chosen = sorted(taken)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "sample.jsonl", "wb") as f:
        for n in chosen:
            f.write(lines[n] if lines[n].endswith(b"\n") else lines[n] + b"\n")
    rows = collections.Counter()
    sources = collections.defaultdict(set)
    extra = collections.Counter()
    full = dict(recs)
    for n in chosen:
        r = full[n]
        rows[(r["benchmark"], r["question_type"])] += 1
        sources[r["benchmark"]].add(r["source"])
        if why[n] in ("empty", "control"):
            extra[why[n]] += 1
    table = "\n".join(f"| {b} | {q} | {c} | {', '.join(sorted(sources[b]))} |"
                      for (b, q), c in sorted(rows.items()))
    (out / "SAMPLE.md").write_text(f"""# Bundled sample of real model outputs

`sample.jsonl` holds {len(chosen)} records copied verbatim (byte for byte, in corpus order) from
`shared/corpus/responses.jsonl`, the team's corpus of real model replies collected from public
GitHub repositories (see that corpus's README.md and raw/SOURCES.md for each file's repository,
commit and license). Every record keeps its `source` field naming the GitHub repository it came
from. Nobody on the team wrote any of it. `rulekit eval` reads this file when given no input.

How it was picked: `benchmarks/make_sample.py` (rerun it to rebuild this file and this page).
Per bucket (benchmark x question type, MMMU also per model) it draws a fixed number of records
with `random.Random("{SEED}:<bucket>")` from the bucket's records sorted by id. Only
multiple-choice records that ship their options, and open records, are eligible (so no BLINK or
MMEvalPro records). On top of that it adds up to {EMPTY_PER_BENCHMARK} empty replies and up to
{CONTROL_PER_BENCHMARK} replies containing control characters (LaTeX escapes decoded as Python
escapes, e.g. "\\x08frac") per benchmark that has them: {extra['empty']} empty and
{extra['control']} control-character records.

| benchmark | question_type | records | source repo |
|---|---|---|---|
{table}
""", encoding="utf-8")
    print(f"wrote {len(chosen)} records to {out / 'sample.jsonl'}")


if __name__ == "__main__":
    main()
