"""Property-based fuzzing of rulekit: records, conditions, rulesets and the command line.

Four properties, each run on thousands of generated cases (about 11,000 in all, well under a
minute on two cores):

1. records   — any reply / option set / gold through every built-in ruleset: `decide` never
               raises, outcomes and types are sane, trace on/off agree, per-item fallbacks are
               identical across evaluator instances and input orders;
2. conditions — generated `when:`/`where:` sources compile to a Condition or raise
               ExpressionError, never anything else, and compiled ones evaluate on an Env;
3. rulesets  — generated (often broken) YAML rulesets load or raise a RulekitError that renders;
               loaded ones decide records without raising;
4. the CLI   — `eval`, `diff`, `explain` on generated JSONL files exit 0 or 2, no traceback.

Bugs found by these properties are pinned one by one in `test_bug_*` tests below, each marked
`xfail(strict=True)` with a one-line reproducer in its reason, so fixing a bug turns its test into
an XPASS failure: then delete the xfail marker AND the matching entry of `KNOWN_BUGS`, which is
the (narrow: exception type + the rulekit function it escapes from) list of failures the broad
properties tolerate so that they keep fuzzing everything else meanwhile.
"""
from __future__ import annotations

import json
import random
import re
import tempfile
import traceback
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rich.errors import MarkupError

import rulekit
from rulekit.cli import main
from rulekit.compiler import CompiledRuleset, LiteralFinder, load_ruleset, option_set
from rulekit.engine import Env, Evaluator
from rulekit.errors import ErrorGroup, ExpressionError, Loc, RulekitError
from rulekit.expr import CANDIDATE_NAMES, FUNCTIONS, VARIABLES, Condition, compile_condition
from rulekit.records import Record
from rulekit.resources import builtin_rulesets
from rulekit.trace import OUTCOMES, Candidate

RULEKIT_DIR = str(Path(rulekit.__file__).resolve().parent)
_SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
             HealthCheck.large_base_example]


def fuzz(n: int):
    """Hypothesis settings of one property: n examples, no deadline, no example database."""
    return settings(max_examples=n, deadline=None, database=None, suppress_health_check=_SUPPRESS,
                    print_blob=False)


# ====================================================================== known bugs
# Each entry: a bug (pinned by a strict xfail test below) and the narrow signature by which the
# broad properties recognise it: exception type and the rulekit (file, function) it escapes from.
KNOWN_BUGS = {
    "B3-extends-not-a-string": (TypeError, "loader.py", "_resolve_relative"),
    "B4-steps-not-a-list-under-extends": ((TypeError, KeyError), "loader.py", "_merge_steps"),
    "B5-unknown-key-in-nested-options": (KeyError, "schema.py", "known_keys"),
    "B6-integer-beyond-64-bits": (TypeError, "loader.py", "fingerprint"),
    "B8-per-option-regex-checked-only-at-decide": ((RulekitError, IndexError), "compiler.py", None),
    "B9-condition-type-error-at-run-time": ((TypeError, ValueError, ZeroDivisionError, OverflowError), "expr.py", None),
    "B1-explain-rich-markup": (Exception, "explain.py", "render_explain"),
    "B11-unhashable-group-role": (TypeError, "groups.py", "group_metrics"),
}


def _rulekit_frames(exc: BaseException) -> list[traceback.FrameSummary]:
    return [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith(RULEKIT_DIR)]


def known_bug(exc: BaseException) -> str | None:
    """The KNOWN_BUGS key this exception is an instance of, else None."""
    frames = _rulekit_frames(exc)
    if not frames:
        return None
    inner = frames[-1]
    where = (Path(inner.filename).name, inner.name)
    for name, (types, file, func) in KNOWN_BUGS.items():
        if isinstance(exc, types) and where[0] == file and (func is None or where[1] == func):
            if name.startswith("B8") and not any(f.name in ("compiled", "find") for f in frames):
                continue
            if name.startswith("B1") and type(exc).__name__ != "MarkupError":
                continue
            return name
    return None


def tolerate_known(exc: BaseException, allowed: tuple[str, ...]) -> None:
    """Re-raise `exc` unless it is one of the `allowed` known bugs."""
    name = known_bug(exc)
    if name is None or not name.startswith(allowed):
        raise exc


# ====================================================================== shared data
BUILTINS = builtin_rulesets()
COMPILED: dict[str, CompiledRuleset] = {name: load_ruleset(name) for name in BUILTINS}
_TMP = Path(tempfile.mkdtemp(prefix="rulekit-fuzz-"))


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
    assert "lmms-eval" in STREAM and "lmms-eval-per-item" in PER_ITEM
    assert not PER_ITEM["lmms-eval-per-item"].stream


# ====================================================================== 1. records
SPECIAL = ["", " ", "\n", "\\n", "\t", "\r\n", "\x00", "\u200f", "\u202e", "\u200b", "\ufeff", "\u00a0",
           "(A)", "(B)", "A.", "B ", " C ", "The answer is D", "answer is a", "Answer: (E)", "Z",
           "Failed to obtain answer via API", "Cannot determine the answer", "[/]", "[bold]", "{letter}",
           "{option}", "{letters}", ".*", "(?P<answer>", "\\", "$", "^", "|", "1,234", "-3.5e+2", ".5",
           "so ", "is ", "=", "Thus the area is 12", "<think>x</think>", "ß", "İ", "ﬁ", "Ⅻ", "😀", "\U0001f1fa\U0001f1f8"]

