"""The math family of compares — `int-equal`, `float-equal`, `equivalent` — and the tests `equivalent`
runs: each word's model (its docstring is what `rulekit vocabulary` prints) and how it scores, in one
module. `rulekit.language.compares` registers the three compares with the others.

Each compare model has `compile(node)` (at ruleset load: prepare ops, regexes and conditions
compiled once, errors located in the ruleset file) and `verdict(pred, record, normalize)` →
`(correct, score, problem)`: `problem` is None, a message (outcome `error`: a SymPy call past its
time limit, SymPy missing, a bad precision field), or an `Unresolved` message (outcome
`unresolved`: only a judge can decide, e.g. physics' `\\text` answers, or `otherwise: judge`).

Nothing here imports SymPy: `equivalent`'s `sympy`, `interval` and `equation` tests ask the
worker process of `rulekit.core.symbolic`, so a pathological expression costs one `timeout` and the
record's outcome `error`, never a hung run; a record's calls share a CPU budget of twice its `timeout`
(a reply with thousands of boxed answers costs one budget, not thousands of limits).
"""

import math
import re
from typing import Any, Callable, Literal, Optional, Union

from pydantic import Field

from rulekit.core.pyliteral import Unreadable, read_literal
from rulekit.core.regex import compile_regex
from rulekit.core.record_env import RecordEnv
from rulekit.core.records import Record
from rulekit.language import prepare as _P
from rulekit.language.expr import ConditionFailed, compile_condition
from rulekit.language.prepare import compile_prepare, compile_word_prepare
from rulekit.language.words import Word, word_union

Otherwise = Literal["wrong", "judge"]


# ---------------------------------------------------------------- number compares
class NumberEqualOptions(Word):
    """Options of `int-equal` / `float-equal`: `otherwise: judge` makes a prediction that does not parse
    or differs `unresolved` (the original asks its judge) instead of wrong; `falsy: judge` does the
    same for a CORRECT value that is zero (an original that tests `if post_check(...)` treats 0 as
    "not prefetched" and asks the judge, and then counts the judge's 0 right); `falsy: judge-then-wrong`
    asks the judge too but counts its 0 wrong as well (MathVista before c26761b8, 2024-04-21: post_check's
    hit was the falsy 0 itself). `within: T` accepts |prediction - gold| < T (strict) instead
    of equality (Atropos' MathVerse: `abs(float(p) - float(a)) < 0.01`); `edge: inclusive` accepts
    a difference of exactly T too (DynaMath: `<= 0.001`). `symbols: {"π": 3.141592653589793}`
    (float-equal): a PREDICTION holding a symbol is read as `float(the text before its first
    occurrence) × value`, what follows it ignored — "2π" is 6.283…, "2π/3" too; "π" alone and
    "π/2" have nothing before the symbol and do not parse — as DynaMath's `transfer_pi` reads
    them; the gold is read with plain `float()`. `within-decimals: FIELD` takes the tolerance from the
    record's `meta.FIELD`, a number of decimal places: 10 ** -FIELD when it is a number above 0, else
    `within` (MathVista: `10 ** (-precision) if precision > 0 else 0.01`, any precision — 7, 1.5 —
    and none or 0 alike); a FIELD that is there but is no number makes the record wrong (the
    original's `precision > 0` raises)."""

    otherwise: Otherwise = "wrong"
    falsy: Literal["correct", "judge", "judge-then-wrong"] = "correct"
    within: Optional[float] = Field(default=None, gt=0)
    within_decimals: Optional[str] = Field(default=None, min_length=1)
    edge: Literal["exclusive", "inclusive"] = "exclusive"
    symbols: dict[str, float] = {}
    via_float: bool = False


class IntEqual(Word):
    """`int-equal` — Python `int()` of the whole prediction equals `int()` of the gold: surrounding
    whitespace, a sign and `_` between digits are accepted; "42." / "4.0" / "four" do not parse and
    are wrong. A list gold: any of them."""

    int_equal: NumberEqualOptions = NumberEqualOptions.model_construct()

    def verdict(self, pred: Any, record: Record, normalize: Any = None) -> tuple:
        """(correct, score, problem) of `pred` for the record's gold (see the module doc)."""
        return _number_verdict(self, pred, record.answer, record)


class FloatEqual(Word):
    """`float-equal` — Python `float()` of the whole prediction equals `float()` of the gold EXACTLY
    (no tolerance; "1e3", " 2.50 ", "inf" parse; "1,000" and "$5" do not). A list gold: any of them."""

    float_equal: NumberEqualOptions = NumberEqualOptions.model_construct()

    def verdict(self, pred: Any, record: Record, normalize: Any = None) -> tuple:
        """(correct, score, problem) of `pred` for the record's gold (see the module doc)."""
        return _number_verdict(self, pred, record.answer, record)


# ---------------------------------------------------------------- equivalent: the tests
OnError = Literal["continue", "stop"]


class NumericSpec(Word):
    """Options of the `numeric` test."""

    scale: list[float] = [1.0]
    slack: float = 1.0
    abs: Optional[float] = None
    rel: Optional[float] = None


