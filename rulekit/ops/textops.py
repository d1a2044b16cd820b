"""Compiled forms of the LaTeX-answer vocabulary of `schema_text`: the `boxed` find and the
`extract`, `slice`, `split-take` and `regex-replace` prepare ops (and the box scanner the `boxed`
find shares).

`finders.BoxedFinder` and `prepare.compile_prepare` use them. Regexes run with the compiler's
time limit (a timeout makes the record's outcome `error`).
"""
from __future__ import annotations

import regex

from rulekit.language import schema_text as T
from rulekit.core.regex import compile_regex, timed
from rulekit.core.errors import Loc, RulesetError
from rulekit.language.expr import PrepareFailed
from rulekit.language.finds import boxed_spans


def _regex_answers(pattern: regex.Pattern, group: str, matches: str, text: str) -> list[str]:
    if matches == "first":
        m = timed(pattern.search, text)
        found = [m] if m else []
    else:
        found = timed(pattern.finditer, text)
        if matches == "last":
            found = found[-1:]
    return [m.group(group) for m in found if m.group(group) is not None]


def compile_text_op(op, loc: Loc | None):
    """One of the ops of `schema_text` → a function str → str."""
    if isinstance(op, T.ExtractOp):
        sources = []
        for source in op.extract:
            if isinstance(source, T.BoxedFind):
                spec = source.boxed
                sources.append(lambda t, spec=spec: [t[s:e] for s, e in boxed_spans(t, spec)])
            else:
                pattern = compile_regex(source.regex, loc)
                if source.group not in pattern.groupindex:
                    raise RulesetError(f"regex `{source.regex}` has no named group `(?P<{source.group}>...)`", loc,
                                       code="E121")
                sources.append(lambda t, p=pattern, g=source.group, m=source.matches: _regex_answers(p, g, m, t))
        join = op.join

        def extract(text: str) -> str:
            for source in sources:
                found = source(text)
                if found:
                    return join.join(found)
            return text
        return extract
    if isinstance(op, T.SliceOp):
        if len(op.slice) != 2:
            raise RulesetError("`slice` takes [START, END]", loc, code="E113")
        a, b = op.slice
        return lambda t: t[a:b]
    if isinstance(op, T.SplitTakeOp):
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
    if isinstance(op, T.RegexReplaceOp):
        pattern = compile_regex(op.regex_replace.pattern, loc)
        template = op.regex_replace.with_

        def regex_replace(text: str) -> str:
            try:
                return timed(pattern.sub, template, text)
            except (regex.error, IndexError) as exc:  # a bad group reference in `with`
                raise PrepareFailed(f"`regex-replace`: replacement `{template}`: {exc}") from None
        return regex_replace
    raise RulesetError(f"unsupported prepare op {op!r}", loc)  # pragma: no cover - schema prevents it
