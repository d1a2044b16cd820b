"""The compare family: how an extracted answer is scored against the gold — each word's model (its
docstring is what `rulekit vocabulary` prints), how it scores, and the registry the schema, the
compiler and the engine read, in one module. The math compares (`int-equal`, `float-equal`,
`equivalent`) live in `rulekit.language.math` and are registered here.

A compare word is a model with `verdict(pred, record, normalize)` → `(correct, score, problem)` and,
when it has something to prepare once per ruleset, `compile(node)` → an object with the same
`verdict`; the bare words (`letter`, `contains-or-number`, `int`) are functions in `BARE_VERDICTS`.
`problem` is a message when the record cannot be scored (a gold of 0 under `mra: {zero-gold:
error}`, a gold that is not a number, no `cases` entry holding): the engine turns it into outcome
`error`, which is counted (as wrong), never dropped. A `math.Unresolved` problem means only a judge
can decide (outcome `unresolved`).

The compares follow the originals' Python semantics exactly (`float()`, `int()`, `str.lower`),
quirks included, because each reproduces a benchmark's published numbers:

* `relaxed`  — ChartQA relaxed accuracy (reference/behaviour.md §2.12).
* `anls`     — DocVQA / InfoVQA ANLS (§2.13); edit distance from rapidfuzz.
* `mra`      — Mean Relative Accuracy over thresholds (Omni3DBench, §2.9).
* `yes-no`, `int` and `exact: {case: lower-prediction}` — Omni3DBench's other answer types.
* `cases`    — choose one of the above per record by a condition (Omni3DBench's `answer_type`).
"""

import math
import re
from dataclasses import replace
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from rulekit.core.errors import Loc, RulekitError
from rulekit.core.pyliteral import Unreadable, read_literal
from rulekit.core.record_env import RecordEnv
from rulekit.core.records import Record
from rulekit.core.regex import compile_regex, timed
from rulekit.core.trace import Decision
from rulekit.language import math as _math
from rulekit.language.expr import ConditionFailed, compile_condition
from rulekit.language.prepare import PrepareOp, compile_word_prepare
from rulekit.language.words import Word, word_union

__all__ = ["COMPARE_MODELS", "BARE_VERDICTS", "Compare", "Normalize", "normalize_answers", "compile_compare",
           "verdict", "scored_decision", "CompiledOnUse", "letter_correct", "Settled", "relaxed_correct", "anls_distance", "mra",
           "yes_no_correct", "vqa_accuracy"]


class CompiledOnUse:
    """A compare word with something to compile (`compile(node)` → an object with `verdict`): the
    engine calls `compile` once per ruleset; a caller outside it gets the word's verdict compiled
    on the spot."""

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """Compile, then decide (`self.compile()` has no file position to report errors at)."""
        return self.compile().verdict(pred, record, normalize)


class NumberNormalize(Word):
    """How `normalize` turns numeric strings into numbers: characters to `remove` first (e.g. ","), then
    `float()`; `round` to that many decimals."""

    remove: str = ""
    round: int | None = None


class Normalize(Word):
    """`normalize:` applied to every extracted answer and every gold answer of an open question:
    `number` (strings that parse as floats become rounded numbers), `lowercase`, `strip`,
    `pad-single-char` (a one-character string becomes two variants, " x" and "x ", so it cannot
    match inside words), `dedupe` (drop repeated answers)."""

    number: NumberNormalize | None = None
    strip: bool = True
    lowercase: bool = True
    pad_single_char: str | None = None
    dedupe: bool = True


class ExactOptions(Word):
    """Options of `exact`: `case: lower-prediction` lowercases only the prediction (Omni3DBench compares
    `gold == pred.lower()`, so a gold with a capital letter never matches); `case: upper` uppercases
    both (`pred.upper() == gold.upper()`, which differs from `ignore` for "ß" and a few others).
    `prepare: [OPS]` runs prepare ops on both texts first (before `strip` and `case`). `digit-gold:
    index` reads a gold made of digits (Python's `str.isdigit()`) as an option index counted from 0 —
    "0" is A, "3" is D — as Atropos' AI2D does with its dataset's index answers
    (`ascii_uppercase[int(answer)]`); a digit gold `int()` refuses ("²") or past Z matches nothing.
    `gold-list-literal: true` reads a gold string holding a Python list literal ("['a', 'b']", as
    VLMEvalKit's TSVs store several answers: `istype(answer, list)` then `eval`) as that list of golds,
    never eval'd; `list-item: error` makes such a list holding an item that is not text ("[1, 2]") an
    `error`, as the original's `x.strip()` raises on it (the default reads the item as its text)."""

    strip: bool = False
    case: Literal["exact", "ignore", "lower-prediction", "upper"] = "exact"
    prepare: list[PrepareOp] = []
    digit_gold: Literal["text", "index"] = "text"
    gold_list_literal: bool = False
    list_item: Literal["text", "error"] = "text"


class Exact(Word):
    """`exact: {strip: false, case: exact}` — the prediction equals the gold string. With `prepare`,
    both texts go through the same ops first: VLMBlind reads a grid gold "5, 4" as "5x4" with
    `regex-replace`, and a prediction already in that form passes through unchanged. `digit-gold:
    index` reads a gold of digits as an option index from 0 ("1" is B: Atropos' AI2D)."""

    exact: ExactOptions = ExactOptions.model_construct()

    def compile(self, node: Any = None) -> Any:
        """Itself, or with `prepare` ops: an object whose `verdict` runs them (compiled once, errors
        located in the ruleset file)."""
        if not self.exact.prepare:
            return self
        return CompiledExact(self, compile_word_prepare(self.exact.prepare, node, "exact"))

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """(correct, score, problem) of `pred` for the record's gold."""
        if self.exact.prepare:
            return self.compile().verdict(pred, record, normalize)
        gold = record.answer
        if self.exact.gold_list_literal and isinstance(gold, str):
            gold = _list_literal(gold)
            if self.exact.list_item == "error" and isinstance(gold, list):
                bad = next((g for g in gold if not isinstance(g, str)), None)
                if bad is not None:
                    return None, 0.0, f"compare `exact`: the gold list holds {_short(bad)}, which is not text"
        return _plain(self, pred, gold, normalize)


class CompiledExact:
    """An `exact` compare with its prepare ops compiled."""

    __slots__ = ("kind", "prepare")

    def __init__(self, kind: Exact, prepare: Any):
        self.kind, self.prepare = kind, prepare

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """`exact` on the prepared prediction and golds."""
        opts = self.kind.exact
        golds = _golds(record.answer, opts.gold_list_literal)
        if opts.list_item == "error" and opts.gold_list_literal:
            bad = next((g for g in golds if not isinstance(g, str)), None)
            if bad is not None:
                return None, 0.0, f"compare `exact`: the gold list holds {_short(bad)}, which is not text"
        golds = [self.prepare(g if isinstance(g, str) else str(g)) for g in golds]
        return _plain(self.kind, self.prepare(pred if isinstance(pred, str) else str(pred)), golds, normalize)




# Partial-credit and typed compares (VQA benchmarks). A compare
# may set a fractional `score` (in [0, 1]); `correct` is then `score == 1`.
class RelaxedOptions(Word):
    """Options of `relaxed`."""

    tolerance: float = 0.05
    percent_suffix: bool = True
    gold_list_literal: bool = False
    remove: str = ""
    zero_gold: Literal["text", "near-zero"] = "text"
    empty_list: Literal["wrong", "error"] = "wrong"
    relative_to: Literal["gold", "prediction"] = "gold"