class NumericTest(Word):
    """`numeric: {scale: [0.01, 1, 100], slack: 1.01}` — both answers parse with Python `float()` and, for
    some s in `scale`, |first×s − second| ≤ tolerance (a scale below 1 whose inverse is whole divides,
    `x / 100`, as the originals do). The tolerance is `abs` when given, else the compare's per-answer
    `precision` × `slack`; `rel: 0.05` instead allows 5 % of |second|. Does not apply when either side
    is not a number. Which answer is first: see `arguments`."""

    numeric: NumericSpec = NumericSpec.model_construct()


SympyCheck = Literal["structural", "value", "difference", "zero-difference", "equals"]


class SympySpec(Word):
    """Options of the `sympy` test."""

    parse: Literal["latex"] = "latex"
    prepare: list[_P.PrepareOp] = []
    standardize: bool = False
    checks: list[SympyCheck] = ["structural", "value", "difference"]
    structural_only: bool = False
    skip_if_both_contain: Optional[str] = None
    slack: float = 1.0
    max_length: int = 300
    max_exponent: float = 1000
    difference_tolerance: float = 1e-3
    on_error: OnError = "continue"


class SympyTest(Word):
    """`sympy: {parse: latex, checks: [...]}` — parse both answers with SymPy's LaTeX parser (each after
    the test's own `prepare` ops) and apply `checks` in order, equal as soon as one holds:
    `structural` (the parsed trees are `==`, no simplification: `x+1` ≠ `1+x`, `\\frac{1}{2}` ≠ `0.5`),
    `value` (no free symbols on either side, π as `math.pi`: |N(a) − N(b)| ≤ precision × `slack`; one
    side with symbols and one without → not equal; powers with exponent > `max-exponent` and inputs
    longer than `max-length` are refused), `difference` (both symbolic: |N(simplify(a − b))| <
    `difference-tolerance`), `zero-difference` (`simplify(a − b) == 0`), `equals` (`a.equals(b)`).
    `standardize: true` first rewrites both as simplify(expand(trigsimp(x))). `structural-only: true`
    reproduces OlympiadBench's missing `sympy_sub_pi`: only `structural`, and a pair that is not
    structurally equal is an ERROR of the test (`on-error` then decides). `skip-if-both-contain: "="`
    skips the test when both answers contain that text. A parse failure is an error of the test;
    every SymPy call runs in a worker process with the compare's `timeout` (CPU seconds of the
    worker, so a busy machine decides as an idle one) — running past it makes the record's outcome
    `error`."""

    sympy: SympySpec = SympySpec.model_construct()


class IntervalSpec(Word):
    """Options of the `interval` test."""

    endpoints: SympySpec = SympySpec.model_construct()
    union: str = "\\cup"
    on_error: OnError = "stop"


class IntervalTest(Word):
    """`interval: {endpoints: {...}}` — when both answers look like intervals (start with `(`/`[`, end with
    `)`/`]`): split each at `union`, the pieces must be as many, with the same bracket characters,
    and their comma-separated endpoints (paired in order, the shorter list decides) equal under the
    `endpoints` sympy options. Otherwise the test does not apply. `on-error: stop` (default): an
    endpoint error makes the pair unequal, skipping the remaining tests (as OlympiadBench)."""

    interval: IntervalSpec = IntervalSpec.model_construct()


class EquationSpec(Word):
    """Options of the `equation` test."""

    parse: Literal["latex"] = "latex"
    on_error: OnError = "continue"


class EquationTest(Word):
    """`equation` — both answers are equations with exactly one "=": move everything to the left,
    simplify; equal when either quotient simplifies to a non-zero integer (x = 1 ≡ 2x = 2). Anything
    else is an error of the test."""

    equation: EquationSpec = EquationSpec.model_construct()


class JudgeIfContains(Word):
    """`judge-if-contains: TEXT` (or a list) — when either answer contains it, only a judge can decide:
    the pair needs the judge (outcome `unresolved` without one) and no later test runs. The physics
    original sends every answer with `\\text` to its LLM judge."""

    judge_if_contains: Union[str, list[str]]


BARE_TEST = Literal["identical", "equation"]
BARE_TEST_DOC = {"identical": "both answers are the same non-empty text.",
                 "equation": "`equation` with its default options (see `equivalent test: equation`)."}
TEST_MODELS = {"numeric": NumericTest, "sympy": SympyTest, "interval": IntervalTest, "equation": EquationTest,
               "judge-if-contains": JudgeIfContains}
Test = word_union(TEST_MODELS, BARE_TEST)


# ---------------------------------------------------------------- equivalent
class GoldSpec(Word):
    """How `equivalent` reads the gold: `read: text` (default) takes it as one text (a list gold is
    written as Python writes it, `['42']`, which is how a list column of a VLMEvalKit TSV reads back);
    `read: list` takes each element of a list gold (or of text that is a Python/JSON list literal,
    read with `ast.literal_eval`, never `eval`) as an accepted answer. `prepare` ops then run on each."""

    read: Literal["text", "list"] = "text"
    prepare: list[_P.PrepareOp] = []


class SplitSpec(Word):
    """Several answers in one: after `prepare`, split each side at `at` outside the `brackets` pairs (depth
    counted over the opening/closing characters; braces are not brackets unless listed) and strip
    the pieces; `expand: {"\\\\pm": ["+", "-"]}` turns a piece containing the key into one piece per
    replacement. The two lists must be as long and are paired greedily (OlympiadBench): cycle over
    the first list, pair each item with the first remaining item of the second that the tests find
    equal. `prepare` here runs after the identical-text check and before splitting."""

    prepare: list[_P.PrepareOp] = []
    at: str = ","
    brackets: list[str] = ["()", "[]"]
    expand: dict[str, list[str]] = {}


