"""The `prepare:` words (a section's or step's text rewrites): each op's model (what the YAML says,
documented by its docstring), its compiled form (a str → str function) and its entry in PREPARE,
side by side. `compile_prepare` chains a list of them; the schema, validation, `rulekit vocabulary`
and `rulekit schema` read PREPARE_MODELS. A new op is one model, one compile function and one
registry line here.
"""

import json
import re
from typing import Any, Callable, Literal, Optional, Union

import regex
from pydantic import Field

from rulekit.core.errors import Loc, RulesetError
from rulekit.core.regex import compile_regex, timed
from rulekit.language.expr import PrepareFailed, SkipStep
from rulekit.language.finds import BoxedFind, DelimitedFind, DelimitedFinder, boxed_spans
from rulekit.language.words import Word, word_union


# ---------------------------------------------------------------- models
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


class ExtractRegex(Word):
    """A regex source of `extract`: the named group `group` (default `answer`) of its matches
    (`matches: all|first|last`)."""

    regex: str
    group: str = "answer"
    matches: Literal["all", "first", "last"] = "all"


class ExtractJson(Word):
    """A JSON source of `extract`: `{json: FIELD}` — the whole text read as JSON (Python `json.loads`
    with `strict=False`: raw control characters inside strings are allowed; NaN and Infinity too);
    when it is an object holding FIELD with a value other than null, that value is the answer — a
    string as it is, anything else as Python's `str()` writes it (3.0 → "3.0", true → "True",
    [1, 2] → "[1, 2]"). Text that is not JSON, another JSON value (a list, a number) or an object
    without FIELD finds nothing. A key given twice: the last one counts. DynaMath's "short answer".
    `strict: true` reads as `json.loads(text)` with its defaults (a raw control character inside a
    string makes the text not JSON); `require: [KEY, ...]` finds FIELD only in an object that also has
    those keys (CharXiv keeps a judge's JSON only with both "score" and "extracted_answer");
    `strings-only: true` finds only a JSON string value (an original that calls string methods on the
    value fails on a number: VLMEvalKit's DynaMath then reads the whole reply instead)."""

    json_field: str = Field(alias="json")  # not `json`: a pydantic model has a `json` method
    strict: bool = False
    require: list[str] = []
    strings_only: bool = False


ExtractSource = Union[BoxedFind, DelimitedFind, ExtractRegex, ExtractJson]


class ExtractOp(Word):
    """`extract: [SOURCE, ...]` with `join: ","` — replace the text by what the FIRST source that finds
    anything found, its answers joined with `join`; when no source finds anything the text is left as
    it is (`otherwise: keep`) or becomes empty (`otherwise: empty`: a step whose own prepare holds the
    op then finds nothing, e.g. "read the `<answer>` tag, and only the tag"), or, in a step's own
    `prepare`, skips the step (`otherwise: skip`: the step passes as if its find found nothing,
    however the rest of its prepare would have read the text; elsewhere it fails the record like an
    op that refuses its text). A source is a `boxed` or `delimited` find, `{regex: PATTERN}` (named
    group `answer`) or `{json: FIELD}`. `take: first|last` keeps only the first or the last answer of
    the source that found something instead of joining them all (`take: all`). Example, the
    OlympiadBench preprocessing: every `\\boxed{}` joined with ","; else the `$...$` spans of the last
    line; else the whole text. DynaMath: `{json: short answer}` with `otherwise: skip`, so a reply
    without that JSON field goes to the next step. VisuLogic: the last `delimited` box, `take: last`."""

    extract: list[ExtractSource]
    join: str = ""
    take: Literal["all", "first", "last"] = "all"
    otherwise: Literal["keep", "empty", "skip"] = "keep"


class SliceOp(Word):
    """`slice: [START, END]` — keep `text[START:END]` (Python slicing: negative counts from the end,
    null is open). `slice: [2, -2]` turns the text `['42']` into `42`."""

    slice: list[Optional[int]]


class SplitTakeSpec(Word):
    """Options of `split-take`."""

    at: str
    index: int = -1
    strip: bool = False


class SplitTakeOp(Word):
    """`split-take: {at: SEP, index: N}` — when SEP occurs, keep piece N of `text.split(SEP)` (Python
    indexing: 1 = between the first and second SEP, -1 = after the last); otherwise unchanged.
    `strip: true` strips whitespace from the kept piece."""

    split_take: SplitTakeSpec


