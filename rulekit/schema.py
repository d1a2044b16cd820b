"""The ruleset vocabulary as frozen pydantic models (extra keys forbidden).

Every model's docstring is the user documentation of that vocabulary word: `rulekit vocabulary`
prints them and `rulekit schema` exports the JSON Schema for editors.
"""
from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator

from .metrics.groups import GroupSpec


def _dash(name: str) -> str:
    return name.replace("_", "-")


class Word(BaseModel):
    """Base of every vocabulary entry: frozen, unknown keys are errors, keys spelled with dashes."""

    model_config = ConfigDict(frozen=True, extra="forbid", alias_generator=_dash, populate_by_name=True)


# ---------------------------------------------------------------- prepare ops
class StripOp(Word):
    """`strip: CHARS` — remove any of CHARS from both ends (Python `str.strip(CHARS)`); `strip: ""` or the
    bare word `strip` removes whitespace."""

    strip: str


class StripEndsEachOp(Word):
    """`strip-ends-each: [c1, c2, ...]` — for each character IN THIS ORDER, strip it from both ends
    (one `str.strip(c)` per character; whitespace is not touched, so "C\\n" keeps its newline and
    "B,." keeps its comma)."""

    strip_ends_each: list[str]


class PadOp(Word):
    """`pad: " "` — put the string before and after the text (so " X " patterns match at the edges)."""

    pad: str


class ReplaceOp(Word):
    """`replace: {FROM: TO, ...}` — replace every occurrence of each FROM with TO, in the given order."""

    replace: dict[str, str]


class RemoveRegexOp(Word):
    """`remove-regex: PATTERN` — delete every match of a regex (e.g. `<think>.*?</think>` with `(?s)`)."""

    remove_regex: str


class TruncateOp(Word):
    """`truncate: N` — keep only the first N characters (guards against huge replies)."""

    truncate: int


BARE_PREPARE = Literal["strip", "lowercase", "uppercase", "collapse-whitespace"]
BARE_PREPARE_DOC = {
    "strip": "remove whitespace at both ends.",
    "lowercase": "lowercase the text (Python `str.lower`).",
    "uppercase": "uppercase the text (Python `str.upper`).",
    "collapse-whitespace": "replace every run of whitespace with one space.",
}
_PREPARE_MODELS = {"strip": StripOp, "strip-ends-each": StripEndsEachOp, "pad": PadOp, "replace": ReplaceOp,
                   "remove-regex": RemoveRegexOp, "truncate": TruncateOp}


def _tag_of(value: Any, names) -> str | None:
    if isinstance(value, str):
        return "bare"
    if isinstance(value, dict):
        hits = [k for k in value if k in names]
        if len(hits) == 1:
            return hits[0]
        if not hits and value:
            return next(iter(value))
    if isinstance(value, BaseModel):
        for name, model in names.items():
            if isinstance(value, model):
                return name
    return None


PrepareOp = Annotated[
    Union[tuple(Annotated[m, Tag(k)] for k, m in _PREPARE_MODELS.items()) + (Annotated[BARE_PREPARE, Tag("bare")],)],
    Discriminator(lambda v: _tag_of(v, _PREPARE_MODELS)),
]


# ---------------------------------------------------------------- finds
Case = Literal["exact", "ignore"]


class LiteralFind(Word):
    """`literal: TEMPLATE` — every occurrence of a fixed string. `{letter}` stands for each option letter,
    `{option}` for each option text; the candidate's answer is that letter. A list tries several
    templates. `case: ignore` compares lowercased."""

    literal: Union[str, list[str]]
    case: Case = "exact"


class TokenFind(Word):
    """`token: TEMPLATE` — whole tokens equal to the template, after replacing each character of
    `separators` with a space and splitting on whitespace (so only the listed characters separate).
    Templates as in `literal`; a template without placeholders (e.g. `Z`) answers itself. Gives
    `tokens`, `index` and `first_index` to conditions."""

    token: Union[str, list[str]]
    separators: str = ""
    case: Case = "exact"


class WordFind(Word):
    """`word: TEMPLATE` — the template as a whole word (not preceded or followed by a letter or digit)."""

    word: Union[str, list[str]]
    case: Case = "exact"


class RegexFind(Word):
    """`regex: PATTERN` — matches of a regular expression (the `regex` module, run with a time limit).
    The answer is the named group `group` (default `answer`; `{letters}` in the pattern becomes a
    character class of the option letters). `matches: first` looks at the first match only (like
    `re.search`). `transform: upper|lower|strip` is applied to the captured answer."""

    regex: str
    group: str = "answer"
    matches: Literal["all", "first", "last"] = "all"
    transform: Literal["upper", "lower", "strip", "none"] = "none"


class OptionTextOptions(Word):
    """Options of `option-text`."""

    case: Case = "ignore"


class OptionTextFind(Word):
    """`option-text: {case: ignore}` — each option whose text occurs in the text as a substring; the answer
    is its letter. An empty option text always occurs (at the end, for `rightmost`)."""

    option_text: OptionTextOptions = OptionTextOptions()


