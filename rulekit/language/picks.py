"""The `pick:` words: how a step turns its kept candidates into an answer (first, last, the only one,
rightmost, ...). Each pick's model (documented by its docstring), the compiled `Picker` and the
registry PICKS live here, with `direct_literal_pick`, which fuses a literal find with its pick.
A new pick is a model, its registry line and its branch in `Picker.__call__`, all in this module.
"""

import random
import re
from typing import Any, Callable, Literal

from pydantic import Field

from rulekit.core.options import OptionSet, pattern_cache
from rulekit.core.trace import Candidate
from rulekit.language.finds import LiteralFinder
from rulekit.language.words import Word, word_union

# ---------------------------------------------------------------- models
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

    rightmost: RightmostOptions = RightmostOptions.model_construct()


class RandomPickOptions(Word):
    """Options of the `random` pick."""

    seed: int = Field(default=0, ge=-(2**63), le=2**63 - 1)


class RandomPick(Word):
    """`random: {seed: 0}` — one of the candidates' distinct answers (in option order), drawn by an RNG
    keyed by (seed, the step's text): the same reply always draws the same answer, in any input
    order or process. It stands for an original whose choice depends on Python's per-process hash
    seed (Atropos' last-resort letter: `for letter in reversed(list(set_of_letters))`), which picks
    each present letter with about equal chance from one run to the next."""

    random: RandomPickOptions = RandomPickOptions.model_construct()


class FirstOf(Word):
    """`first-of: [A, B, C, D, E]` — of the candidates' answers, the one that comes first IN THIS LIST,
    wherever it stands in the text; answers not in the list are never picked (no answer: the step
    passes). DynaMath's `for ch in "ABCDE": if ch in text: return ch` — "the answer is B, not A"
    answers A."""

    first_of: list[str] = Field(min_length=1)


BARE_PICK = Literal["only", "single", "first", "last", "rightmost", "all"]
BARE_PICK_DOC = {
    "only": "fires only when the candidates hold exactly one distinct answer.",
    "single": "fires only when exactly one candidate was found: a repeated answer counts each time, so 'B or B' "
              "does not fire where `only` answers B (Atropos' `len(findall(...)) == 1`).",
    "first": "the earliest candidate in the text.",
    "last": "the candidate that starts last in the text.",
    "rightmost": "the answer whose last occurrence starts furthest right; ties to option order.",
    "all": "every candidate's answer, in order, as a list (open-ended questions).",
}
# name in YAML → (model, (kind, template, ties) the Picker runs). The order is the schema's.
PICKS: dict[str, tuple[type[Word], Callable[[Any], tuple[str, str | None, str]]]] = {
    "rightmost-of": (RightmostOf, lambda p: ("rightmost-of", p.rightmost_of, p.ties)),
    "rightmost": (Rightmost, lambda p: ("rightmost", None, p.rightmost.ties)),
    "random": (RandomPick, lambda p: ("random", None, "option-order")),
    "first-of": (FirstOf, lambda p: ("first-of", None, "option-order")),
}
PICK_MODELS: dict[str, type[Word]] = {name: model for name, (model, _) in PICKS.items()}
_CONFIG = {model: config for model, config in PICKS.values()}
Pick = word_union(PICK_MODELS, BARE_PICK)


# ---------------------------------------------------------------- compiled forms
NO_ANSWER = object()


def _position(c: Candidate) -> int:
    return c.index if c.index >= 0 else c.start


class Picker:
    """Compiled `pick`: `pick(kept, text, opts)` → (answer or NO_ANSWER, reason)."""

    def __init__(self, pick: Any, key: int):
        self.pick = pick
        self.key = key
        config = _CONFIG.get(type(pick))
        if config is not None:
            self.kind, self.template, self.ties = config(pick)
            self.seed = pick.random.seed if self.kind == "random" else 0
            self.order = {a: i for i, a in enumerate(reversed(pick.first_of))} if self.kind == "first-of" else None
        elif pick in BARE_PICK_DOC:
            self.kind, self.template, self.ties = pick, None, "option-order"
            self.seed, self.order = 0, None
        else:
            raise ValueError(f"unsupported pick {pick!r}")

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
        if kind == "first-of":
            order = self.order  # answer → rank, the list's first entry ranked highest (a repeated entry: its first place)
            ranked = [c.answer for c in kept if isinstance(c.answer, str) and c.answer in order]
            if not ranked:
                return NO_ANSWER, (f"none of {len(kept)} candidates is in the `first-of` list" if explain else "")
            best = max(ranked, key=order.__getitem__)
            return best, (f"{best}: first in the `first-of` list of {len(set(ranked))} answers found" if explain else "")
        if len(kept) == 1:
            return kept[0].answer, "one answer found" if kind != "only" else "the only answer found"
        if kind == "single":
            return NO_ANSWER, f"{len(kept)} candidates; `single` needs exactly one" if explain else ""
        if kind == "random":
            order = {l: i for i, l in enumerate(opts.letters)}
            distinct = sorted(dict.fromkeys(c.answer for c in kept), key=lambda a: (order.get(a, len(order)), str(a)))
            drawn = random.Random(f"{self.seed}\x1f{text}").choice(distinct)
            return drawn, (f"drawn from {len(distinct)} answers ({', '.join(map(str, distinct))}) by seed "
                           f"{self.seed} and the text" if explain else "")
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