class PrecisionSpec(Word):
    """The per-answer tolerance `numeric` and `sympy` use: the record field `from` (a number, or numbers
    separated by commas, one per split answer of the first argument, an empty one meaning `default`);
    the `default` when the field is absent, blank or NaN, or when the condition `unless` is true.
    One value is used for every split answer."""

    from_: Optional[str] = Field(None, alias="from")
    default: float = 1e-8
    unless: Optional[str] = None


class EquivalentSpec(Word):
    """Options of `equivalent`."""

    arguments: Literal["gold-first", "prediction-first"] = "gold-first"
    gold: GoldSpec = GoldSpec.model_construct()
    prepare: list[_P.PrepareOp] = []
    split: Optional[SplitSpec] = None
    tests: list[Test] = []
    credit: Literal["match", "fraction"] = "match"
    precision: PrecisionSpec = PrecisionSpec.model_construct()
    otherwise: Otherwise = "wrong"
    timeout: float = 5.0
    identical_first: bool = True


class Equivalent(Word):
    """`equivalent: {prepare: [...], tests: [...]}` — math-answer equivalence, configured as data. Both the
    prediction and each gold (see `gold`) go through `prepare` (an op that fails, e.g. an unbalanced
    `\\boxed{` with `unbalanced: fail`, makes that answer unequal to everything); identical texts are
    equal (`identical-first: false`: not before the tests — VLMEvalKit's physics is_equiv parses even
    two equal texts, and asks its judge when SymPy cannot read them); otherwise (after `split`, if given) each pair of answers runs `tests` in order — `identical`,
    `numeric`, `sympy`, `interval`, `equation`, `judge-if-contains` — and is equal as soon as one says
    so. `arguments: prediction-first` passes the prediction as the FIRST argument of every test
    (OlympiadBench's swapped call; it decides which side `numeric` scales and whose `precision` list
    applies). `credit: match` — correct when the prediction equals some gold (a list prediction: all
    of its distinct items must); `credit: fraction` — score = share of the prediction's distinct
    non-empty items that equal some gold (physics' partial credit; no items → 0), correct only at 1.
    `otherwise: judge` — a pair no test found equal needs the judge (outcome `unresolved` when the
    record is not already decided). SymPy runs in a worker process; a call past `timeout` seconds
    of CPU time makes the record's outcome `error`, and so do the calls of one record together past
    twice that (`rulekit.core.symbolic.record_budget`); a text of more than 10,000 characters is never
    parsed (as if SymPy could not read it)."""

    equivalent: EquivalentSpec

    def compile(self, node: Any = None) -> "CompiledEquivalent":
        """Prepare ops, regexes and conditions compiled once (raises RulesetError, located at `node`)."""
        return CompiledEquivalent(self, node)

    def verdict(self, pred: Any, record: Record, normalize: Any = None) -> tuple:
        """(correct, score, problem) of `pred` for `record` (compiled on first use; see the module doc)."""
        return math_verdict(self, pred, record)


class ArithmeticOptions(Word):
    """Options of `arithmetic`."""

    within: Optional[float] = Field(default=None, gt=0)
    prepare: list[_P.PrepareOp] = []
    names: dict[str, Literal["gold", "prediction"]] = {}
    read: Literal["python", "latex2sympy"] = "python"
    difference: Literal["float", "abs"] = "float"
    timeout: float = Field(default=30.0, gt=0)


class Arithmetic(Word):
    """`arithmetic: {within: 1e-6}` — both texts read as Python reads a literal arithmetic expression
    (what an original gets from `eval(text)`), but parsed by `ast` and never run: numbers, strings,
    True/False/None, lists, tuples, sets, dicts, unary `- + ~ not`, binary `+ - * / // % ** ^ & | <<
    >>` between numbers ("10^3" is 9, as in Python) and `+` joining two lists or strings. Without
    `within`: correct when the two values are equal by Python's `==` ([1.0, 2] equals [1, 2]; "[1-2]"
    is [-1]: MathVista's list answers). With `within: T`: when `float()` of both values differs by
    less than T (MATH-Vision's is_equal; a string value is read by `float()` too). A text with a name,
    a call, an attribute, a subscript or a comparison — or a value over the size limits — is not
    read, and the pair is not equal (the original's `eval` would run it; rulekit does not). Both
    texts first go through `prepare`. A list gold: any of them. `names: {a: gold}` lets the
    PREDICTION name the gold's value: MATH-Vision's is_equal runs `b = eval(prediction)` right after
    `a = eval(gold)`, inside the function whose locals `eval` sees, so the prediction "a" (the
    letter A, lowercased) reads as the gold itself and is right whenever the gold is a number.
    With `read: latex2sympy` the names are bound before either printed form is read, as in is_equal's
    `a = latex2sympy(gold); b = latex2sympy(prediction)` then `eval(str(a))`, `eval(str(b))`:
    `names: {a: gold, b: prediction}` reads a name in EITHER text as that side's parse — its value when
    it prints as literal arithmetic, else a symbol equal only to a symbol printed the same — so the
    gold "\\text{B}" and the prediction "B" (both print `b`, both read the prediction's parse) are equal.
    `difference: abs` compares with `within` as `abs(a - b) < T` on the values themselves (VLMEvalKit's
    is_equal: numbers only — a string is never equal —, complex numbers by their modulus) instead of
    `float()` of each. `read: latex2sympy` reads each text (after `prepare`) the way
    `eval(str(latex2sympy(text)))` does: the latex2sympy2_extended parser (in the SymPy worker, at
    most `timeout` CPU seconds, twice that for all of a record's texts, else the record's outcome is
    `error`; a text over 10,000 characters is not parsed) and its printed form read as
    above, so "\\frac{1}{2}" is 0.5 and "1,000" is 1000, while "2\\sqrt{3}" prints `2*sqrt(3)`, a
    call, and is not read; a text it cannot parse is not equal (VLMEvalKit's MATH-Vision is_equal,
    second branch)."""

    arithmetic: ArithmeticOptions = ArithmeticOptions.model_construct()

    def compile(self, node: Any = None) -> "CompiledArithmetic":
        """The prepare ops compiled once (errors located in the ruleset file)."""
        o = self.arithmetic
        return CompiledArithmetic(o.within, dict(o.names), compile_word_prepare(o.prepare, node, "arithmetic"),
                                  o.read, o.difference, o.timeout)

    def verdict(self, pred: Any, record: Record, normalize: Any = None) -> tuple:
        """Compile, then decide."""
        return self.compile().verdict(pred, record, normalize)