class Relaxed(Word):
    """`relaxed: {tolerance: 0.05, percent-suffix: true}` — ChartQA's relaxed accuracy (pix2struct
    `relaxed_correctness`, as in VLMEvalKit). Both texts are read with Python `float()` (surrounding
    whitespace, "1e3", "nan", "inf" and "1_000" parse; "1,000" and "$5" do not); with `percent-suffix`
    a text ENDING in "%" is `float(text.rstrip("%")) / 100` ("%" elsewhere makes it unparseable).
    When the prediction parses and the gold's number is non-zero: correct iff
    `|pred - gold| / |gold| <= tolerance`. Otherwise (either unparseable, or a gold of 0) the texts
    must be equal ignoring case, so a gold "0" needs exactly the text "0". A list gold: any of them;
    `gold-list-literal: true` also reads a gold string holding a Python list literal
    ("['5', 'five']", as VLMEvalKit TSVs store several answers) as that list. `remove: ",$"` strips
    both texts and deletes those characters before reading them as numbers (and compares the stripped
    texts); `zero-gold: near-zero` scores a gold of 0 as `|pred| < 1e-6` instead of by text (both
    Atropos' ChartQA). `empty-list: error` makes an empty gold list ("[]") an `error`, as VLMEvalKit's
    hit_calculate raises on it (`np.max` of no match); the default scores it wrong. `relative-to:
    prediction` swaps the two texts, as VLMEvalKit called `relaxed_correctness(pred, gold)` from 2024-01-29
    until PR #1204 (2025-09-01): the tolerance is relative to the PREDICTION's number (a reply "95.2"
    for the gold "100" is 4.8% off the gold, right, but 5.04% off itself, wrong), and a reply whose
    number is 0 is compared by text."""

    relaxed: RelaxedOptions = RelaxedOptions.model_construct()

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """(correct, score, problem) of `pred` for the record's gold."""
        return _typed(self, pred, record.answer)


class AnlsOptions(Word):
    """Options of `anls`."""

    threshold: float = 0.5
    denominator: Literal["raw", "normalized"] = "raw"
    strict: bool = False
    gold_list_literal: bool = False
    drop: str | None = None
    empty_prediction: Literal["compare", "zero"] = "compare"
    correct_from: float = Field(default=1.0, ge=0.0, le=1.0)
    list_item: Literal["text", "error"] = "text"
    empty_list: Literal["wrong", "error"] = "wrong"

    @field_validator("drop")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                compile_regex(value, None)
            except RulekitError as exc:
                raise ValueError(exc.message) from None
        return value


class Anls(Word):
    """`anls: {threshold: 0.5, denominator: raw, strict: false}` — ANLS (Average Normalized Levenshtein
    Similarity; DocVQA, InfoVQA), partial credit. Both texts are stripped, lowercased and their
    whitespace runs collapsed; their Levenshtein distance (rapidfuzz) is divided by the longer
    length — of the RAW texts (`len(text.upper())`) with `denominator: raw`, VLMEvalKit's quirk
    (extra whitespace enlarges the denominator, so it shrinks the distance), or of the normalized
    texts with `normalized`; two empty texts are at distance 0. Similarity s = 1 − the smallest
    distance over the golds; s below `threshold` scores 0 (so s exactly at the threshold keeps its
    score), `strict: true` also zeroes s equal to the threshold (the textbook rule NL < τ).
    `score` is s; `correct` only when s == 1. `gold-list-literal: true` reads a gold string holding a
    Python list literal ("['Nov 1', 'November 1']", VLMEvalKit's TSVs) as that list of golds.
    `drop: PATTERN` deletes the matches of a regex from both lowercased, stripped texts before the
    whitespace is collapsed (Atropos: `(?py)[^\\w\\s]`, every punctuation character);
    `empty-prediction: zero` scores 0 a prediction that normalizes to nothing (even against an empty
    gold); `correct-from: 0.5` makes a record correct when s reaches 0.5 (Atropos' DocVQA
    "accuracy"), not only at 1. `list-item: error` makes a list gold (a JSON list, or a list literal
    read by `gold-list-literal`) holding an item that is not text — `[1, 2]` — an `error`, as
    VLMEvalKit's `anls_compute` raises on it (`groundtruth.strip()`, AttributeError); the default
    `text` reads such an item as its text. `empty-list: error` makes an empty gold list ("[]") an
    `error` (VLMEvalKit's hit_calculate: `np.min` of no match raises); the default scores it wrong."""

    anls: AnlsOptions = AnlsOptions.model_construct()

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """(correct, score, problem) of `pred` for the record's gold."""
        return _typed(self, pred, record.answer)


class VqaScoreOptions(Word):
    """Options of `vqa-score`."""

    prepare: list[PrepareOp] = []
    gold_list_literal: bool = False
    others: Literal["by-index", "by-value"] = "by-index"
    needed: int = Field(default=3, ge=1)
    list_item: Literal["text", "error"] = "text"
    empty_list: Literal["wrong", "error"] = "wrong"


class VqaScore(CompiledOnUse, Word):
    """`vqa-score: {prepare: [OPS]}` — the VQA accuracy of TextVQA, VQAv2, VizWiz and OK-VQA (the
    official scorer, as VLMEvalKit's `process_line(..., 'vqa_score')` and lmms-eval's `process_results`
    compute it), partial credit: the prediction and every gold go through the `prepare` ops (the VQA
    answer processing: `{replace: {"\\n": " ", "\\t": " "}}`, `strip`, `{punctuation: {}}`,
    `{digit-article: {}}`); for each gold, the answers of the OTHER golds equal to the prediction are
    counted, `min(1, count / needed)` (`needed: 3`); the score is the mean over the golds (ten golds
    of which the prediction equals four score 1.0, three 0.9, one 0.3). `others: by-index` leaves out
    only the gold itself (VLMEvalKit, lmms-eval's TextVQA); `by-value` leaves out every gold equal to it
    (the VQAv2 API: `item != gtAnsDatum`), so a prediction equal to the gold in question never counts
    for it. `correct` only when the score is 1. `gold-list-literal: true` reads a gold string holding
    a Python list literal (VLMEvalKit's TSV column "['a', 'b', ...]") as that list; `list-item: error`
    makes an item that is not text an `error` (the original calls `.replace` on it); `empty-list:
    error` makes an empty gold list an `error` (the mean of no scores is NaN there), `wrong` scores it 0.
    A list prediction scores its best item."""

    vqa_score: VqaScoreOptions = VqaScoreOptions.model_construct()

    def compile(self, node: Any = None) -> "CompiledVqaScore":
        """The prepare ops compiled once (errors located in the ruleset file)."""
        return CompiledVqaScore(self.vqa_score, compile_word_prepare(self.vqa_score.prepare, node, "vqa-score"))


class CompiledVqaScore:
    """A `vqa-score` compare with its prepare ops compiled."""

    __slots__ = ("spec", "prepare")

    def __init__(self, spec: VqaScoreOptions, prepare: Any):
        self.spec, self.prepare = spec, prepare or (lambda text: text)

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """The mean over the golds of min(1, other golds equal to the prediction / needed)."""
        spec, gold = self.spec, record.answer
        if spec.gold_list_literal and isinstance(gold, str):
            gold = _list_literal(gold)
        golds = _golds(gold)
        if not golds:
            if spec.empty_list == "error" and isinstance(gold, list):
                return None, 0.0, "compare `vqa-score`: the gold is an empty list (the mean of no scores is NaN)"
            return False, 0.0, None
        if spec.list_item == "error":
            bad = next((g for g in golds if not isinstance(g, str)), None)
            if bad is not None:
                return None, 0.0, f"compare `vqa-score`: the gold list holds {_short(bad)}, which is not text"
        golds = [self.prepare(g if isinstance(g, str) else str(g)) for g in golds]
        best = 0.0
        for p in (pred if isinstance(pred, list) else [pred]):
            best = max(best, vqa_accuracy(self.prepare(p if isinstance(p, str) else str(p)), golds, spec.others,
                                          spec.needed))
        return best == 1.0, best, None