class PunctuationSpec(Word):
    """Options of `punctuation`."""

    chars: str = Field(default=';/[]"{}()=+\\_-><@`,?!', min_length=1)
    periods: Optional[int] = Field(default=32, ge=1)
    digit_comma: Literal["one", "run"] = "one"
    keep_periods: Literal["next-to-digit", "before-digit"] = "next-to-digit"


class PunctuationOp(Word):
    """`punctuation: {}` — the VQA evaluation's punctuation rule (`processPunctuation` of the VQAv2
    scorer, as VLMEvalKit's `process_punctuation` and lmms-eval copy it). For each character of
    `chars`, in order: when the ORIGINAL text has it next to a space (`c + " "` or `" " + c`) or has
    a comma between two digits anywhere, every occurrence is removed; otherwise each becomes a space.
    Then periods that are not next to a digit are removed — the first `periods` of them: the original
    passes `re.UNICODE` (32) as `re.sub`'s count, so a reply with more than 32 such periods keeps the
    rest (`periods: null` removes all). `keep-periods: before-digit` keeps only the periods FOLLOWED
    by a digit ("3." loses its period, "3.5" keeps it): the VQA scorer's own pattern
    `(?!<=\\d)(\\.)(?!\\d)`, whose first group, meant as a look-behind, is a look-ahead that never
    fails at a period — as lmms-eval copies it, and VLMEvalKit did until 2025-05-13 (928a95b0 made
    it `(?<!\\d)\\.(?!\\d)`, the default `next-to-digit`). `digit-comma: run` tests for a run of
    commas between digits (`(?<=\\d)(\\,)+(?=\\d)`, lmms-eval's EvalAI processor) instead of one
    (`(\\d)(,)(\\d)`, the VQA scorer and VLMEvalKit)."""

    punctuation: PunctuationSpec = PunctuationSpec.model_construct()


class DigitArticleOptions(Word):
    """Options of `digit-article` (none yet: `digit-article: {}`)."""


class DigitArticleOp(Word):
    """`digit-article: {}` — the VQA evaluation's `processDigitArticle` (the VQAv2 scorer, copied by
    VLMEvalKit's `_process_digit_article` and lmms-eval's EvalAI processor, the same tables in both):
    the text lowercased and split at whitespace; each word that is a number word from "none" and
    "zero" to "ten" becomes its digits ("none" is "0"); the articles "a", "an" and "the" are dropped;
    a word the contractions table knows without its apostrophe ("dont", "youre", "whats") gets it
    back ("don't"); the words are joined with one space. With `punctuation` and a `replace` of line
    ends, it is the VQA answer processing (`process_answer`) that TextVQA's accuracy compares."""

    digit_article: DigitArticleOptions = DigitArticleOptions.model_construct()


class RegexReplaceSpec(Word):
    """Options of `regex-replace`."""

    pattern: str
    with_: str = Field("", alias="with")


class RegexReplaceOp(Word):
    """`regex-replace: {pattern: P, with: T}` — replace every match of P by T (`\\1` and `\\g<name>` refer
    to groups), like Python `re.sub`; `regex-replace: {pattern: '\\\\mathrm\\{([^}]*)\\}', with: '\\1'}`
    unwraps `\\mathrm{cm}` to `cm`. Runs with the regex time limit."""

    regex_replace: RegexReplaceSpec


# ---------------------------------------------------------------- compiled forms
def _strip(op: StripOp, loc: Loc | None) -> Callable[[str], str]:
    chars = op.strip or None
    return lambda t: t.strip(chars)


def _strip_ends_each(op: StripEndsEachOp, loc: Loc | None) -> Callable[[str], str]:
    chars = tuple(op.strip_ends_each)
    ends = frozenset("".join(chars))

    def strip_each(t: str) -> str:
        if not t or (t[0] not in ends and t[-1] not in ends):  # no strip could change it
            return t
        for c in chars:
            t = t.strip(c)
        return t
    return strip_each


def _pad(op: PadOp, loc: Loc | None) -> Callable[[str], str]:
    return lambda t, p=op.pad: f"{p}{t}{p}"


def _replace(op: ReplaceOp, loc: Loc | None) -> Callable[[str], str]:
    pairs = tuple(op.replace.items())

    def replace(t: str) -> str:
        for a, b in pairs:
            t = t.replace(a, b)
        return t
    return replace


def _remove_regex(op: RemoveRegexOp, loc: Loc | None) -> Callable[[str], str]:
    pattern = compile_regex(op.remove_regex, loc)
    return lambda t: timed(pattern.sub, "", t)


def _truncate(op: TruncateOp, loc: Loc | None) -> Callable[[str], str]:
    return lambda t, n=op.truncate: t[:n]


