"""ReDoS probe: is any regex the built-in rulesets run super-linear on a hostile reply?

    python benchmarks/redos.py patterns                 # every pattern the built-ins compile, and where
    python benchmarks/redos.py probe [--json OUT]       # attack every pattern, print the super-linear ones
    python benchmarks/redos.py probe --only chartqa     # patterns of rulesets whose name contains "chartqa"
    python benchmarks/redos.py rulesets [NAME ...]      # whole rulesets on hostile replies (seconds per reply)
    python benchmarks/redos.py --checkout OLD probe --json before.json   # another checkout's patterns
    python benchmarks/redos.py compare before.json      # its super-linear ones against their rewrites

`patterns` collects what the built-ins really compile: every built-in ruleset is loaded (no cache)
with `rulekit.core.regex.compile_regex` watched, and one corpus record per (question type, option
letters) is decided, so the per-option patterns (`{letters}`) are compiled too; rulekit's own fixed
patterns that run on replies (`INTERNAL`) are added by hand.

`probe` builds attack texts for each pattern from its own literals and alternatives (`pieces`) and
from the fillers every reply parser meets (`FILLERS`: "the answer is " × k, "Answer: " × k, "**" × k,
"(A) " × k, "\\boxed{" × k, digits and commas, spaces, ...): each unit repeated, alone or joined by a
space or a newline, then ended by nothing, a newline and a word, or "!"; and every piece said once
followed by a run of one character (RUNS). It screens every attack at 1k and 4k characters (search
and finditer, CPU time, best of 2) and times the two worst that grew faster than linear at 16k, 32k
and 64k characters, each call capped at `--cap` seconds by the `regex` module's timeout. A pattern is super-linear when its 64k time is over 5 ms and more than
six times its 16k time (linear is four times; quadratic sixteen). Numbers are printed, never asserted.

`rulesets` decides hostile replies (the same fillers and every piece of the ruleset's patterns, at
16k/32k/64k characters) with every judge-free built-in ruleset and prints the slowest reply per
ruleset and how many replies ended `error`.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import time
from collections import OrderedDict
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECKOUT = Path(sys.argv[sys.argv.index("--checkout") + 1]).resolve() if "--checkout" in sys.argv else HERE.parent
sys.path.insert(0, str(CHECKOUT))  # `--checkout DIR`: another checkout's rulekit and rulesets (a before/after table)
CORPUS = HERE.parent.parent / "shared" / "corpus" / "responses.jsonl"

import regex  # noqa: E402

FILLERS = ["the answer is ", "The answer is ", "answer is ", "Answer: ", "answer:", "answer ", "Answer:",
           "Final Answer: ", "final answer is ", "**", "*", "(A) ", "(A)", "A ", "A.", "A", "a ",
           "\\boxed{", "\\boxed{A", "{", "}", "{1}", "$", "$1", "<answer>", "</answer>", "<ans>",
           "1", "1,", "1.", "12 ", "1, ", "-1", "1x", "1 rows ", "1 columns ", "[1, ", ".", ". ", " ",
           "\n", " \n", "\t", "x", "yes ", "no ", "_{", "\\mathrm{", "'", "\"", ",", "Output: ",
           "所以最终答案是", "So the final answer is "]
JOINS = ["", " ", "\n"]
ENDS = ["", "\nx", "!"]

# rulekit's fixed patterns that run on a reply or an answer (Python `re`, module level), and how
INTERNAL = {
    "compares._NUMBER (numbers-near)": ("rulekit.language.compares", "_NUMBER"),
    "prepare._DIGIT_COMMA (punctuation)": ("rulekit.language.prepare", "_DIGIT_COMMA"),
    "prepare._LONE_PERIOD (punctuation)": ("rulekit.language.prepare", "_LONE_PERIOD"),
    "finds._WS_TOKEN (token)": ("rulekit.language.finds", "_WS_TOKEN"),
}


def collect() -> "OrderedDict[str, list[str]]":
    """Pattern source → the built-in rulesets that compile it (see the module's docstring)."""
    import rulekit.core.regex as core
    from rulekit.language import compares, expr, finds, prepare

    seen: OrderedDict[str, set] = OrderedDict()
    current = [""]
    original = core.compile_regex

    def spy(pattern, loc):
        seen.setdefault(pattern, set()).add(current[0])
        return original(pattern, loc)

    modules = (core, finds, prepare, compares, expr)
    for m in modules:
        m.compile_regex = spy
    try:
        from rulekit.core.resources import builtin_rulesets
        from rulekit.engine.compiler import load_ruleset
        from rulekit.engine.decide import Evaluator
        from rulekit.readers.jsonl import records_from_lines

        sample = {}
        if CORPUS.exists():
            with open(CORPUS, "rb") as f:
                for r in records_from_lines(f.readlines(), str(CORPUS), 1, None):
                    if r.choices:  # patterns per option letters; the others compile with the ruleset
                        sample.setdefault(tuple(r.choices), r)
        for name in builtin_rulesets():
            current[0] = name
            ev = Evaluator(load_ruleset(name, cache=False))
            for r in sample.values():
                try:
                    ev.decide(r)
                except Exception:  # a judge ruleset without a server: what it compiled is kept
                    pass
    finally:
        for m in modules:
            m.compile_regex = original
    return OrderedDict((p, sorted(names)) for p, names in seen.items())


def compiled(source: str):
    """The pattern as the engine runs it (`(?py)` rewritten, the regex module)."""
    from rulekit.core.regex import compile_regex
    return compile_regex(source, None)


_CLASS = re.compile(r"\[\^?\]?(?:\\.|[^\]\\])*\]")
_ESCAPES = {"s": " ", "d": "1", "w": "a", "n": "\n", "t": "\t", "S": "x", "W": "!", "D": "x"}


def pieces(source: str) -> list[str]:
    """Literal pieces of a pattern: the text of each stretch between (, ), | with classes, escapes and
    quantifiers written as one sample character each, and the prefixes of their concatenation."""
    s = re.sub(r"\(\?[a-zA-Z]+\)", "", source)
    s = re.sub(r"\(\?P<\w+>|\(\?P=\w+\)|\(\?:|\(\?<?[=!]|\(\?>|\(\?[a-z]+:", "(", s)
    s = re.sub(r"\\p\{[^}]*\}", "A", s)

    def one(m):
        body = m.group(0)[1:-1]
        neg = body.startswith("^")
        body = body.lstrip("^")
        if neg:
            return "x" if "x" not in body else "#"
        if body.startswith("\\"):
            return _ESCAPES.get(body[1:2], body[1:2])
        return body[:1] or "x"
    s = _CLASS.sub(one, s)
    s = re.sub(r"\\([AZbBzG])", "", s)
    s = re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), s)
    s = re.sub(r"\{\d*,?\d*\}\??|[*+?]\??", "", s)
    s = s.replace("^", "").replace("$", "").replace(".", "x")
    frags = [f for f in re.split(r"[()|]", s) if f.strip()]
    out = list(dict.fromkeys(frags))
    whole = "".join(frags)
    for n in range(2, min(len(whole), 40) + 1):
        out.append(whole[:n])
    return list(dict.fromkeys(p for p in out if p))


