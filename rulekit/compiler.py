"""Ruleset → CompiledRuleset: plain callables and precompiled `regex` patterns.

The engine never sees YAML or dicts. Patterns that depend on a record's options (`{letter}`,
`{option}`) are expanded once per set of letters (`pattern_cache`), or per record when they use
the option texts (`OptionSet.cache`).
"""
from __future__ import annotations

import math
import re
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable

import regex

from . import schema as S
from .errors import Loc, RulesetError
from .expr import Condition, compile_condition
from .trace import Candidate

# Limits on the regexes of a ruleset (untrusted data). README "Rulesets are untrusted data" documents them.
REGEX_TIMEOUT = 1.0      # seconds one regex call may run; past it, the record's outcome is `error`
RECORD_BUDGET = 2.0      # seconds every regex call of one record may run together (all steps, prepare ops)
SLOW_CALL = 0.25         # a call at least this slow is a strike against its step, like a time-out
STRIKES = 3              # strikes after which a step is cut off for the rest of the run (its records: `error`)
MAX_PATTERN = 10_000     # characters in one pattern (E122)
MAX_EXPANSION = 100_000  # the pattern's size with its counted repetitions ({m,n}) written out (E122)


class RegexTimeout(Exception):
    """A regex ran past its time limit (`budget` false) or the record's regex budget ran out (true)."""

    def __init__(self, budget: bool = False):
        super().__init__("record budget" if budget else "time limit")
        self.budget = budget


class Clock:
    """Where the regex calls of the record being decided stand: the regex time `left` of its budget
    (seconds; +inf when no record is being decided, e.g. metrics at the end of a run), the `step`
    running (the CompiledStep, or the CompiledSection during its own prepare ops) and the `strikes`
    of this record (the steps whose calls timed out or were slow), which the engine counts
    (`Evaluator`). One per process: an Evaluator decides one record at a time. Only time spent inside
    regex calls counts against the budget (a SymPy compare does not)."""

    __slots__ = ("left", "step", "strikes")

    def __init__(self) -> None:
        self.left = math.inf
        self.step: Any = None
        self.strikes: list = []


CLOCK = Clock()


# ---------------------------------------------------------------- options
class OptionSet:
    """A record's options: `letters` in option order and their `texts`; `cache` keeps the
    expansions of steps that use option texts (for the other steps of the same record). All but
    the letters are computed on first use: most records are decided by letter patterns alone."""

    __slots__ = ("letters", "has_text", "_choices", "_texts", "_lower", "_cache", "_shared")

    def __init__(self, choices: dict[str, str], has_text: bool = True):
        self.has_text = has_text
        self.letters = tuple(choices)
        self._choices = choices
        self._texts = self._lower = self._cache = self._shared = None

    @property
    def shared(self) -> dict:
        """Expansions that depend on the letters only, shared by every record with these letters."""
        if self._shared is None:
            found = _BY_LETTERS.get(self.letters)
            if found is None:
                if len(_BY_LETTERS) > 10_000:  # odd inputs with ever new letters cannot grow it forever
                    _BY_LETTERS.clear()
                found = _BY_LETTERS[self.letters] = {}
            self._shared = found
        return self._shared

    @property
    def texts(self) -> tuple[str, ...]:
        """The option texts, in option order."""
        if self._texts is None:
            self._texts = tuple(map(str, self._choices.values()))
        return self._texts

    @property
    def lower_texts(self) -> tuple[str, ...]:
        """The option texts lowercased."""
        if self._lower is None:
            self._lower = tuple(t.lower() for t in self.texts)
        return self._lower

    @property
    def letter_list(self) -> list[str]:
        """The letters as a new list."""
        return list(self.letters)

    @property
    def cache(self) -> dict:
        """Expansions of this record's steps that depend on the option texts."""
        if self._cache is None:
            self._cache = {}
        return self._cache

    @property
    def length(self) -> int:
        """Characters in all option texts together."""
        return sum(map(len, self.texts))


_NO_CHOICES: dict[tuple, OptionSet] = {}
_BY_LETTERS: dict[tuple, dict] = {}


def pattern_cache(opts: OptionSet, uses_option_text: bool) -> dict:
    """Where a step caches its expansions: per option set when they use option texts, else shared by
    every option set with the same letters (most questions have their own texts but A-D letters)."""
    return opts.cache if uses_option_text else opts.shared