class CompiledArithmetic:
    """An `arithmetic` compare with its prepare ops compiled."""

    __slots__ = ("within", "gold_names", "prediction_names", "prepare", "parse", "difference", "timeout")

    def __init__(self, within: float | None, names: Any, prepare: Any, parse: str = "python",
                 difference: str = "float", timeout: float = 30.0):
        names = names if isinstance(names, dict) else dict.fromkeys(names, "gold")
        self.gold_names = tuple(k for k, side in names.items() if side == "gold")
        self.prediction_names = tuple(k for k, side in names.items() if side == "prediction")
        self.within, self.prepare = within, prepare or (lambda text: text)
        self.parse, self.difference, self.timeout = parse, difference, timeout

    def _read(self, text: Any, names: dict | None = None) -> Any:
        """The text's literal value after `prepare` (_UNREAD when it is not literal arithmetic); with
        `read: latex2sympy`, of its printed parse (raises symbolic.MathError when the worker must make
        the record an error)."""
        text = self.prepare(text if isinstance(text, str) else str(text))
        if self.parse != "python":
            from rulekit.core import symbolic

            try:
                text = symbolic.printed(text, self.parse, self.timeout)
            except symbolic.RequestFailed:
                return _UNREAD
        try:
            return read_literal(text, names)
        except Unreadable:
            return _UNREAD

    def _same(self, pred: Any, gold: Any) -> bool:
        """`pred == gold`, or with `within`, |float(pred) - float(gold)| < within (False where float()
        refuses) — `abs(pred - gold) < within` with `difference: abs` (False where Python refuses)."""
        if self.within is None:
            return pred == gold
        try:
            if self.difference == "abs":
                return bool(abs(pred - gold) < self.within)
            return abs(float(pred) - float(gold)) < self.within
        except (TypeError, ValueError, OverflowError, ArithmeticError):
            return False

    def verdict(self, pred: Any, record: Record, normalize: Any = None) -> tuple:
        """(correct, 1.0 or 0.0, None). With `names`, the prediction is read once per gold, the names
        standing for that gold's value. A SymPy worker failure (`read: latex2sympy`) is the problem
        (outcome `error`)."""
        from rulekit.core import symbolic

        try:
            with symbolic.record_budget(self.timeout):
                return self._verdict(pred, record)
        except symbolic.MathError as exc:
            return None, 0.0, MathFailure(f"arithmetic: {exc}")

    def _printed(self, text: Any) -> Any:
        """The text after `prepare`, printed by the `read` parser (None when it cannot parse it)."""
        from rulekit.core import symbolic

        text = self.prepare(text if isinstance(text, str) else str(text))
        try:
            return symbolic.printed(text, self.parse, self.timeout)
        except symbolic.RequestFailed:
            return None

    def _both_named(self, pred: Any, golds: list) -> tuple:
        """`read: latex2sympy` with a name for each side: both printed forms read with the names bound to
        the two parses (a parse that is not literal arithmetic is a symbol named by its printed form)."""
        printed_pred = self._printed(pred)
        if printed_pred is None:
            return False, 0.0, None
        for g in golds:
            printed_gold = self._printed(g)
            if printed_gold is None:
                continue
            names = {}
            for name in self.gold_names:
                names[name] = _parse_value(printed_gold)
            for name in self.prediction_names:
                names[name] = _parse_value(printed_pred)
            try:
                value, target = read_literal(printed_pred, names), read_literal(printed_gold, names)
            except Unreadable:
                continue
            if self._same(value, target):
                return True, 1.0, None
        return False, 0.0, None

    def _verdict(self, pred: Any, record: Record) -> tuple:
        golds = [g for g in (record.answer if isinstance(record.answer, list) else [record.answer]) if g is not None]
        if self.prediction_names and self.parse != "python":
            return self._both_named(pred, golds)
        value = None if self.gold_names else self._read(pred)
        if value is _UNREAD:
            return False, 0.0, None
        for g in golds:
            target = self._read(g)
            if target is _UNREAD:
                continue
            if self.gold_names:
                value = self._read(pred, dict.fromkeys(self.gold_names, target))
                if value is _UNREAD:
                    continue
            if self._same(value, target):
                return True, 1.0, None
        return False, 0.0, None


