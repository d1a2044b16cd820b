"""A record's options as the finders see them: letters, texts, and the per-letter-set caches of
expanded patterns (`{letter}`, `{option}` templates)."""
from __future__ import annotations


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


def option_set(choices: dict[str, str] | None, fallback_letters: tuple = (), at_least: int = 0,
               counted: tuple | None = None) -> OptionSet:
    """The OptionSet of a record's choices (or of the section's `letters-if-missing` when it has
    none), padded to `at_least` letters (the section's `letters-at-least`). Built per record: it is
    cheap (texts are lowercased only when asked), while looking it up in a cache would hash every
    option text; what steps expand per set of letters is cached by the letters (`pattern_cache`).
    `counted` = (count, among, at_least, if_none), the section's `letters-count`, replaces both:
    the letters are the first N of the alphabet (`counted_letters`)."""
    if counted is not None:
        letters = counted_letters(choices, *counted)
        if not choices:
            found = _NO_CHOICES.get(letters)
            if found is None:
                found = _NO_CHOICES[letters] = OptionSet(dict.fromkeys(letters, ""), has_text=False)
            return found
        if len(letters) == len(choices) and letters == "".join(choices):  # the usual A, B, C, D: as given
            return OptionSet(choices)
        return OptionSet({letter: choices.get(letter, "") for letter in letters})
    if choices:
        if len(choices) < at_least:
            choices = {**choices, **{letter: "" for letter in _more_letters(choices, at_least)}}
        return OptionSet(choices)
    key = (fallback_letters, at_least)
    found = _NO_CHOICES.get(key)
    if found is None:
        letters = {letter: "" for letter in fallback_letters}
        if len(letters) < at_least:
            letters.update({letter: "" for letter in _more_letters(letters, at_least)})
        found = _NO_CHOICES[key] = OptionSet(letters, has_text=False)
    return found


def _more_letters(present, at_least: int) -> list[str]:
    """The first letters A, B, C, ... not in `present`, as many as it takes to have `at_least`."""
    out = []
    for code in range(ord("A"), ord("Z") + 1):
        if len(present) + len(out) >= at_least:
            break
        if chr(code) not in present:
            out.append(chr(code))
    return out


_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def counted_letters(choices: dict | None, count: str, among: str | None, at_least: int, if_none: int | None
                    ) -> str:
    """A section's `letters-count`: the first N letters of the alphabet, as `ascii_uppercase[:N]`,
    where N counts the record's options — every one (`count: all`) or those whose text is a string
    with more than whitespace (`non-blank`, Python's `str.strip()`), only under the letters `among`
    when given — and is at least `at_least`; a record with no options at all gets `if_none`
    letters (else `at_least`)."""
    if not choices:
        return _ALPHABET[:if_none if if_none is not None else at_least]
    n = 0
    for letter, text in choices.items():
        if among is not None and letter not in among:
            continue
        if count == "non-blank" and not (isinstance(text, str) and text.strip()):
            continue
        n += 1
    return _ALPHABET[:max(n, at_least)]
