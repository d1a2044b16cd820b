"""The ruleset vocabulary as frozen pydantic models (extra keys forbidden).

Every model's docstring is the user documentation of that vocabulary word: `rulekit vocabulary`
prints them and `rulekit schema` exports the JSON Schema for editors.
"""

from typing import Any, Literal, Union

from pydantic import BaseModel, Field, field_validator, model_validator

from rulekit.language import compares as _compares
from rulekit.language import fallbacks as _fallbacks
from rulekit.language import math as _math  # int-equal, float-equal, equivalent (SymPy)
from rulekit.language.fallbacks import Abstain, Constant, Judge, JudgeSpec, RandomOption, RandomOptionSpec  # noqa: F401
from rulekit.language.compares import (BARE_COMPARE, BARE_COMPARE_DOC, Anls, AnlsOptions, Cases,  # noqa: F401 - S.Exact, ...
                                       CompareCase, Exact, ExactOptions, Mra, MraOptions, Normalize, NumberNormalize,
                                       Relaxed, RelaxedOptions, YesNo, YesNoOptions)
from rulekit.language.schema_groups import GroupSpec
from rulekit.language.prepare import BARE_PREPARE_DOC, PREPARE_MODELS, PrepareOp
from rulekit.language import finds as _finds
from rulekit.language import picks as _picks
from rulekit.language.picks import BARE_PICK_DOC, Pick  # noqa: F401 - S.Pick
from rulekit.language.finds import (BoxedFind, BoxedOptions, LiteralFind, OptionTextFind,  # noqa: F401 - S.LiteralFind, ...
                                    OptionTextOptions, PhrasesFind, RegexFind, TailAfterFind, TokenFind, WholeFind,
                                    WordFind)
