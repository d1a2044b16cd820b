"""`(?py)` patterns: a pattern written for Python's `re` run by the `regex` module with `re`'s meaning.

A ruleset pattern that starts with `(?py)` reproduces an original written with Python's `re`. The
`regex` module reads the same syntax differently in places: its Unicode tables are its own (newer
than the interpreter's: a letter or digit added in Unicode 15 or 16 is `\\w` or `\\d` to it and not
to `re` under Python 3.11), its `\\w` counts combining marks and not "²", its `\\s` misses
\\x1c-\\x1f, and its IGNORECASE folds case by Unicode's case folding where `re` lower-cases with the
interpreter's table plus its own fixes ("ı" and "İ" match "i", "ſ" matches "s", the Kelvin sign "k",
"µ" "μ", ...). So `python_re_pattern` does not patch the pattern's text: Python's own parser
(`re._parser`, `sre_parse` before 3.11) reads it, exactly as `re.compile` would (flags and their
scopes, verbose mode, escapes, set bounds, errors), and the parse tree is written out again for the
`regex` module with every construct whose meaning could differ replaced by the explicit set of code
points that `re` accepts there — found by asking `re` itself over every code point (0..0x10FFFF):

- `\\w \\W \\d \\D \\s \\S` and every `[...]` set that holds one of them, or is read under IGNORECASE;
  a literal character under IGNORECASE (`[Kk\\u212a]` for "k"); `\\b` and `\\B` (from `re`'s `\\w`;
  `\\B` does not match the empty string where `re` says so);
- `.` under DOTALL and `^`/`$` under MULTILINE keep their flag as `(?s:.)`, `(?m:^)`, so flag groups
  (`(?i:...)`, `(?-i:...)`) and global flags need no counterpart in the output; ASCII mode (`(?a)`)
  is asked of `re` like the rest.

Groups keep their names and numbers; possessive quantifiers and atomic groups (Python 3.11's `re` has
them) are written as they are. Beyond Python's syntax, a group name may be used twice (the `regex`
module's shared group, which the built-in rulesets use for "(X)" or "X"), and the `regex` module's
verbs `(*SKIP)`, `(*PRUNE)` and `(*F)`/`(*FAIL)` may stand where a group could open (the built-in
rulesets' linear-time rewrites end a hopeless search with `(*SKIP)(*F)`); they are the `regex`
module's, everything around them is `re`'s. A backreference
under IGNORECASE is refused (`re` compares lower-cased characters, which no class can express).

The sets are computed once per interpreter (`sys.version`, `unicodedata.unidata_version` and the
`regex` module's version key them) and kept beside the compiled-ruleset cache as JSON of integer
ranges (`pydialect-<key>.json`, sealed with the cache's per-user key like its entries); only patterns that need one pay for it: ~20-60 ms per distinct
set or cased letter the first time, nothing after. tests/test_regex_dialect.py proves every
construct equal to `re` over all code points.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import sys
import time
import warnings
from typing import Any

from rulekit.core.errors import Loc, RulesetError

try:  # Python 3.11+
    from re import _compiler as _sre_compile
    from re import _constants as _c
    from re import _parser as _sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_compile as _sre_compile  # type: ignore[no-redef]
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

PY_DIALECT = "(?py)"
MAX_REWRITTEN = 250_000  # characters of a (?py) pattern once written out for the regex module (E122)
FORMAT = 4
SAVE_EVERY = 2.0  # seconds between two writes of the kept sets

_LITERAL, _NOT_LITERAL, _ANY, _IN, _AT = _c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN, _c.AT
_BRANCH, _SUBPATTERN = _c.BRANCH, _c.SUBPATTERN
_MAX_REPEAT, _MIN_REPEAT = _c.MAX_REPEAT, _c.MIN_REPEAT
_POSSESSIVE_REPEAT = getattr(_c, "POSSESSIVE_REPEAT", None)
_ATOMIC_GROUP = getattr(_c, "ATOMIC_GROUP", None)
_ASSERT, _ASSERT_NOT = _c.ASSERT, _c.ASSERT_NOT
_GROUPREF, _GROUPREF_EXISTS = _c.GROUPREF, _c.GROUPREF_EXISTS
_NEGATE, _RANGE, _CATEGORY = _c.NEGATE, _c.RANGE, _c.CATEGORY
_MAXREPEAT = _c.MAXREPEAT
_I, _M, _S, _A, _U = re.IGNORECASE, re.MULTILINE, re.DOTALL, re.ASCII, re.UNICODE
_TYPE_FLAGS = re.ASCII | re.LOCALE | re.UNICODE
_CLASS_FLAGS = _I | _A  # the flags that change which characters a one-character item accepts
_CATEGORY_ESCAPE = {_c.CATEGORY_DIGIT: r"\d", _c.CATEGORY_NOT_DIGIT: r"\D", _c.CATEGORY_SPACE: r"\s",
                    _c.CATEGORY_NOT_SPACE: r"\S", _c.CATEGORY_WORD: r"\w", _c.CATEGORY_NOT_WORD: r"\W"}
# The regex module's nearest reading of each category (Unicode mode): a base that a few corrections
# make exact (see `_Tables.form`); the first that needs the fewest corrections is used.
_CATEGORY_BASES = {_c.CATEGORY_DIGIT: (r"\d",), _c.CATEGORY_NOT_DIGIT: (r"\D",),
                   _c.CATEGORY_SPACE: (r"\s\x1c-\x1f", r"\s"), _c.CATEGORY_NOT_SPACE: (r"\S",),
                   _c.CATEGORY_WORD: (r"\p{L}\p{N}_", r"\w"), _c.CATEGORY_NOT_WORD: (r"\W",)}
_MAX_UNICODE = 0x10FFFF
_SMALL = 8    # a set of at most this many ranges is written out as it is


def python_re_pattern(pattern: str, loc: Loc | None = None) -> str:
    """The `regex` module's pattern for `pattern` (a ruleset pattern with its `(?py)` taken off) read
    as Python's `re` of this interpreter reads it: parsed by `re`'s own parser, written out again
    with `re`'s sets of code points wherever the `regex` module's reading differs (module docstring).
    A pattern `re` refuses is a RulesetError (E120); one that would be written out too long, E122
    (`core.regex.compile_regex` limits its repetitions written out, as for any pattern)."""
    tree, aliases, marks = _parse(pattern, loc)
    out = _Writer(tree.state, aliases, loc, marks).pattern(tree)
    TABLES.save()
    if len(out) > MAX_REWRITTEN:
        raise RulesetError(f"(?py) regex `{_shorten(pattern)}` is {len(out):,} characters long once its classes are "
                           f"written out for the regex module; the limit is {MAX_REWRITTEN:,} characters", loc,
                           help=REWRITTEN_HELP, code="E122")
    return out


REWRITTEN_HELP = "each \\w, \\d, \\b or set under (?py) becomes an explicit class; use fewer of them"


python_re_classes = python_re_pattern  # the earlier name (tests and callers)


def _shorten(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


_DUPLICATE = re.compile(r"\w+")
MAX_SHARED_NAMES = 100
# The regex module's backtracking verbs, which Python's re does not have (the built-in rulesets' linear
# rewrites end a hopeless search with `(*SKIP)(*F)`): `(*F)`/`(*FAIL)` is `(?!)` to both; the others
# are read as a marked negative lookbehind (`_VerbMarks`) and written back as the verb.
_VERB = re.compile(r"\*(SKIP|PRUNE|FAIL|F)\)")  # the verbs the regex module knows
_FAIL_VERBS = ("F", "FAIL")
MAX_VERBS = 1000


class _VerbMarks:
    """The text that stands for a verb while Python's parser reads a pattern: `(?<!` + a noncharacter the
    pattern does not hold (neither as itself nor as a hex escape) + the verb's name + `)`."""

    def __init__(self, pattern: str) -> None:
        low = pattern.lower()
        free = [c for c in range(0xFDD0, 0xFDF0) if chr(c) not in pattern and f"{c:x}" not in low]
        self.mark = chr(free[0]) if free else None
        self.used = 0

    def text(self, verb: str, loc: Loc | None, pattern: str) -> str:
        if verb in _FAIL_VERBS:
            return "(?!)"
        if self.mark is None:
            raise RulesetError(f"(?py) regex `{_shorten(pattern)}` names every character rulekit could mark "
                               f"(*{verb}) with", loc, code="E120")
        self.used += 1
        return f"(?<!{self.mark}{verb})"

    def verb(self, op, av) -> str | None:
        """The verb a node stands for, or None when it is none."""
        if self.mark is None or op is not _ASSERT_NOT or av[0] != -1:
            return None
        items = list(av[1])
        if not items or any(o is not _LITERAL for o, _ in items) or items[0][1] != ord(self.mark):
            return None
        name = "".join(chr(c) for _, c in items[1:])
        return name if name in ("SKIP", "PRUNE") else None


