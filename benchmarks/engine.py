"""The engine alone: records already in memory, `evaluate()` per built-in ruleset (metrics included).

    python benchmarks/engine.py                    # every built-in ruleset without a judge
    python benchmarks/engine.py lmms-eval mmmu     # some of them

Reads the real corpus (../shared/corpus/responses.jsonl) once, then times each ruleset over the
records it decides (best of 3 runs; one run for the SymPy rulesets) and prints records decided
per second, twice: with the `regex` module's per-call `timeout` (a program that embeds rulekit) and
under the regex watchdog (rulekit/core/watchdog.py: the `rulekit` command, `decide_batch`); then
lmms-eval and vlmevalkit on the multiple-choice records alone next to their
hand-written twins in `baselines.py`. Nothing here is a test: numbers are printed.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
CORPUS = HERE.parent.parent / "shared" / "corpus" / "responses.jsonl"

import baselines  # noqa: E402  (benchmarks/ is not a package)

from rulekit.engine.compiler import load_ruleset  # noqa: E402
from rulekit.run.evaluate import evaluate  # noqa: E402
from rulekit.readers import read_records  # noqa: E402
from rulekit.core.resources import builtin_rulesets  # noqa: E402
from rulekit.core.watchdog import watching  # noqa: E402

SYMPY = ("physics", "olympiadbench")


def best_of(runs: int, fn) -> float:
    """The fastest of `runs` calls of fn, in seconds."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    """Time the named (or all judge-free) built-in rulesets and the two hand-written parsers."""
    names = sys.argv[1:] or sorted(n for n in builtin_rulesets() if "judge" not in n)
    records = list(read_records([str(CORPUS)]))
    print(f"{len(records):,} corpus records in memory\n")
    print("| ruleset | records decided | records/s, per-call timeout | records/s, watchdog |")
    print("|---|---:|---:|---:|")
    for name in names:
        rs = load_ruleset(name)
        mine = [r for r in records if r.question_type in rs.sections]
        runs = 1 if name.startswith(SYMPY) else 3
        if runs == 1:  # the SymPy worker started and its caches warm before either timing
            evaluate([rs], mine, seed=0)
        plain = best_of(runs, lambda: evaluate([rs], mine, seed=0))
        with watching():
            watched = best_of(runs, lambda: evaluate([rs], mine, seed=0))
        print(f"| {name} | {len(mine):,} | {len(mine) / plain:,.0f} | {len(mine) / watched:,.0f} |", flush=True)
    mcq = [r for r in records if r.question_type == "multiple-choice" and r.choices]
    pairs = [(r.response, r.choices) for r in mcq]
    print(f"\nthe {len(mcq):,} multiple-choice records with options: the ruleset (metrics included) and its "
          "hand-written twin (no fallback draw, no metrics):\n")
    print("| ruleset | records/s | hand-written records/s |")
    print("|---|---:|---:|")
    for name, parse in (("lmms-eval", baselines.lmms_mcq), ("vlmevalkit", baselines.vlmeval_can_infer)):
        rs = load_ruleset(name)
        ours = best_of(3, lambda: evaluate([rs], mcq, seed=0))
        theirs = best_of(3, lambda: [parse(response, choices) for response, choices in pairs])
        print(f"| {name} | {len(mcq) / ours:,.0f} | {len(mcq) / theirs:,.0f} |")


if __name__ == "__main__":
    main()
