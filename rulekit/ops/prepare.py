"""Prepare ops (`prepare:` of a section or a step) compiled into one str → str function."""
from __future__ import annotations

from typing import Callable

from rulekit.core.errors import Loc
from rulekit.core.regex import compile_regex, timed
from rulekit.language import schema as S

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
            pattern = compile_regex(op.remove_regex, loc_of(i))
            fns.append(lambda t, p=pattern: timed(p.sub, "", t))
        elif isinstance(op, S.TruncateOp):
            fns.append(lambda t, n=op.truncate: t[:n])
        elif isinstance(op, S._text.TEXT_OPS):  # extract, slice, split-take, regex-replace: rulekit/ops/textops.py
            from rulekit.ops.textops import compile_text_op
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