def _parse(pattern: str, loc: Loc | None) -> tuple[Any, dict[str, str], _VerbMarks]:
    """Python's parse tree of `pattern`, {renamed group: its name} for the group names used twice (the
    second and later uses are renamed for `re`, which refuses them, and get their name back when
    written out), and the marks of the regex module's verbs (`(*SKIP)` and the like where `re`'s
    parser stops on them: "nothing to repeat" right after a group's opening, the only place a verb
    can stand — never inside a set, an escape or a comment, which `re` reads without stopping)."""
    aliases: dict[str, str] = {}
    marks = _VerbMarks(pattern)
    original = pattern
    for _ in range(MAX_SHARED_NAMES + MAX_VERBS + 1):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "Possible nested set" and the like: the pattern is used as re reads it
                return _sre_parse.parse(pattern, 0), aliases, marks
        except re.error as exc:
            pos = exc.pos
            verb = _VERB.match(pattern, pos) if pos is not None and pos > 0 and exc.msg == "nothing to repeat" \
                and pattern[pos - 1] == "(" else None
            if verb is not None:
                pattern = pattern[:pos - 1] + marks.text(verb.group(1), loc, original) + pattern[verb.end():]
                continue
            name = _DUPLICATE.match(pattern, pos) if pos is not None and "redefinition of group name" in exc.msg else None
            if name is None or not pattern.startswith(">", name.end()) or len(aliases) >= MAX_SHARED_NAMES:
                if name is not None and len(aliases) >= MAX_SHARED_NAMES:
                    raise RulesetError(f"regex `{_shorten(original)}` uses group names more than {MAX_SHARED_NAMES} "
                                       "times over", loc, code="E120") from None
                raise RulesetError(f"invalid regex `{_shorten(original, 200)}`: {exc.msg} (Python's re, (?py))", loc,
                                   code="E120") from None
            k = len(aliases) + 2
            while f"{name.group()}__py{k}" in pattern:
                k += 1
            new = f"{name.group()}__py{k}"
            aliases[new] = aliases.get(name.group(), name.group())
            pattern = pattern[:name.start()] + new + pattern[name.end():]
        except (RecursionError, OverflowError, ValueError) as exc:
            raise RulesetError(f"invalid regex `{_shorten(original, 200)}`: {type(exc).__name__}: {exc} (Python's re, (?py))",
                               loc, code="E120") from None
    raise RulesetError(f"regex `{_shorten(original)}` uses more than {MAX_VERBS} verbs", loc, code="E120")