RUNS = [" ", "\n", "1", "A", "x", "*", "{", " \n"]  # what follows a piece said once


def attacks(units: list[str], once: list[str] = ()) -> list[tuple[str, str, str, str]]:
    """(head, unit, join, end): every unit × join × end repeated from the start (head ""), and every
    piece in `once` said once, followed by a run of one of RUNS (see `hostile`)."""
    out = []
    for unit in units:
        for join in JOINS:
            if join and not (unit + join).strip(" "):
                continue
            for end in ENDS:
                out.append(("", unit, join, end))
    for head in once:
        for run in RUNS:
            for end in ENDS:
                out.append((head, run, "", end))
    return out


def hostile(attack: tuple[str, str, str, str], size: int) -> str:
    """The attack's text: the head, (unit + join) repeated to about `size` characters, then the end."""
    head, unit, join, end = attack
    piece = unit + join
    return head + piece * max(1, size // len(piece)) + end


def label(attack: tuple[str, str, str, str]) -> str:
    """`'head' + ('unit'+'join') ×k +'end'`."""
    head, unit, join, end = attack
    return (f"{head!r} + " if head else "") + f"{unit!r}{'+' + repr(join) if join else ''} ×k" + \
        (f" +{end!r}" if end else "")


def _time(fn, text: str, cap: float, runs: int = 1) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        try:
            r = fn(text, timeout=cap)
            if not isinstance(r, (regex.Match, type(None))):
                list(r)
        except TimeoutError:
            return float("inf")
        best = min(best, time.process_time() - start)
        if best > 0.005:  # slow enough that one run tells
            break
    return best


SIZES = (16_000, 32_000, 64_000)


def probe_pattern(source: str, cap: float, sizes=SIZES, verbose=False, worst: int = 2) -> dict:
    """One pattern attacked: {"flagged": attacks whose 4k time is over 0.2 ms and over seven times
    their 1k time, "sized": the `worst` of them (by 4k time) timed at `sizes`, "super_linear"}."""
    pattern = compiled(source)
    units = list(dict.fromkeys(pieces(source) + FILLERS))
    flagged = []
    for attack in attacks(units, pieces(source)):
        text8 = hostile(attack, 4_000)
        for op in ("search", "finditer"):
            fn = getattr(pattern, op)
            t8 = _time(fn, text8, cap, runs=2)
            if t8 < 0.0002:
                continue
            t2 = _time(fn, hostile(attack, 1_000), cap, runs=2)
            if t8 < 7 * max(t2, 1e-6):
                continue
            flagged.append((t8, attack, op, t2))
    flagged.sort(key=lambda f: -f[0])
    sized = []
    for t8, attack, op, t2 in flagged[:worst]:
        fn = getattr(pattern, op)
        times = []
        for size in sizes:
            t = _time(fn, hostile(attack, size), cap) if not times or times[-1] < cap else float("inf")
            times.append(t)
        sized.append({"attack": label(attack), "op": op, "seconds": times})
        if verbose:
            print(f"    {op} {label(attack)}: " + " / ".join(_fmt(t) for t in times), flush=True)
    bad = [s for s in sized if s["seconds"][-1] == float("inf")
           or (s["seconds"][-1] > 0.005 and s["seconds"][-1] > 6 * s["seconds"][0])]
    if verbose and flagged:
        print(f"    ({len(flagged)} attacks grew faster than linear from 2k to 8k characters)", flush=True)
    return {"flagged": [{"attack": label(a), "op": op, "seconds_1k_4k": [t2, t8]} for t8, a, op, t2 in flagged],
            "sized": sized, "super_linear": bool(bad)}


def _fmt(t: float) -> str:
    return "cap" if t == float("inf") else f"{t * 1000:.1f} ms" if t < 1 else f"{t:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkout", type=Path, default=None, help="probe this checkout's rulekit and rulesets")
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("patterns")
    p = sub.add_parser("probe")
    p.add_argument("--only", default=None, help="rulesets whose name contains this")
    p.add_argument("--pattern", default=None, help="probe this one pattern source instead")
    p.add_argument("--cap", type=float, default=1.0)
    p.add_argument("--json", type=Path, default=None)
    r = sub.add_parser("rulesets")
    r.add_argument("names", nargs="*")
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path, help="a `probe --json` file of the original patterns")
    c.add_argument("--cap", type=float, default=1.0)
    args = parser.parse_args()
    if args.cmd == "patterns":
        for source, names in collect().items():
            print(json.dumps([source, names], ensure_ascii=False))
        return
    if args.cmd == "probe":
        if args.pattern:
            table = {args.pattern: ["--pattern"]}
        else:
            table = {s: n for s, n in collect().items() if args.only is None or any(args.only in x for x in n)}
        report = []
        shapes = set()
        for source, names in table.items():
            shape = re.sub(r"\[[A-Z]+\]", "[LETTERS]", source)
            if shape in shapes:
                continue
            shapes.add(shape)
            print(f"{source}  ({', '.join(names[:4])}{', ...' if len(names) > 4 else ''})", flush=True)
            found = probe_pattern(source, args.cap, verbose=True)
            report.append({"pattern": source, "rulesets": names, **found})
        bad = [r for r in report if r["super_linear"]]
        print(f"\n{len(report)} pattern shapes probed, {len(bad)} super-linear")
        for r in bad:
            worst = r["sized"][0]
            print(f"  {r['pattern']}\n    worst: {worst['op']} {worst['attack']}: "
                  + " / ".join(_fmt(t) for t in worst["seconds"]))
        if args.json:
            args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False))
        return
    if args.cmd == "compare":
        compare_main(args.before, args.cap)
        return
    rulesets_main(args.names)


