"""Vocabulary for LaTeX-style answers: text-rewriting prepare ops (the `boxed` find they use as a
source lives with the other finds, in `finds.py`).

Part of the ruleset vocabulary (`rulekit vocabulary` prints these docstrings); registered in
`schema.py`. Imported by `schema.py` while it loads, after `Word` exists. Compiled by
`rulekit.ops.textops`.
"""
from __future__ import annotations

from typing import Literal, Optional, Union

from pydantic import Field

from rulekit.language import words as _S
from rulekit.language.finds import BoxedFind, BoxedOptions  # noqa: F401 - `boxed` finds are a source of `extract`


class ExtractRegex(_S.Word):
    """A regex source of `extract`: the named group `group` (default `answer`) of its matches
    (`matches: all|first|last`)."""

    regex: str
    group: str = "answer"
    matches: Literal["all", "first", "last"] = "all"


ExtractSource = Union[BoxedFind, ExtractRegex]


class ExtractOp(_S.Word):
    """`extract: [SOURCE, ...]` with `join: ","` — replace the text by what the FIRST source that finds
    anything found, its answers joined with `join`; when no source finds anything the text is left as
    it is. A source is a `boxed` find or `{regex: PATTERN}` (named group `answer`). Example, the
    OlympiadBench preprocessing: every `\\boxed{}` joined with ","; else the `$...$` spans of the last
    line; else the whole text."""

    extract: list[ExtractSource]
    join: str = ""


class SliceOp(_S.Word):
    """`slice: [START, END]` — keep `text[START:END]` (Python slicing: negative counts from the end,
    null is open). `slice: [2, -2]` turns the text `['42']` into `42`."""

    slice: list[Optional[int]]


class SplitTakeSpec(_S.Word):
    """Options of `split-take`."""

    at: str
    index: int = -1
    strip: bool = False


class SplitTakeOp(_S.Word):
    """`split-take: {at: SEP, index: N}` — when SEP occurs, keep piece N of `text.split(SEP)` (Python
    indexing: 1 = between the first and second SEP, -1 = after the last); otherwise unchanged.
    `strip: true` strips whitespace from the kept piece."""

    split_take: SplitTakeSpec


class RegexReplaceSpec(_S.Word):
    """Options of `regex-replace`."""

    pattern: str
    with_: str = Field("", alias="with")


class RegexReplaceOp(_S.Word):
    """`regex-replace: {pattern: P, with: T}` — replace every match of P by T (`\\1` and `\\g<name>` refer
    to groups), like Python `re.sub`; `regex-replace: {pattern: '\\\\mathrm\\{([^}]*)\\}', with: '\\1'}`
    unwraps `\\mathrm{cm}` to `cm`. Runs with the regex time limit."""

    regex_replace: RegexReplaceSpec


TEXT_PREPARE_MODELS = {"extract": ExtractOp, "slice": SliceOp, "split-take": SplitTakeOp,
                       "regex-replace": RegexReplaceOp}
TEXT_OPS = tuple(TEXT_PREPARE_MODELS.values())
