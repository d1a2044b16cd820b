"""Property-based fuzzing of rulekit: records, conditions, rulesets and the command line.

Five property tests, 10,160 generated cases in all (2,600 + 300 + 5,200 + 1,800 + 260), under a minute on two cores:

1. records    — any reply / option set / gold through every built-in ruleset: `decide` never
                raises, outcomes and types are sane, a trace does not change the decision, and
                per-item fallbacks are identical across evaluator instances and input orders;
2. conditions — generated `when:`/`where:` sources compile to a Condition or raise
                ExpressionError, never anything else, and compiled ones evaluate on an Env;
3. rulesets   — generated (often broken) YAML rulesets load or raise a RulekitError that renders;
                loaded ones decide records without raising;
4. the CLI    — `eval`, `diff`, `explain` on generated JSONL files exit 0 or 2, no traceback.

Generation is hybrid to stay cheap: Hypothesis draws the shape of each case and some of its text
(shrinkable), and a `random.Random` seeded by Hypothesis fills in the bulk from pools of nasty
values (control characters, NUL, RTL marks, literal "\\n", regex metacharacters, non-ASCII
letters, huge strings). `RULEKIT_FUZZ_SCALE=10` runs ten times as many cases.

Bugs found by these properties are pinned one by one in `test_bug_*` tests at the end, each
marked `xfail(strict=True)` with a one-line reproducer in its reason, so fixing a bug turns its
test into an XPASS failure: then delete the xfail marker AND the matching entry of `KNOWN_BUGS`,
the narrow list (exception type + the rulekit function it escapes from) of failures the broad
properties tolerate meanwhile, so that they keep fuzzing everything else.
"""
from __future__ import annotations

import atexit
import json
import os
import random
import re
import shutil
import tempfile
import traceback
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import rulekit
from rulekit.language import schema as S
from rulekit.cli import main
from rulekit.engine.compiler import CompiledRuleset, load_ruleset
from rulekit.core.options import option_set
from rulekit.engine.decide import Env, Evaluator
from rulekit.core.errors import ErrorGroup, ExpressionError, Loc, RulekitError
from rulekit.language.expr import CANDIDATE_NAMES, FUNCTIONS, VARIABLES, Condition, compile_condition
from rulekit.language import expr as _expr
from rulekit.core.records import Record
from rulekit.core.resources import builtin_rulesets
from rulekit.core.trace import OUTCOMES, Candidate

pytestmark = pytest.mark.slow  # property-based fuzzing (minutes)

RULEKIT_DIR = str(Path(rulekit.__file__).resolve().parent)
# What a condition raises when it parsed but cannot be evaluated on a record (`answer + 1` on text);
# the engine turns it into an `error` decision for that record.
ConditionFailed = getattr(_expr, "ConditionFailed", ())
_SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
             HealthCheck.large_base_example]
_SCALE = float(os.environ.get("RULEKIT_FUZZ_SCALE", "1"))


def fuzz(n: int):
    """Hypothesis settings of one property: n examples (times RULEKIT_FUZZ_SCALE), no deadline, no database."""
    return settings(max_examples=max(1, int(n * _SCALE)), deadline=None, database=None, derandomize=True,
                    suppress_health_check=_SUPPRESS, print_blob=False)


# ====================================================================== known bugs
# Open bugs, each pinned by a strict xfail test at the end of this file, with the narrow signature by
# which the broad properties recognise it meanwhile: exception type(s), the rulekit file and function
# it escapes from (None: any), and a regex its message must match (None: any).
KNOWN_BUGS: dict = {}  # every bug the fuzzer found so far is fixed; add narrow entries here for new ones


