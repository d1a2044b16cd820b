"""Conditions (`when:`, `where:`): Lark grammar → small AST → plain Python closures. Never `eval`.

The AST is plain data (`parse_condition`: nested lists and token dicts), so a compiled-ruleset cache
can keep it and a cache hit compiles conditions without importing Lark at all (`rulekit.language.cache`).

Names a condition can use (see `VARIABLES`) are resolved at compile time, so a misspelt name is a
ruleset error with its file:line:col, not a run-time surprise.
"""
from __future__ import annotations

import difflib
import operator
from functools import lru_cache
from typing import Any, Callable

from rulekit.core.errors import ExpressionError, Loc, RulesetError
from rulekit.core.regex import compile_regex, timed
from rulekit.core.resources import resource_dir

# name → documentation. `step` names are known for the whole step, `candidate` names inside `where:`.
VARIABLES = {
    "words": "number of whitespace-separated words in the step's text (`len(text.split())`).",
    "length": "number of characters in the step's text.",
    "text": "the step's text itself (after its prepare ops; in a compare's `cases`, the prediction), e.g. "
            "`search('^[0-9]+$', text)`.",
    "tokens": "number of tokens of the step's `token` find (its own separators), else `words`.",
    "options": "number of options of the record.",
    "options_length": "total characters of all option texts (as given, before any lowercasing).",
    "letters": "the option letters, in option order (use with `in`).",
    "candidates": "number of candidates the step's find produced (before `where`).",
    "distinct": "number of distinct answers among those candidates.",
    "answer": "(where) the candidate's answer.",
    "start": "(where) character offset where the candidate starts.",
    "end": "(where) character offset where the candidate ends.",
    "index": "(where) token index of the candidate (token finds), else -1.",
    "first_index": "(where) token index of the first occurrence of the candidate's answer.",
    "question_type": "the record's question type (`multiple-choice` or `open`).",
    "benchmark": "the record's benchmark name.",
    "id": "the record's id (as text).",
    "model": "the record's model label.",
    "judge_reply": "true while the section's steps read a judge's reply (a `judge:` fallback), false on the "
                   "model's own reply: a step with `when: judge_reply` reads only judge replies, so a section "
                   "can send every record to its judge (VLMEvalKit's LogicVista).",
    "grading_reply": "true while the steps read a grading judge's reply (`scores: true`, `equal-if-contains`, "
                     "or a judge's `grader`), so a section whose judge extracts and whose grader scores tells the "
                     "two replies apart (VLMEvalKit's MathVerse).",
    "gold": "the record's gold answer, as given (a string, number or list; e.g. `gold in ['yes', 'no']`).",
    "meta.NAME": "a field of the record's `meta` (None when absent).",
}
CANDIDATE_NAMES = {"answer", "start", "end", "index", "first_index"}
NEEDS_CANDIDATES = {"candidates", "distinct"} | CANDIDATE_NAMES

FUNCTIONS = {
    "contains": "contains(S): the step's text contains the string S.",
    "count": "count(S): occurrences of S in the step's text (non-overlapping).",
    "len": "len(X): length of a string or list.",
    "lower": "lower(S): S lowercased.",
    "upper": "upper(S): S uppercased.",
    "isupper": "isupper(S): Python's `S.isupper()` — S has a cased character and every cased character is "
               "uppercase (\"AB\", \"A1\"; not \"\", \"1\", \"Ab\").",
    "isdigit": "isdigit(S): Python's `S.isdigit()` under this interpreter's Unicode tables — S is not empty and "
               "every character is a digit of any script, superscripts and circled digits included (\"12\", \"²\", "
               "\"٣\"; not \"1.5\", \"-1\", \"½\"). DynaMath's `answer.isdigit()` then `float(answer)`: "
               "`isdigit(text) and not isfloat(text)` is the short answer that makes float() raise (\"²\").",
    "isjson": "isjson(S): Python's `json.loads(S)` reads S (any JSON value; NaN and Infinity too, a raw control "
              "character inside a string not). CharXiv's judge reply that is JSON but not the object it needs "
              "scores 0 at once, while one that is not JSON is asked again.",
    "isfloat": "isfloat(S): Python's `float(S)` reads S (surrounding whitespace, a sign, `_` between digits, "
               "\"1e3\", \"inf\", \"nan\" and other scripts' digits are fine; \"1,000\", \"½\" and \"²\" are not).",
    "before": "before(S, SEP): the text of S before the first SEP, all of S when SEP is not in it (Python's "
              "`S.split(SEP)[0]`). DynaMath reads \"2π\" as `float(before(text, 'π'))` times π: "
              "`isfloat(before(text, 'π'))` says whether it can.",
    "isalpha": "isalpha(S): Python's `S.isalpha()` — S is not empty and every character is a letter (\"AB\"; "
               "not \"A B\", \"A\\n\", \"A1\"). VLMEvalKit's LogicVista keeps a judge reply only when "
               "`isupper(answer) and isalpha(answer)`.",
    "search": "search(PATTERN, S): the regular expression PATTERN (a string literal, compiled at load time; "
              "`(?py)` as in finds) is found somewhere in S read as text, like Python `re.search`; an absent "
              "value (None) never matches. Runs with the regex time limit. VLMBlind: "
              "`search('(\\d+)\\s*[xX×,]\\s*(\\d+)', gold)` — the gold is a grid size.",
}
_ARITY = {"contains": 1, "count": 1, "len": 1, "lower": 1, "upper": 1, "isupper": 1, "isalpha": 1, "isdigit": 1, "isjson": 1, "isfloat": 1,
         "before": 2, "search": 2}

