"""Start-up: `rulekit eval` on small files against its hand-written twin, wall time, in one run.

    python benchmarks/startup.py                # 1,000 and 10,000 corpus records, lmms-eval and vlmevalkit
    python benchmarks/startup.py --sizes 1000 --repeat 21

Evaluation researchers mostly score 1k–50k records, where start-up (imports, ruleset load) is most of
a run. For each size and ruleset this times, on the same JSONL (the first N records of the real
corpus), the median of `--repeat` runs of:

- `twin`: `benchmarks/baselines.py` (plain Python, orjson) writing the same decisions;
- `cold`: `rulekit eval -r NAME FILE --output-dir D --format json` with the compiled-ruleset cache
  off (`RULEKIT_CACHE_DIR=off`: YAML read, validated, conditions parsed by Lark on every run);
- `warm`: the same with the cache on and its entry written (every run after the first);
- `warm table`: the same, printing the terminal table (rich imported) instead of JSON;
- `python -c pass` and `import rulekit` alone, for the floor under every number.

The issue's goal: warm ≤ twin + 0.15 s at 1,000 records. Nothing here is a test: numbers are printed.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent.parent / "shared" / "corpus" / "responses.jsonl"
TWINS = {"lmms-eval": ["--parser", "lmms"], "vlmevalkit": ["--parser", "vlmevalkit"]}


def _median_wall(cmd: list[str], env: dict, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,10000", help="records per file (comma-separated)")
    ap.add_argument("--rulesets", default="lmms-eval,vlmevalkit")
    ap.add_argument("--repeat", type=int, default=11, help="runs per figure (the median is reported)")
    args = ap.parse_args()
    rulekit = str(Path(sys.executable).with_name("rulekit"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # an install has .pyc files
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        warm_env = {**env, "RULEKIT_CACHE_DIR": str(tmp_path / "cache")}
        cold_env = {**env, "RULEKIT_CACHE_DIR": "off"}
        floor = _median_wall([sys.executable, "-c", "pass"], env, args.repeat)
        imports = _median_wall([sys.executable, "-c", "import rulekit"], env, args.repeat)
        print(f"python -c pass {floor:.3f} s; import rulekit {imports:.3f} s (median of {args.repeat})\n")
        print("| records | ruleset | twin s | rulekit cold s | rulekit warm s | warm table s | warm − twin s |")
        print("|---:|---|---:|---:|---:|---:|---:|")
        for size in (int(s) for s in args.sizes.split(",")):
            data = tmp_path / f"corpus-{size}.jsonl"
            with CORPUS.open("rb") as src, data.open("wb") as dst:
                for _, line in zip(range(size), src):
                    dst.write(line)
            for name in args.rulesets.split(","):
                out = tmp_path / "out"
                twin = _median_wall([sys.executable, str(HERE / "baselines.py"), *TWINS[name], str(data), "-o",
                                     str(tmp_path / "twin.jsonl")], env, args.repeat)
                base = [rulekit, "eval", "-r", name, str(data), "--output-dir", str(out)]
                cold = _median_wall([*base, "--format", "json"], cold_env, args.repeat)
                subprocess.run(base, env=warm_env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                warm = _median_wall([*base, "--format", "json"], warm_env, args.repeat)
                table = _median_wall(base, warm_env, args.repeat)
                print(f"| {size:,} | {name} | {twin:.3f} | {cold:.3f} | {warm:.3f} | {table:.3f} | {warm - twin:+.3f} |")


if __name__ == "__main__":
    main()