_chars = st.characters(codec="utf-8")  # every code point but surrogates (JSON-decoded str has none)
_text = st.text(_chars, max_size=40)
_piece = st.one_of(st.sampled_from(SPECIAL), _text, st.sampled_from("ABCDEabcde()[]. ,:;!?*#{}\n"))
_composed = st.lists(_piece, max_size=12).map("".join)
_huge = st.tuples(st.lists(_piece, min_size=1, max_size=4).map("".join), st.integers(2000, 20_000)).map(
    lambda t: (t[0] * (t[1] // max(len(t[0]), 1) + 1))[: t[1]])
replies = st.one_of(_composed, _composed, _composed, _text, st.just(""), _huge)

_key_letters = st.characters(categories=["Lu", "Ll", "Lo", "Lt"])
option_keys = st.one_of(
    st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), st.sampled_from("ABCD"), _key_letters,
    st.sampled_from(["a", "Z", "1", "*", ".", "(", "]", "\\", "-", "^", " ", "{letter}", "{option}", "AB", ""]),
    st.text(_chars, min_size=1, max_size=3))
option_texts = st.one_of(st.sampled_from(["", "cat", "dog", "cat", "a", "A", "the", ".*", "(x)", "[a-z]+", "$1",
                                          "\\d", "?", "|", "x" * 500]), _text, _composed)


@st.composite
def choices_st(draw):
    kind = draw(st.sampled_from(["abc", "abc", "odd", "none"]))
    if kind == "none":
        return None
    n = draw(st.integers(1, 26))
    if kind == "abc":
        keys = list("ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:n])
    else:
        keys = draw(st.lists(option_keys, min_size=1, max_size=n, unique=True))
    texts = draw(st.lists(option_texts, min_size=len(keys), max_size=len(keys)))
    if len(texts) > 1 and draw(st.booleans()):
        texts[-1] = texts[0]  # duplicate option texts
    return dict(zip(keys, texts))


_scalar_answer = st.one_of(st.none(), st.sampled_from(["A", "B", "C", "Z", "", "a"]), _text,
                           st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False), st.booleans())
answers = st.one_of(_scalar_answer, st.lists(_scalar_answer, max_size=4))
meta_st = st.dictionaries(st.sampled_from(["source", "x", "triplet_id", "eval_type", "subject"]),
                          st.one_of(st.none(), _text, st.integers(), st.lists(st.integers(), max_size=2)), max_size=3)


@st.composite
def records(draw, rid=None):
    choices = draw(choices_st())
    qtype = draw(st.sampled_from(["multiple-choice", "multiple-choice", "open"]))
    return Record(id=rid if rid is not None else draw(_text), question_type=qtype, response=draw(replies),
                  answer=draw(answers), choices=choices, benchmark=draw(st.one_of(st.none(), _text)),
                  model=draw(st.one_of(st.none(), _text)), meta=draw(meta_st))


def _letters(ruleset: CompiledRuleset, record: Record) -> set:
    section = ruleset.sections[record.question_type]
    return set(record.choices) if record.choices else set(section.letters_if_missing)


def _fallback_letters(ruleset: CompiledRuleset, record: Record) -> set:
    from rulekit import schema as S

    fb = ruleset.sections[record.question_type].fallback
    extra = set(fb.random_option.extra) if isinstance(fb, S.RandomOption) else set()
    return _letters(ruleset, record) | extra


def check_decision(ruleset: CompiledRuleset, record: Record, d, trace: bool) -> None:
    """Invariants every decision must hold."""
    if record.question_type not in ruleset.sections:
        assert d is None
        return
    assert d is not None and d.id == record.id
    assert d.outcome in OUTCOMES
    assert d.correct in (True, False, None)
    assert d.score == (1.0 if d.correct is True else 0.0)
    assert d.pred is None or isinstance(d.pred, str) or (
        isinstance(d.pred, list) and all(isinstance(x, (str, int, float)) for x in d.pred)), d.pred
    if d.correct is True:
        assert d.pred is not None
    if d.outcome == "error":
        assert d.correct is None and d.pred is None and d.message
    if d.outcome == "fallback" and d.step == "random-option":
        assert d.pred in _fallback_letters(ruleset, record) and d.k == len(_fallback_letters(ruleset, record))
    section = ruleset.sections[record.question_type]
    if d.outcome == "rule" and section.compare == "letter" and record.question_type == "multiple-choice":
        assert d.pred in _letters(ruleset, record), (d.pred, d.step)
    assert (d.trace is not None) == trace
    if trace:
        assert all(st_.status in ("fired", "passed", "skipped", "skipped-to", "error") for st_ in d.trace)
        if d.outcome in ("rule", "abstain") and d.step not in ("abstain", None):
            assert d.trace[-1].status == "fired" and d.trace[-1].step == d.step


def _key(d):
    return None if d is None else (d.id, repr(d.pred), d.correct, d.score, d.outcome, d.step, d.k, d.message)


@fuzz(2500)
@given(record=records(), trace=st.booleans(), seed=st.one_of(st.none(), st.integers(-2**63, 2**63)))
def test_records_through_every_builtin_ruleset(record, trace, seed):
    for name, rs in ALL_RULESETS.items():
        d = Evaluator(rs, seed).decide(record, trace=trace)
        check_decision(rs, record, d, trace)
        # a fresh evaluator (fresh stream too), with the trace the other way round: same decision
        again = Evaluator(rs, seed).decide(record, trace=not trace)
        check_decision(rs, record, again, not trace)
        assert _key(d) == _key(again), name


@fuzz(350)
@given(data=st.data(), n=st.integers(1, 8), seed=st.one_of(st.none(), st.integers(-1000, 1000)))
def test_per_item_fallbacks_ignore_instances_and_order(data, n, seed):
    recs = [data.draw(records(rid=f"r{i}")) for i in range(n)]
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
_num = st.one_of(st.integers(0, 100).map(str), st.sampled_from(["0.5", "1.0", "2.25", "007"]))
_str_lit = st.one_of(st.text(st.characters(codec="utf-8", exclude_characters="'\n"), max_size=8).map(lambda s: f"'{s}'"),
                     st.text(st.characters(codec="utf-8", exclude_characters='"\n'), max_size=8).map(lambda s: f'"{s}"'),
                     st.sampled_from(["'A'", '"Z"', "''", "'a b'", "'{letter}'"]))
_bad_names = st.sampled_from(["wrods", "lenght", "foo", "meta", "answers", "Words", "x1", "_", "in_", "nott", "trueish"])
_atom = st.one_of(_num, _str_lit, st.sampled_from(["true", "false"]), st.sampled_from(NAMES), _bad_names)
_CMP = ["==", "!=", "<", "<=", ">", ">="]
_ARITH = ["+", "-", "*", "/", "%"]


def _extend(inner):
    return st.one_of(
        st.tuples(inner, st.sampled_from(_CMP + _ARITH + ["and", "or", "in", "not in"]), inner).map(" ".join),
        inner.map(lambda a: f"not {a}"), inner.map(lambda a: f"-{a}"), inner.map(lambda a: f"({a})"),
        st.tuples(st.sampled_from(sorted(FUNCTIONS) + ["lens", "max"]), st.lists(inner, max_size=3)).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
    )


grammar_conditions = st.recursive(_atom, _extend, max_leaves=10)


@st.composite
def mutated(draw, base):
    """A grammar-made source with a few characters deleted, inserted or swapped."""
    s = draw(base)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(s)))
        op = draw(st.sampled_from(["del", "ins", "dup"]))
        if op == "del" and s:
            s = s[:i] + s[i + 1:]
        elif op == "ins":
            s = s[:i] + draw(st.sampled_from(list("()[],'\"=<>!+-*/% .") + ["and", "or", "not", "in", "1", "x", "\n", "\t", "\x00", "é"])) + s[i:]
        else:
            s = s[:i] + s[i:i + 3] + s[i:]
    return s


