"""Built-in rulesets and hostile replies (issue 29).

1. Every built-in pattern rewritten for linear time gives exactly the matches of its original: the
   same span, groups, first match and finditer list as the original pattern (compiled the way the
   engine compiles it; and as Python's `re` compiles it, where `re` can), on the corpus replies (raw,
   stripped, lowered, uppercased) and on seeded fuzz strings built from the pattern's own literals,
   look-alike characters, whitespace, newlines and periods. CI runs a reduced count;
   `python tests/test_redos.py --full` runs 100,000 fuzz strings per pattern and the whole corpus.
2. Every built-in ruleset decides hostile replies of up to 64k characters (repetition loops of the
   phrases of its own patterns and of the usual fillers) without a regex limit: outcomes, never times.
3. A record's decision never depends on the records around it: a shuffled corpus sample padded with
   hostile replies (and a user ruleset with a catastrophic pattern) run under CPU load through
   `rulekit eval` with 1 and 2 workers decides every other record byte for byte as a clean run.
"""
from __future__ import annotations

import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import regex

from rulekit.core.regex import compile_regex

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "responses.jsonl"
RULESETS = ROOT / "rulesets"


def _probe():
    spec = importlib.util.spec_from_file_location("redos_probe", ROOT / "benchmarks" / "redos.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROBE = _probe()
LETTER_SETS = ("[ABCD]", "[ABCDEFGHIJ]")

# ---------------------------------------------------------------- 1. rewritten patterns = originals
# (rulesets that hold the rewrite, the original as it was written, the rewrite as it is written now).
# `{letters}` stands for the option letters' class, as in the rulesets.
REWRITES: list[tuple[tuple[str, ...], str, str]] = [
    (("atropos-chartqa",),
     r"(?py)(?i)(?:the answer is|answer:)\s*(?P<answer>.+?)(?:\.|$)",
     r"(?py)(?i)(?:the answer is|answer:)(?:\s*+(?P<answer>.+?)(?:\.|$)|\s*(?P<answer>(?!\n)\s)(?:\.|$)"
     r"|\s*+(?:(?!(?:the answer is|answer:)(?:(?!\n)\s)*+(?:\n|\Z))[^\n])*+(*SKIP)(*F))"),
    (("atropos-docvqa", "atropos-infovqa"),
     r"(?py)(?i)answer[:\s]+(?P<answer>.+?)(?:\.|$)",
     r"(?py)(?i)answer(?=[:\s])(?:[:\s]++(?P<answer>.+?)(?:\.|$)|[:\s]+(?P<answer>(?!\n)[:\s])(?:\.|$)"
     r"|[:\s]*+(?:(?!answer(?:(?!\n)[:\s])*+(?:\n|\Z))[^\n])*+(*SKIP)(*F))"),
    (("atropos-mcq",),
     r"(?py)(?is)<answer>(?P<answer>.*?)</answer>",
     r"(?py)(?is)<answer>(?:(?P<answer>.*?)</answer>|.*+(*SKIP)(*F))"),
    (("atropos-mcq",),
     r"(?py)(?i)(?:final\s+answer\s+is)\s*:?\s*(?:(?P<answer>{letters})|\((?P<answer>{letters})\))\.?\s*I\s*hope",
     r"(?py)(?i)(?:final\s+answer\s+is)\s*+(?::\s*+)?(?:(?P<answer>{letters})|\((?P<answer>{letters})\))\.?+\s*+I\s*+hope"),
    (("atropos-mcq",),
     r"(?py)(?is)(?:final\s+answer).{0,100}?\s+is\s*:?\s*(?:(?P<answer>{letters})|\((?P<answer>{letters})\))",
     r"(?py)(?is)(?:final\s+answer).{0,100}?(?<!\s)\s++is\s*+(?::\s*+)?(?:(?P<answer>{letters})|\((?P<answer>{letters})\))"),
    (("atropos-mcq",),
     r"(?py)(?i)(?:the\s+answer\s+is)\s*:?\s*(?:(?P<answer>{letters})|\((?P<answer>{letters})\))",
     r"(?py)(?i)(?:the\s+answer\s+is)\s*+(?::\s*+)?(?:(?P<answer>{letters})|\((?P<answer>{letters})\))"),
    (("atropos-mcq",),
     r"(?py)(?is)(?:answer)\s*:\s*.{0,50}?(?:(?P<answer>{letters})|\((?P<answer>{letters})\))",
     r"(?py)(?is)(?:answer)\s*+:\s*+.{0,50}?(?:(?P<answer>{letters})|\((?P<answer>{letters})\))"),
    (("atropos-mcq",),
     r"(?py)(?i)\n\s*\**(?:(?P<answer>{letters})|\((?P<answer>{letters})\))\**[\s\.\)\:]",
     r"(?py)(?i)\n\s*+(?:\**+(?:(?P<answer>{letters})|\((?P<answer>{letters})\))\**+[\s\.\)\:]|(*SKIP)(*F))"),
    (('atropos-chartqa',),
     r"(?py)(?i)^(?P<answer>\d+[\d,\.]*%?)$",
     r"(?py)(?i)^(?P<answer>\d[\d,\.]*+%?)$"),
    (('atropos-vlmblind',),
     r"\{(?P<answer>[^}]+)\}",
     r"\{(?:(?P<answer>[^}]+)\}|[^}]*+(*SKIP)(*F))"),
    (('atropos-vlmblind',),
     r"(?py)(\d+)\s*[xX×]\s*(\d+)",
     r"(?py)(\d++)(?:\s*+[xX×]\s*+(\d+)|(*SKIP)(*F))"),
    (('atropos-vlmblind',),
     r"(?py)(?s)^.*?(\d+)\s*[xX×,]\s*(\d+).*$",
     r"(?py)(?s)^.*?(?<!\d)(\d++)\s*+[xX×,]\s*+(\d+).*$"),
    (('atropos-vlmblind',),
     r"(?py)(\d+)\s*(?:rows?|r).*?(\d+)\s*(?:columns?|cols?|c)",
     r"(?py)(\d++)(?:\s*+(?:rows?|r)(?:(?:|.*?(?<!\d))(\d++)\s*+(?:columns?|cols?|c)|(?:(?!(?<!\d)\d++(?:(?!\n)\s)*+\n)[^\n])*+(*SKIP)(*F))|(*SKIP)(*F))"),
    (('atropos-vlmblind',),
     r"(?py)(\d+)\s*(?:columns?|cols?|c).*?(\d+)\s*(?:rows?|r)",
     r"(?py)(\d++)(?:\s*+(?:columns?|cols?|c)(?:(?:|.*?(?<!\d))(\d++)\s*+(?:rows?|r)|(?:(?!(?<!\d)\d++(?:(?!\n)\s)*+\n)[^\n])*+(*SKIP)(*F))|(*SKIP)(*F))"),
    (('atropos-dynamath', 'vlmevalkit-dynamath+judge'),
     r"(?s)(?P<answer>\{.*\})",
     r"(?s)(?P<answer>\{.*\})|\{.*+(*SKIP)(*F)"),
    (('atropos-logicvista',),
     r"(?py)(?P<answer>[A-E](?:\s*[,\s]\s*[A-E])*)",
     r"(?py)(?P<answer>[A-E](?:(?:\s*+,\s*+|\s++)[A-E])*+)"),
    (('lmms-eval',),
     r"(?py)(?P<answer>-?\d+(?:\.\d+)?[eE][+-]?\d+)",
     r"(?py)(?P<answer>-?\d++(?:(?:\.\d+)?[eE][+-]?\d+|(*SKIP)(*F)))"),
    (('lmms-eval',),
     r"(?py)(?P<answer>-?(?:\d+\.\d+|\.\d+|\d+\b)(?![eE][+-]?\d+)(?![,\d]))",
     r"(?py)(?P<answer>-?(?:\d++(?:\.\d++(?![eE][+-]?\d+)(?![,\d])|\b(?![eE][+-]?\d+)(?![,\d])|(*SKIP)(*F))|\.\d++(?![eE][+-]?\d+)(?![,\d])))"),
    (('physics',),
     r"\\boxed\{(?P<answer>.*?)\}|\\\\\[boxed\{(?P<answer>.*?)\}\\\\\]",
     r"\\boxed\{(?:(?P<answer>.*?)\}|.*+(*SKIP)(*F))|\\\\\[boxed\{(?:(?P<answer>.*?)\}\\\\\]|(?:(?!\\boxed\{).)*+(*SKIP)(*F))"),
    (('physics',),
     r"_\{.*?\}",
     r"_\{(?:.*?\}|.*+(*SKIP)(*F))"),
    (('olympiadbench', 'olympiadbench@fixed'),
     r"\\(?:mathrm|mathbf)\{~?([^}]*)\}",
     r"\\(?:mathrm|mathbf)\{~?(?:([^}]*)\}|[^}]*+(*SKIP)(*F))"),
    (('vlmevalkit-vlmblind',),
     r"(?py)\{(?P<answer>.*?)\}",
     r"(?py)\{(?:(?P<answer>.*?)\}|.*+(*SKIP)(*F))"),
    (('vlmevalkit-vlmblind',),
     r"(?py)\A(?=(?s:.)*?[Rr]ows?[^{}]*\{(?P<r>\d+)\})(?=(?s:.)*?[Cc]olumns?[^{}]*\{(?P<c>\d+)\})",
     r"(?py)\A(?=(?:[^{}]*+[{}])*?(?>[^{}]*?[Rr]ows?)[^{}]*+\{(?P<r>\d+)\})(?=(?:[^{}]*+[{}])*?(?>[^{}]*?[Cc]olumns?)[^{}]*+\{(?P<c>\d+)\})"),
    (('vlmevalkit-mmmu-pro-cot',),
     r"(?py)(?m)^(?:(?!\n)\s)*Answer:[^A-Z\n]*(?P<answer>[A-Z])(?:[^A-Z\n]|(?P=answer))*$(?!(?s:.*)\n(?:(?!\n)\s)*Answer:)",
     r"(?py)(?m)^(?:(?!\n)\s)*Answer:[^A-Z\n]*(?P<answer>[A-Z])(?:[^A-Z\n]|(?P=answer))*$(?!(?s:.*?)\n(?:(?!\n)\s)*Answer:)"),
    (('vlmevalkit-mmmu-pro-cot',),
     r"(?py)(?m)^(?:(?!\n)\s)*Answer:(?P<answer>.*?)(?:(?!\n)\s)*$",
     r"(?py)(?m)^(?:(?!\n)\s)*Answer:(?P<answer>(?:(?:(?!\n)\s)*+\S)*+)(?:(?!\n)\s)*+$"),
    (('livexivvqa@vlmevalkit-fork',),
     r"(?py)(?im)(?:(?:The|the)?\s*(?:correct|best|final)?\s*answer\s*(?:is|:)\s*)(?P<answer>[A-Z])(?:\s|$|\.|\,)",
     r"(?py)(?im)(?:The|the)?\s*+(?:(?:correct|best|final)?\s*+answer\s*+(?:is|:)\s*+(?P<answer>[A-Z])(?:\s|$|\.|\,)|(*SKIP)(*F))"),
    (("physics",),
     r"(?s)\\boxed\{(?P<answer>(?:[^{}]|\{(?:[^{}]|\{.*?\})*\})*)\}|\\\\\[boxed\{(?P<answer>(?:[^{}]|\{(?:[^{}]|\{.*?\})*\})*)\}\\\\\]",
     r"(?s)\\boxed\{(?:(?P<answer>(?:[^{}]|\{(?:[^{}]|\{.*?\})*\})*)\}|[^}]*+\Z(*SKIP)(*F))|\\\\\[boxed\{(?:(?P<answer>(?:[^{}]|\{(?:[^{}]|\{.*?\})*\})*)\}\\\\\]|[^}]*+\Z(*SKIP)(*F))"),
    (("olympiadbench", "olympiadbench@fixed"),
     r"(?py)\$(?P<answer>.*?)\$(?=[^\n]*\s*\Z)",
     r"(?py)\$(?P<answer>.*?)\$(?:(?=[^\n]*+\s*+\Z)|[^\n]*+(*SKIP)(*F))"),
    (("atropos-vlmblind",),
     r"(?py)(\d+)\s*[xX×,]\s*(\d+)",
     r"(?py)(\d++)(?:\s*+[xX×,]\s*+(\d+)|(*SKIP)(*F))"),
]

EXTRA = [" ", "  ", "\n", "\n\n", " \n", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\xa0", "\u2028", "\u3000",
         ".", "..", ":", ",", ";", "(", ")", "[", "]", "{", "}", "*", "**", "$", "%", "-", "+", "_", "\\", "/", "'",
         '"', "<", ">", "#", "~", "0", "1", "12", "3.5", "1,000", "1e5", "x", "X", "×", "a", "A", "B", "b", "C", "E",
         "I", "i", "K", "\u212a", "ſ", "İ", "ß", "é", "²", "½", "٣", "word", "The", "the"]


def _variants(source: str) -> list[str]:
    return [source.replace("{letters}", letters) for letters in LETTER_SETS] if "{letters}" in source else [source]


def _tokens(original: str) -> list[str]:
    pieces = PROBE.pieces(original.replace("{letters}", "[ABCD]"))
    out = []
    for p in pieces:
        out += [p, p.upper(), p.lower(), p.title(), p.replace(" ", "\n"), p.replace(" ", "  ")]
    return list(dict.fromkeys(out + EXTRA))


def fuzz_strings(original: str, n: int, seed: int = 0) -> list[str]:
    """`n` strings built from the pattern's literals, look-alikes, whitespace and random text (seeded)."""
    rng = random.Random(f"{seed}\x1f{original}")
    tokens = _tokens(original)
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(0, 14)):
            tok = rng.choice(tokens)
            r = rng.random()
            if r < 0.08:
                tok = tok * rng.randint(2, 40)
            elif r < 0.12:
                tok = "".join(rng.choice(tokens)[:1] for _ in range(rng.randint(1, 8)))
            parts.append(tok)
        out.append("".join(parts))
    return out


