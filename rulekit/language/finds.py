"""The `find:` words: each word's model (what the YAML says, documented by its docstring), its compiled
`Finder` (what the engine runs: `find(text, opts, full)` → candidates with answer and span) and its
entry in FIND_MODELS / COMPILERS, side by side. A new find is one class pair and two registry lines
here; the schema, validation, `rulekit vocabulary`, `rulekit schema` and `explain` read the registry.
"""

from abc import ABC, abstractmethod
from typing import Any, Callable, Literal, Union

import regex
from pydantic import Field

from rulekit.core.errors import Loc, RulesetError
from rulekit.core.options import OptionSet, pattern_cache
from rulekit.core.regex import compile_regex, timed
from rulekit.core.trace import Candidate
from rulekit.language.expr import PrepareFailed
from rulekit.language.words import Word, word_union

# ---------------------------------------------------------------- models
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
    `re.search`). `transform: upper|lower|strip` is applied to the captured answer. `expand:
    TEMPLATE` builds the answer from several groups instead, as `match.expand` does (`\\1`,
    `\\g<name>`): VLMBlind's "5 rows and 4 columns" with `expand: '\\g<rows>x\\g<cols>'` answers
    `5x4`; the candidate then spans the whole match. Any ruleset
    pattern (finds, prepare ops, `search()`, `drop:`) that starts with `(?py)` is read as Python's `re`
    of the running interpreter reads it — its syntax, its Unicode tables for `\\w \\d \\s \\b` (and
    `\\W \\D \\S \\B`, in and out of sets), its IGNORECASE ("ı" and "İ" match "i", "ſ" matches "s",
    the Kelvin sign "k") — where the `regex` module's tables are newer and fold case otherwise, so an
    original written for `re` is matched exactly (rulekit/core/pydialect.py)."""

    regex: str
    group: str = "answer"
    matches: Literal["all", "first", "last"] = "all"
    transform: Literal["upper", "lower", "strip", "none"] = "none"
    expand: str | None = None


class OptionTextOptions(Word):
    """Options of `option-text`."""

    case: Case = "ignore"


class OptionTextFind(Word):
    """`option-text: {case: ignore}` — each option whose text occurs in the text as a substring; the answer
    is its letter. An empty option text always occurs (at the end, for `rightmost`)."""

    option_text: OptionTextOptions = OptionTextOptions.model_construct()


class PhrasesFind(Word):
    """`phrases: [...]` — any of these literal phrases; the answer is the step's `answer:` (or the phrase)."""

    phrases: list[str]
    case: Case = "exact"


class AfterPhraseOptions(Word):
    """Options of `after-phrase`: `phrases` (looked for in the LOWERCASED text, each at its first occurrence)
    and `answers` (looked for as they are, case counts)."""

    phrases: list[str] = Field(min_length=1)
    answers: list[str] = Field(min_length=1)


class AfterPhraseFind(Word):
    """`after-phrase: {phrases: ["the answer is", ...], answers: [A, B, C, D]}` — for each phrase found in
    the lowercased text (its first occurrence), each answer's FIRST occurrence in the text from where that
    phrase ends, even inside a word: one candidate per phrase found and answer found, at that position.
    With `pick: last` the answer whose first occurrence after a phrase is latest wins, so "the answer is B,
    not A" reads A: lmms-eval's shared `extract_mcq_answer` (`text.lower().find(phrase)`, then
    `text.find(letter, after)`, the highest position kept), whose offsets this reproduces exactly, also
    where lowercasing changes the text's length ("İ")."""

    after_phrase: AfterPhraseOptions


class WholeFind(Word):
    """`whole: true` — the whole text is the one candidate (its answer is the text itself)."""

    whole: Literal[True]


