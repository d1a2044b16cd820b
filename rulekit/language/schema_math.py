"""Vocabulary for scoring numbers and math answers: compares `int-equal`, `float-equal` and
`equivalent`, and the tests `equivalent` runs. (Per-record dispatch is schema.py's `cases`.)

Part of the ruleset vocabulary (`rulekit vocabulary` prints these docstrings); registered in
`schema.py`. Evaluated by `rulekit.ops.mathcompare`.
"""
from __future__ import annotations

from typing import Literal, Optional, Union

from pydantic import Field

from rulekit.language import prepare as _P
from rulekit.language import words as _S

Otherwise = Literal["wrong", "judge"]


# ---------------------------------------------------------------- number compares
class NumberEqualOptions(_S.Word):
    """Options of `int-equal` / `float-equal`: `otherwise: judge` makes a prediction that does not parse
    or differs `unresolved` (the original asks its judge) instead of wrong; `falsy: judge` does the
    same for a CORRECT value that is zero (an original that tests `if post_check(...)` treats 0 as
    "not prefetched" and asks the judge)."""

    otherwise: Otherwise = "wrong"
    falsy: Literal["correct", "judge"] = "correct"


class IntEqual(_S.Word):
    """`int-equal` — Python `int()` of the whole prediction equals `int()` of the gold: surrounding
    whitespace, a sign and `_` between digits are accepted; "42." / "4.0" / "four" do not parse and
    are wrong. A list gold: any of them."""

    int_equal: NumberEqualOptions = NumberEqualOptions()


class FloatEqual(_S.Word):
    """`float-equal` — Python `float()` of the whole prediction equals `float()` of the gold EXACTLY
    (no tolerance; "1e3", " 2.50 ", "inf" parse; "1,000" and "$5" do not). A list gold: any of them."""

    float_equal: NumberEqualOptions = NumberEqualOptions()


# ---------------------------------------------------------------- equivalent: the tests
OnError = Literal["continue", "stop"]


class NumericSpec(_S.Word):
    """Options of the `numeric` test."""

    scale: list[float] = [1.0]
    slack: float = 1.0
    abs: Optional[float] = None
    rel: Optional[float] = None


class NumericTest(_S.Word):
    """`numeric: {scale: [0.01, 1, 100], slack: 1.01}` — both answers parse with Python `float()` and, for
    some s in `scale`, |first×s − second| ≤ tolerance (a scale below 1 whose inverse is whole divides,
    `x / 100`, as the originals do). The tolerance is `abs` when given, else the compare's per-answer
    `precision` × `slack`; `rel: 0.05` instead allows 5 % of |second|. Does not apply when either side
    is not a number. Which answer is first: see `arguments`."""

    numeric: NumericSpec = NumericSpec()


SympyCheck = Literal["structural", "value", "difference", "zero-difference", "equals"]


class SympySpec(_S.Word):
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


class SympyTest(_S.Word):
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

    sympy: SympySpec = SympySpec()


class IntervalSpec(_S.Word):
    """Options of the `interval` test."""

    endpoints: SympySpec = SympySpec()
    union: str = "\\cup"
    on_error: OnError = "stop"


class IntervalTest(_S.Word):
    """`interval: {endpoints: {...}}` — when both answers look like intervals (start with `(`/`[`, end with
    `)`/`]`): split each at `union`, the pieces must be as many, with the same bracket characters,
    and their comma-separated endpoints (paired in order, the shorter list decides) equal under the
    `endpoints` sympy options. Otherwise the test does not apply. `on-error: stop` (default): an
    endpoint error makes the pair unequal, skipping the remaining tests (as OlympiadBench)."""

    interval: IntervalSpec = IntervalSpec()


class EquationSpec(_S.Word):
    """Options of the `equation` test."""

    parse: Literal["latex"] = "latex"
    on_error: OnError = "continue"


class EquationTest(_S.Word):
    """`equation` — both answers are equations with exactly one "=": move everything to the left,
    simplify; equal when either quotient simplifies to a non-zero integer (x = 1 ≡ 2x = 2). Anything
    else is an error of the test."""

    equation: EquationSpec = EquationSpec()