from rulekit.language.words import Word
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
    `prepare`, or `original`, then the step's own `prepare`; `model-reply`: while the steps read a
    judge's reply, the model's own reply instead — VLMEvalKit's DynaMath, its judge failing, still
    looks for the gold letter in the first three characters of the model's reply); `when` guards the step (it may use
    `candidates`/`distinct`); `where` keeps the candidates it is true for; `pick` turns the kept
    candidates into an answer. `answer:` fixes the answer when anything was found (e.g. `Z` for a
    refusal) and `outcome: abstain` marks it as the ruleset declining. `skip-to: STEP` continues at
    a later step instead of answering. `also:` runs more finds on each picked answer and appends
    their answers (open-ended number extraction). `enabled: false` keeps a step in the file but
    off (a variant can switch it on). `compare:` scores the answers THIS step gives (the section's
    `compare` scores the others and a judge's): VLMBlind compares a `{...}` answer exactly, but
    looks for the gold inside the whole reply when no braces were found."""

    id: str
    description: str | None = None
    enabled: bool = True
    look_in: Literal["prepared", "original", "model-reply"] = "prepared"
    prepare: list[PrepareOp] = []
    when: str | None = None
    find: Find | None = None
    where: str | None = None
    pick: Pick = "first"
    answer: str | None = None
    outcome: Literal["rule", "abstain"] = "rule"
    skip_to: str | None = None
    also: list[Find] = []
    compare: _compares.Compare | None = None


# ---------------------------------------------------------------- fallbacks: rulekit/language/fallbacks.py
_FALLBACK_MODELS = _fallbacks.FALLBACK_MODELS
Fallback = _fallbacks.Fallback
final_fallback = _fallbacks.final_fallback


# ---------------------------------------------------------------- normalize and compare: rulekit/language/compares.py
_COMPARE_MODELS = _compares.COMPARE_MODELS
Compare = _compares.Compare


class LettersCount(Word):
    """`letters-count:` — a record's option letters are the first N letters of the alphabet (A, B,
    C, ...), N counted from its options, as originals that build `ascii_uppercase[:num_choices]` do:
    the letters the options carry do not matter (options A, B, D make three letters: A, B, C).
    `count: all` counts every option (AI2D, MMMU: `len(choices)`); `non-blank` only those whose text
    holds more than whitespace (MMStar: `isinstance(val, str) and val.strip()`). `among: ABCDEF`
    counts only options under those letters (an environment that reads keys A-F only). N is at
    least `at-least` (`max(num_choices, 4)`); a record with no options at all gets `if-none`
    letters (MMMU-Pro: 10), else `at-least`. A letter's option text is the record's option under
    that letter, empty when it has none. Replaces `letters-if-missing` and `letters-at-least`."""

    count: Literal["all", "non-blank"] = "all"
    among: str | None = Field(default=None, pattern="^[A-Z]{1,26}$")
    at_least: int = Field(default=0, ge=0, le=26)
    if_none: int | None = Field(default=None, ge=0, le=26)


class Section(Word):
    """The pipeline for one question type: `prepare` ops, `steps`, then `fallback`, `normalize` and
    `compare`. `from: RULESET` starts from that ruleset's section (keys given here override it).
    `letters-if-missing: [A, B, ...]` gives option letters to records that ship no options (their
    option texts are unknown, so `option-text` finds nothing for them). `letters-at-least: N` pads a
    record with fewer option letters with the first letters of the alphabet it lacks, up to N
    (Atropos' `ascii_uppercase[:max(n, 4)]`: a 3-option question still accepts `D`); an added
    letter's option text is empty, and an empty text always occurs for `option-text`, so use it
    with letter finds. `letters-count` instead makes the letters the first N of the alphabet, N
    counted from the options (`LettersCount`).
    `needs-options: true|false` says whether the multiple-choice section can read a record that has
    no options and gets no letters from `letters-if-missing` / `letters-at-least`. Such a record is
    decided `unreadable` (no step runs, no judge is asked, no letter is drawn) and left out of
    accuracy unless `--count-unreadable` is given. Without the key, a section needs options when its
    compare is `letter` (it answers with one of the record's option letters: VLMEvalKit's
    can_infer, lmms-eval's parser); a section that reads the whole reply or fixed letters
    (`mmevalpro`, Atropos' `A-D`) reads such records. Open sections ignore it."""

    from_: str | None = Field(default=None, alias="from")
    prepare: list[PrepareOp] = []
    steps: list[Step] = []
    fallback: Fallback | None = None
    normalize: Normalize | None = None
    compare: Compare = "letter"
    letters_if_missing: list[str] = []
    letters_at_least: int = Field(default=0, ge=0, le=26)
    letters_count: LettersCount | None = None
    needs_options: bool | None = None

    @model_validator(mode="after")
    def _one_letter_rule(self) -> "Section":
        if self.letters_count is not None and (self.letters_if_missing or self.letters_at_least):
            raise ValueError("`letters-count` replaces `letters-if-missing` and `letters-at-least`: give one or the other")
        return self


class Example(Word):
    """An embedded test case: `response`, `options` (letter → text), `answer` (gold), `question-type`,
    `meta` (the record's meta fields, e.g. `answer_type`), and what must come out: `expect` (the
    answer), `via` (the deciding step), `outcome`, `correct`, `score` (to within 1e-9).
    `judge-replies: [REPLY, ...]` are the judge's replies, try by try, to each prompt the record
    makes the ruleset's judge ask: they are written into a scratch judge cache and replayed (the
    engine's `--judge-replay` path; no server is asked, and a try beyond them is an error).
    `grader-replies: [...]` likewise for a two-stage judge's `grader`, on each pair its answer leaves
    to it."""

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
    judge_replies: list[str] | None = None
    grader_replies: list[str] | None = None


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
    present is None. `split: ","` reads the field as a list of values (split at that text, each piece
    stripped) and counts a record once under each: MMVet's capabilities, where a question tagged
    "ocr,math" counts for both (VLMEvalKit tests `capability in category`, the same for its
    comma-joined tags). `and-whole: "_"` (with `split`) also counts the record under its whole value,
    the separator replaced by that text, in the same table — so a value without the separator counts
    twice under it: VLMEvalKit's MMVet_acc tallies capabilities and categories in ONE dict, so a
    question tagged only "rec" weighs twice in the published "rec" figure. `contains: [VALUE, ...]`
    counts a record under each listed value its field's text contains (a substring test, as pandas'
    `str.contains` with a plain word), under none when it contains none: VLMEvalKit's LogicVista
    reports the skills `inductive`, `deductive`, ... by `df["skill"].str.contains(...)`, and a
    question with several skills counts under each. `cross: FIELD` labels a record by both fields,
    `VALUE / OTHER` (MathVerse_acc's subject figures inside each problem version: `{field:
    problem_version, cross: subject}`). `list-literal: true` reads the field's text as a Python list
    literal (parsed, never run) and counts the record under each element, a repeated one twice; a text
    that is not a list literal counts as itself: VLMEvalKit's MathVista_acc tallies `eval(skills)`.
    Results: `by_<name>` and `by_<name>_rollup` (`name` defaults to the field without its `meta.`
    prefix)."""

    field: str | None = None
    name: str | None = None
    cases: list[BreakdownCase] = []
    rollup: dict[str, list[str]] = {}
    split: str | None = Field(default=None, min_length=1)
    and_whole: str | None = None
    contains: list[str] = []
    cross: str | None = Field(default=None, min_length=1)
    list_literal: bool = False

    @model_validator(mode="after")
    def _one_source(self) -> "BreakdownSpec":
        if self.list_literal and (self.field is None or self.split is not None or self.contains or self.cross):
            raise ValueError("`list-literal` reads one `field` as a list: not with `split`, `contains` or `cross`")
        if self.cross is not None and (self.field is None or self.split is not None or self.contains):
            raise ValueError("`cross` pairs a `field` with another, one label per record: not with `split` or `contains`")
        if self.contains and (self.field is None or self.split is not None):
            raise ValueError("`contains` looks for its values in a `field`'s text, without `split`")
        if (self.field is None) == (not self.cases):
            raise ValueError("a breakdown needs either `field` or `cases` (not both)")
        if self.cases and not self.name:
            raise ValueError("a breakdown by `cases` needs a `name`")
        if self.split is not None and self.field is None:
            raise ValueError("`split` reads a `field`: a breakdown by `cases` gives one label per record")
        if self.and_whole is not None and self.split is None:
            raise ValueError("`and-whole` adds the whole value to the pieces of a `split`: give `split` too")
        return self

    @property
    def key(self) -> str:
        """The result key's suffix: `name`, else the field without `meta.`."""
        return self.name or (self.field or "").removeprefix("meta.")


class BinarySpec(Word):
    """`binary: {positive: "Yes", by: [category], split: ","}` — yes/no benchmarks' detection figures
    (VLMEvalKit's POPE): a record is predicted positive when its prediction is exactly `positive`,
    and is positive when its gold is; `precision` = TP / (TP + FP), `recall` = TP / (TP + FN), `f1` =
    2PR / (P + R) (each 0 when its denominator is), and `accuracy` = the share of correct records.
    Results: `binary` (the figures over all records) and `binary_by_<field>` per value of each `by`
    field. `split: ","` reads a `by` field as a list of values and counts a record once per value —
    in the overall figures too, as VLMEvalKit's POPE_rating explodes the rows before scoring them.
    `negative: "no"` names the other label (lmms-eval's POPE): a prediction that is neither label is then
    no cell of the confusion matrix (a gold-positive record so predicted is not a false negative: recall =
    TP / (TP + gold-positive records predicted `negative`)), yet counts in `n` and `accuracy`; and
    `positive_share` = gold-positive records / records whose gold is either label (lmms-eval's
    `pope_yes_ratio`). Without `negative`, every prediction other than `positive` is negative and
    `positive_share` = gold-positive records / all records."""

    positive: str = "Yes"
    negative: str | None = None
    by: list[str] = []
    split: str | None = Field(default=None, min_length=1)


class KeyPart(Word):
    """One part of an `all-correct` key written as a mapping: the record field `field`, or with
    `split: "_"` and `part: N`, piece N of its text split at that string (Python indexing; a record
    with fewer pieces gets no value for it)."""

    field: str
    split: str | None = Field(default=None, min_length=1)
    part: int | None = None

    @model_validator(mode="after")
    def _together(self) -> "KeyPart":
        if (self.split is None) != (self.part is None):
            raise ValueError("`split` and `part` go together")
        return self


class AllCorrectSpec(Word):
    """One `all-correct` figure: the share of groups of records — records with the same `key` — whose
    records are ALL correct (HallusionBench's fAcc and qAcc, MME's acc+, NaturalBench's group
    accuracy). `key` lists record fields or KeyParts; their values are joined with "_" into the
    group's key, as VLMEvalKit joins them (so "a_b" + "c" and "a" + "b_c" are one group there too).
    Results: `all_correct: {NAME: {overall, by_<field>: {value: share}}}`, the groups of a `by`
    value formed inside that value's records."""

    name: str = Field(min_length=1)
    key: list[Union[str, KeyPart]] = Field(min_length=1)
    by: list[str] = []


class TotalsSpec(Word):
    """`totals:` — per value of the field `of`, the SUM of figures of that value's records, each as a
    percentage: `accuracy`, or the name of an `all-correct` figure (formed inside the value's
    records); then `sums: {NAME: [value, ...]}` adds those totals over listed values. MME: per
    category accuracy + acc+ (both out of 100), perception = the sum over 10 categories, reasoning
    over 4. A listed value absent from the data makes its sum None (VLMEvalKit raises) and is
    named under `missing`; with `absent: skip` a sum adds the listed values that are present, in the
    order they first appear in the data (lmms-eval sums the categories its records bring, in record
    order), and is None only when none is. `count: true` adds numbers of records instead of percentages (`accuracy`:
    the records right; an `all-correct` figure: the groups right): OCRBench's category counts summed
    into its five groups and its Final Score out of 1000. Results: `totals: {NAME: {by_<of>: {value:
    total}, SUM: total, missing}}`."""

    name: str = Field(min_length=1)
    of: str = Field(min_length=1)
    add: list[str] = Field(min_length=1)
    sums: dict[str, list[str]] = {}
    count: bool = False
    absent: Literal["none", "skip"] = "none"


class Metrics(Word):
    """`metrics:` — extra metrics over the decisions: `breakdown: [fields]` reports accuracy per value of
    each record field (an entry may also be a mapping, see BreakdownSpec: computed labels and rollups);
    `groups:` a group metric (see GroupSpec); `binary:` precision, recall and F1 of a yes/no benchmark
    (see BinarySpec); `all-correct:` shares of record groups answered right throughout (see
    AllCorrectSpec); `totals:` sums of such figures per field value and over lists of values (see
    TotalsSpec)."""

    breakdown: list[Union[str, BreakdownSpec]] = []
    groups: GroupSpec | None = None
    binary: BinarySpec | None = None
    all_correct: list[AllCorrectSpec] = []
    totals: list[TotalsSpec] = []

    @model_validator(mode="after")
    def _totals_name_figures(self) -> "Metrics":
        known = {"accuracy"} | {spec.name for spec in self.all_correct}
        for spec in self.totals:
            unknown = [name for name in spec.add if name not in known]
            if unknown:
                raise ValueError(f"totals `{spec.name}` adds unknown figure(s) {unknown}; known: {sorted(known)}")
        return self


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
    metrics: Metrics = Metrics.model_construct()
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
    "ruleset": Ruleset, "section": Section, "letters-count": LettersCount, "step": Step, "metrics": Metrics, "example": Example,
    "binary": BinarySpec, "all-correct": AllCorrectSpec, "key part": KeyPart, "totals": TotalsSpec,
    **{f"prepare: {k}": m for k, m in PREPARE_MODELS.items()},
    **{f"find: {k}": m for k, m in _FIND_MODELS.items()},
    **{f"pick: {k}": m for k, m in _PICK_MODELS.items()},
    **{f"fallback: {k}": m for k, m in _FALLBACK_MODELS.items()},
    "compare: exact": Exact, "normalize": Normalize, "groups": GroupSpec, "breakdown": BreakdownSpec,
    **{f"compare: {k}": m for k, m in _COMPARE_MODELS.items() if k != "exact"}, "compare case": CompareCase,
}
# The families whose words a YAML key names, word → model (the bare words, plain strings, are in BARE_WORDS).
WORD_FAMILIES: dict[str, dict[str, type[Word]]] = {
    "prepare": PREPARE_MODELS, "find": _FIND_MODELS, "pick": _PICK_MODELS, "fallback": _FALLBACK_MODELS,
    "compare": _COMPARE_MODELS,
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