any_condition = st.one_of(grammar_conditions, grammar_conditions, mutated(grammar_conditions),
                          st.text(_chars, max_size=30),
                          st.text(st.sampled_from(list("abcdilnorstuw_. ()[]'\"=<>!+-*/%,0123456789")), max_size=30))


def _cheap_to_run(src: str) -> bool:
    """Skip running sources that could build huge strings/lists by repeated `*` (compile still runs)."""
    return src.count("*") <= 2 and not re.search(r"\d{4}", src)


@st.composite
def envs(draw):
    record = draw(records())
    opts = option_set(record.choices, ("A", "B", "C", "D"))
    text = draw(st.one_of(_composed, _text))[:60]
    env = Env(text, record, opts)
    cands = [Candidate(draw(st.one_of(st.sampled_from(opts.letter_list or ["A"]), _text)), s, s + 1, "x",
                       draw(st.integers(-1, 5)), draw(st.integers(-1, 5))) for s in range(draw(st.integers(0, 3)))]
    env.cands = cands
    env.candidate = cands[0] if cands else Candidate("A", 0, 1)
    env.tokens_count = draw(st.one_of(st.none(), st.integers(0, 50)))
    return env


def compile_contract(src: str, where: bool) -> Condition | None:
    """compile_condition returns a Condition or raises ExpressionError (located, renderable)."""
    try:
        cond = compile_condition(src, Loc("x.yaml", 1, 1), where=where)
    except ExpressionError as exc:
        assert exc.loc is not None and exc.loc.file == "x.yaml" and exc.loc.line == 1 and exc.loc.col >= 1
        assert exc.code in ("E201", "E202") and exc.render().startswith("x.yaml:1:")
        return None
    assert isinstance(cond, Condition) and cond.source == src
    assert cond.names <= set(VARIABLES) | {n for n in cond.names if n.startswith("meta.")}
    if not where:
        assert not (cond.names & CANDIDATE_NAMES)
    return cond


@fuzz(4500)
@given(src=any_condition, where=st.booleans(), env=envs())
def test_conditions_compile_or_raise_expression_error(src, where, env):
    cond = compile_contract(src, where)
    if cond is None or not _cheap_to_run(src):
        return
    try:
        assert cond(env) in (True, False)
    except Exception as exc:  # B9: a type error inside a condition escapes (see test_bug_b9_*)
        tolerate_known(exc, ("B9",))


# ====================================================================== 3. rulesets
LETTER_TEMPLATES = ["{letter}", "({letter})", "{letter} ", " {letter} ", "{letter}.", "{option}", "Z", "answer",
                    "[{letter}]", "**{letter}**", ""]
REGEXES = ["(?P<answer>[A-D])", "(?i)answer\\s+is\\s+(?P<answer>{letters})", "(?P<answer>{letters})",
           "(?P<x>a)", "(", "(?P<answer>[", "(?P<answer>\\d+)", "(?P<answer>(a|aa)+)$", "[", "a{2,1}",
           "(?P<answer>{letters}", "(?P<answer>.)\\1", "(?P<answer>\\p{L})", "{letters}", ".*"]


def garbage(depth: int = 1):
    leaf = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.integers(), st.floats(allow_nan=False),
                     st.text(_chars, max_size=8), st.sampled_from(["yes", "no", "on", "off", "~", "null", "[", "{"]))
    if depth <= 0:
        return leaf
    return st.one_of(leaf, st.lists(leaf, max_size=3), st.dictionaries(st.text(max_size=6), leaf, max_size=3))


def maybe(strategy, p_garbage=0.1):
    """Mostly `strategy`, sometimes a value of a wrong type."""
    return st.one_of(*([strategy] * 9), garbage())


