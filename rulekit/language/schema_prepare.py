"""Vocabulary: prepare ops (`prepare:` of a section or step), each a str → str rewrite; the LaTeX
ones (extract, slice, split-take, regex-replace) live in `schema_text`. Compiled by
`rulekit.ops.prepare`."""
from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import Discriminator, Tag

from rulekit.language import schema_text as _text
from rulekit.language.words import Word, tag_of


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
PREPARE_MODELS = {"strip": StripOp, "strip-ends-each": StripEndsEachOp, "pad": PadOp, "replace": ReplaceOp,
                   "remove-regex": RemoveRegexOp, "truncate": TruncateOp}
PREPARE_MODELS.update(_text.TEXT_PREPARE_MODELS)


PrepareOp = Annotated[
    Union[tuple(Annotated[m, Tag(k)] for k, m in PREPARE_MODELS.items()) + (Annotated[BARE_PREPARE, Tag("bare")],)],
    Discriminator(lambda v: tag_of(v, PREPARE_MODELS)),
]