class TailAfterFind(Word):
    """`tail-after: [indicators]` — split the text into segments at `split` (a regex; none = one segment);
    in each segment, for each indicator present (in list order), take the text after its LAST
    occurrence (`str.split`'s last piece: for an indicator that can overlap itself, such as "aa" in
    "aaa", the last occurrence found scanning left to right), stripped, and keep the shortest:
    walking the indicators in order, a strictly shorter tail replaces the kept one and an empty kept
    tail is replaced by the next one (so an empty tail is never the result). `last-segment-extra` indicators apply only to the last segment.
    One candidate per segment that kept a non-empty tail."""

    tail_after: list[str]
    split: str | None = None
    last_segment_extra: list[str] = []


class BoxedOptions(Word):
    """Options of `boxed`."""

    command: str = "\\boxed"
    nested: bool = True
    overlapping: bool = False
    unbalanced: Literal["skip", "fail"] = "skip"


class BoxedFind(Word):
    """`boxed: {nested: true}` — the content of every `\\boxed{...}` (the `command` followed by `{`), in
    order. `nested: true` takes the content up to the MATCHING `}` (braces counted at any depth, no
    escapes), so `\\boxed{\\frac{1}{2}}` gives `\\frac{1}{2}`; `nested: false` stops at the first `}`
    (like the regex `\\\\boxed{(.*?)}`). `overlapping: true` also finds a box inside a box on its own
    (the scan goes on right after each `\\boxed{`, as OlympiadBench's `re.finditer`); `false` resumes
    after the box. `unbalanced:` what a box whose braces never close does: `skip` ignores it, `fail`
    fails the whole find (an `extract` prepare op inside a compare then makes that answer unequal to
    everything; elsewhere the record's outcome is `error`). Use `pick: all` for every box, `last` for
    the final one."""

    boxed: BoxedOptions = BoxedOptions.model_construct()


class YesNoFindOptions(Word):
    """Options of the `yes-no` find: `yes-words` and `no-words` (whole words; quote them in YAML, where a bare
    `yes` reads as true), the answers they give (`yes-answer`, `no-answer`), `case: ignore|exact`."""

    yes_words: list[str] = Field(default=["yes"], min_length=1)
    no_words: list[str] = Field(default=["no"], min_length=1)
    yes_answer: str = "Yes"
    no_answer: str = "No"
    case: Case = "ignore"


class YesNoFind(Word):
    """`yes-no: {}` — every whole-word yes-word and no-word (default "yes" / "no", any case), in text
    order; the candidate's answer is `Yes` or `No`. The step's pick chooses among them as for any
    find (`first`, `last`, `only` for a reply that says one thing); `where: start == 0` keeps only a
    reply that begins with one (a prefix check, e.g. POPE-style yes/no extraction before searching
    the whole reply)."""

    yes_no: YesNoFindOptions = YesNoFindOptions.model_construct()


class DelimitedOptions(Word):
    """Options of `delimited`: the `open` and `close` patterns (regexes, each run with the time limit)."""

    open: str
    close: str


class DelimitedFind(Word):
    """`delimited: {open: PATTERN, close: PATTERN}` — spans between an opening and a closing token,
    nested, found with a stack as an original that scans `re.finditer(OPEN|CLOSE)` does: the tokens
    are read left to right without overlapping (at each position an `open` match is tried before a
    `close` match; empty matches are not tokens); an open pushes, a close pops (a close with nothing
    open is ignored), and a close that empties the stack gives a candidate — the text from the end of
    the OUTERMOST open to where the close's named group `end` starts (its match start when it has no
    such group). Only braces the patterns name are counted: VLMEvalKit's VisuLogic boxes are
    `{open: '\\\\boxed\\{', close: '[^\\\\](?P<end>\\})'}`, so `\\boxed{\\text{A}}` gives
    `\\text{A` (its `A}` closes the box) and `\\boxed{\\frac{1}{2}}` gives `\\frac{1`. A box still
    open at the end gives nothing, and swallows the closes after it. `pick: last` for the last one."""

    delimited: DelimitedOptions


class NarrowOptions(Word):
    """Options of `narrow`: `markers` (non-empty strings, in the order they are tried), `strip`,
    `until` (non-empty strings) and `transform`."""

    markers: list[str] = Field(min_length=1)
    strip: bool = True
    until: list[str] = []
    transform: Literal["upper", "lower", "none"] = "none"