_CMP = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "%": operator.mod}


_PARSER_OPTIONS = {"parser": "lalr", "propagate_positions": True}
_TABLES = "condition.tables"


@lru_cache(maxsize=1)
def _parser() -> Any:
    """The condition parser, from LALR tables kept as a Python literal (read with `ast.literal_eval`: no
    pickle): those shipped beside the grammar (`grammars/condition.tables`) when they were made by this
    lark, else those this lark made on an earlier run (`parser-<hash>.tables` in the compiled-ruleset
    cache's directory), else built from the grammar (~0.02 s; ~0.25 s where `interegular` is installed:
    lark's terminal collision check) and written there for the next run. Tables that do not match the
    grammar and this lark's version, or do not load, are not used. Only a ruleset load that misses the
    compiled-ruleset cache parses conditions."""
    from lark import Lark

    grammar = (resource_dir("grammars") / "condition.lark").read_text(encoding="utf-8")
    header = _tables_header(grammar)
    parser = _load_tables(_read_text(resource_dir("grammars") / _TABLES), header)
    if parser is not None:
        return parser
    kept, key = _kept_tables(header)
    if kept is not None:
        from rulekit.core.cachefiles import unseal

        raw = _read_text(kept, binary=True)
        blob = unseal(raw, key) if raw is not None else None  # only tables this user's rulekit wrote
        parser = _load_tables(blob.decode("utf-8", "replace") if blob is not None else None, header)
        if parser is not None:
            return parser
    parser = Lark(grammar, **_PARSER_OPTIONS)
    if kept is not None:
        from rulekit.core.cachefiles import seal, write_atomically

        write_atomically(kept, seal(_tables_text(parser, header).encode("utf-8"), key))
    return parser


def _read_text(path: Any, binary: bool = False) -> Any:
    """A file's text (bytes with `binary`), or None when it cannot be read."""
    try:
        return path.read_bytes() if binary else path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _kept_tables(header: str) -> tuple[Any, Any]:
    """(where this lark's tables for this grammar are kept between runs, this user's cache key): (None, None)
    when the cache is off or its directory is not this user's alone (`core.cachefiles.cache_key`)."""
    import hashlib

    from rulekit.core.cachefiles import cache_dir, cache_key

    directory = cache_dir()
    key = cache_key(directory) if directory is not None else None
    if key is None:
        return None, None
    return directory / f"parser-{hashlib.sha256(header.encode()).hexdigest()[:16]}.tables", key


def _load_tables(text: Any, header: str) -> Any:
    """The parser from a tables text whose first line is `header`, else None."""
    import ast

    from lark import Lark

    if text is None:
        return None
    try:
        first, _, body = text.partition("\n")
        if first != header:
            return None
        tables = ast.literal_eval(body)
        return Lark._load_from_dict(tables["data"], tables["memo"],
                                    **{k: v for k, v in _PARSER_OPTIONS.items() if k != "parser"})
    except Exception:  # noqa: BLE001 - unreadable, damaged or from another lark: not used
        return None