_UNREAD = object()


class _Symbol:
    """A parse that is not literal arithmetic (a SymPy symbol or expression), known by its printed form: the
    difference of two that print the same is 0, any other arithmetic on it is refused (TypeError), as
    `abs(expr) < 1e-6` on a symbolic SymPy value is for `if`."""

    __slots__ = ("printed",)

    def __init__(self, printed: str):
        self.printed = printed

    def __sub__(self, other: Any) -> int:
        if isinstance(other, _Symbol) and other.printed == self.printed:
            return 0
        raise TypeError("symbolic")

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, _Symbol) and other.printed == self.printed

    def __hash__(self) -> int:
        return hash(self.printed)


def _parse_value(printed: str) -> Any:
    try:
        return read_literal(printed)
    except Unreadable:
        return _Symbol(printed)

COMPARE_MODELS = {"int-equal": IntEqual, "float-equal": FloatEqual, "equivalent": Equivalent, "arithmetic": Arithmetic}

# `compare: ...` entries come from compares.py's registry; these are the words inside `equivalent`.
VOCABULARY = {
    **{f"equivalent test: {k}": m for k, m in TEST_MODELS.items()},
    "equivalent: gold": GoldSpec, "equivalent: split": SplitSpec, "equivalent: precision": PrecisionSpec,
}
BARE_WORDS = {"equivalent test": BARE_TEST_DOC}



EQUAL, NEXT, STOP, JUDGE = "equal", "next", "stop", "judge"


class Unresolved(str):
    """A verdict `problem` that is not an error: the record needs a judge (outcome `unresolved`).

    What a judge fallback needs (rulekit/engine/judge.py): `pairs`, the (prediction, gold) pairs only a
    judge can compare, for a grading judge, whose findings `rescore` turns into (correct, score);
    and `settled`, the (correct, score) when the answer already comes from a judge and the compare
    still cannot decide (no second judge is asked)."""

    outcome = "unresolved"

    def __new__(cls, message: str, settled: tuple = (False, 0.0), pairs: tuple = (), matched: int = 0,
                total: int = 1, fraction: bool = False):
        self = super().__new__(cls, message)
        self.settled, self.pairs = settled, tuple(pairs)
        self.matched, self.total, self.fraction = matched, total, fraction
        return self

    def rescore(self, equal: set) -> tuple[bool, float]:
        """(correct, score) when a judge finds the predictions in `equal` equal to their gold."""
        n = self.matched + len({p for p, _ in self.pairs} & set(equal))
        if self.fraction:
            score = n / self.total if self.total else 0.0
            return score == 1.0, score
        return n == self.total, 1.0 if n == self.total else 0.0


class MathFailure(str):
    """A verdict `problem` from the SymPy worker — a call past its time limit, the record's budget spent,
    SymPy missing —: the record could not be decided (outcome `error`), and `any-of` keeps it rather than
    counting the compare as not correct."""


class _Failed(Exception):
    """Inside one test: SymPy could not decide, or a prepare op refused the text."""


# ---------------------------------------------------------------- compiling
def _prep(ops: list, node: Any) -> Callable[[str], str] | None:
    locs = getattr(node, "locs", None)
    return compile_prepare(ops, lambda i: locs[i] if locs and i < len(locs) else getattr(node, "loc", None))


def _sub(node: Any, *keys: Any) -> Any:
    for key in keys:
        if isinstance(node, dict):
            node = node.get(key)
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        else:
            return None
    return node


def _sympy_spec(spec: SympySpec, node: Any) -> dict:
    checks = ["structural"] if spec.structural_only else list(spec.checks)
    return {"parse": spec.parse, "standardize": spec.standardize, "checks": checks,
            "mismatch": "error" if spec.structural_only else "not-equal", "max_length": spec.max_length,
            "max_exponent": spec.max_exponent, "difference_tolerance": spec.difference_tolerance,
            "slack": spec.slack, "prepare": _prep(spec.prepare, _sub(node, "prepare")),
            "skip": spec.skip_if_both_contain, "on_error": spec.on_error}


class CompiledEquivalent:
    """An `equivalent` compare ready to run."""

    def __init__(self, kind: Equivalent, node: Any = None):
        spec = kind.equivalent
        node = _sub(node, "equivalent")
        self.kind, self.spec = kind, spec
        self.prepare = _prep(spec.prepare, _sub(node, "prepare"))
        self.gold_prepare = _prep(spec.gold.prepare, _sub(node, "gold", "prepare"))
        self.split = spec.split
        self.split_prepare = _prep(spec.split.prepare, _sub(node, "split", "prepare")) if spec.split else None
        p = spec.precision
        self.unless = compile_condition(p.unless, getattr(_sub(node, "precision"), "loc", None)) if p.unless else None
        self.tests = []
        for i, test in enumerate(spec.tests):
            tnode = _sub(node, "tests", i)
            if test == "identical":
                self.tests.append(("identical", None))
            elif test == "equation":
                self.tests.append(("equation", EquationSpec()))
            elif isinstance(test, JudgeIfContains):
                needles = test.judge_if_contains
                self.tests.append(("judge", (needles,) if isinstance(needles, str) else tuple(needles)))
            elif isinstance(test, NumericTest):
                self.tests.append(("numeric", test.numeric))
            elif isinstance(test, SympyTest):
                self.tests.append(("sympy", _sympy_spec(test.sympy, _sub(tnode, "sympy"))))
            elif isinstance(test, IntervalTest):
                self.tests.append(("interval", (test.interval, _sympy_spec(test.interval.endpoints,
                                                                           _sub(tnode, "interval", "endpoints")))))
            elif isinstance(test, EquationTest):
                self.tests.append(("equation", test.equation))

    def verdict(self, pred: Any, record: Record, normalize: Any = None) -> tuple:
        """(correct, score, problem) of `pred` for `record` (see the module doc)."""
        if pred is None:
            return False, 0.0, None
        return _equivalent_verdict(self, pred, record)

    def __repr__(self) -> str:
        return f"CompiledEquivalent({[t for t, _ in self.tests]})"


