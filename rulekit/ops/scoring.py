"""Scored compares: partial credit, typed comparisons and per-record dispatch.

`verdict(kind, pred, record, normalize)` → `(correct, score, problem)` is what the engine asks of a
section's `compare`. For the plain compares (`letter`, `contains-or-number`, `exact`) it defers to
:func:`rulekit.ops.compare.compare` (score 1.0 or 0.0). The compares implemented here are documented
in schema.py (`relaxed`, `anls`, `mra`, `yes-no`, `int`, `cases`), where `rulekit vocabulary`
prints them; they follow the originals' Python semantics exactly (`float()`, `int()`, `str.lower`),
quirks included, because each reproduces a benchmark's published numbers:

* `relaxed`  — ChartQA relaxed accuracy (reference/behaviour.md §2.12).
* `anls`     — DocVQA / InfoVQA ANLS (§2.13); edit distance from rapidfuzz.
* `mra`      — Mean Relative Accuracy over thresholds (Omni3DBench, §2.9).
* `yes-no`, `int` and `exact: {case: lower-prediction}` — Omni3DBench's other answer types.
* `cases`    — choose one of the above per record by a condition (Omni3DBench's `answer_type`).

`problem` is a message when the record cannot be scored (a gold of 0 under `mra: {zero-gold:
error}`, a gold that is not a number, no `cases` entry holding): the engine turns it into outcome
`error`, which is counted (as wrong), never dropped.
"""
from __future__ import annotations

import math
import re
from typing import Any

from rulekit.language import schema as S
from rulekit.core.errors import Loc
from rulekit.language.expr import ConditionFailed, compile_condition
from rulekit.core.records import Record
from rulekit.core.trace import Decision
from rulekit.ops.compare import compare
from rulekit.ops.record_env import RecordEnv

__all__ = ["verdict", "scored_decision", "letter_correct", "compile_compare", "CompiledCases", "Settled"]


# ---------------------------------------------------------------- compiling
class CompiledCases:
    """A `cases:` compare with its conditions compiled: `cases` = ((condition, compiled compare), ...)."""

    __slots__ = ("cases",)

    def __init__(self, cases: tuple):
        self.cases = cases

    def __repr__(self) -> str:
        return f"CompiledCases({[c.source for c, _ in self.cases]})"


def compile_compare(kind: Any, node: Any = None) -> Any:
    """A section's validated `compare` → what `verdict` takes (conditions of `cases` compiled once,
    errors located at their line in the ruleset file); other compares are returned as they are."""
    if isinstance(kind, S._math.MATH_COMPARES):  # int-equal, float-equal, equivalent: rulekit/ops/mathcompare.py
        from rulekit.ops.mathcompare import compile_math  # imported on use: most rulesets have no math

        return compile_math(kind, node)
    if not isinstance(kind, S.Cases):
        return kind
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


class Settled:
    """A compare scoring an answer that a judge gave: where `compare` would ask a judge (an
    `Unresolved` verdict), its `settled` verdict counts instead — no second judge is asked."""

    __slots__ = ("compare",)

    def __init__(self, compare: Any):
        self.compare = compare

    def __repr__(self) -> str:
        return f"Settled({self.compare!r})"


# ---------------------------------------------------------------- the entry points
def letter_correct(pred: str, gold: Any) -> bool:
    """The `letter` compare of a text prediction: equal to the gold, or to one of a list of golds,
    each as text (what `compare.compare` decides for `letter`; the engine calls it directly)."""
    if type(gold) is str:
        return pred == gold
    return any(pred == (g if type(g) is str else str(g)) for g in (gold if type(gold) is list else (gold,))
               if g is not None)


SCORED = (S.Relaxed, S.Anls, S.Mra, S.YesNo, CompiledCases, S.Cases)


