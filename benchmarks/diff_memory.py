"""`rulekit diff` on a large file: seconds and peak memory of this checkout against an older one, same run.

    python benchmarks/diff_memory.py                      # 300,000 records, old = 918b7cb, json and table
    python benchmarks/diff_memory.py --n 100000 --old-ref main --rulesets vlmevalkit,mmmu

The input is ../shared/corpus/responses.jsonl repeated to N records (each copy's ids get a `#k` suffix, so
no id repeats), written once to a temporary directory. The old code is `git archive` of `--old-ref` unpacked
into a temporary directory and run with PYTHONPATH pointing there (this checkout's editable install comes
after PYTHONPATH on sys.path; both sides run in the temporary directory, since `python -c` puts the working
directory first; the script checks which `rulekit` each side imported). Each command runs in its own
process; its peak resident memory is that process's own ru_maxrss (os.wait4), its seconds the wall time.
The outputs of the two sides are compared (`same output`): JSON byte for byte; a table without the ⟦ ⟧
marks that piped output now puts around matched spans, and without white space (the marks move line
breaks). Old and new alternate, so a machine's drift hits both alike; nothing is asserted: the numbers are
printed as a Markdown table.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "responses.jsonl"


def make_input(path: Path, n: int) -> int:
    """CORPUS repeated to `n` records, ids suffixed per copy; returns the number written."""
    import orjson

    lines = CORPUS.read_bytes().splitlines()
    written = 0
    with open(path, "wb") as out:
        k = 0
        while written < n:
            for line in lines:
                if written >= n:
                    break
                row = orjson.loads(line)
                if k:
                    row["id"] = f"{row['id']}#{k}"
                out.write(orjson.dumps(row) + b"\n")
                written += 1
            k += 1
    return written


def checkout(ref: str, into: Path) -> Path:
    """`git archive REF rulekit grammars rulesets layouts prompts` unpacked under `into`."""
    tar = into / "old.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(tar), ref], check=True)
    with tarfile.open(tar) as t:
        t.extractall(into / "old", filter="data")
    return into / "old"


def run(pythonpath: Path | None, args: list[str], out: Path) -> tuple[float, float, str]:
    """Run `python -m rulekit ARGS` (stdout to `out`); (seconds, peak MB, which rulekit it imported)."""
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    code = "import sys, runpy, rulekit; sys.stderr.write('RULEKIT=' + rulekit.__file__ + '\\n'); " \
           "sys.argv = ['rulekit'] + sys.argv[1:]; runpy.run_module('rulekit', run_name='__main__')"
    start = time.perf_counter()
    with open(out, "wb") as fh:
        proc = subprocess.Popen([sys.executable, "-c", code, *args], stdout=fh, stderr=subprocess.PIPE, env=env,
                                cwd=out.parent)  # not this checkout: `python -c` puts the working directory first
        err = proc.stderr.read().decode()
        _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {args}\n{err[-2000:]}")
    where = next((line[8:] for line in err.splitlines() if line.startswith("RULEKIT=")), "?")
    return seconds, usage.ru_maxrss / 1024, where


def _comparable(path: Path, fmt: str) -> bytes:
    """An output as compared: JSON byte for byte; a table without the ⟦ ⟧ marks piped output now puts around
    matched spans (issue 32) and without white space (the marks move where a long reply's lines break)."""
    data = path.read_bytes()
    if fmt == "json":
        return data
    return b"".join(data.replace("⟦".encode(), b"").replace("⟧".encode(), b"").split())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=300_000, help="records in the synthetic file (default 300,000)")
    ap.add_argument("--old-ref", default="918b7cb", help="git revision of the old code (default 918b7cb: before "
                    "diff streamed)")
    ap.add_argument("--rulesets", default="vlmevalkit,lmms-eval", help="A,B (default vlmevalkit,lmms-eval)")
    ap.add_argument("--formats", default="json,table", help="output formats to time (default json,table)")
    opts = ap.parse_args()
    a, b = opts.rulesets.split(",")
    with tempfile.TemporaryDirectory(prefix="diff_memory.") as tmp:
        tmp = Path(tmp)
        data = tmp / "input.jsonl"
        n = make_input(data, opts.n)
        old = checkout(opts.old_ref, tmp)
        print(f"{n:,} records ({data.stat().st_size / 2**20:,.0f} MB), A = {a}, B = {b}; old = {opts.old_ref}, "
              f"new = this checkout\n")
        print("| format | side | seconds | peak MB | same output |")
        print("|---|---|---:|---:|---|")
        for fmt in opts.formats.split(","):
            args = ["diff", "-r", a, "-r", b, str(data), "--format", fmt]
            outs = {}
            for side, path in (("old", old), ("new", None)):
                outs[side] = tmp / f"{side}.{fmt}"
                seconds, mb, where = run(path, args, outs[side])
                expect_old = str(old) in where
                if expect_old != (side == "old"):
                    raise SystemExit(f"{side} side imported rulekit from {where}")
                same = _comparable(outs["old"], fmt) == _comparable(outs[side], fmt) if side == "new" else ""
                print(f"| {fmt} | {side} | {seconds:.1f} | {mb:,.0f} | {same if same == '' else ('yes' if same else 'NO')} |",
                      flush=True)


if __name__ == "__main__":
    main()