class PhrasesFind(Word):
    """`phrases: [...]` — any of these literal phrases; the answer is the step's `answer:` (or the phrase)."""

    phrases: list[str]
    case: Case = "exact"


class WholeFind(Word):
    """`whole: true` — the whole text is the one candidate (its answer is the text itself)."""

    whole: Literal[True]


class TailAfterFind(Word):
    """`tail-after: [indicators]` — split the text into segments at `split` (a regex; none = one segment);
    in each segment, for each indicator present (in list order), take the text after its LAST
    occurrence, stripped, and keep the shortest: walking the indicators in order, a strictly
    shorter tail replaces the kept one and an empty kept tail is replaced by the next one (so an
    empty tail is never the result). `last-segment-extra` indicators apply only to the last segment.
    One candidate per segment that kept a non-empty tail."""

    tail_after: list[str]
    split: str | None = None
    last_segment_extra: list[str] = []


_FIND_MODELS = {"literal": LiteralFind, "token": TokenFind, "word": WordFind, "regex": RegexFind,
                "option-text": OptionTextFind, "phrases": PhrasesFind, "whole": WholeFind,
                "tail-after": TailAfterFind}
Find = Annotated[Union[tuple(Annotated[m, Tag(k)] for k, m in _FIND_MODELS.items())],
                 Discriminator(lambda v: _tag_of(v, _FIND_MODELS))]


# ---------------------------------------------------------------- picks
Ties = Literal["option-order", "first", "last"]


class RightmostOf(Word):
    """`rightmost-of: TEMPLATE` — of the candidates' distinct answers, the one whose TEMPLATE (a different
    pattern than the one found, e.g. " {letter} ") was last seen, by `rfind`; an answer whose
    template does not occur gets -1. `ties` breaks equal positions: `option-order` (first option
    wins, like numpy argmax over candidates in option order), `first` or `last` candidate."""

    rightmost_of: str
    ties: Ties = "option-order"


class RightmostOptions(Word):
    """Options of `rightmost`."""

    ties: Ties = "option-order"


class Rightmost(Word):
    """`rightmost` — the answer whose own match was last seen (start of its last occurrence)."""

    rightmost: RightmostOptions = RightmostOptions()


BARE_PICK = Literal["only", "first", "last", "rightmost", "all"]
BARE_PICK_DOC = {
    "only": "fires only when the candidates hold exactly one distinct answer.",
    "first": "the earliest candidate in the text.",
    "last": "the candidate that starts last in the text.",
    "rightmost": "the answer whose last occurrence starts furthest right; ties to option order.",
    "all": "every candidate's answer, in order, as a list (open-ended questions).",
}
_PICK_MODELS = {"rightmost-of": RightmostOf, "rightmost": Rightmost}
Pick = Annotated[Union[Annotated[RightmostOf, Tag("rightmost-of")], Annotated[Rightmost, Tag("rightmost")],
                       Annotated[BARE_PICK, Tag("bare")]],
                 Discriminator(lambda v: _tag_of(v, _PICK_MODELS))]


# ---------------------------------------------------------------- steps
class Step(Word):
    """One extraction step. Steps run in order; the first that fires decides.

    `find` produces candidates in the step's text (`look-in: prepared` after the section's
    `prepare`, or `original`, then the step's own `prepare`); `when` guards the step (it may use
    `candidates`/`distinct`); `where` keeps the candidates it is true for; `pick` turns the kept
    candidates into an answer. `answer:` fixes the answer when anything was found (e.g. `Z` for a
    refusal) and `outcome: abstain` marks it as the ruleset declining. `skip-to: STEP` continues at
    a later step instead of answering. `also:` runs more finds on each picked answer and appends
    their answers (open-ended number extraction). `enabled: false` keeps a step in the file but
    off (a variant can switch it on)."""

    id: str
    description: str | None = None
    enabled: bool = True
    look_in: Literal["prepared", "original"] = "prepared"
    prepare: list[PrepareOp] = []
    when: str | None = None
    find: Find | None = None
    where: str | None = None
    pick: Pick = "first"
    answer: str | None = None
    outcome: Literal["rule", "abstain"] = "rule"
    skip_to: str | None = None
    also: list[Find] = []


# ---------------------------------------------------------------- fallbacks
class RandomOptionSpec(Word):
    """Options of `random-option`: `order: per-item` draws from an RNG keyed by (seed, record id), so order
    and parallelism never matter; `order: stream` draws `choice(letters)` from ONE `random.Random(seed)`
    in input order, one draw per fallback record (reproduces lmms-eval / MMMU; order-dependent).
    `extra` adds letters to draw from (VLMEvalKit draws from the options plus `Z`)."""

    order: Literal["per-item", "stream"] = "per-item"
    seed: int = 0
    extra: list[str] = []


class RandomOption(Word):
    """`random-option: {...}` — guess a letter at random (outcome `fallback`; expected accuracy counts 1/k)."""

    random_option: RandomOptionSpec = RandomOptionSpec()


class Constant(Word):
    """`constant: X` — answer X when no step fired (outcome `fallback`)."""

    constant: str