def vqa_accuracy(pred: str, golds: list[str], others: str = "by-index", needed: int = 3) -> float:
    """The VQA accuracy of a processed prediction against processed golds: the mean over the golds of
    min(1, #other golds equal to the prediction / needed), the others being every gold but this one
    (`by-index`) or every gold unequal to it (`by-value`)."""
    equal = sum(1 for g in golds if g == pred)
    total = 0.0
    for g in golds:
        if others == "by-index":
            count = equal - (1 if g == pred else 0)
        else:
            count = 0 if g == pred else equal
        total += min(1.0, float(count) / needed)
    return total / len(golds)


class MraOptions(Word):
    """Options of `mra`."""

    thresholds: list[float] = [0.5, 0.45, 0.40, 0.35, 0.3, 0.25, 0.2, 0.15, 0.1, 0.05]
    divide_by: Literal["gold", "abs-gold"] = "abs-gold"
    zero_gold: Literal["error", "exact"] = "exact"

    @field_validator("thresholds")
    @classmethod
    def _some(cls, value: list[float]) -> list[float]:
        if not value:
            raise ValueError("`thresholds` needs at least one value")
        return value


class Mra(Word):
    """`mra: {thresholds: [0.5, 0.45, ..., 0.05], divide-by: abs-gold, zero-gold: exact}` — Mean Relative
    Accuracy (VSI-Bench; Omni3DBench's float answers), partial credit. Both sides are read with
    `float()`; an unparseable prediction scores 0 (before the gold is looked at). For each threshold t
    the prediction passes when `|gold - pred| / D < t` (strict), D = the gold itself (`divide-by:
    gold`, Omni3DBench's code: a negative gold makes every threshold pass) or |gold| (`abs-gold`);
    score = passes / number of thresholds. A gold of 0: `zero-gold: error` makes the record's outcome
    `error` (the original raises ZeroDivisionError), `exact` scores 1 for a prediction of exactly 0,
    else 0. A gold that is not a number is an `error`. `correct` only when every threshold passes;
    a list gold: the best of them."""

    mra: MraOptions = MraOptions.model_construct()

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """(correct, score, problem) of `pred` for the record's gold."""
        return _typed(self, pred, record.answer)


class YesNoOptions(Word):
    """Options of `yes-no`."""

    yes: list[str] = ["yes"]
    no: list[str] = ["no"]
    match: Literal["substring", "word", "exact"] = "substring"


class YesNo(Word):
    """`yes-no: {"yes": ["yes", "true"], "no": ["no", "false"], match: substring}` — yes/no questions
    (quote the words: YAML reads a bare yes/no/true/false as a boolean). The gold,
    stripped and lowercased, must be one of the `yes` or `no` words (otherwise the record is wrong)
    and picks that side; the lowercased prediction is correct when any word of that side occurs in
    it: anywhere (`substring`, Omni3DBench: "no" is inside "not sure", "know" and "cannot", "yes"
    inside "eyes", and a reply holding both words is right either way), as a whole word (`word`), or
    as the whole stripped prediction (`exact`)."""

    yes_no: YesNoOptions = YesNoOptions.model_construct()

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """(correct, score, problem) of `pred` for the record's gold."""
        return _typed(self, pred, record.answer)


class ContainsOptions(Word):
    """Options of `contains`."""

    prepare: list[PrepareOp] = []
    either_way: bool = False
    within_gold: bool = False
    gold_list_literal: bool = False
    gold_eval: bool = False

    @model_validator(mode="after")
    def _one_direction(self) -> "ContainsOptions":
        if self.either_way and self.within_gold:
            raise ValueError("`either-way` and `within-gold` are two different directions: give one")
        return self


class Contains(CompiledOnUse, Word):
    """`contains: {prepare: [OPS]}` — correct when a gold, after the prepare ops, occurs in the
    prediction after the same ops (a list gold: any of them; an empty gold occurs in everything).
    OCRBench: `[strip, lowercase, {replace: {"\\n": " "}}]`, and for handwritten formulas
    `[strip, {replace: {"\\n": " ", " ": ""}}]` (pick per record with `cases`). `either-way: true`
    also counts the prediction inside the gold (an empty prediction is inside every gold: DynaMath's
    free-form answers, compared lowercased and unstripped); `within-gold: true` counts ONLY the
    prediction inside the gold (VLMEvalKit's DynaMath: `short_answer.lower() in answer.lower()`).
    `gold-list-literal: true` reads a gold
    string holding a Python list literal ("['Hello', 'hello!']", VLMEvalKit's OCRBench TSV) as that
    list of golds (never eval'd). `gold-eval: true` reads the gold as VLMEvalKit's OCRBench does,
    `answers = eval(answer)` walked by index (read here as literal arithmetic, never run): a list or
    tuple gives its items, in order, until one is found; a text gives its CHARACTERS ("'STOP'" is
    S, T, O, P); an empty container gives nothing (wrong). Where the original raises, the record is an
    `error`: a gold that is not a literal (a name, a call), one without a length (a number, True,
    None), a set or mapping it cannot index, and an item that is not text once the walk reaches it
    (`.lower()` of a number). A JSON list gold is walked the same way, a JSON number or null read
    from its text."""

    contains: ContainsOptions = ContainsOptions.model_construct()

    def compile(self, node: Any = None) -> "CompiledContains":
        """The prepare ops compiled once (errors located in the ruleset file)."""
        o = self.contains
        return CompiledContains(compile_word_prepare(o.prepare, node, "contains"), o.either_way, o.gold_list_literal,
                                o.within_gold, o.gold_eval)


class CompiledContains:
    """A `contains` compare with its prepare ops compiled."""

    __slots__ = ("prepare", "either_way", "list_literal", "within_gold", "gold_eval")

    def __init__(self, prepare: Any, either_way: bool = False, list_literal: bool = False, within_gold: bool = False,
                 gold_eval: bool = False):
        self.prepare = prepare or (lambda text: text)
        self.either_way, self.list_literal, self.within_gold = either_way, list_literal, within_gold
        self.gold_eval = gold_eval

    def _walked(self, pred: Any, gold: Any) -> tuple:
        """`gold-eval`: OCRBench's `answers = eval(answer)` walked by index against one prediction."""
        from rulekit.core.pyliteral import Unreadable, read_literal

        if not isinstance(gold, list):
            try:
                gold = read_literal(gold if isinstance(gold, str) else str(gold))
            except Unreadable:
                return None, 0.0, f"compare `contains`: the gold {_short(gold)} is not a Python literal (eval raises)"
        if isinstance(gold, str):
            items: Any = list(gold)
        elif isinstance(gold, (list, tuple)):
            items = gold
        elif isinstance(gold, (set, frozenset, dict, bytes)) and not gold:
            items = []
        elif isinstance(gold, bytes):
            items = list(gold)
        else:
            return None, 0.0, f"compare `contains`: the gold reads as {_short(gold)}, which cannot be walked by index"
        text = self.prepare(str(pred))
        for item in items:
            if not isinstance(item, str):
                return None, 0.0, f"compare `contains`: the gold holds {_short(item)}, which is not text"
            if self.prepare(item) in text:
                return True, 1.0, None
        return False, 0.0, None

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """Some prepared gold inside the prepared prediction (any of a list prediction); with
        `either-way`, or the prediction inside it."""
        if self.gold_eval:
            return self._walked(pred[0] if isinstance(pred, list) and pred else pred, record.answer)
        golds = [self.prepare(str(g)) for g in _golds(record.answer, self.list_literal)]
        for p in (pred if isinstance(pred, list) else [pred]):
            text = self.prepare(str(p))
            if self.within_gold:
                if any(text in g for g in golds):
                    return True, 1.0, None
            elif any(g in text or (self.either_way and text in g) for g in golds):
                return True, 1.0, None
        return False, 0.0, None


