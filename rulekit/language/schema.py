"""The ruleset vocabulary as frozen pydantic models (extra keys forbidden).

Every model's docstring is the user documentation of that vocabulary word: `rulekit vocabulary`
prints them and `rulekit schema` exports the JSON Schema for editors.
"""
from __future__ import annotations

from typing import Any, Literal, Union

from pydantic import BaseModel, Field, field_validator, model_validator

from rulekit.language import schema_math as _math  # int-equal, float-equal, equivalent (SymPy): rulekit/ops/mathcompare.py
from rulekit.language.schema_groups import GroupSpec
from rulekit.language.prepare import BARE_PREPARE_DOC, PREPARE_MODELS, PrepareOp
from rulekit.language import finds as _finds
from rulekit.language import picks as _picks
from rulekit.language.picks import BARE_PICK_DOC, Pick  # noqa: F401 - S.Pick
from rulekit.language.finds import (BoxedFind, BoxedOptions, LiteralFind, OptionTextFind,  # noqa: F401 - S.LiteralFind, ...
                                    OptionTextOptions, PhrasesFind, RegexFind, TailAfterFind, TokenFind, WholeFind,
                                    WordFind)
from rulekit.language.words import Word, word_union
from rulekit.language.words import tag_of as _tag_of


# ---------------------------------------------------------------- finds: rulekit/language/finds.py
Case = _finds.Case
Find = _finds.Find
_FIND_MODELS = _finds.FIND_MODELS


# ---------------------------------------------------------------- picks: rulekit/language/picks.py
_PICK_MODELS = _picks.PICK_MODELS


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
    seed: int = Field(default=0, ge=-(2**63), le=2**63 - 1)
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


class JudgeSpec(Word):
    """Options of `judge` (see `judge`)."""

    base_url: str | None = None
    model: str | None = None
    prompt: str = "vlmevalkit-judge"
    retries: int = Field(default=3, ge=1, le=10)
    temperature: float = Field(default=0.0, ge=0.0)
    max_tokens: int | None = Field(default=None, ge=1)
    equal_if_contains: str | None = Field(default=None, min_length=1)
    then: Fallback | None = None


class Judge(Word):
    """`judge: {base-url, model, prompt, retries: 3, then: FALLBACK}` — ask an LLM judge on an
    OpenAI-compatible endpoint (e.g. `vllm serve`) about a record no step decided: the `prompt` style
    (default `vlmevalkit-judge`) gets the question, options and stripped reply; each judge reply is
    parsed by this section's own steps, and the first they answer decides (outcome `judge`). After
    `retries` unusable replies the `then` fallback decides (none: `unresolved`). `base-url`/`model`
    may be left out and given by `rulekit eval --judge-url/--judge-model` or RULEKIT_JUDGE_URL /
    RULEKIT_JUDGE_MODEL (which override them). `temperature` (0: greedy) and `max-tokens` are the
    judge's sampling. Replies are cached on disk, keyed by model and prompt (rulekit/engine/judge.py).
    A record whose step fired but whose compare cannot decide (outcome `unresolved`, e.g. `equivalent`
    with `otherwise: judge`) goes to the judge too; the judge's answer is then scored with no second
    judge, and without a usable reply or `then` the record stays `unresolved`.
    `equal-if-contains: TEXT` makes it a grading judge (VLMEvalKit's physics): it is asked about each
    (prediction, gold) pair the compare left to a judge — prompt variables `{prediction}`, `{gold}` —
    once per pair; a reply containing TEXT (any case: "not true" contains "true") makes the pair equal.
    A grading judge is never asked about records no step decided."""

    judge: JudgeSpec


_FALLBACK_MODELS = {"random-option": RandomOption, "constant": Constant, "abstain": Abstain, "judge": Judge}
Fallback = word_union(_FALLBACK_MODELS)
JudgeSpec.model_rebuild()
Judge.model_rebuild()


def final_fallback(fallback):
    """The fallback that decides when every judge fails: a `judge`'s `then`, followed to the end."""
    while isinstance(fallback, Judge):
        fallback = fallback.judge.then
    return fallback


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
    """Options of `exact`: `case: lower-prediction` lowercases only the prediction (Omni3DBench compares
    `gold == pred.lower()`, so a gold with a capital letter never matches)."""

    strip: bool = False
    case: Literal["exact", "ignore", "lower-prediction"] = "exact"


class Exact(Word):
    """`exact: {strip: false, case: exact}` — the prediction equals the gold string."""

    exact: ExactOptions = ExactOptions()




# Partial-credit and typed compares (VQA benchmarks); implemented in rulekit/ops/scoring.py. A compare
# may set a fractional `score` (in [0, 1]); `correct` is then `score == 1`.
class RelaxedOptions(Word):
    """Options of `relaxed`."""

    tolerance: float = 0.05
    percent_suffix: bool = True
    gold_list_literal: bool = False