templates = st.one_of(st.sampled_from(LETTER_TEMPLATES), st.text(_chars, max_size=6))
template_or_list = st.one_of(templates, st.lists(templates, min_size=1, max_size=3))
case = st.sampled_from(["exact", "ignore", "Ignore"])
safe_conditions = st.one_of(st.sampled_from(["words > 5", "distinct == 1", "answer in letters", "length <= 2 * options_length",
                                             "first_index > tokens - 5", "answer == 'Z'", "candidates > 2",
                                             "start > 3 and end < 40", "contains('is')", "answer + 1 > 0",
                                             "len(answer) == 1", "meta.source == 'x'", "1 / 0 > 1", "wrods > 5"]),
                            grammar_conditions.filter(_cheap_to_run), st.text(max_size=10))

finds = st.one_of(
    st.fixed_dictionaries({"literal": template_or_list}, optional={"case": case}),
    st.fixed_dictionaries({"token": template_or_list}, optional={"separators": st.sampled_from([".()[],:;!*#{}", "", " ", ".,"]), "case": case}),
    st.fixed_dictionaries({"word": template_or_list}, optional={"case": case}),
    st.fixed_dictionaries({"regex": st.one_of(st.sampled_from(REGEXES), st.text(max_size=8))},
                          optional={"group": st.sampled_from(["answer", "x", "0"]), "matches": st.sampled_from(["all", "first", "last", "some"]),
                                    "transform": st.sampled_from(["upper", "lower", "strip", "none", "title"])}),
    st.fixed_dictionaries({"option-text": st.one_of(st.just({}), st.fixed_dictionaries({}, optional={"case": case}))}),
    st.fixed_dictionaries({"phrases": st.lists(st.one_of(st.sampled_from(SPECIAL), _text), max_size=3)}, optional={"case": case}),
    st.fixed_dictionaries({"whole": st.sampled_from([True, False, "yes"])}),
    st.fixed_dictionaries({"tail-after": st.lists(st.sampled_from(["is ", "so ", "answer ", "", "="]), max_size=3)},
                          optional={"split": st.sampled_from(["\\n", "\\.\\s(?=[A-Z])|\\n", "(", None]),
                                    "last-segment-extra": st.lists(st.sampled_from(["=", ":"]), max_size=2)}),
    st.sampled_from(["literal", "whole"]),
)
picks = st.one_of(st.sampled_from(["only", "first", "last", "rightmost", "all", "middle"]),
                  st.fixed_dictionaries({"rightmost-of": templates}, optional={"ties": st.sampled_from(["option-order", "first", "last", "random"])}),
                  st.fixed_dictionaries({"rightmost": st.fixed_dictionaries({}, optional={"ties": st.sampled_from(["first", "last", "x"])})}))
prepare_ops = st.one_of(
    st.sampled_from(["strip", "lowercase", "uppercase", "collapse-whitespace", "titlecase"]),
    st.fixed_dictionaries({"strip": st.sampled_from(["", ".", " .,", "A"])}),
    st.fixed_dictionaries({"strip-ends-each": st.lists(st.sampled_from([",", ".", "!", "", "ab"]), max_size=3)}),
    st.fixed_dictionaries({"pad": st.sampled_from([" ", "", "##"])}),
    st.fixed_dictionaries({"replace": st.dictionaries(st.text(_chars, min_size=1, max_size=3), st.text(_chars, max_size=2), max_size=2)}),
    st.fixed_dictionaries({"remove-regex": st.sampled_from(["(?s)<think>.*?</think>", "[", "\\s+", "(a|aa)+$"])}),
    st.fixed_dictionaries({"truncate": st.one_of(st.integers(-50, 500), st.integers())}),
)


@st.composite
def steps_st(draw, ids):
    step = {"id": draw(st.sampled_from(ids))}
    opt = {"find": maybe(finds), "pick": maybe(picks), "when": maybe(safe_conditions), "where": maybe(safe_conditions),
           "prepare": maybe(st.lists(prepare_ops, max_size=2)), "answer": maybe(st.sampled_from(["Z", "A", ""])),
           "outcome": st.sampled_from(["rule", "abstain", "judge"]), "skip-to": st.sampled_from(ids + ["nowhere"]),
           "look-in": st.sampled_from(["prepared", "original", "raw"]), "enabled": maybe(st.booleans()),
           "also": maybe(st.lists(finds, max_size=2)), "description": st.text(max_size=10),
           "drop": st.booleans(), "before": st.sampled_from(ids + ["bracketed-letter", "single-letter"]),
           "after": st.sampled_from(ids + ["option-text"])}
    keys = draw(st.lists(st.sampled_from(sorted(opt)), unique=True, max_size=5))
    weights = {"find": 3}
    if "find" not in keys and draw(st.integers(0, 3)):
        keys.append("find")
    for k in keys:
        step[k] = draw(opt[k])
    del weights
    return step


fallbacks = st.one_of(
    st.fixed_dictionaries({"random-option": st.fixed_dictionaries({}, optional={
        "order": st.sampled_from(["per-item", "stream", "global"]), "seed": st.one_of(st.integers(-10, 10), st.integers()),
        "extra": st.lists(st.sampled_from(["Z", "A", "E"]), max_size=2)})}),
    st.fixed_dictionaries({"constant": st.sampled_from(["A", "Z", ""])}),
    st.fixed_dictionaries({"abstain": st.one_of(st.none(), st.just("Z"))}),
    st.sampled_from(["random-option", "abstain"]),
)
compares = st.one_of(st.sampled_from(["letter", "contains-or-number", "exact", "fuzzy"]),
                     st.fixed_dictionaries({"exact": st.fixed_dictionaries({}, optional={"strip": st.booleans(), "case": case})}))