def _combine_flags(flags: int, add: int, delete: int) -> int:
    """`re`'s flags inside a flag group: a type flag (a, L, u) replaces the others."""
    if add & _TYPE_FLAGS:
        flags &= ~_TYPE_FLAGS
    return (flags | add) & ~delete


# ---------------------------------------------------------------- writing a tree out for the regex module
def _char(c: int) -> str:
    """One code point as a regex-module literal, in or out of a set: ASCII punctuation escaped, other
    ASCII and non-ASCII controls, separators, format characters and surrogates as `\\x`/`\\u`/`\\U`
    escapes, the rest as itself (a code point this interpreter has not assigned too: one character
    where an escape takes ten, which keeps the long classes short)."""
    ch = chr(c)
    if c < 0x80:
        if ch.isalnum() or ch == "_":
            return ch
        if ch.isprintable() and ch != " ":
            return "\\" + ch
        return f"\\x{c:02x}"
    if ch.isprintable() or (not 0xD800 <= c <= 0xDFFF and _category(ch) == "Cn"):
        return ch
    return f"\\u{c:04x}" if c <= 0xFFFF else f"\\U{c:08x}"


def _category(ch: str) -> str:
    import unicodedata

    return unicodedata.category(ch)


def _items(ranges) -> str:
    return "".join(_char(a) if a == b else f"{_char(a)}-{_char(b)}" if b > a + 1 else _char(a) + _char(b)
                   for a, b in ranges)