def _tables_text(parser: Any, header: str) -> str:
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    data, memo = parser.memo_serialize([TerminalDef, Rule])
    return header + "\n" + repr(_literal({"data": data, "memo": memo})) + "\n"


def _literal(value: Any) -> Any:
    """`value` with its strings as plain `str` (lark 1.2 serializes rule names as Token objects, whose
    repr is a call that `ast.literal_eval` rightly refuses)."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        return {_literal(k): _literal(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_literal(v) for v in value)
    return value


def _tables_header(grammar: str) -> str:
    import hashlib

    import lark

    return f"# condition parser tables: grammar {hashlib.sha256(grammar.encode()).hexdigest()[:16]}, lark {lark.__version__}"


def parser_tables() -> str:
    """The text of `grammars/condition.tables` for this grammar and lark (tests/test_expr_tables.py checks
    the shipped file matches the grammar; `python -c "from rulekit.language.expr import write_parser_tables;
    write_parser_tables()"` rewrites it after a grammar change)."""
    from lark import Lark

    grammar = (resource_dir("grammars") / "condition.lark").read_text(encoding="utf-8")
    return _tables_text(Lark(grammar, **_PARSER_OPTIONS), _tables_header(grammar))


def write_parser_tables() -> None:
    """Rewrite `grammars/condition.tables` (in a source checkout) from the grammar."""
    from rulekit.core.cachefiles import write_atomically

    write_atomically(resource_dir("grammars") / _TABLES, parser_tables().encode("utf-8"), mode=0o644, quiet=False)


class ConditionFailed(Exception):
    """A condition that parsed but could not be evaluated on one record (e.g. `answer + 1` on text)."""



class PrepareFailed(ConditionFailed):
    """A prepare op refused its text (an unbalanced `\\boxed{` under `unbalanced: fail`). Inside an
    `equivalent` compare the answer is then unequal to everything; in a step's or section's prepare
    the engine reports the record as outcome `error` (this is a ConditionFailed for that reason)."""

class SkipStep(PrepareFailed):
    """A step's own prepare op declined its text (`extract` with `otherwise: skip`): the engine lets
    the step pass, as if its find found nothing. Anywhere else it fails like any PrepareFailed."""


class Condition:
    """A compiled condition: call it with an Env; `names` lists the variables it reads."""

    __slots__ = ("source", "fn", "names", "needs_candidates")

    def __init__(self, source: str, fn: Callable, names: set[str]):
        self.source, self.fn, self.names = source, fn, names
        self.needs_candidates = bool(names & NEEDS_CANDIDATES)
        """True when the condition reads candidate statistics, so it runs after the step's find."""

    def __call__(self, env: Any) -> bool:
        try:
            return bool(self.fn(env))
        except (TypeError, ValueError, ZeroDivisionError, OverflowError, AttributeError) as exc:
            raise ConditionFailed(f"condition `{self.source}` failed: {exc}") from None


class _Token(str):
    """A token of a condition's AST: its text, with the grammar's terminal `type` and its `column`."""

    __slots__ = ("type", "column")

    def __new__(cls, value: str, type_: str, column: int):
        tok = super().__new__(cls, value)
        tok.type, tok.column = type_, column
        return tok


class _Args:
    """The `args` node of a call or list: its children, already built."""

    def __init__(self, children: list):
        self.children = children


# the grammar's node names (its rule aliases), each a method of _Build
_NODES = frozenset({"number", "string", "true", "false", "var", "call", "list", "negate", "arith", "compare",
                    "in_", "not_in", "not_", "and_", "or_", "args"})