def known_bug(exc: BaseException) -> str | None:
    """The KNOWN_BUGS key this exception is an instance of, else None."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith(RULEKIT_DIR)]
    if not frames:
        return None
    file, func = Path(frames[-1].filename).name, frames[-1].name
    for name, (types, bug_file, bug_func, message) in KNOWN_BUGS.items():
        if (isinstance(exc, types) and bug_file in (None, file) and bug_func in (None, func)
                and (message is None or re.search(message, str(exc)))):
            return name
    return None


def tolerate_known(exc: BaseException, allowed: tuple[str, ...]) -> None:
    """Re-raise `exc` unless it is one of the `allowed` known bugs (ids such as "B9")."""
    name = known_bug(exc)
    if name is None or name.split("-")[0] not in allowed:
        raise exc


# ====================================================================== shared data
BUILTINS = {n: p for n, p in builtin_rulesets().items() if not n.endswith("+judge")}  # judged ones need a server: test_judge.py
COMPILED: dict[str, CompiledRuleset] = {name: load_ruleset(name) for name in BUILTINS}
_TMP = Path(tempfile.mkdtemp(prefix="rulekit-fuzz-"))
atexit.register(shutil.rmtree, _TMP, ignore_errors=True)


def _per_item_variant(name: str) -> CompiledRuleset:
    """`name` with its stream fallback turned into `order: per-item` (via `extends:`)."""
    path = _TMP / f"{name}-per-item.yaml"
    path.write_text(f"ruleset: {name}-per-item\nextends: {name}\nmultiple-choice:\n"
                    "  fallback: {random-option: {order: per-item, seed: 0}}\n", encoding="utf-8")
    return load_ruleset(str(path))


STREAM = sorted(n for n, rs in COMPILED.items() if rs.stream)
PER_ITEM = {n: rs for n, rs in COMPILED.items() if not rs.stream}
PER_ITEM.update({f"{n}-per-item": _per_item_variant(n) for n in STREAM})
ALL_RULESETS = {**COMPILED, **{k: v for k, v in PER_ITEM.items() if k.endswith("-per-item")}}


def test_the_fuzzed_population_is_what_we_think():
    assert {"lmms-eval", "vlmevalkit", "mmmu", "mmevalpro"} <= set(BUILTINS)
    assert {"lmms-eval", "mmmu"} <= set(STREAM) and "lmms-eval-per-item" in PER_ITEM
    assert not any(rs.stream for rs in PER_ITEM.values())


# ====================================================================== the generator
SPECIAL = ["", " ", "\n", "\\n", "\t", "\r\n", "\r", "\x00", "\x1b[0m", "\x7f", "\x85", "\u2028", "\u200f", "\u202e",
           "\u200b", "\ufeff", "\u00a0", "(A)", "(B)", "A.", "B ", " C ", "The answer is D", "answer is a", "Answer: (E)",
           "Z", "A", "B", "C", "D", "Failed to obtain answer via API", "Cannot determine the answer", "[/]", "[bold]",
           "{letter}", "{option}", "{letters}", ".*", "(?P<answer>", "\\", "$", "^", "|", "1,234", "-3.5e+2", ".5", "so ",
           "is ", "=", "Thus the area is 12", "<think>x</think>", "ß", "İ", "ﬁ", "Ⅻ", "😀", "\U0001f1fa\U0001f1f8",
           "a dog", "cat", "**B**", "Ä", "λ", "中文", "١٢٣", "é", "e\u0301"]
CONTROL = ["\x00", "\x01", "\x08", "\x0b", "\x0c", "\x1f", "\x7f", "\x85", "\u2028", "\u2029", "\u200e", "\u200f",
           "\u202a", "\u202e", "\u2066", "\ufeff", "\ufffe", "\uffff"]
ASCII = "ABCDEZabcdez ().,:;!?*#{}[]<>-_=+'\"0123456789\n\t"
LETTERS26 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
OPTION_POOL = ["", "cat", "dog", "a dog", "a", "A", "the", ".*", "(x)", "[a-z]+", "$1", "\\d", "?", "|", "x" * 500,
               "1,234", "Ä", "\u200f", "[/]", "{letter}", "{option}", "B", " ", "\n", "\x00", "dog"]
ODD_KEYS = ["a", "z", "Z", "1", "*", ".", "(", "]", "\\", "-", "^", " ", "{letter}", "{option}", "AB", "", "Ä", "ß",
            "λ", "Ж", "中", "ǅ", "\u200f", "\x00", "[", "$", "a b"]


class Gen:
    """Cheap nasty data from one seeded RNG (Hypothesis draws the seed and some `hint` text)."""

    def __init__(self, seed: int, hint: str = ""):
        self.r = random.Random(seed)
        self.hint = hint

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def char(self) -> str:
        x = self.r.random()
        if x < 0.55:
            return self.pick(ASCII)
        if x < 0.65:
            return self.pick(CONTROL)
        while True:  # any code point but a surrogate
            c = self.r.choice((self.r.randrange(0x80, 0x800), self.r.randrange(0x800, 0x10000), self.r.randrange(0x10000, 0x110000)))
            if not 0xD800 <= c <= 0xDFFF:
                return chr(c)

    def text(self, n: int = 12) -> str:
        return "".join(self.char() for _ in range(self.r.randrange(n + 1)))

    def piece(self) -> str:
        x = self.r.random()
        if x < 0.45:
            return self.pick(SPECIAL)
        if x < 0.55:
            return self.hint
        return self.text(8)

    def composed(self, n: int = 10) -> str:
        return "".join(self.piece() for _ in range(self.r.randrange(n + 1)))

    def reply(self, huge: float = 0.04) -> str:
        x = self.r.random()
        if x < huge:
            unit = self.composed(3) or "A "
            size = self.r.randrange(2000, 20_001)
            return (unit * (size // len(unit) + 1))[:size]
        if x < 0.10:
            return ""
        if x < 0.25:
            return self.pick(["A", "B", " C\n", "(D)", "The answer is (B).", "Answer: C", "I think it is A or B",
                              "Cannot determine the answer", "B.", "b", "Z", "None of the above"]) + self.composed(2)
        if x < 0.35:
            return self.text(40)
        return self.composed()

    def choices(self) -> dict | None:
        x = self.r.random()
        if x < 0.2:
            return None
        n = self.r.randint(1, 26) if self.chance(0.3) else self.r.randint(1, 5)
        if x < 0.7:
            keys = list(LETTERS26[:n])
        else:
            keys = []
            while len(keys) < n:
                k = self.pick(ODD_KEYS) if self.chance(0.4) else (self.char() if self.chance(0.5) else self.pick(LETTERS26 + "ÄÖÜλЖ中"))
                if self.chance(0.05):
                    k = self.hint or k
                if k not in keys:
                    keys.append(k)
        texts = []
        for _ in keys:
            y = self.r.random()
            texts.append(self.pick(OPTION_POOL) if y < 0.4 else self.pick(texts) if texts and y < 0.5
                         else self.hint if y < 0.55 else self.composed(3))
        return dict(zip(keys, texts))

    def scalar(self):
        return self.pick([None, "A", "B", "Z", "", "a", 0, 1, -1, 1.5, 1e300, -0.0, True, False, 12, "12", "1,234",
                          self.text(6), self.hint])

    def answer(self):
        return [self.scalar() for _ in range(self.r.randrange(4))] if self.chance(0.2) else self.scalar()

    def meta(self) -> dict:
        out = {}
        for k in ("source", "x", "triplet_id", "eval_type", "subject"):
            if self.chance(0.25):
                out[k] = self.pick([None, "x", "", "Origin", 1, [1], {"a": 1}, self.text(4)])
        return out

    def record(self, rid: str | None = None, huge: float = 0.04) -> Record:
        return Record(id=rid if rid is not None else self.pick(["", "a", "1", self.text(6), self.hint]),
                      question_type=self.pick(["multiple-choice", "multiple-choice", "open"]),
                      response=self.reply(huge), answer=self.answer(), choices=self.choices(),
                      benchmark=self.pick([None, "MMMU", ""]), model=self.pick([None, "m", "ü"]), meta=self.meta())


def gens(hint=st.text(max_size=8)):
    """A Gen seeded by Hypothesis, with a Hypothesis-drawn `hint` string mixed into what it makes."""
    return st.builds(Gen, st.integers(0, 2**64), hint)


# ====================================================================== 1. records
def _letters(ruleset: CompiledRuleset, record: Record) -> set:
    section = ruleset.sections[record.question_type]
    if section.letters_count is not None:  # `letters-count`: the first N letters of the alphabet
        from rulekit.core.options import counted_letters

        return set(counted_letters(record.choices, *section.letters_count))
    letters = set(record.choices) if record.choices else set(section.letters_if_missing)
    for code in range(ord("A"), ord("Z") + 1):  # `letters-at-least` pads with the first missing letters
        if len(letters) >= section.letters_at_least:
            break
        letters.add(chr(code))
    return letters


def _named_letters(section, step_id: str) -> set:
    """The single letters a step's token finder lists literally (not templates of the record's options)."""
    step = next((st for st in section.steps if st.id == step_id), None)
    finder = getattr(step, "finder", None)
    if type(finder).__name__ != "TokenFinder":
        return set()
    return {t for t in finder.templates if isinstance(t, str) and len(t) == 1 and t.isalpha()}


def _fallback_letters(ruleset: CompiledRuleset, record: Record) -> set:
    fb = ruleset.sections[record.question_type].fallback
    extra = set(fb.random_option.extra) if isinstance(fb, S.RandomOption) else set()
    return _letters(ruleset, record) | extra


def _correct_from(ruleset: CompiledRuleset, d) -> float:
    """The lowest `correct-from` of any anls compare in the ruleset (1.0 when none lowers it)."""
    found = [1.0]

    def walk(kind) -> None:  # a compare, its `cases`, and a compare inside one (python-gold's `compare`)
        if hasattr(kind, "anls"):
            found.append(kind.anls.correct_from)
        for _, inner in getattr(kind, "cases", ()):
            walk(inner)
        inner = getattr(kind, "compare", None)
        if inner is not None and inner is not kind:
            walk(inner)

    for section in ruleset.sections.values():
        walk(section.compare)
    return min(found)


def check_decision(ruleset: CompiledRuleset, record: Record, d, trace: bool, builtin: bool = True) -> None:
    """Invariants every decision must hold (`builtin`: also those of the built-in rulesets' letter steps)."""
    if record.question_type not in ruleset.sections:
        assert d is None
        return
    assert d is not None and d.id == record.id
    assert d.outcome in OUTCOMES
    assert d.correct in (True, False, None)
    assert isinstance(d.score, float) and 0.0 <= d.score <= 1.0  # partial credit (anls, mra) is fractional
    # a full score is correct; correct with less than a full score only under anls' `correct-from`
    assert d.score < 1.0 or d.correct is True
    assert d.correct is not True or d.score == 1.0 or (d.score > 0.0 and _correct_from(ruleset, d) < 1.0)
    assert d.pred is None or isinstance(d.pred, str) or (
        isinstance(d.pred, list) and all(isinstance(x, (str, int, float)) for x in d.pred)), d.pred
    if d.correct is True:
        assert d.pred is not None
    if d.outcome == "error":
        assert d.correct is None and d.pred is None and d.message
    if d.outcome == "unreadable":  # decided before any step: a multiple-choice record the section cannot read
        section = ruleset.sections[record.question_type]
        assert record.question_type == "multiple-choice" and not record.choices and section.needs_options
        assert d.correct is None and d.pred is None and d.step is None and not d.trace
    if d.outcome == "fallback" and d.step == "random-option":
        letters = _fallback_letters(ruleset, record)
        assert d.pred in letters
        fb = ruleset.sections[record.question_type].fallback
        if len(set(fb.random_option.extra)) == len(fb.random_option.extra):  # else B20: see test_bug_b20_*
            assert d.k == len(letters)
    section = ruleset.sections[record.question_type]
    if builtin and d.outcome == "rule" and section.compare == "letter" and record.question_type == "multiple-choice":
        # every built-in letter step answers an option letter, or a letter the step itself names (a token
        # list written out: VLMEvalKit's first can_infer counted A-E whatever the options, vlmevalkit@v0b)
        assert d.pred in _letters(ruleset, record) | _named_letters(section, d.step), (d.pred, d.step)
    assert (d.trace is not None) == trace
    if trace:
        assert all(t.status in ("fired", "passed", "skipped", "skipped-to", "error") for t in d.trace)
        if d.outcome in ("rule", "abstain") and d.step != "abstain":
            assert d.trace[-1].status == "fired" and d.trace[-1].step == d.step


def _key(d):
    return None if d is None else (d.id, repr(d.pred), d.correct, d.score, d.outcome, d.step, d.k, d.message)


@fuzz(2600)
@given(g=gens(), trace=st.booleans(), seed=st.one_of(st.none(), st.integers(-2**63, 2**63)))
def test_records_through_every_builtin_ruleset(g, trace, seed):
    record = g.record()
    for name, rs in ALL_RULESETS.items():
        d = Evaluator(rs, seed).decide(record, trace=trace)
        check_decision(rs, record, d, trace)
        # a fresh evaluator (a fresh stream too), with the trace the other way round: the same decision
        again = Evaluator(rs, seed).decide(record, trace=not trace)
        check_decision(rs, record, again, not trace)
        assert _key(d) == _key(again), (name, record)


@fuzz(300)
@given(g=gens(), n=st.integers(1, 8), seed=st.one_of(st.none(), st.integers(-1000, 1000)), data=st.data())
def test_per_item_fallbacks_ignore_instances_and_order(g, n, seed, data):
    recs = [g.record(rid=f"r{i}", huge=0.01) for i in range(n)]
    order = data.draw(st.permutations(range(n)))
    for name, rs in PER_ITEM.items():
        a = {r.id: _key(Evaluator(rs, seed).decide(r)) for r in recs}  # a new instance per record
        ev = Evaluator(rs, seed)
        b = {recs[i].id: _key(ev.decide(recs[i])) for i in order}  # one instance, shuffled order
        assert a == b, name
    for name in STREAM:  # order-dependent by design: same order → same decisions
        one, two = Evaluator(COMPILED[name], seed), Evaluator(COMPILED[name], seed)
        assert [_key(one.decide(r)) for r in recs] == [_key(two.decide(r)) for r in recs], name


# ====================================================================== 2. conditions
NAMES = [n for n in VARIABLES if n != "meta.NAME"] + ["meta.source", "meta.x", "meta.a.b", "meta.missing"]
BAD_NAMES = ["wrods", "lenght", "foo", "meta", "answers", "Words", "x1", "_", "in_", "nott", "trueish", "falsey", "meta.",
             "index2", "letters.x"]
CMP_OPS = ["==", "!=", "<", "<=", ">", ">="]
ARITH_OPS = ["+", "-", "*", "/", "%"]
ALL_OPS = CMP_OPS + ARITH_OPS + ["and", "or", "in", "not in"]
FUNCS = sorted(FUNCTIONS) + ["lens", "max", "meta.x"]


def _string_literal(s: str) -> str:
    s = s.replace("\n", " ")
    return f"'{s}'" if "'" not in s else f'"{s}"' if '"' not in s else "'x'"


class CondGen(Gen):
    """Random sources of the condition language (and near misses)."""

    def atom(self) -> str:
        x = self.r.random()
        if x < 0.3:
            return self.pick(NAMES)
        if x < 0.45:
            return str(self.r.randrange(101)) if self.chance(0.8) else self.pick(["0.5", "1.0", "2.25", "007"])
        if x < 0.65:
            return _string_literal(self.pick(["A", "Z", "", "a b", "{letter}", self.hint, self.text(5)]))
        if x < 0.75:
            return self.pick(["true", "false"])
        if x < 0.8:
            return self.pick(BAD_NAMES)
        return self.pick(NAMES)

    def expr(self, depth: int = 3) -> str:
        if depth <= 0 or self.chance(0.3):
            return self.atom()
        x = self.r.random()
        d = depth - 1
        if x < 0.45:
            return f"{self.expr(d)} {self.pick(ALL_OPS)} {self.expr(d)}"
        if x < 0.55:
            return f"not {self.expr(d)}"
        if x < 0.6:
            return f"-{self.expr(d)}"
        if x < 0.7:
            return f"({self.expr(d)})"
        if x < 0.85:
            return f"{self.pick(FUNCS)}({', '.join(self.expr(d) for _ in range(self.pick([1, 1, 1, 0, 2, 3])))})"
        return "[" + ", ".join(self.expr(d) for _ in range(self.r.randrange(4))) + "]"

    def mutate(self, s: str) -> str:
        for _ in range(self.r.randint(1, 3)):
            i = self.r.randrange(len(s) + 1)
            op = self.r.random()
            if op < 0.35 and s:
                s = s[:i] + s[i + 1:]
            elif op < 0.8:
                s = s[:i] + self.pick(list("()[],'\"=<>!+-*/% .") + ["and", "or", "not", "in", "1", "x", "\n", "\t", "\x00",
                                                                     "é", " in ", "(", "[", "'"]) + s[i:]
            else:
                s = s[:i] + s[i:i + 3] + s[i:]
        return s

    def condition(self) -> str:
        x = self.r.random()
        if x < 0.5:
            return self.expr()
        if x < 0.75:
            return self.mutate(self.expr())
        if x < 0.85:
            return "".join(self.pick(list("abcdilnorstuw_. ()[]'\"=<>!+-*/%,0123456789")) for _ in range(self.r.randrange(30)))
        return self.text(30)


def _atom_st():
    return st.one_of(st.integers(0, 100).map(str), st.sampled_from(NAMES + BAD_NAMES + ["true", "false", "0.5"]),
                     st.text(max_size=6).map(_string_literal))


grammar_conditions = st.recursive(
    _atom_st(),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(ALL_OPS), inner).map(" ".join),
        inner.map(lambda a: f"not {a}"), inner.map(lambda a: f"-{a}"), inner.map(lambda a: f"({a})"),
        st.tuples(st.sampled_from(FUNCS), st.lists(inner, max_size=2)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]")),
    max_leaves=6)