def _flat(ranges, negate: bool = False) -> str:
    """A set of the ranges ([^...] of them when `negate`)."""
    if not ranges:
        return "[^\\x00-\\U0010ffff]" if not negate else "[\\x00-\\U0010ffff]"
    return f"[{'^' if negate else ''}{_items(ranges)}]"


def _merged(ranges, keep) -> list[tuple[int, int]]:
    """`ranges` joined across the gaps between them that `keep` says may be joined (a correction may
    also cover characters it makes no difference to): fewer ranges, which the regex module compiles
    slowly (~0.05 ms each)."""
    out: list[tuple[int, int]] = []
    for a, b in ranges:
        if out and (a <= out[-1][1] + 1 or keep(out[-1][1] + 1, a - 1)):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


class _Lookup:
    """Whether a span of code points holds any / only code points of a sorted list of ranges."""

    def __init__(self, ranges) -> None:
        self.ranges = ranges
        self.starts = [a for a, _ in ranges]

    def any(self, a: int, b: int) -> bool:
        import bisect

        i = bisect.bisect_right(self.starts, b) - 1
        return i >= 0 and self.ranges[i][1] >= a

    def all(self, a: int, b: int) -> bool:
        import bisect

        i = bisect.bisect_right(self.starts, a) - 1
        return i >= 0 and self.ranges[i][1] >= b


def _complement(ranges) -> list[tuple[int, int]]:
    out, at = [], 0
    for a, b in ranges:
        if a > at:
            out.append((at, a - 1))
        at = b + 1
    if at <= _MAX_UNICODE:
        out.append((at, _MAX_UNICODE))
    return out


def _minus(x, y) -> list[tuple[int, int]]:
    """Ranges of x not in y (both sorted, disjoint)."""
    out, j = [], 0
    for a, b in x:
        while j < len(y) and y[j][1] < a:
            j += 1
        k = j
        while a <= b:
            if k < len(y) and y[k][0] <= b:
                if y[k][0] > a:
                    out.append((a, y[k][0] - 1))
                a = max(a, y[k][1] + 1)
                k += 1
            else:
                out.append((a, b))
                break
    return out