class _Build:
    """AST → closures of one argument (the Env): each node name is a method taking its built children."""

    def __init__(self, names: set[str], allow_candidate: bool):
        self.names = names
        self.allow_candidate = allow_candidate

    def build(self, node: Any) -> Any:
        """Build one AST node (see `parse_condition`) and its children, bottom-up."""
        if node is None:  # an absent optional part (`f()`, `[]`)
            return None
        if isinstance(node, dict):
            return _Token(node["v"], node["t"], node["c"])
        children = [self.build(child) for child in node[1:]]
        if node[0] == "args":
            return _Args(children)
        return getattr(self, node[0])(*children)

    def number(self, tok):
        if len(tok) > MAX_DIGITS:
            raise _NameProblem(tok, f"number of {len(tok):,} digits; the limit is {MAX_DIGITS}", [], code="E204")
        value = float(tok) if "." in tok else int(tok)
        fn = lambda env: value  # noqa: E731
        fn.constant = value  # type: ignore[attr-defined]  (read by `compare`)
        return fn

    def string(self, tok):
        value = tok[1:-1]
        fn = lambda env: value  # noqa: E731
        fn.literal = value  # type: ignore[attr-defined]  (read by `search`)
        return fn

    def true(self):
        return lambda env: True

    def false(self):
        return lambda env: False

    def var(self, tok: _Token):
        name = str(tok)
        if name.startswith("meta."):
            key = name[5:]
            self.names.add(name)
            return lambda env: env.record.meta.get(key)
        if name not in VARIABLES:
            raise _NameProblem(tok, f"unknown name `{name}`", difflib.get_close_matches(name, list(VARIABLES), n=1))
        if name in CANDIDATE_NAMES and not self.allow_candidate:
            raise _NameProblem(tok, f"`{name}` describes one candidate and is only known in `where:`", [])
        self.names.add(name)
        if name in CANDIDATE_NAMES:
            return lambda env: getattr(env.candidate, name)
        fn = lambda env: env.get(name)  # noqa: E731
        fn.variable = name  # type: ignore[attr-defined]  (read by `compare`)
        return fn

    def call(self, tok: _Token, args=None):
        name = str(tok)
        fns = list(args.children) if args is not None else []
        if name not in FUNCTIONS:
            raise _NameProblem(tok, f"unknown function `{name}`", difflib.get_close_matches(name, list(FUNCTIONS), n=1))
        if len(fns) != _ARITY[name]:
            raise _NameProblem(tok, f"`{name}` takes {_ARITY[name]} argument(s), got {len(fns)}", [])
        arg = fns[0]
        if name == "search":
            return _search(tok, fns[0], fns[1])
        if name == "contains":
            return lambda env: arg(env) in env.text
        if name == "count":
            return lambda env: env.text.count(arg(env))
        if name == "len":
            return lambda env: len(arg(env))
        if name == "lower":
            return lambda env: str(arg(env)).lower()
        if name == "isupper":
            return lambda env: str(arg(env)).isupper()
        if name == "isalpha":
            return lambda env: str(arg(env)).isalpha()
        if name == "isdigit":
            return lambda env: str(arg(env)).isdigit()
        if name == "isjson":
            return lambda env: _is_json(str(arg(env)))
        if name == "isfloat":
            return lambda env: _is_float(str(arg(env)))
        if name == "before":
            sep = fns[1]
            return lambda env: _before(str(arg(env)), str(sep(env)))
        return lambda env: str(arg(env)).upper()

    def list(self, args=None):
        fns = list(args.children) if args is not None else []
        return lambda env: [f(env) for f in fns]

    def negate(self, a):
        return lambda env: -a(env)

    def arith(self, a, op, b):
        fn = _ARITH[str(op)]
        if str(op) == "*":
            return lambda env: _bounded_mul(a(env), b(env))
        if str(op) == "+":
            return lambda env: _bounded(a(env) + b(env))
        return lambda env: fn(a(env), b(env))

    def compare(self, a, op, b):
        fn = _CMP[str(op)]
        words_left = getattr(a, "variable", None) == "words" and type(getattr(b, "constant", None)) is int
        if words_left or (getattr(b, "variable", None) == "words" and type(getattr(a, "constant", None)) is int):
            # `words > 5` needs to count words only up to 7: split at most that many times
            # (min(words, n + 2) compares with n as words does)
            n = b.constant if words_left else a.constant
            most = min(max(n + 1, 0), 1 << 62)  # str.split's maxsplit is a C size: a bigger n counts all words
            if words_left:
                return lambda env: fn(len(env.text.split(None, most)), n)
            return lambda env: fn(n, len(env.text.split(None, most)))
        return lambda env: _safe_cmp(fn, a(env), b(env))

    def in_(self, a, b):
        return lambda env: a(env) in b(env)

    def not_in(self, a, b):
        return lambda env: a(env) not in b(env)

    def not_(self, a):
        return lambda env: not a(env)

    def and_(self, a, b):
        return lambda env: a(env) and b(env)

    def or_(self, a, b):
        return lambda env: a(env) or b(env)