def option_set(choices: dict[str, str] | None, fallback_letters: tuple = ()) -> OptionSet:
    """The OptionSet of a record's choices (or of the section's `letters-if-missing` when it has
    none). Built per record: it is cheap (texts are lowercased only when asked), while looking it
    up in a cache would hash every option text; what steps expand per set of letters is cached
    by the letters (`pattern_cache`)."""
    if choices:
        return OptionSet(choices)
    found = _NO_CHOICES.get(fallback_letters)
    if found is None:
        found = _NO_CHOICES[fallback_letters] = OptionSet({l: "" for l in fallback_letters}, has_text=False)
    return found


# ---------------------------------------------------------------- prepare
def compile_prepare(ops: list, loc_of: Callable[[int], Loc | None]) -> Callable[[str], str] | None:
    """A list of prepare ops → one function str → str (None when the list is empty)."""
    fns: list[Callable[[str], str]] = []
    for i, op in enumerate(ops):
        if op == "strip":
            fns.append(str.strip)
        elif op == "lowercase":
            fns.append(str.lower)
        elif op == "uppercase":
            fns.append(str.upper)
        elif op == "collapse-whitespace":
            fns.append(lambda t: " ".join(t.split()))
        elif isinstance(op, S.StripOp):
            chars = op.strip or None
            fns.append(lambda t, c=chars: t.strip(c))
        elif isinstance(op, S.StripEndsEachOp):
            chars = tuple(op.strip_ends_each)
            ends = frozenset("".join(chars))

            def strip_each(t: str, chars=chars, ends=ends) -> str:
                if not t or (t[0] not in ends and t[-1] not in ends):  # no strip could change it
                    return t
                for c in chars:
                    t = t.strip(c)
                return t
            fns.append(strip_each)
        elif isinstance(op, S.PadOp):
            fns.append(lambda t, p=op.pad: f"{p}{t}{p}")
        elif isinstance(op, S.ReplaceOp):
            pairs = tuple(op.replace.items())

            def replace(t: str, pairs=pairs) -> str:
                for a, b in pairs:
                    t = t.replace(a, b)
                return t
            fns.append(replace)
        elif isinstance(op, S.RemoveRegexOp):
            pattern = _compile_regex(op.remove_regex, loc_of(i))
            fns.append(lambda t, p=pattern: _timed(p.sub, "", t))
        elif isinstance(op, S.TruncateOp):
            fns.append(lambda t, n=op.truncate: t[:n])
        elif isinstance(op, S._text.TEXT_OPS):  # extract, slice, split-take, regex-replace: rulekit/textops.py
            from .textops import compile_text_op
            fns.append(compile_text_op(op, loc_of(i)))
    if not fns:
        return None
    if len(fns) == 1:
        return fns[0]

    def run(text: str) -> str:
        for fn in fns:
            text = fn(text)
        return text
    return run


def _compile_regex(pattern: str, loc: Loc | None) -> regex.Pattern:
    """A ruleset's pattern compiled (regex module, V0), within the size limits; RulesetError when not."""
    if len(pattern) > MAX_PATTERN:
        raise RulesetError(f"regex of {len(pattern):,} characters; the limit is {MAX_PATTERN:,}", loc, code="E122")
    size = expanded_size(pattern)
    if size > MAX_EXPANSION:
        raise RulesetError(f"regex `{_shorten(pattern)}` repeats too much: written out it is about {size:,} "
                           f"items long, the limit is {MAX_EXPANSION:,}", loc,
                           help="nested counted repetitions multiply ((?:a{1000}){1000} is a million); "
                                "use + or * where the count does not matter", code="E122")
    try:
        return regex.compile(pattern, regex.V0)
    except regex.error as exc:
        raise RulesetError(f"invalid regex `{pattern}`: {exc}", loc, code="E120") from None
    except RecursionError:
        raise RulesetError("regex nested too deeply", loc, code="E120") from None
    except Exception as exc:  # the regex module has internal errors on odd patterns; never let them out
        raise RulesetError(f"invalid regex `{pattern}`: {type(exc).__name__}: {exc}", loc, code="E120") from None