class _Writer:
    """Writes one parse tree out as a regex-module pattern (see the module docstring)."""

    def __init__(self, state: Any, aliases: dict[str, str], loc: Loc | None, marks: _VerbMarks | None = None):
        self.loc = loc
        self.marks = marks
        self.names = {gid: aliases.get(name, name) for name, gid in state.groupdict.items()}
        self.flags = state.flags
        self.numbers: dict[int, int] = {}     # re's group number → the regex module's
        self.named: dict[str, int] = {}
        self.count = 0

    def pattern(self, tree: Any) -> str:
        self.number(tree)
        return self.seq(tree, self.flags)

    def number(self, items) -> None:
        """The regex module's number of each group, in the order the groups will be written (a name used
        again shares its first group's number, as in the regex module); before writing, since a
        conditional `(?(2)...)` may name a later group."""
        for op, av in items:
            if op is _SUBPATTERN:
                gid = av[0]
                if gid is not None:
                    name = self.names.get(gid)
                    if name is not None and name in self.named:
                        self.numbers[gid] = self.named[name]
                    else:
                        self.count += 1
                        self.numbers[gid] = self.count
                        if name is not None:
                            self.named[name] = self.count
                self.number(av[3])
            elif op is _BRANCH:
                for alt in av[1]:
                    self.number(alt)
            elif op is _MAX_REPEAT or op is _MIN_REPEAT or (op is _POSSESSIVE_REPEAT and op is not None):
                self.number(av[2])
            elif op is _ASSERT or op is _ASSERT_NOT:
                self.number(av[1])
            elif op is _ATOMIC_GROUP and op is not None:
                self.number(av)
            elif op is _GROUPREF_EXISTS:
                self.number(av[1])
                if av[2] is not None:
                    self.number(av[2])

    def seq(self, items, flags: int) -> str:
        return "".join(self.node(op, av, flags)[0] for op, av in items)

    def atom(self, items, flags: int) -> str:
        """`items` as one atom (a quantifier applies to all of it)."""
        items = list(items)
        if len(items) == 1:
            text, atomic = self.node(items[0][0], items[0][1], flags)
            if atomic:
                return text
            return f"(?:{text})"
        return f"(?:{self.seq(items, flags)})"

    def node(self, op, av, flags: int) -> tuple[str, bool]:
        """(the regex module's text for one node, whether it is one atom)."""
        if op is _LITERAL:
            if flags & _I and (av >= 0x80 or chr(av).isalpha()):  # ASCII other than letters has no case (tested)
                return TABLES.expression(f"{_escape(av)}", flags & _CLASS_FLAGS, ()), True
            return _char(av), True
        if op is _NOT_LITERAL:
            if flags & _I and (av >= 0x80 or chr(av).isalpha()):
                return TABLES.expression(f"[^{_escape(av)}]", flags & _CLASS_FLAGS, ()), True
            return f"[^{_char(av)}]", True
        if op is _ANY:
            return ("(?s:.)" if flags & _S else "."), True
        if op is _IN:
            return self.set(av, flags), True
        if op is _AT:
            return self.at(av, flags), True
        if op is _BRANCH:
            return "(?:" + "|".join(self.seq(alt, flags) for alt in av[1]) + ")", True
        if op is _SUBPATTERN:
            gid, add, delete, sub = av
            inner = self.seq(sub, _combine_flags(flags, add, delete))
            if gid is None:
                return f"(?:{inner})", True
            return f"{self.open_group(gid)}{inner})", True
        if op is _MAX_REPEAT or op is _MIN_REPEAT or (op is _POSSESSIVE_REPEAT and op is not None):
            low, high, item = av
            suffix = "?" if op is _MIN_REPEAT else "+" if op is _POSSESSIVE_REPEAT else ""
            return self.atom(item, flags) + _quantifier(low, high) + suffix, False
        if op is _ASSERT_NOT and self.marks is not None:
            verb = self.marks.verb(op, av)
            if verb is not None:
                return f"(*{verb})", False
        if op is _ASSERT or op is _ASSERT_NOT:
            direction, sub = av
            kind = ("=" if op is _ASSERT else "!") if direction == 1 else ("<=" if op is _ASSERT else "<!")
            return f"(?{kind}{self.seq(sub, flags)})", True
        if op is _ATOMIC_GROUP and op is not None:
            return f"(?>{self.seq(av, flags)})", True
        if op is _GROUPREF:
            if flags & _I:
                raise RulesetError("a backreference under IGNORECASE in a (?py) pattern: Python's re compares "
                                   "lower-cased characters there, which the regex module cannot be told", self.loc,
                                   help="turn case-insensitivity off around it with (?-i:...), or drop (?py)",
                                   code="E120")
            return self.reference(av), True
        if op is _GROUPREF_EXISTS:
            gid, yes, no = av
            name = self.names.get(gid)
            cond = name if name is not None else str(self.numbers[gid])
            text = f"(?({cond}){self.seq(yes, flags)}"
            if no is not None:
                text += f"|{self.seq(no, flags)}"
            return text + ")", True
        raise RulesetError(f"(?py): Python's re gives `{op}` here, which rulekit cannot write for the regex module",
                           self.loc, code="E120")

    def open_group(self, gid: int) -> str:
        name = self.names.get(gid)
        return "(" if name is None else f"(?P<{name}>"

    def reference(self, gid: int) -> str:
        name = self.names.get(gid)
        if name is not None:
            return f"(?P={name})"
        return f"\\g<{self.numbers[gid]}>"

    def set(self, items, flags: int) -> str:
        """A [...] set (or a class escape, which re parses as a one-item set)."""
        items = list(items)
        plain = all(op is _LITERAL or op is _RANGE or op is _NEGATE for op, _ in items)
        if plain and not flags & _I:
            negate = bool(items) and items[0][0] is _NEGATE
            body = "".join(_char(av) if op is _LITERAL else f"{_char(av[0])}-{_char(av[1])}"
                           for op, av in items if op is not _NEGATE)
            return f"[{'^' if negate else ''}{body}]"
        return TABLES.expression(_set_text(items), flags & _CLASS_FLAGS, _set_bases(items, flags))

    def at(self, code, flags: int) -> str:
        if code is _c.AT_BEGINNING:
            return "(?m:^)" if flags & _M else "^"
        if code is _c.AT_END:
            return "(?m:$)" if flags & _M else "$"
        if code is _c.AT_BEGINNING_STRING:
            return "\\A"
        if code is _c.AT_END_STRING:
            return "\\Z"
        if code is _c.AT_BOUNDARY or code is _c.AT_NON_BOUNDARY:
            w = TABLES.expression(r"[\w]", flags & _A, _set_bases([(_CATEGORY, _c.CATEGORY_WORD)], flags & _A))
            # a conditional on the character before: W three times, not four (each copy costs compile time)
            if code is _c.AT_BOUNDARY:
                return f"(?(?<={w})(?!{w})|(?={w}))"
            empty = "(?!\\A\\Z)" if not TABLES.non_boundary_on_empty(flags & _A) else ""
            return f"(?(?<={w})(?={w})|(?!{w}){empty})"
        raise RulesetError(f"(?py): Python's re gives the anchor `{code}` here, which rulekit cannot write for the "
                           "regex module", self.loc, code="E120")


