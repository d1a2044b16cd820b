"""Regexes from untrusted rulesets: compiled within size limits, run within time limits.

`compile_regex` refuses a pattern over MAX_PATTERN characters or one whose counted repetitions
written out exceed MAX_EXPANSION items (E122), and reports what the `regex` module cannot compile
(E120). `timed` runs one regex call with the per-call limit (REGEX_TIMEOUT) and what is left of the
record's budget (RECORD_BUDGET, kept per thread in `CLOCK`), kept by the `regex` module's `timeout`
or, in a process that opted in, by `rulekit.core.watchdog`. A call past a limit makes that one
record's outcome `error`; nothing is carried over to the next record (no step is ever switched off
for the rest of a run), so a record's decision never depends on the records around it. docs/untrusted.md,
"Untrusted data and limits", documents the defaults.
"""
from __future__ import annotations

import math
import threading
import time
from typing import Any

import regex

from rulekit.core.errors import Loc, RulesetError
from rulekit.core.watchdog import WATCH, Expired

# Limits on the regexes of a ruleset (untrusted data). docs/untrusted.md documents them.
REGEX_TIMEOUT = 1.0      # seconds one regex call may run (CPU under the watchdog); past it, the record is `error`
RECORD_BUDGET = 2.0      # seconds every regex call of one record may run together (all steps, prepare ops)
MAX_PATTERN = 10_000     # characters in one pattern (E122)
MAX_EXPANSION = 100_000  # the pattern's size with its counted repetitions ({m,n}) written out (E122)


class RegexTimeout(Exception):
    """A regex ran past its time limit (`budget` false) or the record's regex budget ran out (true)."""

    def __init__(self, budget: bool = False):
        super().__init__("record budget" if budget else "time limit")
        self.budget = budget


class Clock(threading.local):
    """Where the regex calls of the record being decided stand, one per thread: the regex time `left`
    of its budget (seconds; +inf when no record is being decided, e.g. metrics at the end of a run)
    and the `step` running (the CompiledStep, or the CompiledSection during its own prepare ops),
    which names the step when a limit is hit. An Evaluator decides one record at a time in a thread;
    a thread that decides records beside another (a reward function next to a judge prefetch, a
    caller's own threads) has a clock of its own, so neither spends the other's budget. Only time
    spent inside regex calls counts against the budget (a SymPy compare does not)."""

    def __init__(self) -> None:
        self.left = math.inf
        self.step: Any = None


CLOCK = Clock()


def compile_regex(pattern: str, loc: Loc | None) -> regex.Pattern:
    """A ruleset's pattern compiled (regex module, V0), within the size limits; RulesetError when not."""
    if len(pattern) > MAX_PATTERN:
        raise RulesetError(f"regex of {len(pattern):,} characters; the limit is {MAX_PATTERN:,}", loc, code="E122")
    size = expanded_size(pattern)
    if size > MAX_EXPANSION:
        raise RulesetError(f"regex `{_shorten(pattern)}` repeats too much: written out it is about {size:,} "
                           f"items long, the limit is {MAX_EXPANSION:,}", loc,
                           help="nested counted repetitions multiply ((?:a{1000}){1000} is a million); "
                                "use + or * where the count does not matter", code="E122")
    if pattern.startswith(PY_DIALECT):  # written for Python's re: rulekit.core.pydialect, imported on first use
        from rulekit.core.pydialect import REWRITTEN_HELP, python_re_pattern

        written = python_re_pattern(pattern[len(PY_DIALECT):], loc)
        size = expanded_size(written)
        if size > MAX_EXPANSION:
            raise RulesetError(f"(?py) regex `{_shorten(pattern[len(PY_DIALECT):])}` is about {size:,} items long "
                               f"with its repetitions once its classes are written out for the regex module; the "
                               f"limit is {MAX_EXPANSION:,} items", loc, help=REWRITTEN_HELP, code="E122")
        pattern = written
    try:
        return regex.compile(pattern, regex.V0)
    except regex.error as exc:
        raise RulesetError(f"invalid regex `{pattern}`: {exc}", loc, code="E120") from None
    except RecursionError:
        raise RulesetError("regex nested too deeply", loc, code="E120") from None
    except Exception as exc:  # the regex module has internal errors on odd patterns; never let them out
        raise RulesetError(f"invalid regex `{pattern}`: {type(exc).__name__}: {exc}", loc, code="E120") from None


PY_DIALECT = "(?py)"  # the prefix of a pattern written for Python's `re` (rulekit/core/pydialect.py)


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


def timed(fn, *args):
    """Call a regex method within the limits: the per-call time limit and what is left of the record's
    budget (see `Clock`); iterators are consumed inside the limit. A time-out raises RegexTimeout
    (the engine makes that record's outcome `error`). Under the Watchdog (`watch()`), on the thread
    that owns it and while a record is being decided, the limit is kept by its timer and counts CPU
    time (a busy machine cannot change a decision); else by the `regex` module's `timeout`, which
    counts wall-clock time."""
    clock = CLOCK
    limit = clock.left
    if limit > REGEX_TIMEOUT:
        limit = REGEX_TIMEOUT
    elif limit <= 0:
        raise RegexTimeout(budget=True)
    watch = WATCH
    # the watchdog only while a record is decided (`clock.left` finite): `decide` disarms it at the end
    watched = watch.on and clock.left != math.inf and threading.get_ident() == watch.thread
    now = time.process_time if watched else time.monotonic  # the watchdog counts CPU time, `timeout` wall-clock
    start = now()
    try:
        if watched:
            try:
                try:
                    watch.deadline = start + limit
                    if not watch.armed or watch.expiry > watch.deadline:
                        watch.arm(limit)
                    result = fn(*args)
                    if fn.__name__ == "finditer":
                        result = list(result)
                finally:
                    watch.deadline = math.inf
            except Expired:
                raise TimeoutError from None
        else:
            result = fn(*args, timeout=limit)
            if fn.__name__ == "finditer":
                result = list(result)
    except TimeoutError:
        clock.left -= now() - start
        raise RegexTimeout(budget=limit < REGEX_TIMEOUT) from None
    clock.left -= now() - start
    return result