normalizes = st.fixed_dictionaries({}, optional={
    "number": st.one_of(st.none(), st.fixed_dictionaries({}, optional={"remove": st.sampled_from([",", "", " ,"]),
                                                                       "round": st.one_of(st.none(), st.integers(-3, 6), st.integers())})),
    "strip": st.booleans(), "lowercase": st.booleans(), "pad-single-char": st.one_of(st.none(), st.just(" ")),
    "dedupe": st.booleans()})


@st.composite
def sections(draw):
    ids = draw(st.lists(st.sampled_from(["a", "b", "c", "letter-space", "option-text", "single-letter", "refusal"]),
                        min_size=1, max_size=4, unique=True))
    sec = {}
    opt = {"steps": maybe(st.lists(steps_st(ids), max_size=4)), "prepare": maybe(st.lists(prepare_ops, max_size=3)),
           "fallback": maybe(fallbacks), "compare": maybe(compares), "normalize": maybe(normalizes),
           "letters-if-missing": maybe(st.lists(st.sampled_from(["A", "B", "C", "D", "Z", "1"]), max_size=4)),
           "from": st.sampled_from(sorted(BUILTINS) + ["nope", "lmms"])}
    keys = draw(st.lists(st.sampled_from(sorted(opt)), unique=True, max_size=5))
    if "steps" not in keys and draw(st.integers(0, 2)):
        keys.append("steps")
    for k in keys:
        sec[k] = draw(opt[k])
    return sec


@st.composite
def ruleset_docs(draw):
    doc = {}
    if draw(st.integers(0, 9)):
        doc["ruleset"] = draw(st.one_of(st.sampled_from(["fz", "x y", " "]), garbage(0)))
    if draw(st.integers(0, 2)) == 0:
        doc["extends"] = draw(st.one_of(st.sampled_from(sorted(BUILTINS) + ["nope", "r.yaml"]), garbage(0)))
    for sec in ("multiple-choice", "open"):
        if draw(st.integers(0, 2)):
            doc[sec] = draw(st.one_of(sections(), sections(), sections(), garbage()))
    if draw(st.integers(0, 5)) == 0:
        doc["metrics"] = draw(st.one_of(
            st.fixed_dictionaries({}, optional={"breakdown": st.lists(st.sampled_from(["source", "meta.x", "model"]), max_size=2),
                                                "groups": st.fixed_dictionaries({"group-by": st.sampled_from(["triplet_id", ""])},
                                                                                optional={"role": st.just("eval_type"), "roles": st.lists(st.sampled_from(["Origin", "P", "p"]), max_size=3),
                                                                                          "require": st.sampled_from(["all", "any", "at-least 2", "most"])})}),
            garbage()))
    if draw(st.integers(0, 5)) == 0:
        doc["examples"] = draw(st.lists(st.fixed_dictionaries({"response": maybe(_text)}, optional={"expect": st.just("A"), "answer": st.just("A")}), max_size=2))
    for _ in range(draw(st.integers(0, 1))):  # a garbage key somewhere
        target = doc
        path = draw(st.lists(st.sampled_from(["multiple-choice", "open", "steps", 0, "find", "fallback", "random-option"]), max_size=4))
        for p in path:
            if isinstance(target, dict) and p in target and isinstance(target[p], (dict, list)):
                target = target[p]
            elif isinstance(target, list) and isinstance(p, int) and target:
                target = target[0]
        if isinstance(target, dict):
            target[draw(st.sampled_from(["bogus", "ordr", "pick_", "steps", "Find", "seed"]))] = draw(garbage(0))
    return doc


@st.composite
def ruleset_texts(draw):
    doc = draw(ruleset_docs())
    text = yaml.safe_dump(doc, allow_unicode=draw(st.booleans()), sort_keys=False,
                          default_flow_style=draw(st.sampled_from([False, None])))
    lines = text.splitlines()
    for _ in range(draw(st.integers(0, 2))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        mut = draw(st.sampled_from(["tab", "dup", "yes", "char", "del", "indent"]))
        line = lines[i]
        if mut == "tab":
            lines[i] = "\t" + line
        elif mut == "dup":
            lines.insert(i, line)
        elif mut == "yes" and ":" in line:
            lines[i] = line.split(":", 1)[0] + ": " + draw(st.sampled_from(["yes", "no", "on", "off", "Yes", "~"]))
        elif mut == "char":
            j = draw(st.integers(0, len(line)))
            lines[i] = line[:j] + draw(st.sampled_from(list(":-[]{}#&*!|>'\"%@`,? ") + ["\x00", "\ufeff"])) + line[j:]
        elif mut == "del":
            del lines[i]
        else:
            lines[i] = "  " + line
    return "\n".join(lines) + "\n"


_RULESET_RECORDS = [
    Record("m1", "multiple-choice", "The answer is (B). B", "B", {"A": "cat", "B": "dog", "C": "a dog"}),
    Record("m2", "multiple-choice", "I think A or B. DNA is key; so C", "C", {"A": "RNA", "B": "protein", "C": ""}),
    Record("m3", "multiple-choice", "", None, None),
    Record("m4", "multiple-choice", "Cannot determine the answer ZZ Z", ["A", "Z"], {"Ä": "x", "(": ".*"}),
    Record("o1", "open", "Thus the area is 1,234 m^2. So x = 5", "1234"),
    Record("o2", "open", "\n\nanswer is \x00 .\u200f", 3.5, meta={"source": "x"}),
    Record("o3", "open", "so " * 40, ["a", 1]),
]


def _literal_where(rs: CompiledRuleset) -> bool:
    """B10 applies: a literal/phrases/option-text find filtered by `where` or counted by `candidates`."""
    return any(isinstance(s.finder, LiteralFinder) and (s.where is not None or (s.when is not None and "candidates" in s.when.names))
               for sec in rs.sections.values() for s in sec.steps)


LOAD_BUGS = ("B3", "B4", "B5", "B6")
DECIDE_BUGS = ("B8", "B9")


@fuzz(1900)
@given(text=ruleset_texts(), which=st.lists(st.integers(0, len(_RULESET_RECORDS) - 1), min_size=1, max_size=3))
def test_generated_rulesets_load_or_raise_rulekit_errors(text, which):
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
        check_decision(rs, record, plain, False)
        check_decision(rs, record, traced, True)
        if not _literal_where(rs):  # B10: see test_bug_b10_*
            assert _key(plain) == _key(traced)


# ====================================================================== 4. the CLI
_json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False), _text)