def _quantifier(low: int, high: int) -> str:
    if high == _MAXREPEAT:
        return {0: "*", 1: "+"}.get(low, f"{{{low},}}")
    if (low, high) == (0, 1):
        return "?"
    return f"{{{low}}}" if low == high else f"{{{low},{high}}}"


def _escape(c: int) -> str:
    """One code point as `re` pattern text (for asking `re` about it)."""
    return re.escape(chr(c))


def _set_text(items) -> str:
    """A [...] set that `re` parses back to these items."""
    out = []
    for op, av in items:
        if op is _NEGATE:
            out.append("^")
        elif op is _LITERAL:
            out.append(_escape(av))
        elif op is _RANGE:
            out.append(f"{_escape(av[0])}-{_escape(av[1])}")
        elif op is _CATEGORY:
            out.append(_CATEGORY_ESCAPE[av])
        else:
            raise RulesetError(f"(?py): a set item `{op}` rulekit cannot write for the regex module", None, code="E120")
    return "[" + "".join(out) + "]"


def _set_bases(items, flags: int) -> tuple[str, ...]:
    """Regex-module sets close to what `re` makes of `items` (categories read with the regex module's
    properties), for `_Tables.form` to correct."""
    if flags & _A:
        return ()
    negate = bool(items) and items[0][0] is _NEGATE
    parts: list[list[str]] = [[]]
    for op, av in items:
        if op is _LITERAL:
            for p in parts:
                p.append(_char(av))
        elif op is _RANGE:
            for p in parts:
                p.append(f"{_char(av[0])}-{_char(av[1])}")
        elif op is _CATEGORY:
            choices = _CATEGORY_BASES[av]
            parts = [p + [choice] for p in parts for choice in choices][:4]
    bases = tuple(f"[{'^' if negate else ''}{''.join(p)}]" for p in parts)
    if flags & _I:
        bases = tuple(f"(?i:{b})" for b in bases)
    return bases