class FuzzyOptions(Word):
    """Options of `fuzzy`."""

    either_contains: bool = True
    word_overlap: float | None = Field(default=0.5, ge=0.0, le=1.0)
    empty_prediction: Literal["wrong", "compare"] = "wrong"


class Fuzzy(Word):
    """`fuzzy: {either-contains: true, word-overlap: 0.5}` — a loose text match (Atropos' RealWorldQA):
    both texts stripped and lowercased; an empty prediction is wrong; equal texts are right; with
    `either-contains`, so is either text inside the other (a prediction "a" is inside the gold
    "cat"); with `word-overlap: F`, so is a prediction whose whitespace-split words hold at least F
    of the gold's distinct words. A list gold: any of them. `empty-prediction: compare` lets an
    empty prediction through the tests (it is inside every gold: MMVet's no-key scorer)."""

    fuzzy: FuzzyOptions = FuzzyOptions.model_construct()

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """(correct, 1.0 or 0.0, None) of `pred` for the record's golds."""
        spec = self.fuzzy
        for p in (pred if isinstance(pred, list) else [pred]):
            a = str(p).strip().lower()
            if not a and spec.empty_prediction == "wrong":
                continue
            for g in _golds(record.answer):
                b = str(g).strip().lower()
                if a == b or (spec.either_contains and (b in a or a in b)):
                    return True, 1.0, None
                if spec.word_overlap is not None:
                    gold_words = set(b.split())
                    if len(set(a.split()) & gold_words) >= len(gold_words) * spec.word_overlap:
                        return True, 1.0, None
        return False, 0.0, None


class WordRecallOptions(Word):
    """Options of `word-recall` (none yet: `word-recall: {}`)."""


class WordRecall(Word):
    """`word-recall: {}` — partial credit for open answers: the share of the gold's distinct words
    that are among the prediction's words (both stripped and lowercased, split at whitespace), so
    "red, blue" against "red and blue" scores 1/3 ("red," is not "red"). An empty prediction and a
    gold without words score 0; correct only at 1. A list gold: the best of them. Atropos' CharXiv
    descriptive questions without a judge."""

    word_recall: WordRecallOptions = WordRecallOptions.model_construct()

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """(score == 1, score, None): the best recall over the golds (and a list prediction's items)."""
        best = 0.0
        for p in (pred if isinstance(pred, list) else [pred]):
            a = str(p).strip().lower()
            if not a:
                continue
            words = set(a.split())
            for g in _golds(record.answer):
                gold_words = set(str(g).strip().lower().split())
                if gold_words:
                    best = max(best, min(len(words & gold_words) / len(gold_words), 1.0))
        return best == 1.0, best, None


_NUMBER = re.compile(r"-?\d+\.?\d*")


class NumbersNearOptions(Word):
    """Options of `numbers-near`."""

    within: float = Field(default=0.01, gt=0)


class NumbersNear(Word):
    """`numbers-near: {within: 0.01}` — correct when SOME number written in the prediction is within
    `within` (strictly) of SOME number written in the gold, wherever they stand: numbers are the
    matches of `-?\\d+\\.?\\d*` (Python `re`: "1,000" is 1 and 000, "1e5" is 1 and 5, "3." is 3),
    read with `float()`. A reply listing many numbers passes when any one is near. Atropos' CharXiv
    reasoning questions without a judge (after the gold-inside-the-reply test: use `any-of`)."""

    numbers_near: NumbersNearOptions = NumbersNearOptions.model_construct()

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """(correct, 1.0 or 0.0, None)."""
        within = self.numbers_near.within
        golds = [float(n) for g in _golds(record.answer) for n in _NUMBER.findall(str(g))]
        if golds:
            for p in (pred if isinstance(pred, list) else [pred]):
                for n in _NUMBER.findall(str(p)):
                    x = float(n)
                    if any(abs(x - g) < within for g in golds):
                        return True, 1.0, None
        return False, 0.0, None


class LetterSetOptions(Word):
    """Options of `letter-set`."""

    letters: str = Field(default="ABCDE", min_length=1)


class LetterSet(Word):
    """`letter-set: {letters: ABCDE}` — multi-answer questions ("select all that apply"): correct
    when the set of the prediction's letters (every alphabetic character, lowercased) equals the
    set of the gold's characters that are among `letters` (either case). An empty prediction is
    wrong; order and repeats do not matter ("C, A" meets the gold "AC"). Atropos' LogicVista."""

    letter_set: LetterSetOptions = LetterSetOptions.model_construct()

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """(correct, 1.0 or 0.0, None) of `pred` for the record's gold(s)."""
        allowed = set(self.letter_set.letters.lower()) | set(self.letter_set.letters.upper())
        for p in (pred if isinstance(pred, list) else [pred]):
            text = str(p)
            if not text:
                continue
            mine = {c.lower() for c in text if c.isalpha()}
            for g in _golds(record.answer):
                if mine == {c.lower() for c in str(g) if c in allowed}:
                    return True, 1.0, None
        return False, 0.0, None


class SortedJoinOptions(Word):
    """Options of `sorted-join`."""

    gold_split: str = Field(default=", ", min_length=1)


class SortedJoin(Word):
    """`sorted-join: {gold-split: ", "}` — multi-letter answers compared as VLMEvalKit's LogicVista does:
    the gold split at `gold-split`, each piece lowercased, the pieces sorted and joined; the prediction's
    characters lowercased, sorted and joined; correct when the two texts are equal. So "CA" meets the
    gold "A, C" and "AC" the gold "AC", but "AAC" does not meet "A, C" (repeats count) and nothing
    meets "A,C" (no space: one piece "a,c"). Unlike `letter-set`, every character of the prediction
    counts. A list gold: any of them."""

    sorted_join: SortedJoinOptions = SortedJoinOptions.model_construct()

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """(correct, 1.0 or 0.0, None) of `pred` for the record's gold(s)."""
        sep = self.sorted_join.gold_split
        targets = {"".join(sorted(piece.lower() for piece in str(g).split(sep))) for g in _golds(record.answer)}
        for p in (pred if isinstance(pred, list) else [pred]):
            if "".join(sorted(c.lower() for c in str(p))) in targets:
                return True, 1.0, None
        return False, 0.0, None


class JudgedOptions(Word):
    """Options of `judged` (none yet: `judged: {}`)."""