class NarrowFind(Word):
    """`narrow: {markers: [M1, M2, ...], strip: true, until: ["\\n", "."]}` — successive narrowing of ONE
    text, as an original that cuts a string flag after flag: walking the markers in order, a marker
    that occurs in the CURRENT text cuts it to what follows its last occurrence (Python's
    `text.split(marker)[-1]`), stripped of whitespace (`strip`), then cut before the first of each
    `until` string in turn (`text.split(sep)[0]`); the result is a candidate (its answer after
    `transform: upper|lower`) and the text the next markers are looked for in. Candidates come in
    marker order, so `pick: first` with a `where:` takes the first narrowed text that is an answer:
    VLMEvalKit's VisuLogic reads "answer:", then "the final answer is:", ... each in what the previous
    found marker left."""

    narrow: NarrowOptions


# ---------------------------------------------------------------- compiled forms
MAX_BOX_OVERLAP = 100_000  # characters the boxes of a text may hold beyond the text itself (nested, overlapping)


def _brace_pairs(text: str) -> dict[int, int]:
    """{position of a "{": position of the "}" that closes it} for the whole text, in one pass (a "}" with no
    "{" open is skipped, as a depth count from each "{" skips it)."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    o, c = text.find("{"), text.find("}")
    while c >= 0:
        if 0 <= o < c:
            stack.append(o)
            o = text.find("{", o + 1)
        else:
            if stack:
                pairs[stack.pop()] = c
            c = text.find("}", c + 1)
    return pairs


def boxed_spans(text: str, spec: BoxedOptions) -> list[tuple[int, int]]:
    """(start, end) of the content of every box, in order (see `BoxedFind`). Nested boxes are closed by
    brace pairs found in one pass, so 4,000 nested boxes cost one scan, not 4,000; overlapping boxes
    that hold more than MAX_BOX_OVERLAP characters beyond the text's own refuse the text (PrepareFailed)."""
    opener = spec.command + "{"
    out: list[tuple[int, int]] = []
    pos = text.find(opener)
    pairs: dict[int, int] | None = None
    total, most = 0, len(text) + MAX_BOX_OVERLAP
    while pos >= 0:
        start = pos + len(opener)
        if spec.nested:
            if pairs is None:
                pairs = _brace_pairs(text)
            found = pairs.get(start - 1)
            closed = found is not None
            end = found if found is not None else len(text)
        else:
            end = text.find("}", start)
            closed = end >= 0
        if not closed:
            if spec.unbalanced == "fail":
                raise PrepareFailed(f"unbalanced braces after `{opener}` at {pos}")
            pos = text.find(opener, start)
            continue
        total += end - start
        if total > most:
            raise PrepareFailed(f"the `{opener}...}}` boxes hold more than {most:,} characters together (nested "
                                f"boxes are read once per level; at most {MAX_BOX_OVERLAP:,} beyond the text)")
        out.append((start, end))
        pos = text.find(opener, start if spec.overlapping else end + 1)
    return out


def _templates(value) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


def _expand(templates: tuple[str, ...], opts: OptionSet, lower: bool) -> list[tuple[str, str]]:
    """(answer, needle) pairs: `{letter}` / `{option}` templates once per option, others as they are."""
    out = []
    for template in templates:
        if "{letter}" in template or "{option}" in template:
            for letter, text in zip(opts.letters, opts.texts):
                needle = template.replace("{letter}", letter).replace("{option}", text)
                out.append((letter, needle.lower() if lower else needle))
        else:
            out.append((template, template.lower() if lower else template))
    return out


class Finder(ABC):
    """Base of compiled finds: `find(text, opts, full)` → candidates; `tokens` is set for token finds."""

    description = ""

    @abstractmethod
    def find(self, text: str, opts: OptionSet, full: bool) -> list[Candidate]:
        """Candidates in `text` for these options (`full`: every occurrence, for traces)."""


