"""Byte-identity of two checkouts: every judge-free built-in ruleset's decisions and metrics on the corpus.

A refactor that claims "behaviour unchanged" runs this against the commit it started from:

    python benchmarks/identity.py run  /tmp/ident/before --checkout /path/to/old/checkout
    python benchmarks/identity.py run  /tmp/ident/after                # this checkout
    python benchmarks/identity.py compare /tmp/ident/before /tmp/ident/after

`run` scores `../shared/corpus/responses.jsonl` (override with --input, repeatable) with each built-in
ruleset of the checkout that needs no judge server, once with the rulesets' own seeds and once with
`--seed 0`, through the checkout's own CLI (`rulekit eval --format json --output-dir`), in a fresh
interpreter with the checkout first on `sys.path`. `compare` checks every decisions file and every
metrics report byte for byte and prints the first differing line of each file that differs (exit 1).
The fingerprint, wall time and the decisions file's directory are the only fields excluded (a fingerprint hashes the ruleset's
normalized content, which a refactor of the loader may legitimately re-serialize — it is reported
separately when it changes).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
CORPUS = HERE.parent / "shared" / "corpus" / "responses.jsonl"
_CLI = "import sys; sys.path.insert(0, sys.argv.pop(1)); from rulekit.cli import main; main(sys.argv[1:], prog_name='rulekit')"


def builtins(checkout: Path) -> list[str]:
    """Names of the checkout's built-in rulesets that need no judge server."""
    names = []
    for path in sorted((checkout / "rulesets").glob("*.yaml")):
        if "judge" not in path.stem:
            names.append(path.stem)
    return names


def run(out: Path, checkout: Path, inputs: list[str], workers: int) -> None:
    """Score `inputs` with every judge-free built-in of `checkout` into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    for name in builtins(checkout):
        for seed in (None, 0):
            tag = f"{name}.seed-{'own' if seed is None else seed}"
            args = [sys.executable, "-c", _CLI, str(checkout), "eval", "-r", name, *inputs, "--format", "json",
                    "--output-dir", str(out / tag), "--workers", str(workers)]
            if seed is not None:
                args += ["--seed", str(seed)]
            done = subprocess.run(args, cwd=checkout, env=env, capture_output=True, timeout=3600)
            if done.returncode != 0:
                sys.exit(f"{tag}: exit {done.returncode}\n{done.stderr.decode()[-2000:]}")
            report = json.loads(done.stdout)
            fingerprints = [r.pop("fingerprint", None) for r in report.get("results", [])]
            for r in report.get("results", []):  # where the run wrote it, not what it holds
                if r.get("decisions_file"):
                    r["decisions_file"] = Path(r["decisions_file"]).name
            report.pop("seconds", None)
            (out / f"{tag}.json").write_text(json.dumps(report, indent=1, sort_keys=True))
            (out / f"{tag}.fingerprint").write_text(json.dumps(fingerprints))
            print(f"{tag}: {sum(r.get('n', 0) for r in report.get('results', []))} records", flush=True)


def compare(a: Path, b: Path) -> int:
    """0 when every file of `a` has a byte-identical twin in `b` (and no file is missing), else 1."""
    names = sorted({p.relative_to(a) for p in a.rglob("*") if p.is_file()} |
                   {p.relative_to(b) for p in b.rglob("*") if p.is_file()})
    same = differ = 0
    for rel in names:
        x, y = a / rel, b / rel
        if not x.exists() or not y.exists():
            print(f"MISSING {rel} in {'before' if not x.exists() else 'after'}")
            differ += 1
            continue
        if x.read_bytes() == y.read_bytes():
            same += 1
            continue
        if rel.suffix == ".json":  # a report: fields added by the newer checkout are listed, not failed
            added, changed = _report_delta(json.loads(x.read_text()), json.loads(y.read_text()))
            if not changed:
                same += 1
                print(f"same {rel} (new fields: {', '.join(sorted(added))})")
                continue
        differ += 1
        kind = "fingerprint changed" if rel.suffix == ".fingerprint" else "DIFFERS"
        for n, (p, q) in enumerate(zip(x.read_text().splitlines(), y.read_text().splitlines()), 1):
            if p != q:
                print(f"{kind} {rel}:{n}\n  before {p[:200]}\n  after  {q[:200]}")
                break
        else:
            print(f"{kind} {rel}: one is a prefix of the other")
    print(f"{same} files identical, {differ} differ")
    return 1 if differ else 0


def _report_delta(a, b, path: str = "") -> tuple[set[str], list[str]]:
    """(fields only `b` has, fields whose values differ) of two JSON reports."""
    if isinstance(a, dict) and isinstance(b, dict):
        added, changed = {f"{path}{k}" for k in b.keys() - a.keys()}, [f"{path}{k}" for k in a.keys() - b.keys()]
        for k in a.keys() & b.keys():
            more, diff = _report_delta(a[k], b[k], f"{path}{k}.")
            added |= more
            changed += diff
        return added, changed
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        added, changed = set(), []
        for i, (p, q) in enumerate(zip(a, b)):
            more, diff = _report_delta(p, q, f"{path}{i}.")
            added |= more
            changed += diff
        return added, changed
    return set(), [] if a == b else [path.rstrip(".")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("out", type=Path)
    r.add_argument("--checkout", type=Path, default=HERE)
    r.add_argument("--input", action="append", default=None)
    r.add_argument("--workers", type=int, default=2)
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = parser.parse_args()
    if args.cmd == "run":
        run(args.out, args.checkout.resolve(), args.input or [str(CORPUS)], args.workers)
    else:
        sys.exit(compare(args.a, args.b))


if __name__ == "__main__":
    main()