class Judged(Word):
    """`judged: {}` — no rule compares: every (prediction, gold) pair is left to the section's grading
    judge (a `judge:` fallback with `scores: true` or `equal-if-contains:`), so the record is
    `unresolved` until the judge has answered, and stays so without such a judge. VLMEvalKit grades
    every MMVet reply with GPT-4: a `whole` step, `compare: {judged: {}}` and a scoring judge. A list
    prediction's distinct items are judged each (the record's score is their mean); a judge's own
    answer is never judged again (it scores 0)."""

    judged: JudgedOptions = JudgedOptions.model_construct()

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """(False, 0.0, an `Unresolved` problem listing every pair for the judge); no gold: wrong."""
        items = list(dict.fromkeys(str(p) for p in (pred if isinstance(pred, list) else [pred])))
        golds = [str(g) for g in _golds(record.answer)]
        if not items or not golds:
            return False, 0.0, None
        return False, 0.0, _math.Unresolved("the compare is `judged`: only the judge can score it",
                                            pairs=[(p, g) for p in items for g in golds], total=len(items),
                                            fraction=True)


class AnyOf(CompiledOnUse, Word):
    """`any-of: [COMPARE, ...]` — correct when some compare finds some predicted answer correct (a
    list prediction, e.g. from `also:`, is tried item by item); a compare that cannot score an item
    counts as not correct — except a SymPy call past its time limit (or the record's SymPy budget
    spent, or SymPy missing): unless another compare finds an item correct, the record's outcome is
    then `error`, as for every SymPy time-out. Atropos' CountBench: the gold inside the reply, or the
    first number equal to it as an integer: `any-of: [{contains: {prepare: [strip]}}, {int-equal: {}}]`."""

    any_of: list["Compare"] = Field(min_length=1)

    def compile(self, node: Any = None) -> "CompiledAnyOf":
        """Each compare compiled once (errors located at its entry)."""
        raw = node.get("any-of") if isinstance(node, dict) else None
        return CompiledAnyOf(tuple(compile_compare(c, raw[i] if isinstance(raw, list) and i < len(raw) else None)
                                   for i, c in enumerate(self.any_of)))


class CompiledAnyOf:
    """An `any-of` compare with its compares compiled."""

    __slots__ = ("compares",)

    def __init__(self, compares: tuple):
        self.compares = compares

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """Correct (1.0) when a compare says so for an item; else the first SymPy failure (a time-out:
        outcome `error`); else wrong (0.0)."""
        failure = None
        for item in (pred if isinstance(pred, list) else [pred]):
            for compare in self.compares:
                correct, _, problem = verdict(compare, item, record, normalize)
                if correct and problem is None:
                    return True, 1.0, None
                if failure is None and isinstance(problem, _math.MathFailure):
                    failure = problem
        return (None, 0.0, failure) if failure is not None else (False, 0.0, None)


class OrJudge(CompiledOnUse, Word):
    """`or-judge: COMPARE` — the prefetch-then-judge pattern: correct when COMPARE finds the prediction
    correct; otherwise the record needs the judge (outcome `unresolved` without one), whose answer is
    then scored by COMPARE alone (not equal: wrong, no second judge). VLMEvalKit's MATH-Vision
    accepts a free-form reply without asking its judge only when is_equal(reply, gold) holds:
    `or-judge: {any-of: [...]}`. A COMPARE that reports an error keeps it."""

    or_judge: "Compare"

    def compile(self, node: Any = None) -> "CompiledOrJudge":
        """The inner compare compiled once (errors located at its entry)."""
        return CompiledOrJudge(compile_compare(self.or_judge, node.get("or-judge") if isinstance(node, dict) else None))


class CompiledOrJudge:
    """An `or-judge` compare with its compare compiled."""

    __slots__ = ("compare",)

    def __init__(self, compare: Any):
        self.compare = compare

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """The compare's verdict when correct (or an error); else unresolved, settled as wrong."""
        correct, score, problem = verdict(self.compare, pred, record, normalize)
        if correct and problem is None:
            return correct, score, None
        if problem is not None and getattr(problem, "outcome", None) != "unresolved":
            return correct, score, problem
        golds = record.answer if isinstance(record.answer, list) else [record.answer]
        return False, 0.0, _math.Unresolved("or-judge: the compare does not find the prediction correct; the "
                                            "original asks its judge", pairs=[(str(pred), str(g)) for g in golds])


class PythonGoldOptions(Word):
    """Options of `python-gold`: `read`, `names`, `builtins`, `falsy`, `not-text` and the inner `compare`."""

    read: Literal["as-is", "str", "str-or-list", "literal"] = "as-is"
    names: dict[str, Literal["reply", "gold", "object"]] = {}
    builtins: bool = False
    falsy: Literal["compare", "wrong"] = "compare"
    not_text: Literal["compare", "wrong"] = "compare"
    compare: "Compare"


class PythonGold(CompiledOnUse, Word):
    """`python-gold: {read, falsy, not-text, compare}` — score with `compare` the gold as an original
    written in Python holds it, typed as the record gives it (a JSON number, boolean, null or list
    stays one), where the original's own handling of a gold decides the record:

    * `read: str` — Python's `str(gold)`: a list gold is ONE text, its repr ("['A']"), True is
      "True", 1.0 is "1.0" (MMStar: `extracted.upper() == str(answer).upper()`).
    * `read: str-or-list` — a list gold stays a list of golds as given, any other gold is `str()` of
      it (DocVQA's item: a list of answers as it is, else `[str(answer)]`).
    * `read: literal` — a text gold is read as the Python literal it denotes, as `eval(answer)`
      would (rulekit/core/pyliteral.py: literals and arithmetic only, nothing runs): "['STOP',
      'stop']" is two golds, "'STOP'" the text STOP, "42" the number 42; text that is not a
      literal (a NameError or SyntaxError for `eval`) stays the gold as it is. A bare name the
      original's scope defines is read as `names` says: `reply` (the record's reply — a local
      variable `response`), `gold` (the gold text itself), `object` (anything that is not text);
      `builtins: true` reads every name of Python's builtins (`open`, `print`, `id`, ...) as an
      object. A value that is not a list becomes a list of one (OCRBench:
      `answers = eval(answers)`, then `[answers]`).
    * `falsy: wrong` — a gold Python deems false (0, 0.0, "", False, None, an empty list) is never
      right (`if extracted and answer:`), checked on the gold as the record gives it.
    * `not-text: wrong` — the original calls a string method on the gold (`answer.upper()`,
      `answer.strip()`, `answer.lower()`), which raises on anything else and scores the item 0:
      a gold that is not text is wrong; of a list of golds, those before the first that is not
      text are compared, and only a full match (score 1) counts: the original's loop stops there
      before it reaches the gold that raises (OCRBench returns on a match, DocVQA's ANLS breaks on
      an exact one but goes on after a partial one, and raises).

    Atropos' OCRBench: `python-gold: {read: literal, names: {response: reply}, builtins: true,
    not-text: wrong, compare: ...}`."""

    python_gold: PythonGoldOptions

    def compile(self, node: Any = None) -> "CompiledPythonGold":
        """The inner compare compiled once (errors located at its entry)."""
        raw = node.get("python-gold") if isinstance(node, dict) else None
        inner = compile_compare(self.python_gold.compare, raw.get("compare") if isinstance(raw, dict) else None)
        return CompiledPythonGold(self.python_gold, inner)