def compare_main(before: Path, cap: float) -> None:
    """A Markdown table from a `probe --json` of the original patterns: for each pattern found
    super-linear, its worst attack timed on the original (from the file) and on the rewrite that
    tests/test_redos.py pairs with it (timed now), at 16k/32k/64k characters."""
    spec = importlib.util.spec_from_file_location("test_redos", HERE.parent / "tests" / "test_redos.py")
    tests = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tests)
    rewrites = {orig.replace("{letters}", "[ABCD]"): new.replace("{letters}", "[ABCD]")
                for _, orig, new in tests.REWRITES}
    print("| pattern (rulesets) | worst attack | original 16k / 32k / 64k | rewrite 16k / 32k / 64k |")
    print("|---|---|---|---|")
    for entry in json.loads(before.read_text()):
        sized = [s for s in entry["sized"] if s["seconds"][-1] is None or s["seconds"][-1] == float("inf")
                 or (s["seconds"][-1] > 0.005 and s["seconds"][-1] > 6 * s["seconds"][0])]
        if not sized:
            continue
        worst = sized[0]
        source = entry["pattern"]
        shape = re.sub(r"\[[A-Z]+\]", "[ABCD]", source)
        rewrite = rewrites.get(shape)
        after = "not rewritten"
        if rewrite is not None:
            units = list(dict.fromkeys(pieces(source) + FILLERS))
            attack = next((a for a in attacks(units, pieces(source)) if label(a) == worst["attack"]), None)
            if attack is not None:
                fn = getattr(compiled(rewrite), worst["op"])
                after = " / ".join(_fmt(_time(fn, hostile(attack, size), cap, runs=2)) for size in SIZES)
        short = source if len(source) <= 70 else source[:69] + "…"
        names = ", ".join(entry["rulesets"][:2]) + (", ..." if len(entry["rulesets"]) > 2 else "")
        print(f"| `{short}` ({names}) | {worst['op']} {worst['attack']} | "
              + " / ".join(_fmt(t if t is not None else float("inf")) for t in worst["seconds"]) + f" | {after} |")