# Hypothesis-made sources (shrink well), seeded-random ones (cheap, broad), and arbitrary text.
any_condition = st.one_of(grammar_conditions, st.builds(lambda seed, hint: CondGen(seed, hint).condition(),
                                                        st.integers(0, 2**64), st.text(max_size=4)),
                          st.text(max_size=20))


def _cheap_to_run(src: str) -> bool:
    """Skip running sources that could build huge strings/lists by repeated `*` (they still compile)."""
    return src.count("*") <= 2 and not re.search(r"\d{4}", src)


def make_env(g: Gen) -> Env:
    record = g.record(huge=0)
    opts = option_set(record.choices, ("A", "B", "C", "D"))
    env = Env(g.composed(4)[:60], record, opts)
    env.cands = [Candidate(g.pick(opts.letter_list + ["Z", "", g.text(3)]), s, s + 1, "x", g.r.randint(-1, 5),
                           g.r.randint(-1, 5)) for s in range(g.r.randrange(4))]
    env.candidate = env.cands[0] if env.cands else Candidate("A", 0, 1)
    env.tokens_count = g.pick([None, 0, 3, 50])
    return env


def compile_contract(src: str, where: bool) -> Condition | None:
    """compile_condition returns a Condition or raises ExpressionError (located, renderable)."""
    try:
        cond = compile_condition(src, Loc("x.yaml", 1, 1), where=where)
    except ExpressionError as exc:
        assert exc.loc is not None and exc.loc.file == "x.yaml" and exc.loc.line == 1 and exc.loc.col >= 1
        assert exc.code.startswith("E2") and exc.render().startswith("x.yaml:1:")
        return None
    assert isinstance(cond, Condition) and cond.source == src
    assert cond.names <= set(VARIABLES) | {n for n in cond.names if n.startswith("meta.")}
    if not where:
        assert not (cond.names & CANDIDATE_NAMES)
    return cond


@fuzz(5200)
@given(src=any_condition, where=st.booleans(), env_seed=st.integers(0, 2**64))
def test_conditions_compile_or_raise_expression_error(src, where, env_seed):
    cond = compile_contract(src, where)
    if cond is None or not _cheap_to_run(src):
        return
    env = make_env(Gen(env_seed))
    try:
        assert cond(env) in (True, False)
    except ConditionFailed as exc:  # a run-time type error: the engine makes it an `error` decision
        assert cond.source in str(exc)


# ====================================================================== 3. rulesets
LETTER_TEMPLATES = ["{letter}", "({letter})", "{letter} ", " {letter} ", "{letter}.", "{option}", "Z", "answer",
                    "[{letter}]", "**{letter}**", "", "{letter}{letter}"]
REGEXES_OK = ["(?P<answer>[A-D])", "(?i)answer\\s+is\\s+(?P<answer>{letters})", "(?P<answer>{letters})", "(?P<answer>\\d+)",
              "(?P<answer>(a|aa)+)$", "(?P<answer>.)\\1", "(?P<answer>\\p{L})", "(?P<answer>)", "(?P<answer>{letter})",
              "(?P<answer>a)|(?P<b>b)", "(?P<answer>[{letters}Z])\\W*$", "(?i)(?:correct\\s+)?answer\\s+is\\s+\\**(?P<answer>[ABCD])\\**"]
REGEXES_BAD = ["(?P<x>a)", "(", "(?P<answer>[", "[", "a{2,1}", "(?P<answer>{letters}", "{letters}", ".*"]
CONDITIONS = ["words > 5", "distinct == 1", "answer in letters", "length <= 2 * options_length", "first_index > tokens - 5",
              "answer == 'Z'", "candidates > 2", "start > 3 and end < 40", "contains('is')", "answer + 1 > 0",
              "len(answer) == 1", "meta.source == 'x'", "1 / 0 > 1", "wrods > 5", "index >= 0", "true", "", "not",
              "distinct == 1 and tokens > 3", "search(gold, gold)", "search('(', gold)", "search('a')"]
WHEN_OK = ["words > 5", "distinct == 1", "length <= 2 * options_length", "candidates > 2", "contains('is')",
           "meta.source == 'x'", "true", "distinct == 1 and tokens > 3", "options >= 2", "'A' in letters", "len(letters) > 3",
           "question_type == 'open'", "count('A') > 1", "benchmark == 'MMMU' or model != 'm'",
           "search('[0-9]+', gold)", "search('(?py)\\s(a|aa)+$', meta.source)", "search('^[A-E]$', text)", "text == 'A'", "isalpha(text)", "isdigit(text)", "isjson(text)",
           "isfloat(before(text, 'π'))"]
WHERE_OK = ["answer in letters", "first_index > tokens - 5", "answer == 'Z'", "start > 3 and end < 40", "index >= 0",
            "answer not in [':', ',', '.']", "upper(answer) == answer", "isupper(answer) and isalpha(answer)", "start % 2 == 0", "len(answer) == 1", "answer + 1 > 0"]
FIND_KINDS = ["token", "word", "regex", "option-text", "phrases", "whole", "tail-after", "boxed", "yes-no", "delimited",
              "narrow", "after-phrase"]
STEP_IDS = ["a", "b", "c", "letter-space", "option-text", "single-letter", "refusal", "bracketed-letter", "answer-is"]