class _PyObject:
    """What a bare name that is not text evaluates to in the original's `eval` (a module, a class, a builtin)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


class CompiledPythonGold:
    """A `python-gold` compare with its inner compare compiled."""

    __slots__ = ("spec", "compare", "objects")

    def __init__(self, spec: PythonGoldOptions, compare: Any):
        self.spec, self.compare = spec, compare
        objects = {}
        if spec.builtins:
            import builtins

            objects = {name: _PyObject(name) for name in dir(builtins) if not isinstance(getattr(builtins, name), str)}
        objects.update({name: _PyObject(name) for name, kind in spec.names.items() if kind == "object"})
        self.objects = objects

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """The inner compare's verdict on the gold as the original holds it; wrong where the original
        scores the item 0 (a falsy gold, a gold that is not text)."""
        spec, gold = self.spec, record.answer
        if spec.falsy == "wrong" and not gold:
            return False, 0.0, None
        if spec.read == "str" or (spec.read == "str-or-list" and not isinstance(gold, list)):
            gold = str(gold)
        elif spec.read == "literal":
            gold = self._literal(gold, record)
        if spec.not_text == "wrong":
            golds = gold if isinstance(gold, list) else [gold]
            text = []
            for g in golds:
                if not isinstance(g, str):
                    break
                text.append(g)
            if len(text) < len(golds):
                if not text:
                    return False, 0.0, None
                correct, score, problem = verdict(self.compare, pred, replace(record, answer=text), normalize)
                return (True, 1.0, None) if correct and score == 1.0 and problem is None else (False, 0.0, None)
            gold = text if isinstance(gold, list) else gold
        if gold is record.answer:
            return verdict(self.compare, pred, record, normalize)
        return verdict(self.compare, pred, replace(record, answer=gold), normalize)

    def _literal(self, gold: Any, record: Record) -> Any:
        """`eval(gold)` for a text gold, as a list (OCRBench's `[answers]` for anything that is not one)."""
        if isinstance(gold, str):
            names = dict(self.objects)
            for name, kind in self.spec.names.items():
                if kind == "reply":
                    names[name] = record.response
                elif kind == "gold":
                    names[name] = gold
            try:
                gold = read_literal(gold, names)
            except Unreadable:
                pass
        return gold if isinstance(gold, list) else [gold]


class Tier(Word):
    """One entry of `tiers`: a `compare` and the `score` a record gets when it says correct."""

    compare: "Compare"
    score: float = Field(ge=0.0, le=1.0)


class Tiers(CompiledOnUse, Word):
    """`tiers: [{compare: C, score: S}, ...]` — partial credit by tiers: the first compare that finds
    the prediction correct gives the record its score S (correct only when S is 1); none gives 0.
    Atropos' MMVet without a judge: equal texts 1.0, either inside the other 0.5."""

    tiers: list[Tier] = Field(min_length=1)

    def compile(self, node: Any = None) -> "CompiledTiers":
        """Each tier's compare compiled once (errors located at its entry)."""
        raw = node.get("tiers") if isinstance(node, dict) else None
        out = []
        for i, tier in enumerate(self.tiers):
            entry = raw[i] if isinstance(raw, list) and i < len(raw) else None
            out.append((compile_compare(tier.compare, entry.get("compare") if isinstance(entry, dict) else None), tier.score))
        return CompiledTiers(tuple(out))


class CompiledTiers:
    """A `tiers` compare with its compares compiled: ((compare, score), ...)."""

    __slots__ = ("tiers",)

    def __init__(self, tiers: tuple):
        self.tiers = tiers

    def verdict(self, pred: Any, record: Record, normalize: "Normalize | None" = None) -> tuple:
        """The score of the first tier whose compare says correct; a problem stops the record."""
        for compare, score in self.tiers:
            correct, _, problem = verdict(compare, pred, record, normalize)
            if problem is not None:
                return None, 0.0, problem
            if correct:
                return score == 1.0, score, None
        return False, 0.0, None


class CompareCase(Word):
    """One entry of `cases`: `when` (a condition on the record) and the `compare` to use."""

    when: str
    compare: "Compare"


class Cases(CompiledOnUse, Word):
    """`cases: [{when: CONDITION, compare: COMPARE}, ...]` — pick the compare per record: the first case
    whose condition holds decides (conditions as in a step's `when:`, evaluated on the record, with
    `gold` and `meta.NAME`, e.g. `meta.answer_type == 'float'`; `words`/`length` measure the
    prediction). When no case holds the record's outcome is `error` (it is counted, not dropped)."""

    cases: list[CompareCase]

    def compile(self, node: Any = None) -> "CompiledCases":
        """The cases' conditions and compares compiled once, errors located at their line in `node`."""
        return compile_cases(self, node)


BARE_COMPARE = Literal["letter", "contains-or-number", "int"]
BARE_COMPARE_DOC = {
    "letter": "correct when the extracted letter equals the gold letter (a list gold: any of them).",
    "contains-or-number": "open questions: correct when a normalized gold string is a substring of an extracted "
                          "string, or an extracted number equals a normalized numeric gold.",
    "int": "the prediction and the gold read with Python `int()` are equal (surrounding whitespace, a sign and `_` "
           "separators are fine; '3.0' or 'three' do not parse, which makes the record wrong); a gold that is not an "
           "integer makes the outcome `error`.",
}
COMPARE_MODELS = {"exact": Exact, "relaxed": Relaxed, "anls": Anls, "mra": Mra, "yes-no": YesNo, "contains": Contains,
                  "fuzzy": Fuzzy, "letter-set": LetterSet, "sorted-join": SortedJoin, "any-of": AnyOf, "or-judge": OrJudge, "tiers": Tiers,
                  "word-recall": WordRecall, "numbers-near": NumbersNear, "vqa-score": VqaScore,
                  "judged": Judged, "cases": Cases, "python-gold": PythonGold}
COMPARE_MODELS.update(_math.COMPARE_MODELS)
Compare = word_union(COMPARE_MODELS, BARE_COMPARE)
# (the forward references above resolve when a model is first used: models build lazily, see Word)


# ---------------------------------------------------------------- normalize
def normalize_value(value: Any, spec: Normalize) -> list:
    """One answer → its normalized forms (a number, or one or two strings)."""
    s = value if isinstance(value, str) else str(value)
    if spec.strip:
        s = s.strip()
    if spec.number is not None:
        t = s
        for ch in spec.number.remove:
            t = t.replace(ch, "")
        try:
            number = float(t)
        except ValueError:
            pass
        else:
            return [round(number, spec.number.round) if spec.number.round is not None else number]
    if spec.lowercase:
        s = s.lower()
    if spec.pad_single_char is not None and len(s) == 1:
        return [spec.pad_single_char + s, s + spec.pad_single_char]
    return [s]


def normalize_answers(answer: Any, spec: Normalize) -> list:
    """Normalize every extracted answer; dedupe keeping first occurrences when asked."""
    out = []
    for a in (answer if isinstance(answer, list) else [answer]):
        out.extend(normalize_value(a, spec))
    if spec.dedupe:
        seen, unique = set(), []
        for v in out:
            key = (type(v) is str, v)
            if key not in seen:
                seen.add(key)
                unique.append(v)
        out = unique
    return out


# ---------------------------------------------------------------- the bare compares and `exact`
def letter_correct(pred: str, gold: Any) -> bool:
    """The `letter` compare of a text prediction: equal to the gold, or to one of a list of golds,
    each as text (the engine calls it directly on its hot path)."""
    if type(gold) is str:
        return pred == gold
    return any(pred == (g if type(g) is str else str(g)) for g in (gold if type(gold) is list else (gold,))
               if g is not None)


def _letter(pred: Any, record: Record, normalize: Normalize | None) -> tuple:
    """`letter` for any prediction: equal to a gold (each read as text)."""
    golds = record.answer if isinstance(record.answer, list) else [record.answer]
    correct = any(pred == (g if isinstance(g, str) else str(g)) for g in golds if g is not None)
    return correct, 1.0 if correct else 0.0, None


def _contains_or_number(pred: Any, record: Record, normalize: Normalize | None) -> tuple:
    """`contains-or-number`: a normalized gold string inside an extracted string, or equal numbers."""
    gold = record.answer
    golds = gold if isinstance(gold, list) else [gold]
    spec = normalize or Normalize()
    norm = []
    for g in golds:
        if g is not None:
            norm.extend(normalize_value(g if isinstance(g, str) else str(g), spec))
    for p in (pred if isinstance(pred, list) else [pred]):
        if isinstance(p, str):
            if any(isinstance(g, str) and g in p for g in norm):
                return True, 1.0, None
        elif any(type(g) is not str and p == g for g in norm):
            return True, 1.0, None
    return False, 0.0, None


def _plain(kind: Exact, pred: Any, gold: Any, normalize: Normalize | None) -> tuple:
    """`exact`: the prediction equals one gold string (after `strip` / `case`)."""
    golds = gold if isinstance(gold, list) else [gold]
    opts = kind.exact
    a = pred if isinstance(pred, str) else str(pred)
    if opts.strip:
        a = a.strip()
    if opts.case in ("ignore", "lower-prediction"):
        a = a.lower()
    elif opts.case == "upper":
        a = a.upper()
    for g in golds:
        if g is None:
            continue
        b = g if isinstance(g, str) else str(g)
        if opts.digit_gold == "index" and b.isdigit():
            b = _index_letter(b)
            if b is None:
                continue
        if opts.strip:
            b = b.strip()
        if opts.case == "ignore":
            b = b.lower()
        elif opts.case == "upper":
            b = b.upper()
        if a == b:
            return True, 1.0, None
    return False, 0.0, None


def _index_letter(digits: str) -> str | None:
    """The option letter of an index gold ("0" → "A"), None where `int()` refuses it or it is past Z."""
    try:
        n = int(digits)
    except ValueError:  # "²" is a digit to str.isdigit, not to int()
        return None
    return chr(ord("A") + n) if n < 26 else None


BARE_VERDICTS = {
    "letter": _letter,
    "contains-or-number": _contains_or_number,
    "int": lambda pred, record, normalize: _typed("int", pred, record.answer),
}


# ---------------------------------------------------------------- cases, compiled
class CompiledCases:
    """A `cases:` compare with its conditions compiled: `cases` = ((condition, compiled compare), ...)."""

    __slots__ = ("cases",)

    def __init__(self, cases: tuple):
        self.cases = cases

    def verdict(self, pred: Any, record: Record, normalize: Normalize | None = None) -> tuple:
        """The first case whose condition holds decides; none holding is a problem (outcome `error`)."""
        env = RecordEnv(record, pred if isinstance(pred, str) else None)
        for condition, inner in self.cases:
            try:
                holds = condition(env)
            except ConditionFailed as exc:
                return None, 0.0, f"compare `cases`: {exc}"
            if holds:
                return verdict(inner, pred, record, normalize)
        return None, 0.0, "compare `cases`: no case holds for this record"

    def __repr__(self) -> str:
        return f"CompiledCases({[c.source for c, _ in self.cases]})"


def compile_cases(kind: Cases, node: Any = None) -> CompiledCases:
    """A validated `cases` compare → its compiled form (conditions located in the ruleset file)."""
    raw_cases = node.get("cases") if isinstance(node, dict) else None
    out = []
    for i, case in enumerate(kind.cases):
        raw = raw_cases[i] if isinstance(raw_cases, list) and i < len(raw_cases) else None
        loc: Loc | None = None
        if raw is not None and hasattr(raw, "locs"):
            loc = raw.locs.get("when")
        elif raw_cases is not None:
            loc = getattr(raw_cases, "loc", None)
        condition = compile_condition(case.when, loc)
        inner = raw.get("compare") if isinstance(raw, dict) else None
        out.append((condition, compile_compare(case.compare, inner)))
    return CompiledCases(tuple(out))


# ---------------------------------------------------------------- the entry points
def compile_compare(kind: Any, node: Any = None) -> Any:
    """A section's validated `compare` → what `verdict` takes: the word's `compile(node)` when it has
    one (conditions, prepare ops and regexes compiled once, errors located in the ruleset file),
    else the word itself."""
    compile_ = getattr(kind, "compile", None)
    return compile_(node) if compile_ is not None else kind


class Settled:
    """A compare scoring an answer that a judge gave: where `compare` would ask a judge (an
    `Unresolved` verdict), its `settled` verdict counts instead — no second judge is asked."""

    __slots__ = ("compare",)

    def __init__(self, compare: Any):
        self.compare = compare

    def verdict(self, pred: Any, record: Record, normalize: Normalize | None = None) -> tuple:
        """The inner compare's verdict, with an `Unresolved` one replaced by its `settled` verdict."""
        correct, score, problem = verdict(self.compare, pred, record, normalize)
        if getattr(problem, "outcome", None) == "unresolved":
            return (*problem.settled, None)
        return correct, score, problem

    def __repr__(self) -> str:
        return f"Settled({self.compare!r})"


def verdict(kind: Any, pred: Any, record: Record, normalize: Normalize | None = None
            ) -> tuple[bool | None, float, str | None]:
    """(correct, score in [0, 1], problem or None) of `pred` for `record` under the compare `kind`
    (a bare word, a compare model, or a compiled compare)."""
    if pred is None:
        return False, 0.0, None
    if kind == "letter" and type(pred) is str:  # the common case, inline
        correct = letter_correct(pred, record.answer)
        return correct, 1.0 if correct else 0.0, None
    scorer = BARE_VERDICTS.get(kind) if type(kind) is str else getattr(kind, "verdict", None)
    if scorer is None:
        raise TypeError(f"no scorer for compare {kind!r}")
    return scorer(pred, record, normalize)


def scored_decision(kind: Any, pred: Any, record: Record, normalize: Normalize | None, outcome: str,
                    step: str | None, **extra: Any) -> Decision:
    """The Decision for `pred` (outcome `error`, no prediction, when the compare cannot score it)."""
    correct, score, problem = verdict(kind, pred, record, normalize)
    if getattr(problem, "outcome", None) == "unresolved":  # only a judge can decide (rulekit/language/math.py);
        # the message stays the `Unresolved` itself: a judge fallback reads what it must ask from it
        return Decision(record.id, pred, False, 0.0, "unresolved", step, message=problem, **extra)
    if problem is not None:
        return Decision(record.id, None, None, 0.0, "error", step,
                        message=f"{problem} (prediction {_short(pred)})", reason=_reason(problem), **extra)
    return Decision(record.id, pred, correct, score, outcome, step, **extra)


def _reason(problem: str) -> str:
    """A compare problem without the record's details, for the error summary: "compare `mra`",
    "equivalent: MathTimeout" (the words before the first colon, and the kind of math error)."""
    head, _, rest = str(problem).partition(":")
    if head == "equivalent" and rest.strip():
        return f"equivalent: {rest.split(':')[0].strip()}"[:60]
    return head[:60]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ---------------------------------------------------------------- typed compares
def _short(value: Any, n: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= n else text[: n - 1] + "…"


def _golds(gold: Any, list_literal: bool = False) -> list:
    if list_literal and isinstance(gold, str):
        gold = _list_literal(gold)
    return [g for g in (gold if isinstance(gold, list) else [gold]) if g is not None]


def _list_literal(text: str) -> Any:
    """VLMEvalKit's `istype(answer, list)` then `eval(answer)`: a string holding a Python list literal
    becomes that list (read with `ast.literal_eval`, never `eval`); anything else stays as it is."""
    t = text.strip()
    if not (t.startswith("[") and t.endswith("]")) or len(t) > 100_000:
        return text
    import ast

    try:
        value = ast.literal_eval(t)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text
    from rulekit.core.limits import int_too_big

    return value if isinstance(value, list) and not int_too_big(value) else text  # `[0xfff...]`: not read


def _typed(kind: Any, pred: Any, gold: Any) -> tuple[bool | None, float, str | None]:
    """Best (score, correct) over every prediction × gold pair; the first problem stops the record."""
    preds = pred if isinstance(pred, list) else [pred]
    options = getattr(kind, "relaxed", None) or getattr(kind, "anls", None)
    if getattr(options, "gold_list_literal", False) and isinstance(gold, str):
        gold = _list_literal(gold)
    golds = _golds(gold)
    if not golds:
        if getattr(options, "empty_list", "wrong") == "error" and isinstance(gold, list):
            return None, 0.0, "the gold is an empty list (VLMEvalKit's hit_calculate raises on it)"
        return False, 0.0, None
    if isinstance(kind, Anls):
        if kind.anls.list_item == "error" and isinstance(gold, list):
            bad = next((g for g in golds if not isinstance(g, str)), None)
            if bad is not None:
                return None, 0.0, f"compare `anls`: the gold list holds {bad!r}, which is not text"
        best = max(_anls(p, golds, kind.anls) for p in preds)
        return best >= kind.anls.correct_from if kind.anls.correct_from < 1.0 else best == 1.0, best, None
    best = 0.0
    for p in preds:
        for g in golds:
            score, problem = _one(kind, p, g)
            if problem is not None:
                return None, 0.0, problem
            best = max(best, score)
    return best == 1.0, best, None


def _one(kind: Any, pred: Any, gold: Any) -> tuple[float, str | None]:
    if kind == "int":
        return _int(pred, gold)
    if isinstance(kind, Relaxed):
        return (1.0 if relaxed_correct(gold, pred, kind.relaxed) else 0.0), None
    if isinstance(kind, Mra):
        return mra(pred, gold, kind.mra)
    return (1.0 if yes_no_correct(pred, gold, kind.yes_no) else 0.0), None


def _int(pred: Any, gold: Any) -> tuple[float, str | None]:
    """Omni3DBench counts: `int(pred)` failing is a miss; `int(gold)` failing is an error."""
    try:
        p = int(pred)
    except (ValueError, TypeError, OverflowError):
        return 0.0, None
    try:
        g = int(gold)
    except (ValueError, TypeError, OverflowError):
        return 0.0, f"compare `int`: the gold {gold!r} is not an integer"
    return (1.0 if p == g else 0.0), None


def _to_float(text: str, percent_suffix: bool) -> float | None:
    """pix2struct's `_to_float`: Python float(), a trailing "%" (all of them, `rstrip`) divides by 100."""
    try:
        if percent_suffix and text.endswith("%"):
            return float(text.rstrip("%")) / 100.0
        return float(text)
    except ValueError:
        return None


def relaxed_correct(target: Any, prediction: Any, spec: RelaxedOptions) -> bool:
    """ChartQA relaxed correctness of one (gold, prediction) pair, as `relaxed_correctness(target, pred)`
    (`relative-to: prediction`: as `relaxed_correctness(pred, target)`, the two swapped)."""
    prediction, target = str(prediction), str(target)
    if spec.relative_to == "prediction":
        prediction, target = target, prediction
    if spec.remove:
        prediction, target = prediction.strip(), target.strip()
        p = _to_float(_without(prediction, spec.remove), spec.percent_suffix)
        t = _to_float(_without(target, spec.remove), spec.percent_suffix)
    else:
        p = _to_float(prediction, spec.percent_suffix)
        t = _to_float(target, spec.percent_suffix)
    if p is not None and t == 0 and spec.zero_gold == "near-zero":
        return abs(p) < 1e-6
    if p is not None and t:
        return abs(p - t) / abs(t) <= spec.tolerance
    return prediction.lower() == target.lower()


def _without(text: str, chars: str) -> str:
    for c in chars:
        text = text.replace(c, "")
    return text


def anls_distance(gold: Any, pred: Any, raw_denominator: bool = True, drop: Any = None) -> float:
    """VLMEvalKit's `anls_compute`: normalized Levenshtein distance of the stripped, lowercased,
    whitespace-collapsed texts (`drop`: a compiled pattern whose matches are deleted before the
    collapse), over the longer RAW length (`len(x.upper())`) or normalized length."""
    from rapidfuzz.distance import Levenshtein

    gold, pred = str(gold), str(pred)
    g, d = _anls_text(gold, drop), _anls_text(pred, drop)
    dist = Levenshtein.distance(g, d)
    length = max(len(gold.upper()), len(pred.upper())) if raw_denominator else max(len(g), len(d))
    return 0.0 if length == 0 else float(dist) / float(length)


def _anls_text(text: str, drop: Any = None) -> str:
    t = text.strip().lower()
    if drop is not None:
        t = timed(drop.sub, "", t)
    return " ".join(t.split())


def _anls(pred: Any, golds: list, spec: AnlsOptions) -> float:
    raw = spec.denominator == "raw"
    drop = _drop_pattern(spec.drop) if spec.drop is not None else None
    if spec.empty_prediction == "zero" and not _anls_text(str(pred), drop):
        return 0.0
    s = 1.0 - min(anls_distance(g, pred, raw, drop) for g in golds)
    if s < spec.threshold or (spec.strict and s <= spec.threshold):
        return 0.0
    return max(0.0, min(1.0, s))


_DROP: dict[str, Any] = {}


def _drop_pattern(source: str) -> Any:
    found = _DROP.get(source)
    if found is None:
        found = _DROP[source] = compile_regex(source, None)
    return found


def mra(pred: Any, gold: Any, spec: MraOptions) -> tuple[float, str | None]:
    """Mean Relative Accuracy of one pair, in Omni3DBench's order: the prediction is parsed first."""
    try:
        p = float(pred)
    except (ValueError, TypeError, OverflowError):
        return 0.0, None
    try:
        g = float(gold)
    except (ValueError, TypeError, OverflowError):
        return 0.0, f"compare `mra`: the gold {gold!r} is not a number"
    denominator = g if spec.divide_by == "gold" else abs(g)
    if denominator == 0:
        if spec.zero_gold == "error":
            return 0.0, "compare `mra`: division by a gold of 0 (the original raises ZeroDivisionError)"
        return (1.0 if p == 0 else 0.0), None
    relative = abs(g - p) / denominator
    if math.isnan(relative):
        return 0.0, None
    passed = sum(1 for t in spec.thresholds if relative < t)
    return passed / len(spec.thresholds), None


_WORD_CACHE: dict[str, re.Pattern] = {}


def yes_no_correct(pred: Any, gold: Any, spec: YesNoOptions) -> bool:
    """Omni3DBench's yes/no rule: a word of the gold's side occurs in the lowercased prediction."""
    g = str(gold).strip().lower()
    yes = [w.lower() for w in spec.yes]
    no = [w.lower() for w in spec.no]
    side = yes if g in yes else no if g in no else None
    if side is None:
        return False
    p = str(pred).lower()
    if spec.match == "substring":
        return any(w in p for w in side)
    if spec.match == "exact":
        return p.strip() in side
    for w in side:
        pattern = _WORD_CACHE.get(w)
        if pattern is None:
            pattern = _WORD_CACHE[w] = re.compile(r"(?<!\w)" + re.escape(w) + r"(?!\w)")
        if pattern.search(p):
            return True
    return False