def _shorten(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


_QUANTIFIER = regex.compile(r"\{(\d*)(?:,(\d*))?\}")


def expanded_size(pattern: str) -> int:
    """About how many items `pattern` has once every counted repetition `X{m,n}` is written out: what
    compiling it costs (the regex module expands counted repeats, so `(?:a{1000}){1000}` takes 280 MB).
    Literal characters, classes and escapes count 1; a group counts its content (alternatives added);
    `X{m,n}` counts X times the larger bound; `*`, `+`, `?` count X once. An estimate from above for
    the shapes that matter; it never runs the pattern."""
    stack: list[list[int]] = [[0, 0]]  # per open group: [size of the content so far, size of the last atom]
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        frame = stack[-1]
        if c == "\\":
            i += 2
            frame[0] += 1
            frame[1] = 1
            continue
        if c == "[":  # a class is one item: skip to its closing bracket (a leading ] or ^] is literal)
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
            frame[0] += 1
            frame[1] = 1
            continue
        if c == "(":
            stack.append([0, 0])
            i += 1
            continue
        if c == ")" and len(stack) > 1:
            inner = stack.pop()[0]
            stack[-1][0] += inner
            stack[-1][1] = inner
            i += 1
            continue
        if c == "{":
            m = _QUANTIFIER.match(pattern, i)
            if m is not None and (m.group(1) or m.group(2)):
                count = max(int(m.group(1) or 0), int(m.group(2) or 0))
                frame[0] += frame[1] * (count - 1)  # the atom was counted once already
                frame[1] *= count
                i = m.end()
                continue
        frame[0] += 1
        frame[1] = 1
        i += 1
    while len(stack) > 1:  # an unbalanced pattern: compile reports it
        inner = stack.pop()[0]
        stack[-1][0] += inner
    return stack[0][0]


def _timed(fn, *args):
    """Call a regex method within the limits: the per-call time limit and what is left of the record's
    budget (see `Clock`); iterators are consumed inside the limit. A time-out raises RegexTimeout; a
    time-out or a call slower than SLOW_CALL is a strike against the step running."""
    clock = CLOCK
    limit = clock.left
    if limit > REGEX_TIMEOUT:
        limit = REGEX_TIMEOUT
    elif limit <= 0:
        raise RegexTimeout(budget=True)
    start = time.monotonic()
    try:
        result = fn(*args, timeout=limit)
        if fn.__name__ == "finditer":
            result = list(result)
    except TimeoutError:
        clock.left -= time.monotonic() - start
        clock.strikes.append(clock.step)
        raise RegexTimeout(budget=limit < REGEX_TIMEOUT) from None
    spent = time.monotonic() - start
    clock.left -= spent
    if spent >= SLOW_CALL:
        clock.strikes.append(clock.step)
    return result


# ---------------------------------------------------------------- finds
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
                 loc: Loc | None, describe: str):
        self.group, self.matches, self.key, self.lower = group, matches, key, lower
        self.transform = {"upper": str.upper, "lower": str.lower, "strip": str.strip}.get(transform)
        self.per_options = "{letters}" in pattern or "{letter}" in pattern
        self.source = pattern
        self.loc = loc
        self.description = describe
        if not self.per_options:
            self.pattern = _compile_regex(pattern, loc)
            if group not in self.pattern.groupindex:
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
            found = _compile_regex(source, self.loc)
            if self.group not in found.groupindex:
                raise RulesetError(f"regex `{self.source}` has no named group `(?P<{self.group}>...)`", self.loc,
                                   help="name the part that is the answer, e.g. (?P<answer>[A-D])", code="E121")
            cache[self.key] = found
        return found

    def find(self, text, opts, full):
        if self.lower:
            text = text.lower()
        pattern = self.compiled(opts)
        if self.matches == "first":
            m = _timed(pattern.search, text)
            found = [m] if m else []
        else:
            found = _timed(pattern.finditer, text)
            if self.matches == "last" and found:
                found = found[-1:]
        out = []
        for m in found:
            value = m.group(self.group)
            if value is None:
                continue
            if self.transform:
                value = self.transform(value)
            out.append(Candidate(value, m.start(self.group), m.end(self.group), m.group()))
        return out


class WholeFinder(Finder):
    """Compiled `whole`: the entire text is one candidate."""

    description = "the whole text"

    def find(self, text, opts, full):
        return [Candidate(text, 0, len(text), text)]