def rulesets_main(names: list[str]) -> None:
    """Whole rulesets on hostile replies: the slowest reply and the outcomes (see the docstring)."""
    from rulekit.core.resources import builtin_rulesets
    from rulekit.engine.compiler import load_ruleset
    from rulekit.engine.decide import Evaluator
    from rulekit.core.records import Record

    print("| ruleset | hostile replies | slowest (CPU) | outcome error |")
    print("|---|---:|---:|---:|")
    for name in names or sorted(n for n in builtin_rulesets() if "judge" not in n):
        rs = load_ruleset(name)
        patterns = [p for p, users in collect_cached().items() if name in users]
        units = list(dict.fromkeys(FILLERS + [x for p in patterns for x in pieces(p)]))
        replies = [hostile(a, SIZES[-1]) for a in attacks(units)[::7]]
        ev, worst, errors = Evaluator(rs), 0.0, 0
        for qt in rs.sections:
            for i, reply in enumerate(replies):
                choices = {"A": "cat", "B": "dog", "C": "cow", "D": "eel"} if qt != "open" else None
                start = time.process_time()
                d = ev.decide(Record(f"h{i}", qt, reply, "A" if choices else "1", choices))
                worst = max(worst, time.process_time() - start)
                errors += d is not None and d.outcome == "error"
        print(f"| {name} | {len(replies) * len(rs.sections):,} | {_fmt(worst)} | {errors} |", flush=True)


_COLLECTED: dict = {}


def collect_cached():
    """`collect()`, once per process."""
    if not _COLLECTED:
        _COLLECTED.update(collect())
    return _COLLECTED


if __name__ == "__main__":
    main()