def _key(m, groups: int):
    return None if m is None else tuple(m.span(i) for i in range(groups + 1))


def _python_re(original: str):
    """The original compiled by Python's `re` (a `(?py)` pattern's own dialect), or None where `re` cannot."""
    if not original.startswith("(?py)"):
        return None
    try:
        return re.compile(original[len("(?py)"):])
    except re.error:
        return None


def _differences(original: str, rewrite: str, texts, limit: int = 3) -> list[str]:
    old, new, py = compile_regex(original, None), compile_regex(rewrite, None), _python_re(original)
    assert old.groups == new.groups and old.groupindex == new.groupindex, "the rewrite changed the groups"
    bad = []
    for text in texts:
        a = (_key(old.search(text, timeout=10), old.groups), [_key(m, old.groups) for m in old.finditer(text, timeout=10)])
        b = (_key(new.search(text), new.groups), [_key(m, new.groups) for m in new.finditer(text)])
        if a != b:
            bad.append(f"{text!r}: original {a}, rewrite {b}")
        elif py is not None:
            c = (_key(py.search(text), py.groups), [_key(m, py.groups) for m in py.finditer(text)])
            if c != a:
                bad.append(f"{text!r}: Python re {c}, rewrite {b}")
        if len(bad) >= limit:
            break
    return bad