class TailAfterFinder(Finder):
    """Compiled `tail-after`: per segment, the shortest non-empty tail after an indicator."""

    def __init__(self, spec: S.TailAfterFind, loc: Loc | None):
        self.indicators = tuple(spec.tail_after)
        self.extra = tuple(spec.last_segment_extra)
        self.split = _compile_regex(spec.split, loc) if spec.split else None
        self.description = f"text after the last of {list(self.indicators)}" + (f" in segments split at /{spec.split}/" if spec.split else "")

    def find(self, text, opts, full):
        if self.split is not None:
            pieces, spans, pos = [], [], 0
            for m in _timed(self.split.finditer, text):
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


def compile_find(find: Any, key: int, loc: Loc | None) -> Finder:
    """One `find` entry → its Finder."""
    if isinstance(find, S.LiteralFind):
        t = _templates(find.literal)
        return LiteralFinder(t, find.case == "ignore", key, f"literal {list(t)}")
    if isinstance(find, S.PhrasesFind):
        return LiteralFinder(tuple(find.phrases), find.case == "ignore", key, f"any of {len(find.phrases)} phrases")
    if isinstance(find, S.OptionTextFind):
        lower = find.option_text.case == "ignore"
        return LiteralFinder((), lower, key, "option texts" + (" (ignoring case)" if lower else ""), option_text=True)
    if isinstance(find, S.TokenFind):
        t = _templates(find.token)
        return TokenFinder(t, find.separators, find.case == "ignore", key,
                           f"tokens {list(t)} split at {find.separators!r} and whitespace")
    if isinstance(find, S.WordFind):
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
    if isinstance(find, S.RegexFind):
        return RegexFinder(find.regex, find.group, find.matches, find.transform, False, key, loc,
                           f"regex /{find.regex}/")
    if isinstance(find, S.WholeFind):
        return WholeFinder()
    if isinstance(find, S.TailAfterFind):
        return TailAfterFinder(find, loc)
    if isinstance(find, S._text.BoxedFind):
        from .textops import BoxedFinder
        return BoxedFinder(find.boxed)
    raise RulesetError(f"unsupported find {find!r}", loc)  # pragma: no cover - schema prevents it


# ---------------------------------------------------------------- picks
NO_ANSWER = object()


def _position(c: Candidate) -> int:
    return c.index if c.index >= 0 else c.start


class Picker:
    """Compiled `pick`: `pick(kept, text, opts)` → (answer or NO_ANSWER, reason)."""

    def __init__(self, pick: Any, key: int):
        self.pick = pick
        self.key = key
        if isinstance(pick, S.RightmostOf):
            self.kind, self.template, self.ties = "rightmost-of", pick.rightmost_of, pick.ties
        elif isinstance(pick, S.Rightmost):
            self.kind, self.template, self.ties = "rightmost", None, pick.rightmost.ties
        else:
            self.kind, self.template, self.ties = pick, None, "option-order"

    def __call__(self, kept: list[Candidate], text: str, opts: OptionSet, explain: bool = True):
        """(answer or NO_ANSWER, reason); the reason is written out only when `explain` is set."""
        if not kept:
            return NO_ANSWER, "no candidates left"
        kind = self.kind
        if kind == "all":
            return [c.answer for c in kept], f"all {len(kept)} candidates" if explain else ""
        if kind == "first":
            c = min(kept, key=_position)
            return c.answer, f"first candidate, at {c.start}" if explain else ""
        if kind == "last":
            c = max(kept, key=_position)
            return c.answer, f"last candidate, at {c.start}" if explain else ""
        if len(kept) == 1:
            return kept[0].answer, "one answer found" if kind != "only" else "the only answer found"
        distinct = list(dict.fromkeys(c.answer for c in kept))
        if kind == "only":
            if len(distinct) == 1:
                return distinct[0], "the only answer found"
            return NO_ANSWER, (f"{len(distinct)} different answers ({', '.join(map(str, distinct))}); "
                               "`only` needs exactly one") if explain else ""
        if len(distinct) == 1:
            return distinct[0], "one answer found"
        if kind == "rightmost":
            pos = {}
            for c in kept:
                pos[c.answer] = max(pos.get(c.answer, -1), c.start)
        else:
            pos = self.rfinds(distinct, text, opts)
        best = self.rightmost(distinct, pos, opts)
        if not explain:
            return best, ""
        shown = ", ".join(f"{a}@{pos[a]}" for a in distinct)
        what = f"rfind of `{self.template}`" if self.template else "last occurrence"
        return best, f"{len(distinct)} answers, {what}: {shown}; rightmost wins (ties: {self.ties})"

    def rfinds(self, answers: list, text: str, opts: OptionSet) -> dict:
        """`rightmost-of`: each answer's rfind of the pick template in `text` (-1 when absent)."""
        cache = pattern_cache(opts, "{option}" in self.template)
        needles = cache.get(self.key)
        if needles is None:
            needles = cache[self.key] = {l: self.template.replace("{letter}", l).replace("{option}", t)
                                              for l, t in zip(opts.letters, opts.texts)}
        return {a: text.rfind(needles.get(a, self.template.replace("{letter}", str(a)))) for a in answers}

    def rightmost(self, distinct: list, pos: dict, opts: OptionSet) -> Any:
        """The answer at the largest position in `pos`; equal positions go by `ties` (`distinct`
        is in the order the answers were first found, and is reordered in place)."""
        if self.ties == "option-order":
            order = {l: i for i, l in enumerate(opts.letters)}
            distinct.sort(key=lambda a: order.get(a, len(order)))
        ranked = distinct if self.ties != "last" else distinct[::-1]
        best = ranked[0]
        for a in ranked[1:]:
            if pos[a] > pos[best]:
                best = a
        return best