def _occurrences(text: str, needle: str, answer: Any, full: bool) -> list[Candidate]:
    if needle == "":
        return [Candidate(answer, len(text), len(text), "")]
    first = text.find(needle)
    if first < 0:
        return []
    n = len(needle)
    if not full:
        last = text.rfind(needle)
        out = [Candidate(answer, first, first + n, needle)]
        if last != first:
            out.append(Candidate(answer, last, last + n, needle))
        return out
    out = []
    pos = first
    while pos >= 0:
        out.append(Candidate(answer, pos, pos + n, needle))
        pos = text.find(needle, pos + 1)
    return out


class LiteralFinder(Finder):
    """Compiled `literal`/`phrases`/`option-text`: substring occurrences of expanded needles."""

    def __init__(self, templates: tuple[str, ...], lower: bool, key: int, describe: str, option_text: bool = False):
        self.templates, self.lower, self.key, self.option_text = templates, lower, key, option_text
        self.uses_text = option_text or any("{option}" in t for t in templates)
        self.description = describe
        self.needs_all = False  # set when a `where:` or `candidates` condition must see every occurrence

    def needles(self, opts: OptionSet) -> list[tuple[str, str]]:
        """The (answer, needle) pairs for this option set (cached)."""
        cache = pattern_cache(opts, self.uses_text)
        found = cache.get(self.key)
        if found is None:
            if self.option_text:
                texts = opts.lower_texts if self.lower else opts.texts
                found = list(zip(opts.letters, texts))
            else:
                found = _expand(self.templates, opts, self.lower)
            cache[self.key] = found
        return found

    def find(self, text, opts, full):
        if self.option_text and not opts.has_text:
            return []
        full = full or self.needs_all
        if self.lower:
            text = text.lower()
        out: list[Candidate] = []
        if full:
            for answer, needle in self.needles(opts):
                if needle in text:
                    out.extend(_occurrences(text, needle, answer, True))
            return out
        for answer, needle in self.needles(opts):  # first and last occurrence of each: all a pick needs
            first = text.find(needle)
            if first < 0:
                continue
            if not needle:
                out.append(Candidate(answer, len(text), len(text), ""))
                continue
            n = len(needle)
            out.append(Candidate(answer, first, first + n, needle))
            last = text.rfind(needle)
            if last != first:
                out.append(Candidate(answer, last, last + n, needle))
        return out