def _regex_answers(pattern: regex.Pattern, group: str, matches: str, text: str) -> list[str]:
    if matches == "first":
        m = timed(pattern.search, text)
        found = [m] if m else []
    else:
        found = timed(pattern.finditer, text)
        if matches == "last":
            found = found[-1:]
    return [m.group(group) for m in found if m.group(group) is not None]


def _extract(op: ExtractOp, loc: Loc | None) -> Callable[[str], str]:
    sources = []
    for source in op.extract:
        if isinstance(source, BoxedFind):
            spec = source.boxed
            sources.append(lambda t, spec=spec: [t[s:e] for s, e in boxed_spans(t, spec)])
        elif isinstance(source, DelimitedFind):
            finder = DelimitedFinder(source.delimited, loc)
            sources.append(lambda t, finder=finder: [t[s:e] for _, s, e, _ in finder.spans(t)])
        elif isinstance(source, ExtractJson):
            sources.append(lambda t, field=source.json_field, strict=source.strict, need=tuple(source.require),
                           only=source.strings_only: _json_field(t, field, strict, need, only))
        else:
            pattern = compile_regex(source.regex, loc)
            if source.group not in pattern.groupindex:
                raise RulesetError(f"regex `{source.regex}` has no named group `(?P<{source.group}>...)`", loc,
                                   code="E121")
            sources.append(lambda t, p=pattern, g=source.group, m=source.matches: _regex_answers(p, g, m, t))
    join, otherwise, take = op.join, op.otherwise, op.take

    def extract(text: str) -> str:
        for source in sources:
            found = source(text)
            if found:
                if take != "all":
                    return found[0] if take == "first" else found[-1]
                return join.join(found)
        if otherwise == "skip":
            raise SkipStep("`extract` found nothing (`otherwise: skip`)")
        return text if otherwise == "keep" else ""
    return extract


def _json_field(text: str, field: str, strict: bool = False, require: tuple = (), strings_only: bool = False) -> list[str]:
    """[the field's value as text] when `text` is a JSON object holding `field` (not null) and the
    `require`d keys, else []."""
    try:
        value = json.loads(text, strict=strict)
    except (ValueError, RecursionError):  # not JSON (JSONDecodeError), an int over Python's digit limit, deep nesting
        return []
    if not isinstance(value, dict) or any(key not in value for key in require):
        return []
    found = value.get(field)
    if found is None or (strings_only and not isinstance(found, str)):
        return []
    return [found if isinstance(found, str) else str(found)]


def _slice(op: SliceOp, loc: Loc | None) -> Callable[[str], str]:
    if len(op.slice) != 2:
        raise RulesetError("`slice` takes [START, END]", loc, code="E113")
    a, b = op.slice
    return lambda t: t[a:b]


def _split_take(op: SplitTakeOp, loc: Loc | None) -> Callable[[str], str]:
    at, index, strip = op.split_take.at, op.split_take.index, op.split_take.strip
    if not at:
        raise RulesetError("`split-take` needs a non-empty `at`", loc, code="E113")

    def split_take(text: str) -> str:
        if at not in text:
            return text
        pieces = text.split(at)
        try:
            piece = pieces[index]
        except IndexError:
            raise PrepareFailed(f"`split-take`: no piece {index} of {len(pieces)}") from None
        return piece.strip() if strip else piece
    return split_take


def _regex_replace(op: RegexReplaceOp, loc: Loc | None) -> Callable[[str], str]:
    pattern = compile_regex(op.regex_replace.pattern, loc)
    template = op.regex_replace.with_

    def regex_replace(text: str) -> str:
        try:
            return timed(pattern.sub, template, text)
        except (regex.error, IndexError) as exc:  # a bad group reference in `with`
            raise PrepareFailed(f"`regex-replace`: replacement `{template}`: {exc}") from None
    return regex_replace


_DIGIT_COMMA = re.compile(r"(\d)(,)(\d)")     # fixed patterns of the VQA scorer: Python `re`, linear time
_DIGIT_COMMAS = re.compile(r"(?<=\d)(\,)+(?=\d)")
_LONE_PERIOD = re.compile(r"(?<!\d)\.(?!\d)")
_PERIOD_NOT_BEFORE_DIGIT = re.compile(r"(?!<=\d)(\.)(?!\d)")  # the VQA scorer's own pattern, look-ahead typo and all