# ---------------------------------------------------------------- re's sets of code points, kept per interpreter
class _Tables:
    """What `re` accepts for one-character items, computed on demand by running `re` over every code
    point, with the regex-module text that accepts the same ("forms"); kept on disk per interpreter."""

    def __init__(self) -> None:
        self.forms: dict[str, list] = {}
        self.by_program: dict[tuple, list] = {}  # (re's compiled program, bases) → form: "k", "K" and "\u212a" share one
        self.loaded = False
        self.dirty = False
        self.saved_at = -math.inf
        self.flush_at_exit = False
        self._all: str | None = None
        self._boundary: dict[int, bool] = {}

    # ---- the oracle
    def all_code_points(self) -> str:
        """Every code point 0..0x10FFFF, in order, as one string (lone surrogates included)."""
        if self._all is None:
            from array import array

            self._all = array("I", range(_MAX_UNICODE + 1)).tobytes().decode("utf-32-le", "surrogatepass")
        return self._all

    def accepted(self, text: str, flags: int) -> list[tuple[int, int]]:
        """The code points `re` matches with the one-character pattern `text` under `flags`, as ranges."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compiled = re.compile(f"(?:{text})+", flags)
        return [(m.start(), m.end() - 1) for m in compiled.finditer(self.all_code_points())]

    def regex_accepted(self, text: str) -> list[tuple[int, int]]:
        """The code points the regex module matches with the one-character pattern `text`, as ranges."""
        import regex

        compiled = regex.compile(f"(?:{text})+", regex.V0)
        return [(m.start(), m.end() - 1) for m in compiled.finditer(self.all_code_points())]

    def non_boundary_on_empty(self, flags: int) -> bool:
        """Whether this interpreter's `re` finds `\\B` in the empty string (3.14 does, earlier ones not)."""
        if flags not in self._boundary:
            self._boundary[flags] = re.compile(r"\B", flags).search("") is not None
        return self._boundary[flags]

    # ---- forms
    def expression(self, text: str, flags: int, bases: tuple[str, ...]) -> str:
        """The regex-module text (one character, consumed) that accepts what `re` accepts for `text`
        under `flags`."""
        key = f"{int(flags)}:{text}"
        form = self.forms.get(key)
        if form is None:
            self.load()
            form = self.forms.get(key)
            if form is None or not _valid_form(form, len(bases)):
                program = _program(text, flags)
                form = self.by_program.get((program, bases)) if program is not None else None
                if form is None:
                    form = self.form(text, flags, bases)
                    if program is not None:
                        self.by_program[(program, bases)] = form
                self.forms[key] = form
                self.dirty = True
        return _written(form, bases)

    def form(self, text: str, flags: int, bases: tuple[str, ...]) -> list:
        """["set", negate, ranges] or ["base", i, excluded, included, ascii, exact]: the set as it is (or its
        complement, negated), or — for non-ASCII characters — the i-th base less the excluded code points
        plus the included, and its ASCII part as it is (`exact`: the base alone is right everywhere);
        whichever needs the fewest ranges."""
        exact = self.accepted(text, flags)
        other = _complement(exact)
        best: list = ["set", False, exact] if len(exact) <= len(other) else ["set", True, other]
        size = len(best[2])
        if size <= _SMALL:
            return best
        ascii_part = _minus(exact, [(0x80, _MAX_UNICODE)])
        accepted = _Lookup(exact)
        for i, base in enumerate(bases):
            got_all = self.regex_accepted(base)
            got = _minus(got_all, [(0, 0x7F)])
            # the excluded may also cover what re does not accept, the included what it does
            excluded = _merged(_minus(got, exact), lambda a, b: not accepted.any(a, b))
            included = _merged(_minus(_minus(exact, [(0, 0x7F)]), got), lambda a, b: accepted.all(a, b))
            if len(excluded) + len(included) + 1 < size:
                best = ["base", i, excluded, included, ascii_part, got_all == exact]
                size = len(excluded) + len(included) + 1
            if size <= 4 * _SMALL:
                break  # good enough: the next base would cost a scan of every code point
        return best

    # ---- on disk
    def place(self):
        """(the kept file, this user's cache key), or None when the cache is off or its directory is not
        this user's alone (`core.cachefiles.cache_key`: the sets are then computed per process)."""
        from rulekit.core.cachefiles import cache_dir, cache_key

        directory = cache_dir()
        key = cache_key(directory) if directory is not None else None
        if key is None:
            return None
        return directory / f"pydialect-{interpreter_key()[:16]}.json", key

    def path(self):
        place = self.place()
        return place[0] if place is not None else None

    def load(self) -> None:
        """Read the kept forms once (anything unsealed, unreadable or malformed is ignored)."""
        if self.loaded:
            return
        self.loaded = True
        place = self.place()
        if place is None:
            return
        from rulekit.core.cachefiles import unseal

        path, key = place
        try:
            raw = unseal(path.read_bytes(), key)
            data = json.loads(raw) if raw is not None else None
        except (OSError, ValueError):
            return
        if not isinstance(data, dict) or data.get("key") != interpreter_key() or not isinstance(data.get("forms"), dict):
            return
        for name, form in data["forms"].items():
            if isinstance(name, str) and name not in self.forms and _valid_form(form, None):
                self.forms[name] = [form[0], form[1], [tuple(r) for r in form[2]]] if form[0] == "set" else \
                    [form[0], form[1], *([tuple(r) for r in part] for part in form[2:5]), form[5]]

    def save(self, now: bool = False) -> None:
        """Keep the forms computed since the last save (merged with what another process kept), sealed
        with this user's cache key: at once the first time, then at most every SAVE_EVERY seconds, and
        at exit — so compiling many patterns does not rewrite the file for each."""
        if not self.dirty:
            return
        if not now and time.monotonic() - self.saved_at < SAVE_EVERY:
            if not self.flush_at_exit:
                import atexit

                atexit.register(self.save, True)
                self.flush_at_exit = True
            return
        self.dirty = False
        self.saved_at = time.monotonic()
        place = self.place()
        if place is None:
            return
        from rulekit.core.cachefiles import seal, write_atomically

        self.loaded = False
        self.load()  # another process may have added forms meanwhile
        blob = json.dumps({"key": interpreter_key(), "forms": self.forms}, separators=(",", ":"), sort_keys=True)
        write_atomically(place[0], seal(blob.encode("utf-8"), place[1]))