class RulesetGen(CondGen):
    """Random ruleset documents from the vocabulary. Half are `clean` (valid words and values only, so they
    usually load and their decisions get checked); the others mix in wrong types, unknown words, garbage
    keys and text-level damage (tabs, duplicate keys, bare yes/no, YAML tags, stray characters)."""

    def __init__(self, seed: int, hint: str = ""):
        super().__init__(seed, hint)
        self.clean = self.chance(0.5)

    def v(self, valid: list, invalid: list = ()):
        """A valid choice, or (when not clean, sometimes) an invalid one."""
        return self.pick(list(valid) + ([] if self.clean else list(invalid)))

    def garbage(self, depth: int = 1):
        leaf = self.pick([None, True, False, 0, -3, 7, 2**64, 10**30, -(2**70), 1.5, float("inf"), "", "x", self.text(5),
                          "yes", "no", "on", "off", "~", "null", "[", "{", self.hint])
        if depth <= 0 or self.chance(0.6):
            return leaf
        if self.chance(0.5):
            return [self.garbage(depth - 1) for _ in range(self.r.randrange(3))]
        return {self.pick(["a", "x", "", "Find", "id", self.text(4)]): self.garbage(depth - 1) for _ in range(self.r.randrange(3))}

    def maybe(self, make, p: float = 0.1):
        return self.garbage() if not self.clean and self.chance(p) else make()

    def some(self, make, n: int):
        return [make() for _ in range(self.r.randrange(n + 1))]

    def options(self, spec: dict) -> dict:
        """A random subset of optional keys: {key: maker}."""
        return {k: make() for k, make in spec.items() if self.chance(0.35)}

    def template(self):
        return self.pick(LETTER_TEMPLATES) if self.chance(0.8) else self.text(5)

    def templates(self):
        return self.template() if self.chance(0.7) else [self.template() for _ in range(self.r.randint(1, 3))]

    def case(self):
        return self.v(["exact", "ignore"], ["Ignore"])

    def find(self):
        kind = self.v(["literal", "literal", *FIND_KINDS], ["bare"])
        if kind in ("literal", "word"):
            return {kind: self.templates(), **self.options({"case": self.case})}
        if kind == "token":
            return {"token": self.templates(), **self.options({"separators": lambda: self.pick([".()[],:;!*#{}", "", " ", ".,"]),
                                                               "case": self.case})}
        if kind == "regex":
            return {"regex": self.v(REGEXES_OK, REGEXES_BAD + [self.text(6)]),
                    **self.options({"group": lambda: self.v(["answer"], ["x", "0"]),
                                    "matches": lambda: self.v(["all", "first", "last"], ["some"]),
                                    "transform": lambda: self.v(["upper", "lower", "strip", "none"], ["title"]),
                                    "expand": lambda: self.v(["\\g<answer>x", "\\g<0>-\\g<answer>"], ["\\9", "\\q", "\\g<nope>"])})}
        if kind == "option-text":
            return {"option-text": self.v([{}, {"case": self.case()}], [None])}
        if kind == "phrases":
            return {"phrases": self.some(lambda: self.pick(SPECIAL), 3), **self.options({"case": self.case})}
        if kind == "whole":
            return {"whole": self.v([True], [False, "yes"])}
        if kind == "tail-after":
            return {"tail-after": self.some(lambda: self.pick(["is ", "so ", "answer ", "", "="]), 3),
                    **self.options({"split": lambda: self.v(["\\n", "\\.\\s(?=[A-Z])|\\n", None], ["("]),
                                    "last-segment-extra": lambda: self.some(lambda: self.pick(["=", ":"]), 2)})}
        if kind == "boxed":
            return {"boxed": self.v([{}, {"nested": self.pick([True, False]),
                                          "overlapping": self.pick([True, False])}], [{"nested": "maybe"}])}
        if kind == "yes-no":
            words = lambda: self.some(lambda: self.pick(["yes", "no", "true", "false", "Yes.", "nope", "A"]), 2)  # noqa: E731
            return {"yes-no": self.v([{}, {"yes-words": words(), "no-words": words(), "case": self.case()}],
                                     [{"yes-words": []}, {"yes": ["x"]}])}
        if kind == "delimited":
            return {"delimited": self.v([{"open": "\\\\boxed\\{", "close": "[^\\\\](?P<end>\\})"}, {"open": "\\(", "close": "\\)"},
                                         {"open": "<a>", "close": "</a>|(?P<end>)$"}, {"open": "(a|aa)+", "close": "a*"}],
                                        [{"open": "("}, {"close": "x"}, {"open": "a", "close": "b", "end": "c"}])}
        if kind == "narrow":
            return {"narrow": {"markers": self.v([["answer:", "is"], ["the answer is", "answer", "a"], ["\n"]], [[], [""], "is"]),
                               **self.options({"strip": lambda: self.v([True, False], ["yes please"]),
                                               "until": lambda: self.some(lambda: self.pick(["\n", ".", "", ","]), 2),
                                               "transform": lambda: self.v(["upper", "lower", "none"], ["title"])})}}
        if kind == "after-phrase":
            return {"after-phrase": self.v([{"phrases": self.some(lambda: self.pick(["answer is", "İs", "", "选"]), 2),
                                              "answers": self.some(lambda: self.pick(["A", "B", "x", "İ"]), 3)}],
                                            [{"phrases": []}, {"answers": ["A"]}, {"phrases": ["a"], "answers": "A"}])}
        return self.pick(["literal", "whole", "regex"])

    def pick_(self):
        x = self.r.random()
        if x < 0.5:
            return self.v(["only", "single", "first", "last", "rightmost", "all"], ["middle"])
        if x < 0.6:
            return {"random": self.options({"seed": lambda: self.v([0, 7, -3], ["x"])})}
        if x < 0.7:
            return {"first-of": self.v([["A", "B", "C", "D", "E"], ["Z", "A", "A"], [""]], [[], "A"])}
        if x < 0.8:
            return {"rightmost-of": self.template(),
                    **self.options({"ties": lambda: self.v(["option-order", "first", "last"], ["random"])})}
        return {"rightmost": self.options({"ties": lambda: self.v(["first", "last", "option-order"], ["x"])})}

    def prepare_ops(self) -> dict:
        """A generator per registered prepare op (test_the_generator_covers_every_registered_prepare_op)."""
        return {
            "strip": lambda: {"strip": self.pick(["", ".", " .,", "A"])},
            "strip-ends-each": lambda: {"strip-ends-each": self.some(lambda: self.pick([",", ".", "!", "", "ab"]), 3)},
            "pad": lambda: {"pad": self.pick([" ", "", "##"])},
            "replace": lambda: {"replace": {self.pick(["a", "A", ".", " ", self.text(2) or "q"]): self.pick(["", "b", "  "])
                                            for _ in range(self.r.randint(1, 2))}},
            "remove-regex": lambda: {"remove-regex": self.v(["(?s)<think>.*?</think>", "\\s+", "(a|aa)+$"], ["["])},
            "truncate": lambda: {"truncate": self.pick([0, 5, 100, -3, 2**40])},
            "extract": lambda: {"extract": self.v([[{"boxed": {}}], [{"regex": "(?P<answer>[A-E])"}, {"boxed": {}}],
                                                   [{"json": "short answer"}], [{"json": ""}, {"boxed": {}}],
                                                   [{"json": "score", "strict": True, "require": ["extracted_answer"]}],
                                                   [{"json": "short answer", "strings-only": True}],
                                                   [{"delimited": {"open": "\\\\boxed\\{", "close": "[^\\\\](?P<end>\\})"}}]],
                                                  [[{"regex": "(x)"}], [], [{"json": 3}], [{"json": "a", "regex": "b"}]]),
                                **self.options({"take": lambda: self.v(["all", "first", "last"], ["middle"]),
                                                "join": lambda: self.pick(["", ",", " "]),
                                                "otherwise": lambda: self.v(["keep", "empty", "skip"], ["drop"])})},
            "slice": lambda: {"slice": self.v([[2, -2], [0, 1], [None, 3]], [[1], "x"])},
            "split-take": lambda: {"split-take": self.v([{"at": "=", "index": -1}, {"at": "is", "index": 1, "strip": True}],
                                                        [{"at": ""}, {"index": 2}])},
            "punctuation": lambda: {"punctuation": self.options({"chars": lambda: self.v([",.", ";/[]", "-"], [""]),
                                                                 "periods": lambda: self.v([None, 1, 32], [0]),
                                                                 "digit-comma": lambda: self.v(["one", "run"], ["many"]),
                                                                 "keep-periods": lambda: self.v(["next-to-digit", "before-digit"], ["all"])})},
            "digit-article": lambda: {"digit-article": self.v([{}], [{"numbers": {}}, None])},
            "regex-replace": lambda: {"regex-replace": self.v([{"pattern": "\\s+", "with": " "},
                                                               {"pattern": "(\\d)", "with": "\\1\\1"}],
                                                              [{"pattern": "(", "with": ""}, {"pattern": "a", "with": "\\9"}])},
        }

    def prepare_op(self):
        ops = self.prepare_ops()
        if self.chance(0.2):
            return self.v(["strip", "lowercase", "uppercase", "collapse-whitespace", "ascii-digits"], ["titlecase"])
        return ops[self.pick(sorted(ops))]()

    def when_src(self) -> str:
        return self.v(WHEN_OK + [self.expr(2)], CONDITIONS)

    def where_src(self) -> str:
        return self.v(WHERE_OK + WHEN_OK + [self.expr(2)], CONDITIONS)

    def step(self, ids: list, position: int) -> dict:
        step = {"id": ids[position] if self.clean else self.pick(ids) if self.chance(0.95) else self.garbage(0)}
        later = ids[position + 1:]
        spec = {"find": lambda: self.maybe(self.find), "pick": lambda: self.maybe(self.pick_),
                "when": lambda: self.maybe(self.when_src), "where": lambda: self.maybe(self.where_src),
                "prepare": lambda: self.maybe(lambda: self.some(self.prepare_op, 2)),
                "answer": lambda: self.maybe(lambda: self.pick(["Z", "A", ""])), "outcome": lambda: self.v(["rule", "abstain"], ["judge"]),
                "look-in": lambda: self.v(["prepared", "original", "model-reply"], ["raw"]),
                "enabled": lambda: self.maybe(lambda: self.chance(0.5)), "also": lambda: self.maybe(lambda: self.some(self.find, 2)),
                "description": lambda: self.text(8), "compare": lambda: self.maybe(self.compare)}
        if later or not self.clean:
            spec["skip-to"] = lambda: self.pick(later) if self.clean else self.pick(ids + ["nowhere"])
        if not self.clean:
            spec.update({"drop": lambda: self.chance(0.5), "before": lambda: self.pick(ids + ["bracketed-letter", "single-letter"]),
                         "after": lambda: self.pick(ids + ["option-text"])})
        for key in self.r.sample(sorted(spec), self.r.randrange(4)):
            step[key] = spec[key]()
        if "find" not in step and (self.clean or self.chance(0.75)):
            step["find"] = self.find()
        return step

    def fallbacks(self) -> dict:
        """A generator per registered fallback word that runs without a server (the judge needs one:
        tests/test_judge*.py drive it against a real HTTP server)."""
        return {
            "random-option": lambda: {"random-option": self.options({
                "order": lambda: self.v(["per-item", "stream"], ["global"]),
                "seed": lambda: self.pick([0, 1, -5, 42, 2**63 - 1]),
                "extra": lambda: self.some(lambda: self.pick(["Z", "A", "E"]), 2)})},
            "constant": lambda: {"constant": self.pick(["A", "Z", ""])},
            "abstain": lambda: {"abstain": self.pick([None, "Z"])},
        }

    def fallback(self):
        makers = self.fallbacks()
        if not self.clean and self.chance(0.2):
            return self.pick(["random-option", "abstain"])
        return makers[self.pick(sorted(makers))]()

    def compares(self) -> dict:
        """A generator per registered compare word (test_the_generator_covers_every_registered_compare)."""
        thresholds = lambda: self.v([[0.5, 0.1], [0.05]], [[]])  # noqa: E731
        return {
            "exact": lambda: {"exact": self.options({"strip": lambda: self.chance(0.5),
                                                     "gold-list-literal": lambda: self.chance(0.3),
                                                     "list-item": lambda: self.v(["text", "error"], ["skip"]),
                                                     "case": lambda: self.v(["exact", "ignore", "lower-prediction", "upper"], ["title"]),
                                                     "prepare": lambda: self.some(self.prepare_op, 2)})},
            "relaxed": lambda: {"relaxed": self.options({"tolerance": lambda: self.pick([0.05, 0, 1e9]),
                                                         "percent-suffix": lambda: self.chance(0.5),
                                                         "gold-list-literal": lambda: self.chance(0.5)})},
            "anls": lambda: {"anls": self.options({"threshold": lambda: self.pick([0.5, 0.0, 1.0]),
                                                   "denominator": lambda: self.v(["raw", "normalized"], ["max"]),
                                                   "strict": lambda: self.chance(0.5)})},
            "mra": lambda: {"mra": self.options({"thresholds": thresholds,
                                                 "divide-by": lambda: self.v(["gold", "abs-gold"], ["pred"]),
                                                 "zero-gold": lambda: self.v(["error", "exact"], ["zero"])})},
            "yes-no": lambda: {"yes-no": self.options({"yes": lambda: self.some(lambda: self.pick(["yes", "true", "A"]), 2),
                                                       "no": lambda: self.some(lambda: self.pick(["no", "false", "B"]), 2),
                                                       "match": lambda: self.v(["substring", "word", "exact"], ["fuzzy"])})},
            "contains": lambda: {"contains": self.options({"prepare": lambda: self.some(self.prepare_op, 2),
                                                           "either-way": lambda: self.v([True, False], ["both"]),
                                                           "within-gold": lambda: self.v([False], ["inside"]),
                                                           "gold-list-literal": lambda: self.v([True, False], ["list"])})},
            "tiers": lambda: {"tiers": self.v([[{"compare": self.compare(depth=1), "score": self.pick([1.0, 0.5, 0.0])}]],
                                              [[], [{"compare": "letter", "score": 2}]])},
            "sorted-join": lambda: {"sorted-join": self.options({"gold-split": lambda: self.v([", ", ","], [""])})},
            "letter-set": lambda: {"letter-set": self.options({"letters": lambda: self.v(["ABCDE", "AB"], [""])})},
            "or-judge": lambda: {"or-judge": self.v([self.compare(depth=1)], [[]])},
            "any-of": lambda: {"any-of": self.v([[self.compare(depth=1)], [self.compare(depth=1), self.compare(depth=1)]], [[]])},
            "fuzzy": lambda: {"fuzzy": self.options({"either-contains": lambda: self.chance(0.5),
                                                     "word-overlap": lambda: self.v([None, 0.0, 0.5, 1.0], [2.0]),
                                                     "empty-prediction": lambda: self.v(["wrong", "compare"], ["skip"])})},
            "word-recall": lambda: {"word-recall": self.v([{}], [{"min": 1}])},
            "judged": lambda: {"judged": self.v([{}], [{"judge": True}])},  # no judge here: unresolved
            "vqa-score": lambda: {"vqa-score": self.options({"prepare": lambda: self.some(self.prepare_op, 2),
                                                             "gold-list-literal": lambda: self.chance(0.5),
                                                             "others": lambda: self.v(["by-index", "by-value"], ["all"]),
                                                             "needed": lambda: self.v([3, 1], [0]),
                                                             "list-item": lambda: self.v(["text", "error"], ["skip"]),
                                                             "empty-list": lambda: self.v(["wrong", "error"], ["nan"])})},
            "numbers-near": lambda: {"numbers-near": self.options({"within": lambda: self.v([0.01, 1, 1e9], [0, -1])})},
            "cases": lambda: {"cases": self.some(lambda: {"when": self.when_src(), "compare": self.compare(depth=1)}, 2)},
            "python-gold": lambda: {"python-gold": {
                "compare": self.v([self.compare(depth=1)], [[]]),
                **self.options({"read": lambda: self.v(["as-is", "str", "str-or-list", "literal"], ["eval"]),
                                "names": lambda: self.v([{"response": "reply"}, {"x": "object", "answers": "gold"}],
                                                        [{"x": "pred"}, ["x"]]),
                                "builtins": lambda: self.v([True, False], ["all"]),
                                "falsy": lambda: self.v(["compare", "wrong"], ["maybe"]),
                                "not-text": lambda: self.v(["compare", "wrong"], ["raise"])})}},
            "int-equal": lambda: {"int-equal": self.options({"otherwise": lambda: self.v(["wrong"], ["judge?"]),
                                                             "via-float": lambda: self.v([True, False], ["yes please"])})},
            "arithmetic": lambda: {"arithmetic": self.options({"within": lambda: self.v([None, 1e-6, 0.5], [0, -1]),
                                                               "prepare": lambda: self.some(self.prepare_op, 1),
                                                               "names": lambda: self.v([{"a": "gold"}, {}], [{"a": "pred"}, ["a"]]),
                                                               "read": lambda: self.v(["python", "latex2sympy"], ["eval"]),
                                                               "difference": lambda: self.v(["float", "abs"], ["max"])})},
            "float-equal": lambda: {"float-equal": self.options({"falsy": lambda: self.v(["correct"], ["maybe"]),
                                                                 "within": lambda: self.v([0.01, 1.0], [0, -1]),
                                                                 "within-decimals": lambda: self.v(["precision", "p"], [""]),
                                                                 "edge": lambda: self.v(["exclusive", "inclusive"], ["open"]),
                                                                 "symbols": lambda: self.v([{"π": 3.141592653589793}, {"": 2.0, "x": -1e308}],
                                                                                           [{"π": "pi"}, ["π"]])})},
            "equivalent": lambda: {"equivalent": {"tests": self.v([["identical"], [{"numeric": {}}], ["identical", {"numeric": {}}]],
                                                                  [[{"symbolic": {}}]]),
                                                  **self.options({"credit": lambda: self.v(["match", "fraction"], ["half"]),
                                                                  "prepare": lambda: self.some(self.prepare_op, 1)})}},
        }

    def compare(self, depth: int = 0):
        if self.chance(0.5):
            return self.v(["letter", "contains-or-number", "int"], ["fuzzy"])
        makers = self.compares()
        if depth:
            makers.pop("cases")
            makers.pop("any-of")
            makers.pop("or-judge")
            makers.pop("tiers")
            makers.pop("python-gold")
        return makers[self.pick(sorted(makers))]()

    def normalize(self):
        return self.options({"number": lambda: self.pick([None, self.options({"remove": lambda: self.pick([",", "", " ,"]),
                                                                             "round": lambda: self.pick([None, 0, 2, -3, 6, 2**40])})]),
                             "strip": lambda: self.chance(0.5), "lowercase": lambda: self.chance(0.5),
                             "pad-single-char": lambda: self.pick([None, " "]), "dedupe": lambda: self.chance(0.5)})

    def section(self, name: str) -> dict:
        ids = self.r.sample(STEP_IDS, self.r.randint(1, 4))
        steps = lambda: [self.step(ids, i) for i in range(self.r.randint(0 if not self.clean else 1, len(ids)))]
        spec = {"steps": lambda: self.maybe(steps), "prepare": lambda: self.maybe(lambda: self.some(self.prepare_op, 3)),
                "fallback": lambda: self.maybe(self.fallback), "compare": lambda: self.maybe(self.compare),
                "normalize": lambda: self.maybe(self.normalize),
                "letters-if-missing": lambda: self.maybe(lambda: self.some(lambda: self.pick(["A", "B", "C", "D", "Z", "1"]), 4)),
                "letters-at-least": lambda: self.maybe(lambda: self.v([0, 2, 4, 10], [-1, 27])),
                "letters-count": lambda: self.maybe(lambda: self.options({
                    "count": lambda: self.v(["all", "non-blank"], ["some"]),
                    "among": lambda: self.v(["ABCDEF", "AB", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"], ["abc", ""]),
                    "at-least": lambda: self.v([0, 2, 4], [27]), "if-none": lambda: self.v([4, 10, None], [-1])})),
                "needs-options": lambda: self.maybe(lambda: self.v([True, False], ["often", 2])),
                "from": lambda: self.v(["lmms-eval", "mmmu"] + (["vlmevalkit", "vlmevalkit@v1"] if name == "multiple-choice" else []),
                                       sorted(BUILTINS) + ["nope", "lmms"])}
        sec = {k: spec[k]() for k in spec if self.chance(0.1 if k == "from" else 0.4)}
        if "steps" not in sec and self.chance(0.7):
            sec["steps"] = steps()
        return sec

    def document(self) -> dict:
        doc = {}
        if self.clean or self.chance(0.93):
            doc["ruleset"] = self.pick(["fz", "x y", "Ruleset"]) if self.clean or self.chance(0.9) else self.pick([" ", self.garbage(0)])
        if self.chance(0.08):
            doc["extends"] = self.pick(sorted(BUILTINS)) if self.clean or self.chance(0.8) else self.pick(["nope", self.garbage(0)])
        for sec in ("multiple-choice", "open"):
            if self.chance(0.55):
                doc[sec] = self.section(sec) if self.clean or self.chance(0.92) else self.garbage()
        if self.clean and not any(k in doc for k in ("multiple-choice", "open", "extends")):
            doc["multiple-choice"] = self.section("multiple-choice")
        if self.chance(0.15):
            makers = [lambda: {"breakdown": self.some(lambda: self.pick(["source", "meta.x", "model"]), 2)},
                      lambda: {"breakdown": [{"field": self.pick(["source", "meta.x"]), "name": "tags",
                                              "split": self.v([",", " "], ["", 3]),  # and-whole only beside split
                                              **self.options({"and-whole": lambda: self.v(["_", ""], [7])})}]},
                      lambda: {"breakdown": [{"field": self.pick(["source", "meta.x"]), "name": "skills",
                                              "contains": self.v([["a", "b"], ["x"]], [[1], "a"])}]},
                      lambda: {"breakdown": [{"field": self.pick(["source", "meta.x"]), "name": "pairs",
                                              "cross": self.v(["model", "meta.y"], ["", 3])}]},
                      lambda: {"breakdown": [{"field": self.pick(["source", "meta.x"]), "name": "listed",
                                              "list-literal": self.v([True, False], ["yes please"]),
                                              **({} if self.clean else self.options({"split": lambda: ","}))}]},
                      lambda: {"groups": {"group-by": "triplet_id", **self.options({"require": lambda: self.pick(["all", "any", "at-least 1"])})}},
                      lambda: {"groups": {"group-by": "triplet_id", "role": "eval_type", "roles": ["Origin", "Perception", "Knowledge"],
                                          **self.options({"breakdown": lambda: "source"})}},
                      lambda: {"binary": self.options({"positive": lambda: self.pick(["Yes", "A", ""]),
                                                       "by": lambda: self.some(lambda: self.pick(["source", "meta.x"]), 2),
                                                       "split": lambda: self.v([",", " "], ["", 3])})},
                      lambda: {"all-correct": [{"name": self.pick(["fAcc", "x"]),
                                                "key": self.v([["source"], ["meta.x", {"field": "id", "split": "_", "part": 3}]],
                                                              [[], [{"field": "id", "split": "_"}]]),
                                                **self.options({"by": lambda: self.some(lambda: self.pick(["source", "model"]), 2)})}]},
                      lambda: {"all-correct": [{"name": "plus", "key": ["source"]}],
                               "totals": [{"name": "score", "of": self.pick(["source", "meta.x"]),
                                           "add": self.v([["accuracy", "plus"], ["accuracy"]], [["nope"], []]),
                                           **self.options({"sums": lambda: {"all": self.some(lambda: self.pick(["a", "b"]), 2)},
                                                           "count": lambda: self.v([True, False], ["many"])})}]}]
            if not self.clean:
                makers += [lambda: {"groups": {"group-by": self.pick(["triplet_id", ""]), "roles": self.some(lambda: self.pick(["Origin", "P", "p"]), 3),
                                               "require": self.pick(["most", "at-least 0", "at-least 9"])}},
                           lambda: self.garbage()]
            doc["metrics"] = self.pick(makers)()
        if self.chance(0.1):
            doc["examples"] = self.some(lambda: {"response": self.maybe(lambda: self.text(5)), **self.options({"expect": lambda: "A"})}, 2)
        if not self.clean and self.chance(0.3):  # a garbage key somewhere
            target = doc
            for part in self.some(lambda: self.pick(["multiple-choice", "open", "steps", 0, "find", "fallback", "random-option", "pick"]), 4):
                if isinstance(target, dict) and part in target and isinstance(target[part], (dict, list)):
                    target = target[part]
                elif isinstance(target, list) and isinstance(part, int) and target:
                    target = target[0]
            if isinstance(target, dict):
                target[self.pick(["bogus", "ordr", "pick_", "steps", "Find", "seed", "tie", self.hint or "h"])] = self.garbage(0)
        return doc

    def yaml_text(self) -> str:
        text = yaml.dump(self.document(), Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), allow_unicode=self.chance(0.5),
                         sort_keys=False, default_flow_style=self.pick([False, None]))
        lines = text.splitlines()
        for _ in range(0 if self.clean else self.pick([0, 1, 1, 2])):
            if not lines:
                break
            i = self.r.randrange(len(lines))
            line, mut = lines[i], self.pick(["tab", "dup", "yes", "char", "del", "indent", "tag"])
            if mut == "tab":
                lines[i] = "\t" + line
            elif mut == "dup":
                lines.insert(i, line)
            elif mut == "yes" and ":" in line:
                lines[i] = line.split(":", 1)[0] + ": " + self.pick(["yes", "no", "on", "off", "Yes", "~"])
            elif mut == "char":
                j = self.r.randrange(len(line) + 1)
                lines[i] = line[:j] + self.pick(list(":-[]{}#&*!|>'\"%@`,? ") + ["\x00", "\ufeff", "\t"]) + line[j:]
            elif mut == "del":
                del lines[i]
            elif mut == "tag" and ": " in line:
                key, value = line.split(": ", 1)
                lines[i] = f"{key}: {self.pick(['!x', '!!int', '!!float', '!!bool', '!!str', '!!null', '!!binary', '!!timestamp', '!!set'])} {value}"
            else:
                lines[i] = "  " + line
        return "\n".join(lines) + "\n"


_RULESET_RECORDS = [
    Record("m1", "multiple-choice", "The answer is (B). B", "B", {"A": "cat", "B": "dog", "C": "a dog"}),
    Record("m2", "multiple-choice", "I think A or B. DNA is key; so C", "C", {"A": "RNA", "B": "protein", "C": ""}),
    Record("m3", "multiple-choice", "", None, None),
    Record("m4", "multiple-choice", "Cannot determine the answer ZZ Z", ["A", "Z"], {"Ä": "x", "(": ".*"}),
    Record("m5", "multiple-choice", "A A A A A B", "A", {"A": "x", "B": "y"}),
    Record("o1", "open", "Thus the area is 1,234 m^2. So x = 5", "1234"),
    Record("o2", "open", "\n\nanswer is \x00 .\u200f", 3.5, meta={"source": "x"}),
    Record("o3", "open", "so " * 40, ["a", 1]),
]


LOAD_BUGS: tuple = ()
DECIDE_BUGS: tuple = ()


@fuzz(1800)
@given(g=gens(st.text(max_size=4)))
def test_generated_rulesets_load_or_raise_rulekit_errors(g):
    text = RulesetGen(g.r.getrandbits(64), g.hint).yaml_text()
    note(f"ruleset:\n{text}")
    which = g.r.sample(range(len(_RULESET_RECORDS)), g.r.randint(1, 3))
    path = _TMP / "r.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        rs = load_ruleset(str(path))
    except RulekitError as exc:
        rendered = exc.render()
        assert isinstance(rendered, str) and "error[" in rendered
        if isinstance(exc, ErrorGroup):
            assert exc.errors and all(isinstance(e, RulekitError) for e in exc.errors)
        return
    except Exception as exc:
        tolerate_known(exc, LOAD_BUGS)
        return
    assert rs.sections and set(rs.sections) <= {"multiple-choice", "open"}
    for i in which:
        record = _RULESET_RECORDS[i]
        try:
            plain = Evaluator(rs, 0).decide(record)
            traced = Evaluator(rs, 0).decide(record, trace=True)
        except Exception as exc:
            tolerate_known(exc, DECIDE_BUGS)
            continue
        check_decision(rs, record, plain, False, builtin=False)
        check_decision(rs, record, traced, True, builtin=False)
        assert _key(plain) == _key(traced), text  # `explain` must show what `eval` decides


# ====================================================================== 4. the CLI
class CliGen(Gen):
    """JSONL inputs (some lines malformed) and command lines."""

    def jsonl_line(self, i: int) -> str:
        kind = self.pick(["ours", "ours", "ours", "ours", "lmms", "bad-json", "not-object", "blank", "missing"])
        if kind == "blank":
            return self.pick(["", "   ", "\t"])
        if kind == "bad-json":
            return self.pick(["{", "{'id': 1}", '{"id": 1,}', "NaN", '{"id": 99999999999999999999999}', "\x00",
                              self.text(20).replace("\n", " ").replace("\r", " ") or "x"])
        if kind == "not-object":
            return json.dumps(self.pick([[1, 2], 3, "s", None, True, []]))
        if kind == "lmms":
            doc = {"id": self.pick([f"d{i}", "", None, 5]), "question": self.text(6)}
            if self.chance(0.6):
                opts = [self.pick(OPTION_POOL) for _ in range(self.r.randrange(6))]
                doc["options"] = self.pick([repr(opts), opts, self.text(6)])
            key = self.pick(["resps", "filtered_resps"])
            obj = {"doc_id": i, "doc": doc, "target": self.scalar(),
                   key: self.pick([[[self.reply(0)]], [self.reply(0)], [], [[]], self.reply(0)])}
            return json.dumps(obj, ensure_ascii=self.chance(0.5))
        obj = {"id": self.pick([f"id{i}", f"id{i}", "dup", None, 3, 1.0, "", [1]]),
               "response": self.reply(0.01)[:3000] if self.chance(0.9) else self.scalar()}
        optional = {"choices": lambda: self.pick([self.choices(), [self.text(3) for _ in range(self.r.randrange(30))], self.text(5),
                                                  "['a', 'b']", "{'A': 1}", "[1,", "{1, 2}", {}]),
                    "answer": self.answer, "question_type": lambda: self.pick(["multiple-choice", "open", "mcq", "free_form", "essay", 3, None]),
                    "meta": lambda: self.pick([self.meta(), "{}", "not json", "[1]", "", 5]),
                    "triplet_id": lambda: self.pick([0, 1, 2, "t", None, [1]]),
                    "eval_type": lambda: self.pick(["Origin", "Perception", "Knowledge", "other", None]),
                    "source": self.scalar, "model": self.scalar, "benchmark": self.scalar}
        for k in optional:
            if self.chance(0.4):
                obj[k] = optional[k]()
        if kind == "missing":
            obj.pop(self.pick(["id", "response"]))
        return json.dumps(obj, ensure_ascii=self.chance(0.5))

    def call(self) -> tuple[list[str], str | None]:
        lines = [self.jsonl_line(i) for i in range(self.r.randrange(7))]
        data = ("\ufeff" if self.chance(0.1) else "") + "\n".join(lines) + self.pick(["\n", ""])
        names = sorted(BUILTINS)
        fmt = self.pick(["table", "json", "markdown"])
        cmd = self.pick(["eval", "eval", "eval", "diff", "explain-id", "explain-response"])
        if cmd == "eval":
            args = ["eval"]
            for r in self.r.sample(names, self.r.randint(1, 2)):
                args += ["-r", r]
            args += ["--format", fmt] + (["--output-dir", "OUT"] if self.chance(0.3) else [])
        elif cmd == "diff":
            a, b = self.r.sample(names, 2)
            args = ["diff", "-r", a, "-r", b, "--format", fmt, "--show", str(self.r.randrange(4))]
        elif cmd == "explain-id":
            args = ["explain", "-r", self.pick(names), "--id", self.pick(["id0", "id1", "dup", "d0", "3", "nope"]),
                    "--format", self.pick(["text", "json"])]
        else:
            args = ["explain", "-r", self.pick(names), "--response", self.reply(0)[:500]]
            if self.chance(0.7):
                args += ["--options", ",".join(f"{k}={self.pick(OPTION_POOL + [self.text(6), self.hint]).replace(',', ';')}"
                                               for k in self.r.sample("ABCDE", self.r.randint(1, 4)))
                         if self.chance(0.85) else self.text(8)]
            if self.chance(0.5):
                args += ["--answer", self.pick(["A", "B", "", self.text(4)])]
            if self.chance(0.3):
                args += ["--diff", self.pick(names)]
            args += ["--format", self.pick(["text", "json"])]
            data = None
        if data is not None and self.chance(0.25):
            args += ["--seed", str(self.pick([0, -1, 7, 2**70]))]
        if data is not None and self.chance(0.15):
            for _ in range(self.r.randint(1, 2)):
                args += ["--field", self.pick(["response=prediction", "answer=target", "bogus=x", "response", "meta.s=source",
                                               "meta.t=triplet_id", "choices=source", "answer=meta", "id=response", "question_type=model",
                                               "response=doc.question", "meta=source", "=x", "response="])]
        return [a.replace("\x00", "") for a in args], data


@fuzz(260)
@given(g=gens(st.text(max_size=6)))
def test_cli_exits_0_or_2_without_traceback(g):
    args, data = CliGen(g.r.getrandbits(64), g.hint).call()
    work = Path(tempfile.mkdtemp(dir=_TMP))
    args = [str(work / "out") if a == "OUT" else a for a in args]
    if data is not None:
        (work / "in.jsonl").write_text(data, encoding="utf-8")
        args.insert(args.index("--format"), str(work / "in.jsonl"))
    result = CliRunner().invoke(main, args, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        tolerate_known(result.exception, ("B11", "B17"))
        return
    assert result.exit_code in (0, 2), (args, data, result.output[-2000:])
    assert "Traceback" not in result.output, (args, data, result.output[-2000:])
    if result.exit_code == 2:
        assert "error[" in result.output or "Usage:" in result.output, result.output[-2000:]
    elif "--format" in args and args[args.index("--format") + 1] == "json":
        payload = json.loads(result.stdout)  # machine output is pure JSON
        if args[0] == "eval":
            for entry in payload["results"]:
                # `unreadable` decisions are counted in `outcomes` and left out of `n` unless counted
                unreadable = entry.get("unreadable") or {}
                left_out = 0 if unreadable.get("counted") else unreadable.get("n", 0)
                assert sum(entry["outcomes"].values()) == entry["n"] + left_out
                assert set(OUTCOMES) - {"unreadable"} <= set(entry["outcomes"])
    out = work / "out"
    if out.exists():  # decisions files are written atomically: no temporary left, none at all after an error
        assert not list(out.glob(".*.tmp")) and (result.exit_code == 0 or not list(out.glob("*.decisions.jsonl")))


# ====================================================================== bugs found by the fuzzer
def _write(tmp_path: Path, text: str, name: str = "bug.yaml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _load_error(path: str) -> RulekitError:
    """The RulekitError loading `path` raises (it must raise one, and it must render)."""
    with pytest.raises(RulekitError) as info:
        load_ruleset(path)
    assert "error[" in info.value.render()
    return info.value


def _invoke(args: list[str]):
    result = CliRunner().invoke(main, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code in (0, 2) and "Traceback" not in result.output
    return result


# ---------------------------------------------------------------- open bugs (strict xfail)
def test_bug_b11_unhashable_role_label(tmp_path):
    line = {"id": "1", "response": "A", "answer": "A", "choices": ["x", "y"], "meta": {"triplet_id": 1, "eval_type": ["Origin"]}}
    (tmp_path / "in.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    _invoke(["eval", "-r", "mmevalpro", str(tmp_path / "in.jsonl")])


@pytest.mark.parametrize("text", ["ruleset: x\nmultiple-choice:\n  steps: [{id: a, find: {literal: [x, y], bogus: 1}}]\n",
                                  "ruleset: x\nmultiple-choice:\n  prepare: [{strip-ends-each: [',']}, {strip-ends-each: [','], bogus: 1}]\n"
                                  "  steps: [{id: a, find: {literal: x}}]\n"], ids=["find", "prepare"])
def test_bug_b15_unknown_key_beside_list_value(tmp_path, text):
    assert "`bogus`" in _load_error(_write(tmp_path, text)).render()


@pytest.mark.parametrize("meta", ['"{}"', "5"], ids=["string", "number"])
def test_bug_b17_field_meta_with_non_object_meta(tmp_path, meta):
    (tmp_path / "in.jsonl").write_text('{"id": "1", "response": "A", "meta": %s, "source": "x"}\n' % meta, encoding="utf-8")
    _invoke(["eval", "-r", "lmms-eval", str(tmp_path / "in.jsonl"), "--field", "meta.s=source"])


@pytest.mark.parametrize("text", ["ruleset: !x fz\n", "ruleset: !!int abc\n", "ruleset: x\nsummary: !!bool maybe\n",
                                  "ruleset: x\nsummary: !!timestamp 2001-13-45\n"], ids=["unknown-tag", "int", "bool", "timestamp"])
def test_bug_b18_yaml_tags(tmp_path, text):
    _load_error(_write(tmp_path, text))


def test_bug_b20_repeated_extra_letters(tmp_path):
    rs = load_ruleset(_write(tmp_path, "ruleset: x\nmultiple-choice:\n  steps: [{id: a, find: {literal: zz}}]\n"
                                       "  fallback: {random-option: {extra: [Z, Z]}}\n"))
    d = Evaluator(rs).decide(Record("i", "multiple-choice", "nothing", "A", {"A": "x", "B": "y"}))
    assert d.outcome == "fallback" and d.k == 3


def test_bug_b21_case_insensitive_letters_regex_without_options(tmp_path):
    rs = load_ruleset(_write(tmp_path, "ruleset: x\nopen:\n  steps: [{id: a, find: {regex: '(?i)(?P<answer>{letters})'}}]\n"))
    assert Evaluator(rs).decide(Record("i", "open", "answer is A", "A")).outcome in OUTCOMES


# ---------------------------------------------------------------- fixed bugs (regression tests)
# Found by this fuzzer and fixed by the engine since; each test pins the fix.
def test_fixed_b1_explain_does_not_read_user_text_as_markup():
    """B1: `explain --options 'A=[/],B=y'` (or --answer '[/]') raised rich's MarkupError."""
    for extra in (["--options", "A=[/],B=y"], ["--options", "A=a,B=b", "--answer", "[/]"]):
        result = _invoke(["explain", "-r", "lmms-eval", "--response", "x", *extra])
        assert result.exit_code == 0 and "[/]" in result.output


@pytest.mark.parametrize("src", ["not " * 3000 + "true", "1" + " + 1" * 3000 + " > 0", "-" * 3000 + "1 < 2", "[" * 600 + "1" + "]" * 600],
                         ids=["not", "plus", "minus", "list"])
def test_fixed_b2_deep_conditions_are_expression_errors(src):
    """B2: deeply nested conditions raised RecursionError instead of ExpressionError."""
    with pytest.raises(ExpressionError):
        compile_condition(src, Loc("x.yaml", 1, 1))


def test_fixed_b2b_deep_regex_is_a_ruleset_error(tmp_path):
    """B2b: a regex nested 3000 deep raised RecursionError from regex.compile."""
    pattern = "(" * 3000 + "?P<answer>a" + ")" * 3000
    try:
        load_ruleset(_write(tmp_path, f"ruleset: x\nopen:\n  steps: [{{id: a, find: {{regex: '{pattern}'}}}}]\n"))
    except RulekitError as exc:
        exc.render()


@pytest.mark.parametrize("text", ["ruleset: x\nextends: 5\n", "ruleset: x\nextends: [a]\n", "ruleset: x\nextends: yes\n",
                                  "ruleset: x\nmultiple-choice: {from: 5}\n"], ids=["int", "list", "bool", "from"])
def test_fixed_b3_extends_must_be_a_name(tmp_path, text):
    """B3: a non-string `extends:`/`from:` raised TypeError in loader._resolve_relative."""
    _load_error(_write(tmp_path, text))


@pytest.mark.parametrize("steps", ["5", "{a: 1}"])
def test_fixed_b4_steps_not_a_list_under_extends(tmp_path, steps):
    """B4: `steps: 5` / `steps: {a: 1}` under `extends:` raised TypeError / KeyError in loader._merge_steps."""
    _load_error(_write(tmp_path, f"ruleset: x\nextends: lmms-eval\nmultiple-choice:\n  steps: {steps}\n"))


@pytest.mark.parametrize("where", ["  fallback: {random-option: {ordr: stream}}\n", "  compare: {exact: {bogus: 1}}\n",
                                   "  find: {option-text: {bogus: 1}}\n", "  pick: {rightmost: {bogus: 1}}\n"],
                         ids=["random-option", "exact", "option-text", "rightmost"])
def test_fixed_b5_unknown_key_in_nested_options(tmp_path, where):
    """B5: an unknown key inside random-option/exact/option-text/rightmost options raised KeyError in schema.known_keys."""
    if where.startswith("  find") or where.startswith("  pick"):
        text = "ruleset: x\nmultiple-choice:\n  steps:\n    - id: a\n  " + where.replace("  ", "    ", 1) + \
               ("" if where.startswith("  find") else "      find: {literal: x}\n")
    else:
        text = "ruleset: x\nmultiple-choice:\n  steps: [{id: a, find: {literal: x}}]\n" + where
    bad = re.search(r"\{(\w+): 1\}|\{(ordr): ", where)
    assert f"`{bad.group(1) or bad.group(2)}`" in _load_error(_write(tmp_path, text)).render()


@pytest.mark.parametrize("where", ["  fallback: {random-option: {seed: 99999999999999999999}}\n",
                                   "  prepare: [{truncate: 99999999999999999999}]\n"], ids=["seed", "truncate"])
def test_fixed_b6_integers_beyond_64_bits(tmp_path, where):
    """B6: an integer beyond 64 bits anywhere in a ruleset raised TypeError from the fingerprint (orjson)."""
    path = _write(tmp_path, "ruleset: x\nmultiple-choice:\n  steps: [{id: a, find: {literal: z}}]\n" + where)
    _loads_and_decides_or_renders(path, "A z")


def test_fixed_b7_recursive_yaml_alias(tmp_path):
    """B7: `summary: &a [*a]` recursed forever in loader._convert (RecursionError)."""
    _load_error(_write(tmp_path, "ruleset: x\nsummary: &a [*a]\n"))


@pytest.mark.parametrize("pattern", ["(?P<answer>{letters}", "(?P<x>{letters})"])
def test_fixed_b8_per_option_regex_errors(tmp_path, pattern):
    """B8: a bad `{letters}` regex loaded fine and then raised RulesetError / IndexError out of Evaluator.decide."""
    path = _write(tmp_path, f"ruleset: x\nmultiple-choice:\n  steps:\n    - id: a\n      find: {{regex: '{pattern}'}}\n")
    _loads_and_decides_or_renders(path, "A")


def _loads_and_decides_or_renders(path, response: str) -> None:
    """Either the ruleset is refused with a renderable error, or it decides a record with a valid outcome."""
    try:
        rs = load_ruleset(path)
    except RulekitError as exc:
        exc.render()
        return
    d = Evaluator(rs).decide(Record("i", "multiple-choice", response, "A", {"A": "x", "B": "y"}))
    assert d.outcome in OUTCOMES


@pytest.mark.parametrize("cond", ["answer + 1 > 0", "len(5) > 0", "contains(1)", "1 / 0 > 0", "'a' in 5", "'%' % 1 == ''",
                                  "meta.x - 1 > 0", "words + 'a' == 1", "1 % 0 == 0", "'%c' % 99999999 == ''"])
def test_fixed_b9_condition_type_error_is_a_per_record_error(cond):
    """B9: a type error inside a condition at run time raised out of Evaluator.decide and stopped the whole run."""
    path = _write(_TMP, "ruleset: x\nmultiple-choice:\n  steps:\n    - id: a\n      find: {literal: '{letter}'}\n"
                        f"      where: {json.dumps(cond)}\n", "b9.yaml")
    d = Evaluator(load_ruleset(path)).decide(Record("i", "multiple-choice", "A B", "A", {"A": "x", "B": "y"}, meta={"x": "s"}))
    assert d.outcome in OUTCOMES
    if d.outcome == "error":
        assert d.pred is None and d.correct is None and cond in d.message


@pytest.mark.parametrize("step", ["where: start > 3 and start < 7", "when: candidates > 2\n      answer: Z"], ids=["where", "candidates"])
def test_fixed_b10_a_trace_does_not_change_the_decision(tmp_path, step):
    """B10: without a trace, literal finds kept only the first and last occurrence, so `where:`/`candidates` saw fewer
    candidates and `rulekit explain` disagreed with `rulekit eval`."""
    rs = load_ruleset(_write(tmp_path, f"ruleset: x\nmultiple-choice:\n  steps:\n    - id: m\n      find: {{literal: '{{letter}}'}}\n      {step}\n"))
    record = Record("i", "multiple-choice", "A A A A A", "A", {"A": "x", "B": "y"})
    assert _key(Evaluator(rs).decide(record)) == _key(Evaluator(rs).decide(record, trace=True))


@pytest.mark.parametrize("text", ["Ruleset: x\nmultiple-choice: {steps: [{id: a, answer: A}]}\n", "ruleset: x\nBogus: 1\n",
                                  "ruleset: x\n'a[b': 1\n"], ids=["Ruleset", "Bogus", "bracket"])
def test_fixed_b12_odd_top_level_keys(tmp_path, text):
    """B12: an unknown top-level key starting with a capital (or holding `[`) raised IndexError in validation_errors."""
    _load_error(_write(tmp_path, text))


def test_fixed_b13_capitalised_nested_key_is_named(tmp_path):
    """B13: `steps: [{id: a, Find: 1}]` was reported as "unknown key `0`" (the step index)."""
    assert "`Find`" in _load_error(_write(tmp_path, "ruleset: x\nmultiple-choice:\n  steps: [{id: a, Find: 1}]\n")).render()


def test_fixed_b14_several_rulesets_on_an_input_without_records(tmp_path):
    """B14: `eval -r lmms-eval -r vlmevalkit empty.jsonl` raised TypeError drawing the extraction band (spread None)."""
    (tmp_path / "empty.jsonl").write_text("\n", encoding="utf-8")
    for fmt in ("table", "json", "markdown"):
        assert _invoke(["eval", "-r", "lmms-eval", "-r", "vlmevalkit", str(tmp_path / "empty.jsonl"), "--format", fmt]).exit_code == 0


@pytest.mark.parametrize("text,record", [
    ("ruleset: x\nmultiple-choice:\n  steps:\n    - {id: m, find: {literal: '{letter}'}, pick: all}\n",
     Record("i", "multiple-choice", "A A A A A", "A", {"A": "x", "B": "y"})),
    ("ruleset: x\nopen:\n  steps:\n    - {id: m, find: {whole: true}, pick: all, also: [{literal: ab}]}\n  compare: contains-or-number\n",
     Record("i", "open", "ab ab ab ab", "ab"))], ids=["pick-all", "also"])
def test_fixed_b10b_pick_all_and_also_do_not_depend_on_the_trace(tmp_path, text, record):
    """B10b (rest of B10): `pick: all` over a literal find, and literal finds in `also:`, returned only first and last
    occurrences without a trace: ['A', 'A'] vs five A's on 'A A A A A'."""
    rs = load_ruleset(_write(tmp_path, text))
    assert _key(Evaluator(rs).decide(record)) == _key(Evaluator(rs).decide(record, trace=True))


@pytest.mark.parametrize("command", ["eval", "diff"])
def test_fixed_b16_json_report_with_huge_seed(command):
    """B16: `eval`/`diff --seed 99999999999999999999 --format json` raised TypeError (orjson: Integer exceeds 64-bit range)."""
    rulesets = ["-r", "lmms-eval"] + (["-r", "vlmevalkit"] if command == "diff" else [])
    _invoke([command, *rulesets, "--seed", "99999999999999999999", "--format", "json"])


def test_fixed_b19_empty_tail_after_indicator(tmp_path):
    """B19: `find: {tail-after: [""]}` loaded, then every decision raised ValueError: empty separator."""
    try:
        rs = load_ruleset(_write(tmp_path, 'ruleset: x\nopen:\n  steps: [{id: a, find: {tail-after: [""]}}]\n'))
    except RulekitError as exc:
        exc.render()
        return
    assert Evaluator(rs).decide(Record("i", "open", "so it is 5", "5")).outcome in OUTCOMES


def test_the_generator_covers_every_registered_find():
    """A new find word must reach the fuzz generator (FIND_KINDS above) to be exercised here."""
    from rulekit.language.finds import FIND_MODELS

    assert set(FIND_MODELS) <= set(FIND_KINDS) | {"literal"}


def test_the_generator_covers_every_registered_compare():
    """A new compare word must reach the fuzz generator (Gen.compares) to be exercised here."""
    from rulekit.language.compares import BARE_VERDICTS, COMPARE_MODELS

    assert set(COMPARE_MODELS) <= set(RulesetGen(0).compares())
    assert set(BARE_VERDICTS) == {"letter", "contains-or-number", "int"}


def test_the_generator_covers_every_registered_fallback():
    """A new fallback word must reach the fuzz generator (Gen.fallbacks); only the judge is driven
    elsewhere (it needs a server)."""
    from rulekit.language.fallbacks import FALLBACK_MODELS

    assert set(FALLBACK_MODELS) - {"judge"} <= set(RulesetGen(0).fallbacks())


def test_every_compare_and_fallback_word_has_its_behaviour():
    """The engine dispatches through `verdict`/`compile` and `decide`: a registered word without them
    would fail at run time, so it fails here."""
    from rulekit.language.compares import COMPARE_MODELS
    from rulekit.language.fallbacks import FALLBACK_MODELS

    assert [k for k, m in COMPARE_MODELS.items() if not callable(getattr(m, "verdict", None))] == []
    assert [k for k, m in FALLBACK_MODELS.items() if not callable(getattr(m, "decide", None))] == []


def test_the_generator_covers_every_registered_prepare_op():
    """A new prepare op must reach the fuzz generator (Gen.prepare_ops) to be exercised here."""
    from rulekit.language.prepare import PREPARE_MODELS

    assert set(PREPARE_MODELS) <= set(RulesetGen(0).prepare_ops())