def _punctuation(op: PunctuationOp, loc: Loc | None) -> Callable[[str], str]:
    chars, periods = tuple(dict.fromkeys(op.punctuation.chars)), op.punctuation.periods or 0
    digit_comma = _DIGIT_COMMA if op.punctuation.digit_comma == "one" else _DIGIT_COMMAS
    lone_period = _LONE_PERIOD if op.punctuation.keep_periods == "next-to-digit" else _PERIOD_NOT_BEFORE_DIGIT

    def punctuation(text: str) -> str:
        out = text
        joined = digit_comma.search(text) is not None
        for c in chars:
            if c in out:  # (replacing a character that is not there changes nothing: skip the tests)
                out = out.replace(c, "" if joined or c + " " in text or " " + c in text else " ")
        return lone_period.sub("", out, periods)
    return punctuation


# the VQA scorer's tables (VQA/PythonHelperTools/vqaEvaluation/vqaEval.py; VLMEvalKit's vqa_eval.py and
# lmms-eval's vqa_eval_metric.py hold the same ones: compared entry by entry when this was written, issue 30)
_VQA_NUMBERS = {"none": "0", "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
                "seven": "7", "eight": "8", "nine": "9", "ten": "10"}
_VQA_ARTICLES = frozenset(("a", "an", "the"))
_VQA_CONTRACTIONS = {
    "aint": "ain't", "arent": "aren't", "cant": "can't", "couldve": "could've", "couldnt": "couldn't",
    "couldn'tve": "couldn't've", "couldnt've": "couldn't've", "didnt": "didn't", "doesnt": "doesn't",
    "dont": "don't", "hadnt": "hadn't", "hadnt've": "hadn't've", "hadn'tve": "hadn't've", "hasnt": "hasn't",
    "havent": "haven't", "hed": "he'd", "hed've": "he'd've", "he'dve": "he'd've", "hes": "he's", "howd": "how'd",
    "howll": "how'll", "hows": "how's", "Id've": "I'd've", "I'dve": "I'd've", "Im": "I'm", "Ive": "I've",
    "isnt": "isn't", "itd": "it'd", "itd've": "it'd've", "it'dve": "it'd've", "itll": "it'll", "let's": "let's",
    "maam": "ma'am", "mightnt": "mightn't", "mightnt've": "mightn't've", "mightn'tve": "mightn't've",
    "mightve": "might've", "mustnt": "mustn't", "mustve": "must've", "neednt": "needn't", "notve": "not've",
    "oclock": "o'clock", "oughtnt": "oughtn't", "ow's'at": "'ow's'at", "'ows'at": "'ow's'at", "'ow'sat": "'ow's'at",
    "shant": "shan't", "shed've": "she'd've", "she'dve": "she'd've", "she's": "she's", "shouldve": "should've",
    "shouldnt": "shouldn't", "shouldnt've": "shouldn't've", "shouldn'tve": "shouldn't've",
    "somebody'd": "somebodyd", "somebodyd've": "somebody'd've", "somebody'dve": "somebody'd've",
    "somebodyll": "somebody'll", "somebodys": "somebody's", "someoned": "someone'd", "someoned've": "someone'd've",
    "someone'dve": "someone'd've", "someonell": "someone'll", "someones": "someone's", "somethingd": "something'd",
    "somethingd've": "something'd've", "something'dve": "something'd've", "somethingll": "something'll",
    "thats": "that's", "thered": "there'd", "thered've": "there'd've", "there'dve": "there'd've",
    "therere": "there're", "theres": "there's", "theyd": "they'd", "theyd've": "they'd've", "they'dve": "they'd've",
    "theyll": "they'll", "theyre": "they're", "theyve": "they've", "twas": "'twas", "wasnt": "wasn't",
    "wed've": "we'd've", "we'dve": "we'd've", "weve": "we've", "werent": "weren't", "whatll": "what'll",
    "whatre": "what're", "whats": "what's", "whatve": "what've", "whens": "when's", "whered": "where'd",
    "wheres": "where's", "whereve": "where've", "whod": "who'd", "whod've": "who'd've", "who'dve": "who'd've",
    "wholl": "who'll", "whos": "who's", "whove": "who've", "whyll": "why'll", "whyre": "why're", "whys": "why's",
    "wont": "won't", "wouldve": "would've", "wouldnt": "wouldn't", "wouldnt've": "wouldn't've",
    "wouldn'tve": "wouldn't've", "yall": "y'all", "yall'll": "y'all'll", "y'allll": "y'all'll",
    "yall'd've": "y'all'd've", "y'alld've": "y'all'd've", "y'all'dve": "y'all'd've", "youd": "you'd",
    "youd've": "you'd've", "you'dve": "you'd've", "youll": "you'll", "youre": "you're", "youve": "you've",
}