def _program(text: str, flags: int) -> tuple | None:
    """The program `re` compiles `text` to under `flags` (what its matcher runs: two texts with the same
    program accept the same characters), or None where this Python's compiler does not offer it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return tuple(_sre_compile._code(_sre_parse.parse(text, flags), flags))
    except Exception:  # a private function: absent or changed in another Python, the text is its own key
        return None


def _valid_ranges(ranges) -> bool:
    if not isinstance(ranges, (list, tuple)):
        return False
    at = -1
    for r in ranges:
        if not (isinstance(r, (list, tuple)) and len(r) == 2 and all(type(x) is int for x in r)
                and at < r[0] <= r[1] <= _MAX_UNICODE):
            return False
        at = r[1]
    return True


def _valid_form(form, bases: int | None) -> bool:
    """A form as `_Tables.form` makes them (read from disk: untrusted)."""
    if not isinstance(form, (list, tuple)) or not form:
        return False
    if form[0] == "set":
        return len(form) == 3 and type(form[1]) is bool and _valid_ranges(form[2])
    if form[0] == "base":
        return (len(form) == 6 and type(form[1]) is int and 0 <= form[1] and (bases is None or form[1] < bases)
                and _valid_ranges(form[2]) and _valid_ranges(form[3]) and _valid_ranges(form[4])
                and all(b < 0x80 for _, b in form[4]) and type(form[5]) is bool)
    return False


def _written(form: list, bases: tuple[str, ...]) -> str:
    if form[0] == "set":
        if not form[1] and len(form[2]) == 1 and form[2][0][0] == form[2][0][1]:
            return _char(form[2][0][0])
        return _flat(form[2], form[1])
    _, i, excluded, included, ascii_part, exact = form
    text = bases[i]  # read for non-ASCII characters only, unless it is right everywhere
    if exact:
        return text
    if excluded:
        text = f"(?!{_flat(excluded)}){text}"
    if included:
        text = f"{text}|{_flat(included)}"
    text = f"(?![\\x00-\\x7f])(?:{text})"
    if ascii_part:  # most text is ASCII: one set decides it, no lookaround
        text = f"{_flat(ascii_part)}|{text}"
    return f"(?:{text})"


_KEY: list[str] = []


def interpreter_versions() -> str:
    """What the sets depend on: this interpreter (its version and its Unicode tables' version) and the
    regex module's version (the bases' reading). Part of the compiled-ruleset cache's key too."""
    import unicodedata

    import regex

    return (f"python {sys.version}; unicodedata {unicodedata.unidata_version}; maxunicode {sys.maxunicode}; "
            f"regex {regex.__version__}; pydialect {FORMAT}")


def interpreter_key() -> str:
    """A hash of `interpreter_versions()`."""
    if not _KEY:
        _KEY.append(hashlib.sha256(interpreter_versions().encode()).hexdigest())
    return _KEY[0]


TABLES = _Tables()