def _letter_probe(template: str, needles: list[tuple[str, str]], lower: bool) -> tuple[re.Pattern, int] | None:
    """For a `{letter}` template with a fixed text before the letter ("({letter})"): one `re` scan,
    `(?=[letters]suffix)` after each occurrence of that prefix, whose matches are the letters
    present — instead of one substring search per letter. Returns (pattern, index of the letter
    in a needle), or None where the scan could miss a needle (a prefix that can overlap itself,
    letters longer than one character) and the needles are searched one by one. The pattern is
    built from escaped literals only: it runs in linear time, so it needs no time limit."""
    if template.count("{letter}") != 1 or "{option}" in template:
        return None
    prefix, suffix = template.split("{letter}")
    if lower:
        prefix, suffix = prefix.lower(), suffix.lower()
    n = len(prefix)
    if not n or any(prefix[:k] == prefix[-k:] for k in range(1, n)):
        return None
    middles = [needle[n:len(needle) - len(suffix)] for _, needle in needles]
    if not middles or any(len(m) != 1 or needle != prefix + m + suffix for m, (_, needle) in zip(middles, needles)):
        return None
    letters = "".join(re.escape(m) for m in middles)
    return re.compile(f"{re.escape(prefix)}(?=([{letters}]){re.escape(suffix)})"), n


def direct_literal_pick(finder: LiteralFinder, picker: Picker) -> Callable[[str, OptionSet], Any] | None:
    """A `literal`/`phrases`/`option-text` find and its pick fused into one call that returns the
    answer (or NO_ANSWER) without building candidates: what the engine runs for such a step when
    nothing traces it. Decides exactly as `picker(finder.find(...))` does (tests/test_roads.py and
    tests/test_fuzz.py compare the two roads); None for picks it does not cover (`all`)."""
    kind = picker.kind
    if kind not in ("rightmost-of", "rightmost", "first", "last", "only") or finder.needs_all:
        return None
    lower, option_text, needles_of, key = finder.lower, finder.option_text, finder.needles, finder.key
    by_letters = not finder.uses_text  # the needles depend on the letters only: look them up inline
    one = finder.templates[0] if len(finder.templates) == 1 and not option_text else ""
    template = one if by_letters and "{letter}" in one else ""  # a candidate for _letter_probe
    probe_key = (key, "probe")  # where the letters' _letter_probe (or None) is kept in OptionSet.shared

    def pick(text: str, opts: OptionSet) -> Any:
        if option_text and not opts.has_text:
            return NO_ANSWER
        if lower:
            text = text.lower()
        shared = opts.shared if by_letters else None
        needles = shared.get(key) if by_letters else None
        if needles is None:
            needles = needles_of(opts)
        probe = None
        if template and kind != "first" and kind != "last":
            probe = shared.get(probe_key, False)
            if probe is False:
                probe = shared[probe_key] = _letter_probe(template, needles, lower)
        if kind == "first" or kind == "last":  # the earliest first / the latest last occurrence
            best, best_at = NO_ANSWER, -1
            for answer, needle in needles:
                at = (text.find(needle) if kind == "first" else text.rfind(needle)) if needle else len(text)
                if at >= 0 and (best is NO_ANSWER or (at < best_at if kind == "first" else at > best_at)):
                    best, best_at = answer, at
            return best
        if probe is not None:  # one scan says which letters occur
            pattern, at = probe
            hits = pattern.findall(text)
            found = [answer for answer, needle in needles if needle[at] in hits] if hits else None
        else:
            found = [answer for answer, needle in needles if needle in text]
        if not found:
            return NO_ANSWER
        first = found[0]
        if len(found) == 1 or found.count(first) == len(found):
            return first
        distinct = list(dict.fromkeys(found))
        if kind == "only":
            return NO_ANSWER
        if kind == "rightmost":  # each answer's last occurrence over all of its needles
            pos = dict.fromkeys(distinct, -1)
            for answer, needle in needles:
                if answer in pos:
                    at = text.rfind(needle) if needle else len(text)
                    if at > pos[answer]:
                        pos[answer] = at
        else:
            pos = picker.rfinds(distinct, text, opts)
        return picker.rightmost(distinct, pos, opts)
    return pick