class Abstain(Word):
    """`abstain: X` — decline with answer X (e.g. VLMEvalKit's `Z`), outcome `abstain`; counts as wrong
    unless the gold is X."""

    abstain: str | None = None


_FALLBACK_MODELS = {"random-option": RandomOption, "constant": Constant, "abstain": Abstain}
Fallback = Annotated[Union[tuple(Annotated[m, Tag(k)] for k, m in _FALLBACK_MODELS.items())],
                     Discriminator(lambda v: _tag_of(v, _FALLBACK_MODELS))]


# ---------------------------------------------------------------- normalize and compare
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
    """Options of `exact`."""

    strip: bool = False
    case: Case = "exact"


class Exact(Word):
    """`exact: {strip: false, case: exact}` — the prediction equals the gold string."""

    exact: ExactOptions = ExactOptions()


BARE_COMPARE = Literal["letter", "contains-or-number"]
BARE_COMPARE_DOC = {
    "letter": "correct when the extracted letter equals the gold letter (a list gold: any of them).",
    "contains-or-number": "open questions: correct when a normalized gold string is a substring of an extracted "
                          "string, or an extracted number equals a normalized numeric gold.",
}
Compare = Annotated[Union[Annotated[Exact, Tag("exact")], Annotated[BARE_COMPARE, Tag("bare")]],
                    Discriminator(lambda v: _tag_of(v, {"exact": Exact}))]


class Section(Word):
    """The pipeline for one question type: `prepare` ops, `steps`, then `fallback`, `normalize` and
    `compare`. `from: RULESET` starts from that ruleset's section (keys given here override it).
    `letters-if-missing: [A, B, ...]` gives option letters to records that ship no options (their
    option texts are unknown, so `option-text` finds nothing for them)."""

    from_: str | None = Field(default=None, alias="from")
    prepare: list[PrepareOp] = []
    steps: list[Step] = []
    fallback: Fallback | None = None
    normalize: Normalize | None = None
    compare: Compare = "letter"
    letters_if_missing: list[str] = []


class Example(Word):
    """An embedded test case: `response`, `options` (letter → text), `answer` (gold), `question-type`,
    and what must come out: `expect` (the answer), `via` (the deciding step), `outcome`, `correct`."""

    response: str
    options: dict[str, str] | None = None
    answer: Any = None
    question_type: Literal["multiple-choice", "open"] = "multiple-choice"
    expect: Any = None
    via: str | None = None
    outcome: str | None = None
    correct: bool | None = None
    source: str | None = None


class Reproduces(Word):
    """Where the original behaviour lives: `repo`, `path`, `commit` (and optional `function`)."""

    repo: str
    path: str
    commit: str
    function: str | None = None


class Metrics(Word):
    """`metrics:` — extra metrics over the decisions: `breakdown: [fields]` reports accuracy per value of
    each record field; `groups:` a group metric (see GroupSpec)."""

    breakdown: list[str] = []
    groups: GroupSpec | None = None


class Ruleset(Word):
    """A ruleset: `ruleset` (name), `summary`, `reproduces`, optional `extends` (a parent to override),
    one section per question type (`multiple-choice`, `open`), `metrics`, `examples`."""

    ruleset: str
    summary: str = ""
    description: str | None = None
    reproduces: Union[Reproduces, list[Reproduces], None] = None
    extends: str | None = None
    multiple_choice: Section | None = None
    open: Section | None = None
    metrics: Metrics = Metrics()
    examples: list[Example] = []

    @field_validator("ruleset")
    @classmethod
    def _name(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the ruleset needs a name")
        return value


VOCABULARY: dict[str, type[Word]] = {
    "ruleset": Ruleset, "section": Section, "step": Step, "metrics": Metrics, "example": Example,
    **{f"prepare: {k}": m for k, m in _PREPARE_MODELS.items()},
    **{f"find: {k}": m for k, m in _FIND_MODELS.items()},
    **{f"pick: {k}": m for k, m in _PICK_MODELS.items()},
    **{f"fallback: {k}": m for k, m in _FALLBACK_MODELS.items()},
    "compare: exact": Exact, "normalize": Normalize, "groups": GroupSpec,
}
BARE_WORDS = {"prepare": BARE_PREPARE_DOC, "pick": BARE_PICK_DOC, "compare": BARE_COMPARE_DOC}


def known_keys(data: Any, path: tuple) -> list[str]:
    """Keys allowed at `path` of a ruleset (for did-you-mean hints)."""
    model: Any = Ruleset
    node = data
    for part in path:
        node = node[part] if isinstance(node, (dict, list)) else None
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part.replace("-", "_")) or model.model_fields.get(part + "_") if model else None
        model = _model_of(field.annotation, node) if field else None
    if model is None:
        return []
    return [f.alias or name for name, f in model.model_fields.items()]


def _model_of(annotation: Any, node: Any) -> Any:
    import typing

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_of(arg, node)
        if found is not None:
            if isinstance(node, dict) and found in _FIND_MODELS.values():
                tag = _tag_of(node, _FIND_MODELS)
                return _FIND_MODELS.get(tag, found)
            return found
    return None