def corpus_texts(every: int = 1) -> list[str]:
    if not CORPUS.exists():
        return []
    out = []
    with CORPUS.open(encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i % every == 0:
                r = json.loads(line)["response"]
                r = r if isinstance(r, str) else str(r)
                out += [r, r.strip(), r.lower(), r.upper()]
    return out


def _fuzz_count() -> int:
    return int(os.environ.get("RULEKIT_REDOS_FUZZ", "1500"))


@pytest.mark.parametrize("names,original,rewrite", REWRITES, ids=[f"{n[0]}:{i}" for i, (n, _, _) in enumerate(REWRITES)])
def test_a_rewrite_is_in_its_rulesets_and_differs_from_the_original(names, original, rewrite):
    for name in names:
        text = (RULESETS / f"{name}.yaml").read_text(encoding="utf-8")
        written = (rewrite, rewrite.replace("'", "''"), rewrite.replace("\\", "\\\\"))  # YAML: '...' or "..."
        assert any(w in text for w in written), f"{name} does not hold the rewrite"
        assert f"'{original}'" not in text and original.replace("\\", "\\\\") not in text
    assert original != rewrite


@pytest.mark.parametrize("names,original,rewrite", REWRITES, ids=[f"{n[0]}:{i}" for i, (n, _, _) in enumerate(REWRITES)])
def test_a_rewrite_matches_as_its_original_on_fuzz_strings(names, original, rewrite):
    for old, new in zip(_variants(original), _variants(rewrite)):
        assert _differences(old, new, fuzz_strings(original, _fuzz_count())) == []


@pytest.mark.slow  # corpus-wide, over every built-in ruleset
@pytest.mark.skipif(not CORPUS.exists(), reason="shared corpus not available")
@pytest.mark.parametrize("names,original,rewrite", REWRITES, ids=[f"{n[0]}:{i}" for i, (n, _, _) in enumerate(REWRITES)])
def test_a_rewrite_matches_as_its_original_on_the_corpus(names, original, rewrite, corpus_sample):
    for old, new in zip(_variants(original), _variants(rewrite)):
        assert _differences(old, new, corpus_sample) == []


@pytest.fixture(scope="module")
def corpus_sample():
    return corpus_texts(every=int(os.environ.get("RULEKIT_REDOS_CORPUS_EVERY", "13")))


def test_the_fuzzer_finds_a_wrong_rewrite():
    """The equivalence check can fail: the naive possessive rewrite of ChartQA's pattern is caught."""
    naive = r"(?py)(?i)(?:the answer is|answer:)\s*+(?P<answer>.+?)(?:\.|$)"
    assert _differences(REWRITES[0][1], naive, fuzz_strings(REWRITES[0][1], 3000))


def main_full() -> int:
    """`python tests/test_redos.py --full`: 100,000 fuzz strings per rewrite and the whole corpus."""
    corpus = corpus_texts(every=1)
    failed = 0
    for names, original, rewrite in REWRITES:
        start = time.perf_counter()
        fuzz = fuzz_strings(original, 100_000)
        bad = []
        for old, new in zip(_variants(original), _variants(rewrite)):
            bad += _differences(old, new, fuzz) + _differences(old, new, corpus)
        failed += bool(bad)
        print(f"{'FAIL' if bad else 'same'}  {names[0]}: {original}  ({len(fuzz):,} fuzz + {len(corpus):,} corpus "
              f"texts x {len(_variants(original))} letter sets, {time.perf_counter() - start:.0f} s)", flush=True)
        for b in bad:
            print("   ", b[:300])
    return 1 if failed else 0


if __name__ == "__main__" and "--full" in sys.argv:
    sys.path.insert(0, str(ROOT))
    sys.exit(main_full())



LIST_ITEM_ORIGINAL = r"""\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|([^,'"\[\]]*?))\s*(,|\])"""  # Python re, re.S


def test_list_items_match_as_the_original_python_pattern():
    """rulekit's own list-literal reader (`equivalent`): the linear-time item pattern matches as the
    original Python `re` pattern did, at every position of fuzz strings and corpus replies."""
    from rulekit.language import math as M

    old = re.compile(LIST_ITEM_ORIGINAL, re.S)
    texts = fuzz_strings(LIST_ITEM_ORIGINAL + "'a\\'b'", _fuzz_count()) + corpus_texts(every=97)
    bad = []
    for text in texts:
        for pos in range(0, len(text) + 1, max(1, len(text) // 40)):
            a, b = old.match(text, pos), M._list_item().match(text, pos)
            if _key(a, 4) != _key(b, 4):
                bad.append((text, pos))
        if len(bad) > 3:
            break
    assert bad == []
    lists = ["[" + t + "]" for t in texts[:2000]]
    new_reads = [M.read_list_literal(t) for t in lists]
    try:
        M._LIST_ITEM = old
        assert [M.read_list_literal(t) for t in lists] == new_reads
    finally:
        M._LIST_ITEM = None  # compiled again on the next read


# ---------------------------------------------------------------- 2. every built-in decides hostile replies
HOSTILE_SIZE = 64_000
KEY_FILLERS = ["the answer is ", "Answer: ", "answer:", "**", "(A) ", "\\boxed{", "{", "1", "1,", "A ", " ", "\n",
               "<answer>", "$", "final answer is ", "1 rows ", "_{"]


def _builtin_names() -> list[str]:
    from rulekit.core.resources import builtin_rulesets
    return sorted(builtin_rulesets())


def _ruleset_patterns(name: str):
    """(the compiled ruleset with every judge fallback replaced by its non-judge `then:`, the sources of
    every pattern it compiles or expands per option set)."""
    import dataclasses

    import rulekit.core.regex as core
    from rulekit.engine.compiler import load_ruleset
    from rulekit.language import compares, expr, finds, prepare
    from rulekit.language.fallbacks import final_fallback

    seen: list[str] = []
    original = core.compile_regex

    def spy(pattern, loc):
        seen.append(pattern)
        return original(pattern, loc)

    modules = (core, finds, prepare, compares, expr)
    for m in modules:
        m.compile_regex = spy
    try:
        rs = load_ruleset(name, cache=False)
    finally:
        for m in modules:
            m.compile_regex = original
    for section in rs.sections.values():
        for step in section.steps:
            for finder in [step.finder, *(step.also or ())]:
                if getattr(finder, "source", None):
                    seen.append(finder.source.replace("{letters}", "[ABCD]"))
    rs.sections = {k: dataclasses.replace(s, fallback=final_fallback(s.fallback)) for k, s in rs.sections.items()}
    return rs, list(dict.fromkeys(seen))


def hostile_replies(patterns: list[str], size: int = HOSTILE_SIZE, per_ruleset: int = 40, seed: int = 0) -> list[str]:
    """Repetition loops of every phrase the patterns contain and of the usual fillers, said once and
    followed by a run, ended by nothing, a newline and a word, or "!": a seeded sample of
    `per_ruleset`, always with the key fillers' plain loops."""
    units, once = list(KEY_FILLERS), []
    for p in patterns:
        pieces = PROBE.pieces(p)
        units += pieces
        once += pieces
    units, once = list(dict.fromkeys(units)), list(dict.fromkeys(once))
    attacks = PROBE.attacks(units, once)
    rng = random.Random(seed)
    chosen = [("", u, "", "\nx") for u in KEY_FILLERS] + rng.sample(attacks, min(per_ruleset, len(attacks)))
    return [PROBE.hostile(a, size) for a in chosen]


def _hostile_records(rs, replies):
    from rulekit.core.records import Record

    for qt in rs.sections:
        for i, reply in enumerate(replies):
            choices = {"A": "cat", "B": "dog", "C": "cow", "D": "eel"} if qt != "open" else None
            yield Record(f"h{i}", qt, reply, "A" if choices else "12", choices, meta={"task": "Grid", "answer_type": "float"})


@pytest.mark.slow  # corpus-wide, over every built-in ruleset
@pytest.mark.parametrize("name", _builtin_names())
def test_every_builtin_decides_hostile_replies_without_a_regex_limit(name):
    """Replies of up to 64k characters — a benchmark's longest — are decided: no outcome `error` from a
    regex time limit (the outcome is asserted, never a time: the limits are what would stop a slow
    pattern, and the built-ins' patterns are linear, see benchmarks/redos.py)."""
    from rulekit.core.watchdog import watching
    from rulekit.engine.decide import Evaluator

    rs, patterns = _ruleset_patterns(name)
    symbolic = name.startswith(("physics", "olympiadbench", "vlmevalkit-mathvision"))  # SymPy per reply: fewer
    replies = hostile_replies(patterns, per_ruleset=6 if symbolic else 40, seed=len(name))
    ev = Evaluator(rs)
    stopped = []
    # the limits in CPU time, as under the rulekit command: a plain decide's per-call timeout is wall-clock,
    # and a niced test on a loaded machine had a 64k reply of atropos-blink (85 ms of CPU) stopped by the 2 s budget
    with watching():
        for record in _hostile_records(rs, replies[:4] if symbolic else replies):  # SymPy: CPU-limited, but slow
            d = ev.decide(record)
            if d is not None and d.outcome == "error" and (d.reason or "").startswith(("regex time limit", "regex budget")):
                stopped.append((d.reason, record.response[:60]))
    assert stopped == []


# ---------------------------------------------------------------- 3. no record depends on another
USER_RULESET = """ruleset: user-evil
multiple-choice:
  steps:
    - id: evil
      find: {regex: "(?P<answer>(?:q|q)+z)"}
    - id: letter
      find: {literal: "{letter}"}
      pick: last
open:
  steps:
    - id: evil-open
      find: {regex: "(?P<answer>(?:q|q)+z)"}
    - id: whole
      find: {whole: true}
"""
DETERMINISM_RULESETS = ["atropos-chartqa", "atropos-mcq", "atropos-docvqa", "vlmevalkit"]  # no stream-order draws


def _corpus_rows(n_mc: int, n_open: int) -> list[dict]:
    rows, mc, op = [], 0, 0
    with CORPUS.open(encoding="utf-8") as f:
        for i, line in enumerate(f):
            row = json.loads(line)
            if i % 7:
                continue
            if row["question_type"] == "multiple-choice" and mc < n_mc and row.get("choices"):
                mc += 1
                rows.append(row)
            elif row["question_type"] == "open" and op < n_open:
                op += 1
                rows.append(row)
    return rows


def _hostile_rows() -> list[dict]:
    texts = [PROBE.hostile(("", "the answer is ", "", "12\nfoo"), HOSTILE_SIZE),
             PROBE.hostile(("", "answer:", "", "\nx"), HOSTILE_SIZE),
             PROBE.hostile(("final answer is", " ", "", "!"), HOSTILE_SIZE),
             PROBE.hostile(("", "<answer>x", " ", ""), HOSTILE_SIZE),
             PROBE.hostile(("", "\n", "", "!"), HOSTILE_SIZE),
             "q" * 40]  # the user ruleset's catastrophic pattern: a time-out every time
    rows = []
    for i, text in enumerate(texts):
        for qt in ("multiple-choice", "open"):
            rows.append({"id": f"hostile-{qt[0]}{i}", "question_type": qt, "response": text, "answer": "A",
                         "choices": {"A": "cat", "B": "dog", "C": "cow", "D": "eel"} if qt != "open" else None})
    return rows


def _eval(tmp_path: Path, data: Path, out: str, workers: int) -> dict[str, dict[str, bytes]]:
    rulesets = [*sum((["-r", n] for n in DETERMINISM_RULESETS), []), "-r", str(tmp_path / "user-evil.yaml")]
    run = subprocess.run([sys.executable, "-m", "rulekit.cli", "eval", *rulesets, str(data), "--workers", str(workers),
                          "--format", "json", "--output-dir", str(tmp_path / out)],
                         capture_output=True, timeout=1800, cwd=tmp_path)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    decided = {}
    for path in (tmp_path / out).glob("*.decisions.jsonl"):
        decided[path.name] = {json.loads(line)["id"]: line for line in path.read_bytes().splitlines()}
    return decided


@pytest.mark.slow  # corpus-wide, over every built-in ruleset
@pytest.mark.skipif(not CORPUS.exists(), reason="shared corpus not available")
def test_decisions_never_depend_on_other_records_file_order_or_load(tmp_path):
    """Issue 29's "done": a file of corpus records, shuffled and padded with hostile replies, run under
    CPU load with 1 and 2 workers, decides every corpus record byte for byte as the clean file does;
    the user ruleset's catastrophic pattern makes its hostile records `error`, and nothing else."""
    (tmp_path / "user-evil.yaml").write_text(USER_RULESET, encoding="utf-8")
    clean_rows = _corpus_rows(160, 80)
    clean = tmp_path / "clean.jsonl"
    clean.write_text("".join(json.dumps(r) + "\n" for r in clean_rows), encoding="utf-8")
    hostile_rows = [dict(row, id=f"{row['id']}-{k}") for k in range(3) for row in _hostile_rows()]  # 3 times each:
    padded_rows = clean_rows + hostile_rows   # the old run cut a step off after 3 time-outs, every later record `error`
    random.Random(29).shuffle(padded_rows)
    padded = tmp_path / "padded.jsonl"
    padded.write_text("".join(json.dumps(r) + "\n" for r in padded_rows), encoding="utf-8")

    expected = _eval(tmp_path, clean, "clean", 1)
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(max(2, os.cpu_count() or 1))]
    try:
        runs = {workers: _eval(tmp_path, padded, f"padded-{workers}", workers) for workers in (1, 2)}
    finally:
        for p in busy:
            p.kill()
            p.wait()
    for workers, decided in runs.items():
        for name, rows in expected.items():
            got = decided[name]
            assert {i: got[i] for i in rows} == rows, f"{name} with {workers} worker(s)"
            hostile = {i: json.loads(line) for i, line in got.items() if i.startswith("hostile-")}
            assert hostile and len(got) == len(rows) + len(hostile)
            if name.startswith("user-evil"):  # its catastrophic pattern: error on "qqq...", each record alone
                qs = [d for i, d in hostile.items() if i.startswith(("hostile-m5", "hostile-o5"))]
                assert len(qs) == 6 and all(d["outcome"] == "error" for d in qs)
    # (whether the built-ins decide the hostile replies themselves is test 2's, without the load: the
    # limits are wall-clock, and a 64k reply's few milliseconds of regex time stretch under this load)