@st.composite
def jsonl_lines(draw, i):
    kind = draw(st.sampled_from(["ours", "ours", "ours", "lmms", "bad-json", "not-object", "blank", "missing"]))
    if kind == "blank":
        return draw(st.sampled_from(["", "   ", "\t"]))
    if kind == "bad-json":
        return draw(st.one_of(st.sampled_from(["{", "{'id': 1}", "{\"id\": 1,}", "NaN", "{\"id\": 99999999999999999999999}"]),
                              st.text(st.characters(codec="utf-8", exclude_characters="\n\r"), min_size=1, max_size=20)))
    if kind == "not-object":
        return json.dumps(draw(st.one_of(st.lists(_json_scalar, max_size=2), _json_scalar)))
    if kind == "lmms":
        doc = {"id": draw(st.one_of(st.just(f"d{i}"), _json_scalar)), "question": draw(_text)}
        if draw(st.booleans()):
            doc["options"] = draw(st.one_of(st.lists(_text, max_size=5).map(repr), st.lists(_text, max_size=5), _text))
        obj = {"doc_id": i, "doc": doc, "target": draw(_json_scalar),
               draw(st.sampled_from(["resps", "filtered_resps"])): draw(st.one_of(st.lists(st.lists(replies, max_size=2), max_size=2), st.lists(replies, max_size=1)))}
        return json.dumps(obj, ensure_ascii=draw(st.booleans()))
    obj = {"id": draw(st.one_of(st.just(f"id{i}"), st.just("dup"), _json_scalar)), "response": draw(st.one_of(replies.map(lambda s: s[:3000]), _json_scalar))}
    optional = {"choices": st.one_of(choices_st(), st.lists(_text, max_size=30), _text, st.sampled_from(["['a', 'b']", "{'A': 1}", "[1,", "{1, 2}"])),
                "answer": answers, "question_type": st.sampled_from(["multiple-choice", "open", "mcq", "free_form", "essay", 3]),
                "meta": st.one_of(meta_st, st.sampled_from(["{}", "not json", "[1]", ""]), _json_scalar),
                "triplet_id": st.one_of(st.integers(0, 3), _json_scalar, st.lists(st.integers(), max_size=1)),
                "eval_type": st.sampled_from(["Origin", "Perception", "Knowledge", "other", None]),
                "source": _json_scalar, "model": _json_scalar, "benchmark": _json_scalar}
    for k in draw(st.lists(st.sampled_from(sorted(optional)), unique=True, max_size=6)):
        obj[k] = draw(optional[k])
    if kind == "missing":
        obj.pop(draw(st.sampled_from(["id", "response"])))
    return json.dumps(obj, ensure_ascii=draw(st.booleans()))


@st.composite
def cli_calls(draw):
    n = draw(st.integers(0, 6))
    lines = [draw(jsonl_lines(i)) for i in range(n)]
    bom = draw(st.booleans())
    data = ("\ufeff" if bom else "") + "\n".join(lines) + draw(st.sampled_from(["\n", ""]))
    names = sorted(BUILTINS)
    cmd = draw(st.sampled_from(["eval", "eval", "eval", "diff", "explain-id", "explain-response"]))
    if cmd == "eval":
        args = ["eval"]
        for r in draw(st.lists(st.sampled_from(names), min_size=1, max_size=2, unique=True)):
            args += ["-r", r]
        args += ["--format", draw(st.sampled_from(["table", "json", "markdown"]))]
        if draw(st.booleans()):
            args += ["--output-dir", "OUT"]
    elif cmd == "diff":
        a, b = draw(st.lists(st.sampled_from(names), min_size=2, max_size=2, unique=True))
        args = ["diff", "-r", a, "-r", b, "--format", draw(st.sampled_from(["table", "json", "markdown"])),
                "--show", str(draw(st.integers(0, 3)))]
    elif cmd == "explain-id":
        args = ["explain", "-r", draw(st.sampled_from(names)), "--id", draw(st.sampled_from(["id0", "id1", "dup", "d0", "nope"])),
                "--format", draw(st.sampled_from(["text", "json"]))]
    else:
        opts = draw(st.one_of(st.just(None), st.lists(st.tuples(st.sampled_from("ABCDE"), st.text(st.characters(codec="utf-8", exclude_characters=","), max_size=10)),
                                                      max_size=4).map(lambda xs: ",".join(f"{k}={v}" for k, v in xs)), _text))
        args = ["explain", "-r", draw(st.sampled_from(names)), "--response", draw(replies.map(lambda s: s[:500]))]
        if opts is not None:
            args += ["--options", opts]
        if draw(st.booleans()):
            args += ["--answer", draw(_text)]
        if draw(st.booleans()):
            args += ["--diff", draw(st.sampled_from(names))]
        args += ["--format", draw(st.sampled_from(["text", "json"]))]
        data = None
    if draw(st.integers(0, 3)) == 0 and cmd != "explain-response":
        args += ["--seed", str(draw(st.integers(-2**70, 2**70)))]
    if draw(st.integers(0, 5)) == 0 and cmd != "explain-response":
        args += ["--field", draw(st.sampled_from(["response=prediction", "answer=target", "bogus=x", "response", "meta.s=source"]))]
    return args, data