# ---------------------------------------------------------------- steps and sections
@dataclass(eq=False)  # compared and hashed by identity: the engine counts strikes per step object
class CompiledStep:
    """A step ready to run."""

    id: str
    loc: Loc | None
    look_in: str
    prepare: Callable[[str], str] | None
    when: Condition | None
    finder: Finder | None
    where: Condition | None
    picker: Picker
    answer: str | None
    outcome: str
    skip_to: int | None
    also: list[Finder]
    describe: str
    plain: bool = field(init=False)  # only find → pick: the engine's short road when not tracing
    direct: Callable[[str, OptionSet], Any] | None = field(init=False)  # find → pick in one call (literal finds)

    def __post_init__(self) -> None:
        self.plain = (self.finder is not None and self.prepare is None and self.when is None and self.where is None
                      and self.answer is None and self.skip_to is None and not self.also)
        # a literal find whose step only adds a `prepare` or a `when` that is decided before the find
        fused = (isinstance(self.finder, LiteralFinder) and self.where is None and self.answer is None
                 and self.skip_to is None and not self.also and (self.when is None or not self.when.needs_candidates))
        self.direct = direct_literal_pick(self.finder, self.picker) if fused else None


@dataclass(eq=False)
class CompiledSection:
    """A question type's pipeline ready to run."""

    name: str
    prepare: Callable[[str], str] | None
    steps: list[CompiledStep]
    fallback: Any
    normalize: S.Normalize | None
    compare: Any
    letters_if_missing: tuple = ()


@dataclass
class CompiledRuleset:
    """A validated, compiled ruleset. `sections` maps question type → CompiledSection."""

    name: str
    model: S.Ruleset
    sections: dict[str, CompiledSection]
    fingerprint: str
    files: list[str]
    data: Any = None
    seed: int | None = None
    stream: bool = field(default=False)


_KEY = [0]


def _next_key() -> int:
    _KEY[0] += 1
    return _KEY[0]


def compile_section(name: str, section: S.Section, data: Any) -> CompiledSection:
    """Compile one section; `data` is its Loc-annotated YAML for error positions."""
    raw_steps = data.get("steps", []) if data is not None else []

    def step_loc(i: int, key: str | None = None) -> Loc | None:
        if i >= len(raw_steps):
            return None
        node = raw_steps[i]
        if key and hasattr(node, "locs") and key in node.locs:
            return node.locs[key]
        return getattr(node, "loc", None)

    enabled = [(i, s) for i, s in enumerate(section.steps) if s.enabled]
    ids = [s.id for _, s in enabled]
    all_ids = [s.id for s in section.steps]
    seen: dict[str, int] = {}
    for i, s in enumerate(section.steps):
        if s.id in seen:
            raise RulesetError(f"duplicate step id `{s.id}` (also step {seen[s.id] + 1})", step_loc(i, "id"), code="E130")
        seen[s.id] = i
    steps, errors = [], []
    for position, (i, s) in enumerate(enabled):
        try:
            steps.append(_compile_step(position, i, s, raw_steps, ids, all_ids, step_loc))
        except RulesetError as exc:
            errors.append(exc)
    if errors:
        from .errors import ErrorGroup
        raise ErrorGroup(errors)
    prep_node = data.get("prepare", []) if data is not None else []
    prepare = compile_prepare(section.prepare, lambda k: prep_node.locs[k] if hasattr(prep_node, "locs") else None)
    from .scoring import compile_compare

    compare = compile_compare(section.compare, data.get("compare") if data is not None else None)
    return CompiledSection(name, prepare, steps, section.fallback, section.normalize, compare,
                           tuple(section.letters_if_missing))