def verdict(kind: Any, pred: Any, record: Record, normalize: S.Normalize | None = None
            ) -> tuple[bool | None, float, str | None]:
    """(correct, score in [0, 1], problem or None) of `pred` for `record` under `kind`."""
    if pred is None:
        return False, 0.0, None
    if kind == "letter" and type(pred) is str:  # the common case, inline: compare.compare's `letter`
        correct = letter_correct(pred, record.answer)
        return correct, 1.0 if correct else 0.0, None
    if isinstance(kind, Settled):
        correct, score, problem = verdict(kind.compare, pred, record, normalize)
        if getattr(problem, "outcome", None) == "unresolved":
            return (*problem.settled, None)
        return correct, score, problem
    if isinstance(kind, CompiledCases):
        env = RecordEnv(record, pred if isinstance(pred, str) else None)
        for condition, inner in kind.cases:
            try:
                holds = condition(env)
            except ConditionFailed as exc:
                return None, 0.0, f"compare `cases`: {exc}"
            if holds:
                return verdict(inner, pred, record, normalize)
        return None, 0.0, "compare `cases`: no case holds for this record"
    if isinstance(kind, S.Cases):  # not compiled (a caller outside the engine): compile on the fly
        return verdict(compile_compare(kind), pred, record, normalize)
    if kind == "int" or isinstance(kind, (S.Relaxed, S.Anls, S.Mra, S.YesNo)):
        return _typed(kind, pred, record.answer)
    if isinstance(kind, S._math.MATH_COMPARES) or getattr(kind, "math_compare", False):
        from rulekit.ops.mathcompare import math_verdict

        return math_verdict(kind, pred, record)  # may answer an `Unresolved` problem: outcome unresolved
    if not (isinstance(kind, S.Exact) or kind in ("letter", "contains-or-number")):
        raise TypeError(f"no scorer for compare {kind!r}")
    correct = compare(kind, pred, record.answer, normalize)
    return correct, 1.0 if correct else 0.0, None


def scored_decision(kind: Any, pred: Any, record: Record, normalize: S.Normalize | None, outcome: str,
                    step: str | None, **extra: Any) -> Decision:
    """The Decision for `pred` (outcome `error`, no prediction, when the compare cannot score it)."""
    correct, score, problem = verdict(kind, pred, record, normalize)
    if getattr(problem, "outcome", None) == "unresolved":  # only a judge can decide (rulekit/ops/mathcompare.py);
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
    return value if isinstance(value, list) else text


def _typed(kind: Any, pred: Any, gold: Any) -> tuple[bool | None, float, str | None]:
    """Best (score, correct) over every prediction × gold pair; the first problem stops the record."""
    preds = pred if isinstance(pred, list) else [pred]
    options = getattr(kind, "relaxed", None) or getattr(kind, "anls", None)
    golds = _golds(gold, bool(getattr(options, "gold_list_literal", False)))
    if not golds:
        return False, 0.0, None
    if isinstance(kind, S.Anls):
        best = max(_anls(p, golds, kind.anls) for p in preds)
        return best == 1.0, best, None
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
    if isinstance(kind, S.Relaxed):
        return (1.0 if relaxed_correct(gold, pred, kind.relaxed) else 0.0), None
    if isinstance(kind, S.Mra):
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


def relaxed_correct(target: Any, prediction: Any, spec: S.RelaxedOptions) -> bool:
    """ChartQA relaxed correctness of one (gold, prediction) pair, as `relaxed_correctness(target, pred)`."""
    prediction, target = str(prediction), str(target)
    p = _to_float(prediction, spec.percent_suffix)
    t = _to_float(target, spec.percent_suffix)
    if p is not None and t:
        return abs(p - t) / abs(t) <= spec.tolerance
    return prediction.lower() == target.lower()


def anls_distance(gold: Any, pred: Any, raw_denominator: bool = True) -> float:
    """VLMEvalKit's `anls_compute`: normalized Levenshtein distance of the stripped, lowercased,
    whitespace-collapsed texts, over the longer RAW length (`len(x.upper())`) or normalized length."""
    from rapidfuzz.distance import Levenshtein

    gold, pred = str(gold), str(pred)
    g = " ".join(gold.strip().lower().split())
    d = " ".join(pred.strip().lower().split())
    dist = Levenshtein.distance(g, d)
    length = max(len(gold.upper()), len(pred.upper())) if raw_denominator else max(len(g), len(d))
    return 0.0 if length == 0 else float(dist) / float(length)


def _anls(pred: Any, golds: list, spec: S.AnlsOptions) -> float:
    raw = spec.denominator == "raw"
    s = 1.0 - min(anls_distance(g, pred, raw) for g in golds)
    if s < spec.threshold or (spec.strict and s <= spec.threshold):
        return 0.0
    return max(0.0, min(1.0, s))


def mra(pred: Any, gold: Any, spec: S.MraOptions) -> tuple[float, str | None]:
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


def yes_no_correct(pred: Any, gold: Any, spec: S.YesNoOptions) -> bool:
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