def _is_json(text: str) -> bool:
    """Whether `json.loads(text)` reads it."""
    import json

    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _is_float(text: str) -> bool:
    """Whether `float(text)` reads it."""
    try:
        float(text)
    except (ValueError, OverflowError):
        return False
    return True


def _before(text: str, sep: str) -> str:
    """`text.split(sep)[0]` (an empty separator, which Python refuses, gives the whole text)."""
    return text.split(sep, 1)[0] if sep else text


def _search(tok: _Token, pattern_fn, value_fn):
    """`search(PATTERN, S)`: PATTERN must be a string literal; it is compiled here, once."""
    source = getattr(pattern_fn, "literal", None)
    if source is None:
        raise _NameProblem(tok, "`search` takes its pattern as a string literal: search('[0-9]+', gold)", [],
                           code="E201")
    try:
        pattern = compile_regex(source, None)
    except RulesetError as exc:
        raise _NameProblem(tok, f"search: {exc.message}", [], code="E201") from None

    def search(env):
        value = value_fn(env)
        return value is not None and timed(pattern.search, value if isinstance(value, str) else str(value)) is not None
    return search


# Size limits of conditions (untrusted data): docs/untrusted.md documents them.
MAX_REPEAT = 100_000      # items in a string or list a condition builds (`*` repetition, `+` concatenation)
MAX_INT_BITS = 4096       # bits of an integer a condition computes (a product of products cannot grow without end)
MAX_DIGITS = 100          # digits of a number literal (E204)
MAX_CONDITION = 10_000    # characters of one condition (E204)


class OverLimit(ValueError):
    """A condition's value went over a size limit (a ValueError: per record, outcome `error`)."""


def _bounded(value):
    """`value`, unless it is a string or list over MAX_REPEAT items or an integer over MAX_INT_BITS bits
    (ValueError: the record's outcome becomes `error`; a condition without variables fails at load)."""
    if isinstance(value, (str, list)):
        if len(value) > MAX_REPEAT:
            raise OverLimit(f"a value longer than {MAX_REPEAT:,} items")
    elif type(value) is int and value.bit_length() > MAX_INT_BITS:
        raise OverLimit(f"a number over {MAX_INT_BITS} bits")
    return value


def _bounded_mul(a, b):
    """`*`, except that repeating a string or list is capped before it is built (a condition cannot
    allocate gigabytes), and so are integer products."""
    for seq, n in ((a, b), (b, a)):
        if isinstance(seq, (str, list)) and isinstance(n, int) and len(seq) * max(n, 0) > MAX_REPEAT:
            raise OverLimit(f"repetition longer than {MAX_REPEAT:,} items")
    if type(a) is int and type(b) is int and a.bit_length() + b.bit_length() > MAX_INT_BITS + 1:
        raise OverLimit(f"a product over {MAX_INT_BITS} bits")
    return a * b


def _safe_cmp(fn, a, b):
    try:
        return fn(a, b)
    except TypeError:
        return False


class _NameProblem(Exception):
    def __init__(self, tok: _Token, message: str, close: list[str], code: str = "E201"):
        super().__init__(message)
        self.tok, self.message, self.close, self.code = tok, message, close, code


class _Constant:
    """The environment a condition without variables is tried in at load time (text functions see "")."""

    text = ""


def compile_condition(source: str, loc: Loc | None = None, *, where: bool = False) -> Condition:
    """Parse and compile a condition; errors carry the position inside the ruleset file."""
    if not isinstance(source, str):
        source = str(source).lower() if isinstance(source, bool) else str(source)
    if len(source) > MAX_CONDITION:
        raise ExpressionError(f"condition of {len(source):,} characters; the limit is {MAX_CONDITION:,}", loc,
                              code="E204")
    names: set[str] = set()
    try:
        fn = _Build(names, where).build(parse_condition(source, loc))
    except _NameProblem as inner:
        if inner.code != "E201":
            raise ExpressionError(inner.message, _shift(loc, inner.tok.column), code=inner.code) from None
        hint = f"did you mean `{inner.close[0]}`?" if inner.close else "see `rulekit vocabulary` for the names"
        raise ExpressionError(inner.message, _shift(loc, inner.tok.column), help=hint, code="E201") from None
    except RecursionError:
        raise ExpressionError("condition nested too deeply", loc, code="E203") from None
    if not names:  # no variables: a value over the size limits is the same for every record, so say so now
        try:
            fn(_Constant())
        except OverLimit as exc:
            raise ExpressionError(f"condition `{_clip(source)}`: {exc}", loc, code="E204") from None
        except Exception:  # a type error and the like: the engine reports it per record, as before
            pass
    return Condition(source, fn, names)