# ---------------------------------------------------------------- int-equal, float-equal
def _number_verdict(kind: Any, pred: Any, gold: Any, record: Record | None = None):
    convert, opts, name = (int, kind.int_equal, "int-equal") if isinstance(kind, IntEqual) else \
        (float, kind.float_equal, "float-equal")
    golds = [g for g in (gold if isinstance(gold, list) else [gold]) if g is not None]
    within = opts.within
    if opts.within_decimals is not None:
        places = (record.meta or {}).get(opts.within_decimals) if record is not None else None
        if places is not None:
            if not isinstance(places, (int, float)):  # `precision > 0` raises: the item scores 0
                return False, 0.0, None
            if places > 0:
                try:
                    within = 10 ** (-places)
                except OverflowError:  # an integer too large for a float: the original raises too
                    return False, 0.0, None
    if convert is int and opts.via_float:
        convert = _int_via_float
    try:
        value = _with_symbols(pred, opts.symbols) if opts.symbols and convert is float else convert(pred)
    except (ValueError, TypeError, OverflowError):
        value = None
    inclusive = opts.edge == "inclusive"
    if value is not None:
        for g in golds:
            try:
                target = convert(g)
            except (ValueError, TypeError, OverflowError):
                continue
            if value == target if within is None else (abs(value - target) <= within if inclusive
                                                       else abs(value - target) < within):
                if not value and opts.falsy != "correct":
                    return False, 0.0, Unresolved(f"{name}: the correct value {pred!r} is falsy, so the original "
                                                  f"treats it as not prefetched and asks its judge",
                                                  settled=(True, 1.0) if opts.falsy == "judge" else (False, 0.0),
                                                  pairs=[(str(pred), str(g))])
                return True, 1.0, None
    if opts.otherwise == "judge":
        why = "does not parse" if value is None else "differs from the gold"
        return False, 0.0, Unresolved(f"{name}: the prediction {why}; the original asks its judge",
                                      pairs=[(str(pred), str(g)) for g in golds])
    return False, 0.0, None


def _int_via_float(text: Any) -> int:
    """`int(float(text))` (ValueError / OverflowError for nan and inf, as Python raises)."""
    return int(float(text))


def _with_symbols(pred: Any, symbols: dict[str, float]) -> float:
    """`float()` of the prediction, or, when it holds one of `symbols` (first listed first), float() of
    the text before that symbol's first occurrence times the symbol's value."""
    text = pred if isinstance(pred, str) else str(pred)
    for symbol, factor in symbols.items():
        if symbol and symbol in text:
            return float(text.split(symbol, 1)[0]) * factor
    return float(pred)


# ---------------------------------------------------------------- equivalent
# One item of a list literal and the "," or "]" after it. Written for linear time (possessive runs; a bare
# item is its characters up to the last non-space one) with the matches of Python `re` on the original
# r"""\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|([^,'"\[\]]*?))\s*(,|\])""" (re.S), which
# was quadratic in a run of spaces ("[a" + " " * 64k + "'b]": 27 s, with no time limit); `(?py)` keeps
# `re`'s \s. tests/test_redos.py compares the two.
_LIST_ITEM_SOURCE = r"""(?py)(?s)\s*+(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|((?:\s*+[^,'"\[\]\s])*+))\s*+(,|\])"""
_LIST_ITEM: Any = None  # compiled on first use: a (?py) pattern loads the dialect, which `import rulekit` does not


def _list_item() -> Any:
    """The compiled list-item pattern (compiled once, on the first list literal read)."""
    global _LIST_ITEM
    if _LIST_ITEM is None:
        _LIST_ITEM = compile_regex(_LIST_ITEM_SOURCE, None)
    return _LIST_ITEM


def read_list_literal(text: str) -> list[str] | None:
    """The items of text written as a Python or JSON list of strings/numbers (`['42']`, `["a", 'b']`,
    `[1, 2]`), or None. Only `\\\\`, `\\'` and `\\"` are unescaped, so LaTeX such as `\\frac`
    survives whether the list was written by `repr` (doubled backslashes) or by hand (single)."""
    t = text.strip()
    if len(t) < 2 or t[0] != "[" or t[-1] != "]":
        return None
    body, pos, items = t[1:], 0, []
    if body.strip() == "]":
        return []
    item = _list_item()
    while pos < len(body):
        m = item.match(body, pos)
        if m is None:
            return None
        quoted = m.group(1) if m.group(1) is not None else m.group(2)
        if quoted is not None:
            items.append(re.sub(r"""\\([\\'"])""", r"\1", quoted))
        else:
            bare = m.group(3).strip()
            if not bare:
                return None
            items.append(bare)
        pos = m.end()
        if m.group(4) == "]":
            return items if pos == len(body) else None
    return None