class Relaxed(Word):
    """`relaxed: {tolerance: 0.05, percent-suffix: true}` — ChartQA's relaxed accuracy (pix2struct
    `relaxed_correctness`, as in VLMEvalKit). Both texts are read with Python `float()` (surrounding
    whitespace, "1e3", "nan", "inf" and "1_000" parse; "1,000" and "$5" do not); with `percent-suffix`
    a text ENDING in "%" is `float(text.rstrip("%")) / 100` ("%" elsewhere makes it unparseable).
    When the prediction parses and the gold's number is non-zero: correct iff
    `|pred - gold| / |gold| <= tolerance`. Otherwise (either unparseable, or a gold of 0) the texts
    must be equal ignoring case, so a gold "0" needs exactly the text "0". A list gold: any of them;
    `gold-list-literal: true` also reads a gold string holding a Python list literal
    ("['5', 'five']", as VLMEvalKit TSVs store several answers) as that list."""

    relaxed: RelaxedOptions = RelaxedOptions()


class AnlsOptions(Word):
    """Options of `anls`."""

    threshold: float = 0.5
    denominator: Literal["raw", "normalized"] = "raw"
    strict: bool = False
    gold_list_literal: bool = False


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
    Python list literal ("['Nov 1', 'November 1']", VLMEvalKit's TSVs) as that list of golds."""

    anls: AnlsOptions = AnlsOptions()


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

    mra: MraOptions = MraOptions()


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

    yes_no: YesNoOptions = YesNoOptions()


class CompareCase(Word):
    """One entry of `cases`: `when` (a condition on the record) and the `compare` to use."""

    when: str
    compare: "Compare"


class Cases(Word):
    """`cases: [{when: CONDITION, compare: COMPARE}, ...]` — pick the compare per record: the first case
    whose condition holds decides (conditions as in a step's `when:`, evaluated on the record, with
    `gold` and `meta.NAME`, e.g. `meta.answer_type == 'float'`; `words`/`length` measure the
    prediction). When no case holds the record's outcome is `error` (it is counted, not dropped)."""

    cases: list[CompareCase]


BARE_COMPARE = Literal["letter", "contains-or-number", "int"]
BARE_COMPARE_DOC = {
    "letter": "correct when the extracted letter equals the gold letter (a list gold: any of them).",
    "contains-or-number": "open questions: correct when a normalized gold string is a substring of an extracted "
                          "string, or an extracted number equals a normalized numeric gold.",
    "int": "the prediction and the gold read with Python `int()` are equal (surrounding whitespace, a sign and `_` "
           "separators are fine; '3.0' or 'three' do not parse, which makes the record wrong); a gold that is not an "
           "integer makes the outcome `error`.",
}
_COMPARE_MODELS = {"exact": Exact, "relaxed": Relaxed, "anls": Anls, "mra": Mra, "yes-no": YesNo, "cases": Cases}
_COMPARE_MODELS.update(_math.COMPARE_MODELS)
Compare = word_union(_COMPARE_MODELS, BARE_COMPARE)
CompareCase.model_rebuild()


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
    `meta` (the record's meta fields, e.g. `answer_type`), and what must come out: `expect` (the
    answer), `via` (the deciding step), `outcome`, `correct`, `score` (to within 1e-9)."""

    response: str
    options: dict[str, str] | None = None
    answer: Any = None
    question_type: Literal["multiple-choice", "open"] = "multiple-choice"
    meta: dict[str, Any] = {}
    expect: Any = None
    via: str | None = None
    outcome: str | None = None
    correct: bool | None = None
    score: float | None = None
    source: str | None = None


class Reproduces(Word):
    """Where the original behaviour lives: `repo`, `path`, `commit` (and optional `function`)."""

    repo: str
    path: str
    commit: str
    function: str | None = None


class BreakdownCase(Word):
    """One entry of a breakdown's `cases`: `when` (a condition on the record) and the `value` (label) it gives."""

    when: str
    value: str

    @field_validator("when")
    @classmethod
    def _parses(cls, value: str) -> str:
        from rulekit.core.errors import RulesetError
        from rulekit.language.expr import compile_condition

        try:
            compile_condition(value)
        except RulesetError as exc:
            raise ValueError(f"condition `{value}`: {exc.message}") from None
        return value


class BreakdownSpec(Word):
    """A breakdown entry written as a mapping. `field: NAME` breaks down by a record field (like the plain
    string form); `name: NAME` with `cases: [{when: CONDITION, value: LABEL}, ...]` by a label computed
    per record — the first case that holds gives it, none gives "(missing)" (conditions as in `when:`,
    with `gold` and `meta.NAME`). `rollup: {GROUP: [value, ...], ...}` adds, per group, the UNWEIGHTED
    mean of the listed values' figures (VMCBench's General / Reasoning / OCR / Doc & Chart); values
    absent from the data are left out of the mean (and listed under `missing`), a group with none
    present is None. Results: `by_<name>` and `by_<name>_rollup` (`name` defaults to the field
    without its `meta.` prefix)."""

    field: str | None = None
    name: str | None = None
    cases: list[BreakdownCase] = []
    rollup: dict[str, list[str]] = {}

    @model_validator(mode="after")
    def _one_source(self) -> "BreakdownSpec":
        if (self.field is None) == (not self.cases):
            raise ValueError("a breakdown needs either `field` or `cases` (not both)")
        if self.cases and not self.name:
            raise ValueError("a breakdown by `cases` needs a `name`")
        return self

    @property
    def key(self) -> str:
        """The result key's suffix: `name`, else the field without `meta.`."""
        return self.name or (self.field or "").removeprefix("meta.")


class Metrics(Word):
    """`metrics:` — extra metrics over the decisions: `breakdown: [fields]` reports accuracy per value of
    each record field (an entry may also be a mapping, see BreakdownSpec: computed labels and rollups);
    `groups:` a group metric (see GroupSpec)."""

    breakdown: list[Union[str, BreakdownSpec]] = []
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
        if len(value) > 200 or any(ord(c) < 32 or ord(c) == 127 for c in value):
            raise ValueError("a ruleset name is one line of at most 200 characters, without control characters")
        return value


VOCABULARY: dict[str, type[Word]] = {
    "ruleset": Ruleset, "section": Section, "step": Step, "metrics": Metrics, "example": Example,
    **{f"prepare: {k}": m for k, m in PREPARE_MODELS.items()},
    **{f"find: {k}": m for k, m in _FIND_MODELS.items()},
    **{f"pick: {k}": m for k, m in _PICK_MODELS.items()},
    **{f"fallback: {k}": m for k, m in _FALLBACK_MODELS.items()},
    "compare: exact": Exact, "normalize": Normalize, "groups": GroupSpec, "breakdown": BreakdownSpec,
    **{f"compare: {k}": m for k, m in _COMPARE_MODELS.items() if k != "exact"}, "compare case": CompareCase,
}
BARE_WORDS = {"prepare": BARE_PREPARE_DOC, "pick": BARE_PICK_DOC, "compare": BARE_COMPARE_DOC}
VOCABULARY.update(_math.VOCABULARY)
BARE_WORDS.update(_math.BARE_WORDS)


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


def ruleset_json_schema() -> dict:
    """The JSON Schema of a ruleset FILE (what `rulekit schema` prints, for editors).

    A file is what the loader reads before `extends:`/`from:` merging, so beyond the `Ruleset`
    model it accepts overrides: in a ruleset with `extends:`, and in a section with `from:`, a
    step is a partial step matched by `id` (any step key, `null` to remove one), `drop: true`,
    or a new step placed with `before:`/`after:` another step's id."""
    import copy

    schema = Ruleset.model_json_schema(by_alias=True)
    defs = schema["$defs"]
    step = defs["Step"]
    override = copy.deepcopy(step)
    override["description"] = ("A step of a ruleset with `extends:` (or a section with `from:`): matched by `id` "
                               "to the parent's step, whose keys it overrides (`null` removes a key); "
                               "`drop: true` removes that step; a new id is inserted `before:`/`after:` a "
                               "parent step's id (default: at the end).")
    override["title"] = "StepOverride"
    override["required"] = ["id"]
    for name, prop in list(override["properties"].items()):
        if name != "id":
            override["properties"][name] = {"anyOf": [prop, {"type": "null"}]}
    override["properties"].update({
        "drop": {"type": "boolean", "description": "Remove the parent's step with this id."},
        "before": {"type": "string", "description": "Insert this new step before the parent's step with this id."},
        "after": {"type": "string", "description": "Insert this new step after the parent's step with this id."},
    })
    defs["StepOverride"] = override
    section = defs["Section"]
    section_override = copy.deepcopy(section)
    section_override["title"] = "SectionOverride"
    section_override["properties"]["steps"] = {"type": "array", "items": {"$ref": "#/$defs/StepOverride"}}
    defs["SectionOverride"] = section_override
    defs["Section"] = {"if": {"type": "object", "required": ["from"]},
                       "then": {"$ref": "#/$defs/SectionOverride"}, "else": section,
                       "description": section.get("description", "")}
    def sections(ref: str) -> dict:
        return {"properties": {name: {"anyOf": [{"$ref": ref}, {"type": "null"}]} for name in ("multiple-choice", "open")}}

    for name in ("multiple-choice", "open"):  # which section shape applies depends on `extends:` (below)
        schema["properties"][name] = {"description": section.get("description", ""),
                                      "anyOf": [{"type": "object"}, {"type": "null"}]}
    schema["allOf"] = [{"if": {"required": ["extends"], "properties": {"extends": {"type": "string"}}},
                        "then": sections("#/$defs/SectionOverride"), "else": sections("#/$defs/Section")}]
    return schema
