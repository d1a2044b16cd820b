"""Synthetic multiple-choice records for throughput benchmarks.

    python benchmarks/synth.py N OUT.jsonl [--seed S] [--corpus PATH]

Writes N records in our corpus schema (``shared/corpus/README.md``) by resampling, with
replacement, the real multiple-choice records that ship their options in
``shared/corpus/responses.jsonl``. The response-length distribution therefore stays that of real
model outputs. Deterministic perturbations (one ``random.Random(seed)`` stream):

* every record gets a fresh unique id ``synth<seed>/<n>/<original id>`` and the draw order is
  random, so ids are shuffled relative to the corpus;
* about one record in eight gets a suffix appended to its response (whitespace, a period or an
  end-of-turn token), which exercises the edge-strip and whitespace quirks of the parsers.

``meta`` is dropped (except the original id) to keep the file compact. 1,000,000 records take
well under a minute on one core (the output is ~1 GB).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import orjson

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "responses.jsonl"
SUFFIXES = (" ", "\n", ".", "\n\n", "</s>", "<|im_end|>", " .", "\n ")
SUFFIX_RATE = 8  # one record in SUFFIX_RATE on average
_KEEP = ("source", "model", "benchmark", "question_type", "question", "choices", "answer")


def load_pool(corpus: Path) -> list:
    pool = []
    with open(corpus, "rb") as fh:
        for line in fh:
            if not line.strip():
                continue
            rec = orjson.loads(line)
            if rec.get("question_type") != "multiple-choice" or not rec.get("choices"):
                continue
            base = {k: rec.get(k) for k in _KEEP}
            pool.append((rec["id"], base, rec["response"]))
    if not pool:
        raise SystemExit(f"no multiple-choice records with choices in {corpus}")
    return pool


def generate(n: int, out_path: str, seed: int = 0, corpus: Path = DEFAULT_CORPUS) -> int:
    pool = load_pool(corpus)
    rng = random.Random(seed)
    rand = rng.random
    k = len(pool)
    n_suffix = len(SUFFIXES)
    dumps = orjson.dumps
    prefix = f"synth{seed}/"
    with open(out_path, "wb", buffering=1 << 22) as out:
        write = out.write
        for i in range(n):
            orig_id, base, response = pool[int(rand() * k)]
            r = rand()
            if r * SUFFIX_RATE < 1.0:
                response = response + SUFFIXES[int(r * SUFFIX_RATE * n_suffix)]
            rec = {"id": f"{prefix}{i}/{orig_id}"}
            rec.update(base)
            rec["response"] = response
            rec["meta"] = {"synth_of": orig_id}
            write(dumps(rec))
            write(b"\n")
    return n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int)
    ap.add_argument("output")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = ap.parse_args(argv)
    generate(args.n, args.output, args.seed, args.corpus)
    print(f"{args.n} records -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