class TokenFinder(Finder):
    """Compiled `token`: whole tokens after replacing separator characters with spaces.

    Tokens come from `str.split()` (C speed, Python's own whitespace rules) and are shared by the
    steps of one record that use the same separators. Character offsets are computed only when a
    trace or a condition on `start`/`end` needs them; `first`/`last` picks order by token index,
    which is the same order.
    """

    _shared: dict = {}

    def __init__(self, templates: tuple[str, ...], separators: str, lower: bool, key: int, describe: str):
        self.templates, self.lower, self.key = templates, lower, key
        self.uses_text = any("{option}" in t for t in templates)
        self.separators = separators
        self.separators_list = tuple(dict.fromkeys(separators))
        self.byte_table = (bytes.maketrans(separators.encode(), b" " * len(separators))
                           if separators.isascii() else None)
        self.description = describe
        self.needs_offsets = False
        self.last_token_count = 0

    def spaced(self, text: str) -> str:
        """The text with separators replaced by spaces (and lowercased for `case: ignore`)."""
        spaced = text
        if self.byte_table is not None and text.isascii():  # bytes.translate: a table lookup per byte, C speed
            spaced = text.encode("ascii").translate(self.byte_table).decode("ascii")
        else:  # str.translate looks every character up in a dict: a C-speed replace per separator is faster
            for sep in self.separators_list:
                spaced = spaced.replace(sep, " ")
        return spaced.lower() if self.lower else spaced

    def tokenize(self, text: str) -> tuple[list[str], str]:
        """The tokens of `text`, and the same joined by single spaces with a space at either end
        (cached for the next step that looks at the same text)."""
        cache_key = (self.separators, self.lower)
        hit = TokenFinder._shared.get(cache_key)
        if hit is not None and hit[0] is text:
            return hit[1], hit[2]
        tokens = self.spaced(text).split()
        joined = f" {' '.join(tokens)} "
        TokenFinder._shared[cache_key] = (text, tokens, joined)
        return tokens, joined

    def find(self, text, opts, full):
        tokens, joined = self.tokenize(text)
        self.last_token_count = len(tokens)
        cache = pattern_cache(opts, self.uses_text)
        found = cache.get(self.key)
        if found is None:
            wanted = {needle: answer for answer, needle in _expand(self.templates, opts, self.lower)}
            # a token has no whitespace and is never empty: other needles can never match
            found = cache[self.key] = (wanted, [(f" {n} ", n) for n in wanted if n and n.split() == [n]])
        wanted, padded = found
        hits = []  # token indices of every needle: " needle " in the joined tokens, C-speed finds
        for pattern, _ in padded:
            pos = joined.find(pattern)
            if pos < 0:
                continue
            index = joined.count(" ", 0, pos)  # the spaces before a token's leading space = its index
            hits.append(index)
            while True:
                after = joined.find(pattern, pos + 1)
                if after < 0:
                    break
                index += joined.count(" ", pos, after)
                pos = after
                hits.append(index)
        if not hits:
            return []
        hits.sort()
        starts = self._offsets(text, tokens, hits) if (full or self.needs_offsets) else None
        out, first_seen = [], {}
        for n, i in enumerate(hits):
            tok = tokens[i]
            answer = wanted[tok]
            first = first_seen.setdefault(answer, i)
            start = starts[n] if starts is not None else i
            out.append(Candidate(answer, start, start + len(tok) if starts is not None else i + 1, tok, i, first))
        return out

    def _offsets(self, text: str, tokens: list[str], hits: list[int]) -> list[int]:
        """Character offsets of the tokens at `hits` (walking the spaced text once)."""
        spaced = self.spaced(text)
        out, pos, wanted = [], 0, set(hits)
        last = hits[-1] if hits else -1
        for i, tok in enumerate(tokens):
            if i > last:
                break
            pos = spaced.find(tok, pos)
            if i in wanted:
                out.append(pos)
            pos += len(tok)
        return out


_WS_TOKEN = regex.compile(r"\S+")


class RegexFinder(Finder):
    """Compiled `regex` (and `word`): matches of a precompiled pattern; the answer is a named group."""

    def __init__(self, pattern: str, group: str, matches: str, transform: str, lower: bool, key: int,
                 loc: Loc | None, describe: str, expand: str | None = None):
        self.group, self.matches, self.key, self.lower, self.expand = group, matches, key, lower, expand
        self.transform = {"upper": str.upper, "lower": str.lower, "strip": str.strip}.get(transform)
        self.per_options = "{letters}" in pattern or "{letter}" in pattern
        self.source = pattern
        self.loc = loc
        self.description = describe
        if not self.per_options:
            self.pattern = compile_regex(pattern, loc)
            if expand is not None:
                _check_expand(self.pattern, expand, loc)
            elif group not in self.pattern.groupindex:
                raise RulesetError(f"regex `{pattern}` has no named group `(?P<{group}>...)`", loc,
                                   help="name the part that is the answer, e.g. (?P<answer>[A-D])", code="E121")

    def compiled(self, opts: OptionSet) -> regex.Pattern:
        """The pattern for this option set (`{letters}` → a character class of the letters)."""
        if not self.per_options:
            return self.pattern
        cache = pattern_cache(opts, False)
        found = cache.get(self.key)
        if found is None:
            letters = "".join(regex.escape(l) for l in opts.letters)
            source = self.source.replace("{letters}", f"[{letters}]" if letters else "(?!)")
            found = compile_regex(source, self.loc)
            if self.expand is not None:
                _check_expand(found, self.expand, self.loc)
            elif self.group not in found.groupindex:
                raise RulesetError(f"regex `{self.source}` has no named group `(?P<{self.group}>...)`", self.loc,
                                   help="name the part that is the answer, e.g. (?P<answer>[A-D])", code="E121")
            cache[self.key] = found
        return found

    def find(self, text, opts, full):
        if self.lower:
            text = text.lower()
        pattern = self.compiled(opts)
        if self.matches == "first":
            m = timed(pattern.search, text)
            found = [m] if m else []
        else:
            found = timed(pattern.finditer, text)
            if self.matches == "last" and found:
                found = found[-1:]
        out = []
        if self.expand is not None:
            for m in found:
                value = m.expand(self.expand)
                out.append(Candidate(self.transform(value) if self.transform else value, m.start(), m.end(), m.group()))
            return out
        for m in found:
            value = m.group(self.group)
            if value is None:
                continue
            if self.transform:
                value = self.transform(value)
            out.append(Candidate(value, m.start(self.group), m.end(self.group), m.group()))
        return out