@fuzz(450)
@given(call=cli_calls())
def test_cli_exits_0_or_2_without_traceback(call):
    args, data = call
    work = Path(tempfile.mkdtemp(dir=_TMP))
    args = [str(work / "out") if a == "OUT" else a for a in args]
    if data is not None:
        (work / "in.jsonl").write_text(data, encoding="utf-8")
        args.insert(args.index("--format") if "--format" in args else len(args), str(work / "in.jsonl"))
    result = CliRunner().invoke(main, args, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        tolerate_known(result.exception, ("B1", "B11"))
        return
    assert result.exit_code in (0, 2), (args, result.output[-2000:])
    assert "Traceback" not in result.output, (args, result.output[-2000:])
    if result.exit_code == 2:
        assert "error[" in result.output or "Usage:" in result.output, result.output[-2000:]


# ====================================================================== pinned bugs
# Each test states the correct behaviour and fails today; `@example` makes the failure
# deterministic, and the few generated cases after it explore the same family.

def _write(tmp_path: Path, text: str, name: str = "bug.yaml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _loads_or_rulekit_error(path: str) -> None:
    try:
        load_ruleset(path)
    except RulekitError as exc:
        exc.render()


@pytest.mark.xfail(strict=True, raises=MarkupError,
                   reason="BUG B1: explain renders user text as rich markup: "
                          "`rulekit explain -r lmms-eval --response x --options 'A=[/],B=y'` → MarkupError traceback "
                          "(same with --answer '[/]'); print user text with markup=False / Text()")
@fuzz(20)
@example(options="A=[/],B=y", answer=None)
@example(options="A=a,B=b", answer="[/]")
@given(options=st.text(max_size=10).map(lambda s: f"A={s},B=b"), answer=st.one_of(st.none(), st.text(max_size=5)))
def test_bug_b1_explain_prints_user_text_as_markup(options, answer):
    args = ["explain", "-r", "lmms-eval", "--response", "x", "--options", options] + (["--answer", answer] if answer else [])
    result = CliRunner().invoke(main, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code in (0, 2)


@pytest.mark.xfail(strict=True, raises=RecursionError,
                   reason="BUG B2: deep conditions raise RecursionError, not ExpressionError: "
                          "compile_condition('not ' * 500 + 'true') (also '1' + ' + 1' * 500, '-' * 500 + '1'); "
                          "nested regexes too: find: {regex: '(' * 2000 + '?P<answer>a' + ')' * 2000}")
@fuzz(10)
@example(src="not " * 500 + "true")
@given(src=st.integers(500, 3000).flatmap(lambda n: st.sampled_from(["not " * n + "true", "1" + " + 1" * n + " > 0", "-" * n + "1 < 2"])))
def test_bug_b2_deep_conditions_raise_recursion_error(src):
    compile_contract(src, where=False)


@pytest.mark.xfail(strict=True, raises=TypeError,
                   reason="BUG B3: a non-string `extends:`/`from:` crashes the loader: "
                          "'ruleset: x\\nextends: 5\\n' → TypeError: unsupported operand type(s) for /: 'PosixPath' and 'int' "
                          "(loader._resolve_relative; also `extends: [a]`, `extends: yes`, `multiple-choice: {from: 5}`)")
def test_bug_b3_extends_not_a_string(tmp_path):
    _loads_or_rulekit_error(_write(tmp_path, "ruleset: x\nextends: 5\n"))


@pytest.mark.xfail(strict=True, raises=(TypeError, KeyError),
                   reason="BUG B4: under `extends:`, `steps:` that is not a list crashes loader._merge_steps: "
                          "'ruleset: x\\nextends: lmms-eval\\nmultiple-choice:\\n  steps: 5\\n' → TypeError 'int' object is not iterable; "
                          "`steps: {a: 1}` → KeyError 0")
@pytest.mark.parametrize("steps", ["5", "{a: 1}"])
def test_bug_b4_steps_not_a_list_under_extends(tmp_path, steps):
    _loads_or_rulekit_error(_write(tmp_path, f"ruleset: x\nextends: lmms-eval\nmultiple-choice:\n  steps: {steps}\n"))


@pytest.mark.xfail(strict=True, raises=KeyError,
                   reason="BUG B5: an unknown key inside nested options crashes the did-you-mean hint (schema.known_keys KeyError): "
                          "'ruleset: x\\nmultiple-choice:\\n  steps: [{id: a, find: {literal: x}}]\\n  fallback: {random-option: {ordr: stream}}\\n' "
                          "→ KeyError 'random-option' (same for compare: {exact: {bogus: 1}}, find: {option-text: {bogus: 1}}, "
                          "pick: {rightmost: {bogus: 1}})")
@pytest.mark.parametrize("where", ["  fallback: {random-option: {ordr: stream}}\n", "  compare: {exact: {bogus: 1}}\n",
                                   "  steps: [{id: b, find: {option-text: {bogus: 1}}}]\n",
                                   "  steps: [{id: b, find: {literal: x}, pick: {rightmost: {bogus: 1}}}]\n"])
def test_bug_b5_unknown_nested_key_crashes_hint(tmp_path, where):
    base = "ruleset: x\nmultiple-choice:\n" + ("  steps: [{id: a, find: {literal: x}}]\n" if "steps" not in where else "")
    _loads_or_rulekit_error(_write(tmp_path, base + where))


@pytest.mark.xfail(strict=True, raises=TypeError,
                   reason="BUG B6: an integer beyond 64 bits anywhere in a ruleset crashes the fingerprint (orjson): "
                          "'ruleset: x\\nmultiple-choice:\\n  steps: [{id: a, find: {literal: z}}]\\n  fallback: {random-option: {seed: 99999999999999999999}}\\n' "
                          "→ TypeError: Integer exceeds 64-bit range (also `truncate: 99999999999999999999`)")
def test_bug_b6_big_integer_breaks_fingerprint(tmp_path):
    _loads_or_rulekit_error(_write(tmp_path, "ruleset: x\nmultiple-choice:\n  steps: [{id: a, find: {literal: z}}]\n"
                                             "  fallback: {random-option: {seed: 99999999999999999999}}\n"))


@pytest.mark.xfail(strict=True, raises=RecursionError,
                   reason="BUG B7: a recursive YAML alias recurses forever in loader._convert: "
                          "'ruleset: x\\nsummary: &a [*a]\\n' → RecursionError (billion-laughs aliases are also expanded without limit)")
def test_bug_b7_recursive_yaml_alias(tmp_path):
    _loads_or_rulekit_error(_write(tmp_path, "ruleset: x\nsummary: &a [*a]\n"))


@pytest.mark.xfail(strict=True, raises=(RulekitError, IndexError),
                   reason="BUG B8: a `{letters}` regex is only compiled/checked per option set at decide time, so a ruleset that loads "
                          "raises from Evaluator.decide: find: {regex: '(?P<answer>{letters}'} → RulesetError E120 out of decide; "
                          "find: {regex: '(?P<x>{letters})'} → IndexError: no such group")
@pytest.mark.parametrize("pattern", ["(?P<answer>{letters}", "(?P<x>{letters})"])
def test_bug_b8_per_option_regex_errors_escape_decide(tmp_path, pattern):
    path = _write(tmp_path, f"ruleset: x\nmultiple-choice:\n  steps:\n    - id: a\n      find: {{regex: '{pattern}'}}\n")
    try:
        rs = load_ruleset(path)
    except RulekitError:
        return  # the fix may well be to reject it at load time
    d = Evaluator(rs).decide(Record("i", "multiple-choice", "A", "A", {"A": "x", "B": "y"}))
    assert d.outcome in OUTCOMES


@pytest.mark.xfail(strict=True, raises=(TypeError, ValueError, ZeroDivisionError, OverflowError),
                   reason="BUG B9: a type error inside a condition at run time crashes the whole run instead of a per-record "
                          "`error` outcome (or false): step `{id: a, find: {literal: '{letter}'}, where: answer + 1 > 0}` → "
                          "Evaluator.decide raises TypeError: can only concatenate str (not \"int\") to str "
                          "(also len(5), contains(1), 1 / 0, 'a' in 5, '%' % 1)")
@fuzz(30)
@example(cond="answer + 1 > 0")
@given(cond=st.sampled_from(["answer + 1 > 0", "len(5) > 0", "contains(1)", "1 / 0 > 0", "'a' in 5", "'%' % 1 == ''",
                             "meta.x - 1 > 0", "words + 'a' == 1"]))
def test_bug_b9_condition_type_error_crashes_decide(cond):
    path = _write(_TMP, "ruleset: x\nmultiple-choice:\n  steps:\n    - id: a\n      find: {literal: '{letter}'}\n"
                        f"      where: {json.dumps(cond)}\n", "b9.yaml")
    rs = load_ruleset(path)
    d = Evaluator(rs).decide(Record("i", "multiple-choice", "A B", "A", {"A": "x", "B": "y"}))
    assert d.outcome in OUTCOMES


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="BUG B10: trace=True changes decisions: without a trace, literal/phrases/option-text finds return only the first "
                          "and last occurrence of each needle, so `where:` and `candidates` see fewer candidates: step "
                          "`{id: m, find: {literal: '{letter}'}, where: start > 3 and start < 7}` on 'A A A A A' → unresolved from "
                          "decide(r) but pred A from decide(r, trace=True) (`rulekit explain` disagrees with `rulekit eval`)")
def test_bug_b10_trace_changes_the_decision(tmp_path):
    rs = load_ruleset(_write(tmp_path, "ruleset: x\nmultiple-choice:\n  steps:\n    - id: m\n      find: {literal: '{letter}'}\n"
                                       "      where: start > 3 and start < 7\n"))
    record = Record("i", "multiple-choice", "A A A A A", "A", {"A": "x", "B": "y"})
    assert _key(Evaluator(rs).decide(record)) == _key(Evaluator(rs).decide(record, trace=True))


@pytest.mark.xfail(strict=True, raises=TypeError,
                   reason="BUG B11: group metrics crash on an unhashable role label: `rulekit eval -r mmevalpro in.jsonl` with the line "
                          "{\"id\":\"1\",\"response\":\"A\",\"answer\":\"A\",\"choices\":[\"x\",\"y\"],\"meta\":{\"triplet_id\":1,\"eval_type\":[\"Origin\"]}} "
                          "→ TypeError: unhashable type: 'list' (metrics/groups.py group_metrics)")
def test_bug_b11_unhashable_role_label(tmp_path):
    line = {"id": "1", "response": "A", "answer": "A", "choices": ["x", "y"], "meta": {"triplet_id": 1, "eval_type": ["Origin"]}}
    (tmp_path / "in.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "-r", "mmevalpro", str(tmp_path / "in.jsonl")])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code in (0, 2)