def _golds(c: CompiledEquivalent, gold: Any) -> list[str]:
    if gold is None:
        return []
    if c.spec.gold.read == "text":
        values = [gold if isinstance(gold, str) else str(gold)]
    else:
        values = list(gold) if isinstance(gold, (list, tuple)) else [gold]
        if len(values) == 1 and isinstance(values[0], str):
            parsed = read_list_literal(values[0])
            if parsed is not None:
                values = parsed
        values = [v if isinstance(v, str) else str(v) for v in values if v is not None]
    if c.gold_prepare is None:
        return values
    out: list = []
    for v in values:
        try:
            out.append(c.gold_prepare(v))
        except ConditionFailed:
            out.append(None)  # refused by a prepare op: matches nothing
    return out


def _precision(c: CompiledEquivalent, record: Record) -> list[float]:
    p = c.spec.precision
    if p.from_ is None:
        return [p.default]
    if c.unless is not None:

        if c.unless(RecordEnv(record)):
            return [p.default]
    value = record.field(p.from_)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return [p.default]
    if isinstance(value, (int, float)):
        return [float(value)]
    text = str(value)
    if text == "nan" or not text.strip():
        return [p.default]
    try:
        if "," in text:
            return [float(x) if x else p.default for x in text.split(",")]
        return [float(text)]
    except ValueError:
        raise _Failed(f"`{p.from_}` = {text!r} is not a number") from None


def _split(c: CompiledEquivalent, text: str) -> list[str]:
    spec = c.split
    opening = "".join(b[0] for b in spec.brackets if b)
    closing = "".join(b[-1] for b in spec.brackets if b)
    out, depth, start, at, n = [], 0, 0, spec.at, len(spec.at)
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth -= 1
        elif depth == 0 and text.startswith(at, i):
            out.append(text[start:i].strip())
            start = i + n
            i += n
            continue
        i += 1
    if start < len(text):
        out.append(text[start:].strip())
    for key, replacements in spec.expand.items():
        expanded = []
        for piece in out:
            if key in piece:
                expanded.extend(piece.replace(key, r) for r in replacements)
            else:
                expanded.append(piece)
        out = expanded
    return out


def _is_interval(text: str) -> bool:
    return text.startswith(("(", "[")) and text.endswith((")", "]"))


def _sympy(spec: dict, x: str, y: str, precision: float, timeout: float) -> str:
    """One `sympy` comparison: EQUAL, NEXT, or raises _Failed (errors, `structural-only` mismatch)."""
    from rulekit.core import symbolic

    prep = spec["prepare"]
    try:
        a, b = (prep(x), prep(y)) if prep is not None else (x, y)
    except ConditionFailed as exc:
        raise _Failed(str(exc)) from None
    request = {k: spec[k] for k in ("parse", "standardize", "checks", "mismatch", "max_length", "max_exponent",
                                    "difference_tolerance")}
    request["tolerance"] = precision * spec["slack"]
    try:
        return EQUAL if symbolic.expr_equal(a, b, request, timeout) else NEXT
    except symbolic.RequestFailed as exc:
        raise _Failed(str(exc)) from None


def _test(c: CompiledEquivalent, test: tuple, x: str, y: str, precision: float) -> str:
    """Run one test on the pair (x is the first argument): EQUAL, NEXT, STOP or JUDGE."""
    from rulekit.core import symbolic

    name, spec = test
    timeout = c.spec.timeout
    if name == "identical":
        return EQUAL if x == y and x != "" else NEXT
    if name == "judge":
        return JUDGE if any(n in x or n in y for n in spec) else NEXT
    if name == "numeric":
        try:
            fx, fy = float(x), float(y)
        except (ValueError, TypeError, OverflowError):
            return NEXT
        tolerance = spec.abs if spec.abs is not None else precision * spec.slack
        for s in spec.scale:
            inverse = 1 / s if s else 0
            value = fx / inverse if 0 < s < 1 and float(inverse).is_integer() else fx * s
            if spec.rel is not None:
                if abs(value - fy) <= spec.rel * abs(fy):
                    return EQUAL
            elif abs(value - fy) <= tolerance:
                return EQUAL
        return NEXT
    if name == "sympy":
        if spec["skip"] is not None and spec["skip"] in x and spec["skip"] in y:
            return NEXT
        try:
            return _sympy(spec, x, y, precision, timeout)
        except _Failed:
            return STOP if spec["on_error"] == "stop" else NEXT
    if name == "interval":
        options, endpoint = spec
        if not (_is_interval(x) and _is_interval(y)):
            return NEXT
        if x == y:
            return EQUAL
        try:
            pieces1, pieces2 = x.split(options.union), y.split(options.union)
            if len(pieces1) != len(pieces2):
                return NEXT
            for p1, p2 in zip(pieces1, pieces2):
                if p1[0] != p2[0] or p1[-1] != p2[-1]:
                    return NEXT
                for e1, e2 in zip(p1.strip("[]()").split(","), p2.strip("[]()").split(",")):
                    if _sympy(endpoint, e1, e2, precision, timeout) != EQUAL:
                        return NEXT
            return EQUAL
        except (_Failed, IndexError):
            return STOP if options.on_error == "stop" else NEXT
    if name == "equation":
        if x.count("=") != 1 or y.count("=") != 1:
            return STOP if spec.on_error == "stop" else NEXT
        try:
            return EQUAL if symbolic.equation_equal(x, y, {"parse": spec.parse}, timeout) else NEXT
        except symbolic.RequestFailed:
            return STOP if spec.on_error == "stop" else NEXT
    raise AssertionError(name)  # pragma: no cover