class JudgeIfContains(_S.Word):
    """`judge-if-contains: TEXT` (or a list) — when either answer contains it, only a judge can decide:
    the pair needs the judge (outcome `unresolved` without one) and no later test runs. The physics
    original sends every answer with `\\text` to its LLM judge."""

    judge_if_contains: Union[str, list[str]]


BARE_TEST = Literal["identical", "equation"]
BARE_TEST_DOC = {"identical": "both answers are the same non-empty text.",
                 "equation": "`equation` with its default options (see `equivalent test: equation`)."}
TEST_MODELS = {"numeric": NumericTest, "sympy": SympyTest, "interval": IntervalTest, "equation": EquationTest,
               "judge-if-contains": JudgeIfContains}
Test = _S.word_union(TEST_MODELS, BARE_TEST)


# ---------------------------------------------------------------- equivalent
class GoldSpec(_S.Word):
    """How `equivalent` reads the gold: `read: text` (default) takes it as one text (a list gold is
    written as Python writes it, `['42']`, which is how a list column of a VLMEvalKit TSV reads back);
    `read: list` takes each element of a list gold (or of text that is a Python/JSON list literal,
    read with `ast.literal_eval`, never `eval`) as an accepted answer. `prepare` ops then run on each."""

    read: Literal["text", "list"] = "text"
    prepare: list[_P.PrepareOp] = []


class SplitSpec(_S.Word):
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


class PrecisionSpec(_S.Word):
    """The per-answer tolerance `numeric` and `sympy` use: the record field `from` (a number, or numbers
    separated by commas, one per split answer of the first argument, an empty one meaning `default`);
    the `default` when the field is absent, blank or NaN, or when the condition `unless` is true.
    One value is used for every split answer."""

    from_: Optional[str] = Field(None, alias="from")
    default: float = 1e-8
    unless: Optional[str] = None


class EquivalentSpec(_S.Word):
    """Options of `equivalent`."""

    arguments: Literal["gold-first", "prediction-first"] = "gold-first"
    gold: GoldSpec = GoldSpec()
    prepare: list[_P.PrepareOp] = []
    split: Optional[SplitSpec] = None
    tests: list[Test] = []
    credit: Literal["match", "fraction"] = "match"
    precision: PrecisionSpec = PrecisionSpec()
    otherwise: Otherwise = "wrong"
    timeout: float = 5.0


class Equivalent(_S.Word):
    """`equivalent: {prepare: [...], tests: [...]}` — math-answer equivalence, configured as data. Both the
    prediction and each gold (see `gold`) go through `prepare` (an op that fails, e.g. an unbalanced
    `\\boxed{` with `unbalanced: fail`, makes that answer unequal to everything); identical texts are
    equal; otherwise (after `split`, if given) each pair of answers runs `tests` in order — `identical`,
    `numeric`, `sympy`, `interval`, `equation`, `judge-if-contains` — and is equal as soon as one says
    so. `arguments: prediction-first` passes the prediction as the FIRST argument of every test
    (OlympiadBench's swapped call; it decides which side `numeric` scales and whose `precision` list
    applies). `credit: match` — correct when the prediction equals some gold (a list prediction: all
    of its distinct items must); `credit: fraction` — score = share of the prediction's distinct
    non-empty items that equal some gold (physics' partial credit; no items → 0), correct only at 1.
    `otherwise: judge` — a pair no test found equal needs the judge (outcome `unresolved` when the
    record is not already decided). SymPy runs in a worker process; a call past `timeout` seconds
    of CPU time makes the record's outcome `error`."""

    equivalent: EquivalentSpec


COMPARE_MODELS = {"int-equal": IntEqual, "float-equal": FloatEqual, "equivalent": Equivalent}
MATH_COMPARES = tuple(COMPARE_MODELS.values())

# `compare: ...` entries come from schema.py's compare table; these are the words inside `equivalent`.
VOCABULARY = {
    **{f"equivalent test: {k}": m for k, m in TEST_MODELS.items()},
    "equivalent: gold": GoldSpec, "equivalent: split": SplitSpec, "equivalent: precision": PrecisionSpec,
}
BARE_WORDS = {"equivalent test": BARE_TEST_DOC}