def _compile_step(position, i, s, raw_steps, ids, all_ids, step_loc) -> CompiledStep:
    """Compile one enabled step (position among enabled steps, i among all steps)."""
    prep_node = raw_steps[i].get("prepare", []) if i < len(raw_steps) else []
    finder = compile_find(s.find, _next_key(), step_loc(i, "find")) if s.find is not None else None
    also = [compile_find(f, _next_key(), step_loc(i, "also")) for f in s.also]
    skip_to = None
    if s.skip_to is not None:
        if s.skip_to not in all_ids:
            import difflib
            close = difflib.get_close_matches(s.skip_to, all_ids, n=1)
            raise RulesetError(f"`skip-to: {s.skip_to}` names no step", step_loc(i, "skip-to"),
                               help=f"did you mean `{close[0]}`?" if close else None, code="E131")
        if s.skip_to in ids and ids.index(s.skip_to) <= position:
            raise RulesetError(f"`skip-to: {s.skip_to}` must name a LATER step", step_loc(i, "skip-to"), code="E131")
        skip_to = ids.index(s.skip_to) if s.skip_to in ids else len(ids)
    if finder is None and s.answer is None and s.skip_to is None:
        raise RulesetError(f"step `{s.id}` has neither `find` nor `answer`", step_loc(i), code="E132")
    when = compile_condition(s.when, step_loc(i, "when")) if s.when is not None else None
    where = compile_condition(s.where, step_loc(i, "where"), where=True) if s.where is not None else None
    if isinstance(finder, TokenFinder) and where is not None and where.names & {"start", "end"}:
        finder.needs_offsets = True
    if isinstance(finder, LiteralFinder) and (where is not None or (when is not None and "candidates" in when.names)
                                              or s.pick == "all" or s.also):
        finder.needs_all = True
    if isinstance(finder, RegexFinder) and finder.per_options:
        finder.compiled(OptionSet({"A": "", "B": "", "C": "", "D": ""}))  # report a bad pattern at load time
    return CompiledStep(
        id=s.id, loc=step_loc(i), look_in=s.look_in,
        prepare=compile_prepare(s.prepare, lambda k, n=prep_node: n.locs[k] if hasattr(n, "locs") else None),
        when=when, finder=finder, where=where, picker=Picker(s.pick, _next_key()), answer=s.answer,
        outcome=s.outcome, skip_to=skip_to, also=also,
        describe=finder.description if finder else "nothing (fixed answer)")


def load_ruleset(name_or_path: str) -> CompiledRuleset:
    """Load (with `extends:`), validate and compile a ruleset by built-in name or path.

    Raises RulesetError / ErrorGroup with every problem located in its file.
    """
    from pydantic import ValidationError

    from .errors import ErrorGroup
    from .loader import fingerprint, load_data, validation_errors

    data, files = load_data(name_or_path)
    try:
        model = S.Ruleset.model_validate(data)
    except ValidationError as exc:
        raise ErrorGroup(validation_errors(exc, data)) from None
    sections: dict[str, CompiledSection] = {}
    errors: list[RulesetError] = []
    for key, attr in (("multiple-choice", "multiple_choice"), ("open", "open")):
        section = getattr(model, attr)
        if section is None:
            continue
        try:
            sections[key] = compile_section(key, section, data.get(key))
        except ErrorGroup as exc:
            errors.extend(exc.errors)
        except RulesetError as exc:
            errors.append(exc)
    if errors:
        raise ErrorGroup(errors)
    if not sections:
        raise RulesetError("the ruleset has no `multiple-choice` or `open` section", getattr(data, "loc", None), code="E133")
    finals = [S.final_fallback(s.fallback) for s in (model.multiple_choice, model.open) if s is not None]
    seeds = [fb.random_option.seed for fb in finals if isinstance(fb, S.RandomOption)]
    stream = any(fb.random_option.order == "stream" for fb in finals if isinstance(fb, S.RandomOption))
    return CompiledRuleset(model.ruleset, model, sections, fingerprint(data, seeds[0] if seeds else None),
                           [str(f) for f in files], data, seeds[0] if seeds else None, stream)