def _item(c: CompiledEquivalent, x: str, y: str, precision: float) -> str:
    for test in c.tests:
        result = _test(c, test, x, y, precision)
        if result != NEXT:
            return result
    return JUDGE if c.spec.otherwise == "judge" else NEXT


def _pair(c: CompiledEquivalent, pred: str, gold: str, precision: list[float]) -> str:
    """Prepared prediction vs prepared gold: EQUAL, JUDGE, or not equal (NEXT/STOP)."""
    x, y = (pred, gold) if c.spec.arguments == "prediction-first" else (gold, pred)
    if x == y and c.spec.identical_first:
        return EQUAL
    if c.split is None:
        return _item(c, x, y, precision[0] if precision else c.spec.precision.default)
    if c.split_prepare is not None:
        x, y = c.split_prepare(x), c.split_prepare(y)
    first, second = _split(c, x), _split(c, y)
    prec = list(precision)
    if len(prec) <= 1:
        prec = prec * len(first)
    if len(first) != len(second):
        return NEXT
    idx, judged = -1, False
    while first:  # OlympiadBench's greedy pairing, list.remove semantics included
        idx = (idx + 1) % len(first)
        item1 = first[idx]
        try:
            p = prec[idx]
        except IndexError:
            raise _Failed(f"{len(prec)} precision values for {len(first)} answers") from None
        for item2 in second:
            result = _item(c, item1, item2, p)
            if result == EQUAL:
                first.remove(item1)
                second.remove(item2)
                prec.remove(p)
                break
            judged = judged or result == JUDGE
        else:
            return JUDGE if judged else NEXT
    return EQUAL


def _prepared(c: CompiledEquivalent, text: str) -> str | None:
    try:
        return c.prepare(text) if c.prepare is not None else text
    except ConditionFailed:
        return None  # refused by a prepare op: unequal to everything


def _equivalent_verdict(c: CompiledEquivalent, pred: Any, record: Record):
    from rulekit.core import symbolic

    with symbolic.record_budget(c.spec.timeout):
        return _equivalent_within_budget(c, pred, record)


def _equivalent_within_budget(c: CompiledEquivalent, pred: Any, record: Record):
    from rulekit.core import symbolic

    try:
        precision = _precision(c, record)
        golds = [_prepared(c, g) if g is not None else None for g in _golds(c, record.answer)]
        raw = pred if isinstance(pred, list) else [pred]
        items = [_prepared(c, p if isinstance(p, str) else str(p)) for p in raw if p is not None]
        if c.spec.credit == "fraction":
            items = [p for p in items if p != ""]
        distinct = list(dict.fromkeys(items))
        matched, unknown, pairs = 0, [], []
        for item in distinct:
            status, judged = NEXT, []
            if item is not None:
                for g in golds:
                    if g is None:
                        continue
                    result = _pair(c, item, g, precision)
                    if result == EQUAL:
                        status = EQUAL
                        break
                    if result == JUDGE:
                        status = JUDGE
                        judged.append((item, g))
            if status == EQUAL:
                matched += 1
            elif status == JUDGE:
                unknown.append(item)
                pairs += judged
    except symbolic.MathError as exc:
        return None, 0.0, MathFailure(f"equivalent: {exc}")
    except _Failed as exc:
        return None, 0.0, f"equivalent: {exc}"
    fraction = c.spec.credit == "fraction"
    if unknown and (fraction or matched + len(unknown) == len(distinct)):
        problem = Unresolved(f"equivalent: only a judge can compare {_show(unknown)} with the gold", pairs=pairs,
                             matched=matched, total=len(distinct), fraction=fraction)
        problem.settled = problem.rescore(set())
        return False, 0.0, problem
    if fraction:
        score = matched / len(distinct) if distinct else 0.0
        return score == 1.0, score, None
    if distinct and matched == len(distinct):
        return True, 1.0, None
    return False, 0.0, None


def _show(items: list) -> str:
    text = ", ".join(repr(i if len(i) <= 60 else i[:57] + "...") for i in items[:3])
    return text + (f" and {len(items) - 3} more" if len(items) > 3 else "")


def math_verdict(kind: Any, pred: Any, record: Record):
    """(correct, score, problem) of `pred` for `record` under a math compare (see the module doc)."""
    if pred is None:
        return False, 0.0, None
    if isinstance(kind, (IntEqual, FloatEqual)):
        return _number_verdict(kind, pred, record.answer, record)
    if isinstance(kind, Equivalent):  # not compiled (a caller outside the engine): compile once
        found = _UNCOMPILED.get(id(kind))
        if found is None or found[0] is not kind:
            if len(_UNCOMPILED) > 256:
                _UNCOMPILED.clear()
            found = _UNCOMPILED[id(kind)] = (kind, CompiledEquivalent(kind))
        kind = found[1]
    return _equivalent_verdict(kind, pred, record)


_UNCOMPILED: dict = {}