def digit_article(text: str) -> str:
    """The VQA scorer's `processDigitArticle` of `text` (see `DigitArticleOp`)."""
    words = [_VQA_NUMBERS.get(w, w) for w in text.lower().split()]
    return " ".join(_VQA_CONTRACTIONS.get(w, w) for w in words if w not in _VQA_ARTICLES)


def _digit_article(op: DigitArticleOp, loc: Loc | None) -> Callable[[str], str]:
    return digit_article


# ---------------------------------------------------------------- the registry
BARE_PREPARE = Literal["strip", "lowercase", "uppercase", "collapse-whitespace", "ascii-digits"]
BARE_PREPARE_DOC = {
    "strip": "remove whitespace at both ends.",
    "lowercase": "lowercase the text (Python `str.lower`).",
    "uppercase": "uppercase the text (Python `str.upper`).",
    "collapse-whitespace": "replace every run of whitespace with one space.",
    "ascii-digits": "write every decimal digit of any script as its ASCII digit (\"٥\" → \"5\"), as Python's "
                    "int() and float() read them, so that a later literal read sees what they see.",
}


def _ascii_digits(text: str) -> str:
    """Every Unicode decimal digit (category Nd) as its ASCII digit."""
    if text.isascii():
        return text
    if not _DIGITS:
        _DIGITS.update(_digit_table())
    return text.translate(_DIGITS)


def _digit_table() -> dict[int, str]:
    import sys
    import unicodedata

    return {c: str(unicodedata.decimal(chr(c))) for c in range(sys.maxunicode + 1)
            if unicodedata.category(chr(c)) == "Nd"}


_DIGITS: dict[int, str] = {}
_BARE: dict[str, Callable[[str], str]] = {"strip": str.strip, "lowercase": str.lower, "uppercase": str.upper,
                                          "collapse-whitespace": lambda t: " ".join(t.split()),
                                          "ascii-digits": _ascii_digits}

# name in YAML → (model, compile(op, loc) → str → str). The order is the schema's (new ops go last).
PREPARE: dict[str, tuple[type[Word], Callable[..., Callable[[str], str]]]] = {
    "strip": (StripOp, _strip),
    "strip-ends-each": (StripEndsEachOp, _strip_ends_each),
    "pad": (PadOp, _pad),
    "replace": (ReplaceOp, _replace),
    "remove-regex": (RemoveRegexOp, _remove_regex),
    "truncate": (TruncateOp, _truncate),
    "extract": (ExtractOp, _extract),
    "slice": (SliceOp, _slice),
    "split-take": (SplitTakeOp, _split_take),
    "regex-replace": (RegexReplaceOp, _regex_replace),
    "punctuation": (PunctuationOp, _punctuation),
    "digit-article": (DigitArticleOp, _digit_article),
}
PREPARE_MODELS: dict[str, type[Word]] = {name: model for name, (model, _) in PREPARE.items()}
_COMPILERS = {model: compile_fn for model, compile_fn in PREPARE.values()}

PrepareOp = word_union(PREPARE_MODELS, BARE_PREPARE)


def compile_word_prepare(ops: list, node: Any, word: str) -> Callable[[str], str] | None:
    """A compare word's `prepare:` option (`{WORD: {prepare: [...]}}` in the ruleset node) compiled,
    errors located at the op's line; `node` is None outside a ruleset file."""
    raw = node.get(word) if isinstance(node, dict) else None
    raw = raw.get("prepare") if isinstance(raw, dict) else None
    locs = getattr(raw, "locs", None)
    return compile_prepare(ops, lambda i: locs[i] if isinstance(locs, list) and i < len(locs) else None)


def compile_prepare(ops: list, loc_of: Callable[[int], Loc | None]) -> Callable[[str], str] | None:
    """A list of validated prepare ops → one function str → str (None when the list is empty)."""
    fns: list[Callable[[str], str]] = []
    for i, op in enumerate(ops):
        if isinstance(op, str):
            fns.append(_BARE[op])
            continue
        compile_fn = _COMPILERS.get(type(op))
        if compile_fn is None:
            raise RulesetError(f"unsupported prepare op {type(op).__name__}", loc_of(i), code="E110")
        fns.append(compile_fn(op, loc_of(i)))
    if not fns:
        return None
    if len(fns) == 1:
        return fns[0]

    def run(text: str) -> str:
        for fn in fns:
            text = fn(text)
        return text
    return run