def _check_expand(pattern: regex.Pattern, template: str, loc: Loc | None) -> None:
    """A ruleset error for an `expand` template that `match.expand` would refuse (a group the pattern
    does not have, a bad escape), found at load time rather than on the first match: the template
    is tried on a pattern with the same groups that matches the empty text."""
    try:
        empty = regex.compile(f"(?:{pattern.pattern})?", pattern.flags)
    except regex.error:
        return
    try:
        empty.sub(template, "", count=1)
    except (regex.error, IndexError) as exc:
        raise RulesetError(f"`expand: {template}`: {exc}", loc,
                           help="refer to groups of the pattern: \\1 or \\g<name>", code="E121") from None


class AfterPhraseFinder(Finder):
    """Compiled `after-phrase`: per phrase found (first occurrence, lowercased text), each answer's first
    occurrence from the phrase's end."""

    def __init__(self, spec: AfterPhraseOptions):
        self.phrases, self.answers = tuple(spec.phrases), tuple(spec.answers)
        self.description = f"{list(self.answers)} after {list(self.phrases)}"

    def find(self, text, opts, full):
        lower = text.lower()
        out: list[Candidate] = []
        for phrase in self.phrases:
            at = lower.find(phrase)
            if at < 0:
                continue
            after = at + len(phrase)
            for answer in self.answers:
                pos = text.find(answer, after)
                if pos >= 0:
                    out.append(Candidate(answer, pos, pos + len(answer), answer))
        return out


class WholeFinder(Finder):
    """Compiled `whole`: the entire text is one candidate."""

    description = "the whole text"

    def find(self, text, opts, full):
        return [Candidate(text, 0, len(text), text)]


class TailAfterFinder(Finder):
    """Compiled `tail-after`: per segment, the shortest non-empty tail after an indicator."""

    def __init__(self, spec: TailAfterFind, loc: Loc | None):
        self.indicators = tuple(spec.tail_after)
        self.extra = tuple(spec.last_segment_extra)
        self.split = compile_regex(spec.split, loc) if spec.split else None
        self.description = f"text after the last of {list(self.indicators)}" + (f" in segments split at /{spec.split}/" if spec.split else "")

    def find(self, text, opts, full):
        if self.split is not None:
            pieces, spans, pos = [], [], 0
            for m in timed(self.split.finditer, text):
                pieces.append(text[pos:m.start()])
                spans.append(pos)
                pos = m.end()
            pieces.append(text[pos:])
            spans.append(pos)
        else:
            pieces, spans = [text], [0]
        out = []
        last = len(pieces) - 1
        for i, (piece, offset) in enumerate(zip(pieces, spans)):
            indicators = self.indicators + self.extra if i == last else self.indicators
            kept = None
            for indicator in indicators:
                if indicator and indicator in piece:
                    tail = piece.split(indicator)[-1].strip()
                    if not kept or len(tail) < len(kept):
                        kept = tail
            if kept:
                start = offset + piece.rfind(kept)
                out.append(Candidate(kept, start, start + len(kept), kept))
        return out