# condition source → its AST: filled by parsing and by a compiled-ruleset cache hit (`language.cache`)
PARSED: dict[str, Any] = {}
# while a ruleset loads the long way: the conditions it parsed (source → AST), for its cache entry
RECORDING: list[dict[str, Any]] = []


def parse_condition(source: str, loc: Loc | None = None) -> Any:
    """A condition's AST as plain data: a node is `[name, child, ...]` (names in `_NODES`), a token
    `{"t": terminal, "v": text, "c": column}`, an absent optional part `None`. Parsed by Lark once per
    source text (kept in `PARSED`); a syntax error is an ExpressionError located in the ruleset."""
    ast = PARSED.get(source)
    if ast is None:
        ast = _parse(source, loc)
    if RECORDING:
        RECORDING[-1][source] = ast
    return ast


def _parse(source: str, loc: Loc | None) -> Any:
    from lark.exceptions import UnexpectedInput

    try:
        ast = _plain(_parser().parse(source))
    except UnexpectedInput as exc:
        raise ExpressionError(_describe(exc, source), _shift(loc, getattr(exc, "column", 1)),
                              help="conditions look like `words > 5 and distinct == 1`", code="E202") from None
    except RecursionError:
        raise ExpressionError("condition nested too deeply", loc, code="E203") from None
    PARSED[source] = ast
    return ast


def _plain(node: Any) -> Any:
    """A Lark tree → the plain AST of `parse_condition`."""
    if node is None:
        return None
    if isinstance(node, str):  # a lark Token
        return {"t": node.type, "v": str(node), "c": node.column}
    return [str(node.data), *(_plain(child) for child in node.children)]


def valid_ast(node: Any, depth: int = 0) -> bool:
    """True when `node` has the shape `parse_condition` gives (node names of the grammar, string
    tokens): how a cache entry's ASTs are checked before they are built (the cache is untrusted)."""
    if depth > 1000:
        return False
    if node is None:
        return True
    if isinstance(node, dict):
        return (set(node) == {"t", "v", "c"} and isinstance(node["t"], str) and isinstance(node["v"], str)
                and type(node["c"]) is int)
    return (isinstance(node, list) and bool(node) and node[0] in _NODES
            and all(valid_ast(child, depth + 1) for child in node[1:]))


def _clip(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


def _shift(loc: Loc | None, column: int | None) -> Loc | None:
    if loc is None:
        return None
    return Loc(loc.file, loc.line, loc.col + max((column or 1) - 1, 0))


def _describe(exc: Any, source: str) -> str:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    if isinstance(exc, UnexpectedEOF):
        return f"condition `{source}` ends too early; expected {_expected(exc.expected)}"
    if isinstance(exc, UnexpectedToken):
        if exc.token.type == "$END":
            return f"condition `{source}` ends too early; expected {_expected(exc.expected)}"
        return f"unexpected `{exc.token}` in condition; expected {_expected(exc.expected)}"
    if isinstance(exc, UnexpectedCharacters):
        return f"unexpected character `{source[exc.pos_in_stream]}` in condition `{source}`"
    return f"cannot parse condition `{source}`"


_TERMINAL_NAMES = {"NAME": "a name", "NUMBER": "a number", "STRING": "a string", "LPAR": "`(`", "RPAR": "`)`",
                   "LSQB": "`[`", "RSQB": "`]`", "CMP": "a comparison", "ADD": "`+`/`-`", "MUL": "`*`/`/`",
                   "COMMA": "`,`", "MINUS": "`-`", "NOT": "`not`", "AND": "`and`", "OR": "`or`", "IN": "`in`",
                   "TRUE": "`true`", "FALSE": "`false`"}


def _expected(expected) -> str:
    names = sorted({_TERMINAL_NAMES.get(e, e.lower()) for e in expected})
    return ", ".join(names[:6]) if names else "more"
