"""Compare an extracted answer with the gold answer, and normalize open-ended answers.

`compare(kind, pred, gold, normalize)` decides the plain compares (`letter`, `contains-or-number`,
`exact`); `rulekit.ops.scoring.verdict` is the one entry point for every compare and calls it for
these. Each compare kind documents itself in the language's schema, where `rulekit vocabulary`
finds it.
"""
from __future__ import annotations

from typing import Any

from rulekit.language import schema as S

def normalize_value(value: Any, spec: S.Normalize) -> list:
    """One answer → its normalized forms (a number, or one or two strings)."""
    s = value if isinstance(value, str) else str(value)
    if spec.strip:
        s = s.strip()
    if spec.number is not None:
        t = s
        for ch in spec.number.remove:
            t = t.replace(ch, "")
        try:
            number = float(t)
        except ValueError:
            pass
        else:
            return [round(number, spec.number.round) if spec.number.round is not None else number]
    if spec.lowercase:
        s = s.lower()
    if spec.pad_single_char is not None and len(s) == 1:
        return [spec.pad_single_char + s, s + spec.pad_single_char]
    return [s]


def normalize_answers(answer: Any, spec: S.Normalize) -> list:
    """Normalize every extracted answer; dedupe keeping first occurrences when asked."""
    out = []
    for a in (answer if isinstance(answer, list) else [answer]):
        out.extend(normalize_value(a, spec))
    if spec.dedupe:
        seen, unique = set(), []
        for v in out:
            key = (type(v) is str, v)
            if key not in seen:
                seen.add(key)
                unique.append(v)
        out = unique
    return out


def compare(kind: Any, pred: Any, gold: Any, normalize: S.Normalize | None) -> bool:
    """Is `pred` correct for `gold` under the section's `compare`?"""
    if pred is None:
        return False
    golds = gold if isinstance(gold, list) else [gold]
    if kind == "letter":
        return any(pred == (g if isinstance(g, str) else str(g)) for g in golds if g is not None)
    if kind == "contains-or-number":
        spec = normalize or S.Normalize()
        norm = []
        for g in golds:
            if g is not None:
                norm.extend(normalize_value(g if isinstance(g, str) else str(g), spec))
        for p in (pred if isinstance(pred, list) else [pred]):
            if isinstance(p, str):
                if any(isinstance(g, str) and g in p for g in norm):
                    return True
            elif any(type(g) is not str and p == g for g in norm):
                return True
        return False
    if not isinstance(kind, S.Exact):  # scored compares (relaxed, anls, mra, yes-no, int, cases, math): scoring.verdict
        raise TypeError(f"compare {kind!r} is not a plain compare; use rulekit.ops.scoring.verdict")
    opts = kind.exact
    a = pred if isinstance(pred, str) else str(pred)
    if opts.strip:
        a = a.strip()
    if opts.case in ("ignore", "lower-prediction"):
        a = a.lower()
    for g in golds:
        if g is None:
            continue
        b = g if isinstance(g, str) else str(g)
        if opts.strip:
            b = b.strip()
        if opts.case == "ignore":
            b = b.lower()
        if a == b:
            return True
    return False