class BoxedFinder(Finder):
    """Compiled `boxed`: one candidate per box, its content as the answer."""

    def __init__(self, spec: BoxedOptions):
        self.spec = spec
        kind = "nested" if spec.nested else "up to the first }"
        self.description = f"contents of {spec.command}{{...}} ({kind}{', overlapping' if spec.overlapping else ''})"

    def find(self, text, opts, full):
        return [Candidate(text[s:e], s, e, text[s - len(self.spec.command) - 1:e + 1]) for s, e in boxed_spans(text, self.spec)]



class YesNoFinder(Finder):
    """Compiled `yes-no`: whole-word yes-words and no-words, in text order, answered with their labels."""

    def __init__(self, spec: YesNoFindOptions, loc: Loc | None):
        def alternatives(words: list[str]) -> str:
            return "|".join(regex.escape(w) for w in sorted(words, key=len, reverse=True))
        flags = "(?i)" if spec.case == "ignore" else ""
        self.pattern = compile_regex(rf"{flags}(?<!\w)(?:(?P<yes>{alternatives(spec.yes_words)})|"
                                     rf"(?P<no>{alternatives(spec.no_words)}))(?!\w)", loc)
        self.labels = (spec.yes_answer, spec.no_answer)
        self.description = f"yes-words {spec.yes_words} / no-words {spec.no_words}"

    def find(self, text, opts, full):
        yes, no = self.labels
        return [Candidate(yes if m.group("yes") is not None else no, m.start(), m.end(), m.group(0))
                for m in timed(self.pattern.finditer, text)]


class DelimitedFinder(Finder):
    """Compiled `delimited`: a stack over open/close tokens; one candidate per outermost pair."""

    def __init__(self, spec: DelimitedOptions, loc: Loc | None):
        self.open = compile_regex(spec.open, loc)
        self.close = compile_regex(spec.close, loc)
        self.end_group = "end" in self.close.groupindex
        self.description = f"spans from /{spec.open}/ to /{spec.close}/, nested, outermost pairs"

    @staticmethod
    def _next(pattern: regex.Pattern, text: str, pos: int):
        """The leftmost non-empty match of `pattern` at or after `pos`, or None."""
        while pos <= len(text):
            m = timed(pattern.search, text, pos)
            if m is None or m.end() > m.start():
                return m
            pos = m.start() + 1
        return None

    def spans(self, text: str) -> list[tuple[int, int, int, int]]:
        """(open start, content start, content end, close end) of every outermost pair, in order."""
        out: list[tuple[int, int, int, int]] = []
        stack: list[tuple[int, int]] = []
        opener, closer = self._next(self.open, text, 0), self._next(self.close, text, 0)
        while opener is not None or closer is not None:
            is_open = closer is None or (opener is not None and opener.start() <= closer.start())
            m = opener if is_open else closer
            pos = m.end()
            if is_open:
                stack.append((m.start(), m.end()))
            elif stack:
                outer_start, content_start = stack.pop()
                if not stack:
                    end = m.start("end") if self.end_group and m.start("end") >= 0 else m.start()
                    out.append((outer_start, content_start, max(end, content_start), m.end()))
            if opener is not None and opener.start() < pos:
                opener = self._next(self.open, text, pos)
            if closer is not None and closer.start() < pos:
                closer = self._next(self.close, text, pos)
        return out

    def find(self, text, opts, full):
        return [Candidate(text[s:e], s, e, text[o:c]) for o, s, e, c in self.spans(text)]


class NarrowFinder(Finder):
    """Compiled `narrow`: one text cut marker after marker; each cut is a candidate."""

    def __init__(self, spec: NarrowOptions, loc: Loc | None):
        if "" in spec.markers or "" in spec.until:  # str.split("") raises in the original
            raise RulesetError("`narrow` markers and `until` strings must not be empty", loc, code="E110")
        self.markers, self.strip, self.until = tuple(spec.markers), spec.strip, tuple(spec.until)
        self.transform = {"upper": str.upper, "lower": str.lower}.get(spec.transform)
        self.description = f"text narrowed after each of {list(self.markers)} found in turn"

    def find(self, text, opts, full):
        out, current, offset = [], text, 0
        for marker in self.markers:
            if marker not in current:
                continue
            rest = current.split(marker)[-1]
            offset += len(current) - len(rest)
            if self.strip:
                stripped = rest.lstrip()
                offset += len(rest) - len(stripped)
                rest = stripped.rstrip()
            for sep in self.until:
                rest = rest.split(sep)[0]
            current = rest
            answer = self.transform(rest) if self.transform else rest
            out.append(Candidate(answer, offset, offset + len(rest), rest))
        return out


