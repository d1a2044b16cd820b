"""The notebook API against `rulekit eval`'s own pass, on the corpus (../shared/corpus/responses.jsonl).

    python benchmarks/notebook.py [--rulesets vlmevalkit,lmms-eval] [--rows N]

Each measurement runs in a fresh Python process and reports CPU seconds:
- `eval`: read_records + evaluate (one process, no decisions file): what `rulekit eval --workers 1` does;
- `pandas`: the same rows as a pandas DataFrame (built before the clock starts) through `rulekit.score`;
- `polars`: the same through polars.
The DataFrame's rows are the corpus lines as dicts (pandas fills a missing key with NaN, read as empty).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / ".." / "shared" / "corpus" / "responses.jsonl"

SETUP = """
import json, itertools, time, resource
rows = [json.loads(l) for l in itertools.islice(open({corpus!r}, encoding="utf-8"), {rows})]
rulesets = {rulesets!r}
"""
JOBS = {
    "eval": SETUP + """
from rulekit import load_ruleset
from rulekit.readers import read_records
from rulekit.run.evaluate import evaluate
import tempfile, orjson
tmp = tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False)
tmp.write(b"".join(orjson.dumps(r) + b"\\n" for r in rows)); tmp.close()
loaded = [load_ruleset(n) for n in rulesets]
t = time.process_time()
results = evaluate(loaded, read_records([tmp.name]))
print(json.dumps({{"cpu_s": time.process_time() - t, "n": [r.n for r in results]}}))
""",
    "pandas": SETUP + """
import pandas as pd, rulekit
from rulekit import load_ruleset
frame = pd.DataFrame(rows); loaded = [load_ruleset(n) for n in rulesets]
t = time.process_time()
out = rulekit.score(frame, loaded)
print(json.dumps({{"cpu_s": time.process_time() - t, "n": [r["n"] for r in out.attrs["summary"]["results"]]}}))
""",
    "polars": SETUP + """
import polars as pl, rulekit
from rulekit import load_ruleset
frame = pl.DataFrame(rows, infer_schema_length=None); loaded = [load_ruleset(n) for n in rulesets]
t = time.process_time()
out, summary = rulekit.score(frame, loaded, with_summary=True)
print(json.dumps({{"cpu_s": time.process_time() - t, "n": [r["n"] for r in summary["results"]]}}))
""",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rulesets", default="vlmevalkit,lmms-eval")
    ap.add_argument("--rows", type=int, default=None, help="the first N corpus lines (default: all)")
    args = ap.parse_args()
    rulesets = [r.strip() for r in args.rulesets.split(",") if r.strip()]
    for name, code in JOBS.items():
        src = code.format(corpus=str(CORPUS), rows=args.rows, rulesets=rulesets)
        out = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, cwd=ROOT)
        if out.returncode:
            print(f"{name}: failed\n{out.stderr[-2000:]}")
            continue
        print(f"{name:7s} {json.loads(out.stdout.strip().splitlines()[-1])}")


if __name__ == "__main__":
    main()