# ---------------------------------------------------------------- the registry
def _literal(find: LiteralFind, key: int, loc: Loc | None) -> Finder:
    t = _templates(find.literal)
    return LiteralFinder(t, find.case == "ignore", key, f"literal {list(t)}")


def _phrases(find: PhrasesFind, key: int, loc: Loc | None) -> Finder:
    return LiteralFinder(tuple(find.phrases), find.case == "ignore", key, f"any of {len(find.phrases)} phrases")


def _option_text(find: OptionTextFind, key: int, loc: Loc | None) -> Finder:
    lower = find.option_text.case == "ignore"
    return LiteralFinder((), lower, key, "option texts" + (" (ignoring case)" if lower else ""), option_text=True)


def _token(find: TokenFind, key: int, loc: Loc | None) -> Finder:
    t = _templates(find.token)
    return TokenFinder(t, find.separators, find.case == "ignore", key,
                       f"tokens {list(t)} split at {find.separators!r} and whitespace")


def _word(find: WordFind, key: int, loc: Loc | None) -> Finder:
    t = _templates(find.word)
    parts = []
    for x in t:
        escaped = regex.escape(x)
        if "{letter}" in x:
            parts.append(escaped.replace(regex.escape("{letter}"), "(?P<answer>{letters})"))
        else:
            parts.append(f"(?P<answer>{escaped})")
    pattern = r"(?<!\w)(?:" + "|".join(parts) + r")(?!\w)"
    return RegexFinder(pattern, "answer", "all", "none", find.case == "ignore", key, loc, f"whole words {list(t)}")


def _regex(find: RegexFind, key: int, loc: Loc | None) -> Finder:
    return RegexFinder(find.regex, find.group, find.matches, find.transform, False, key, loc, f"regex /{find.regex}/",
                       find.expand)


# name in YAML → (model, compile(model, key, loc) → Finder). The order is the schema's (new words go last).
FINDS: dict[str, tuple[type[Word], Callable[..., Finder]]] = {
    "literal": (LiteralFind, _literal),
    "token": (TokenFind, _token),
    "word": (WordFind, _word),
    "regex": (RegexFind, _regex),
    "option-text": (OptionTextFind, _option_text),
    "phrases": (PhrasesFind, _phrases),
    "whole": (WholeFind, lambda find, key, loc: WholeFinder()),
    "tail-after": (TailAfterFind, lambda find, key, loc: TailAfterFinder(find, loc)),
    "boxed": (BoxedFind, lambda find, key, loc: BoxedFinder(find.boxed)),
    "yes-no": (YesNoFind, lambda find, key, loc: YesNoFinder(find.yes_no, loc)),
    "delimited": (DelimitedFind, lambda find, key, loc: DelimitedFinder(find.delimited, loc)),
    "narrow": (NarrowFind, lambda find, key, loc: NarrowFinder(find.narrow, loc)),
    "after-phrase": (AfterPhraseFind, lambda find, key, loc: AfterPhraseFinder(find.after_phrase)),
}
FIND_MODELS: dict[str, type[Word]] = {name: model for name, (model, _) in FINDS.items()}
_COMPILERS = {model: compile_fn for model, compile_fn in FINDS.values()}
Find = word_union(FIND_MODELS)


def compile_find(find: Any, key: int, loc: Loc | None) -> Finder:
    """One validated `find` entry → its Finder (RulesetError for a model no word registered)."""
    compile_fn = _COMPILERS.get(type(find))
    if compile_fn is None:
        raise RulesetError(f"unsupported find {type(find).__name__}", loc, code="E110")
    return compile_fn(find, key, loc)
