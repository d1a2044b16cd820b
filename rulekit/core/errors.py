"""One error hierarchy for everything a user can get wrong.

Every user error renders as ``file:line:col: error[CODE]: message``, followed by the offending
source line with a caret and an optional ``help:`` line. The CLI prints them and exits 2; no
Python traceback is shown for a user error.
"""
from __future__ import annotations

from dataclasses import dataclass


# Every code rulekit reports, with what it means. tests/test_errors.py checks that each one has a
# fixture holding its exact rendered message (tests/fixtures/{bad,lint,cli}/).
ERROR_CODES = {
    "E100": "the ruleset file is not a mapping",
    "E101": "the file cannot be read as YAML (syntax, a disallowed tag, nesting too deep, aliases expanding past "
            "the node budget, a NUL or a byte that is not UTF-8)",
    "E102": "a mapping key is not a string",
    "E103": "a key appears twice in one mapping (YAML would silently keep the last)",
    "E104": "a tab is used for indentation",
    "E105": "`extends:`/`from:`/`-r` names no built-in ruleset and no file",
    "E106": "an `extends:` override names a step the parent does not have, has no `id`, or places "
            "(`before:`/`after:`) a step the parent has",
    "E107": "`extends:` forms a cycle",
    "E108": "`extends:`/`from:` chains more files than the limit",
    "E110": "unknown key (with the closest known key as a hint)",
    "E111": "a required key is missing",
    "E112": "unknown vocabulary word for a find, pick, fallback, compare or prepare op",
    "E113": "a value has the wrong type or is out of range",
    "E120": "a regex does not compile",
    "E121": "a regex lacks the named group the step reads its answer from",
    "E122": "a regex is over the size limits (pattern length, repetition counts)",
    "E130": "two steps share an id",
    "E131": "`skip-to:` names no step, or an earlier one",
    "E132": "a step has neither `find` nor `answer`",
    "E133": "the ruleset has no `multiple-choice` or `open` section",
    "E140": "a golden-case file lacks `ruleset:` or `cases:`",
    "E201": "a condition names an unknown variable or function, or calls it wrongly",
    "E202": "a condition does not parse",
    "E203": "a condition is nested too deeply",
    "E204": "a condition is over the size limits (its length, a number literal's digits)",
    "E205": "a `--where` condition cannot be evaluated on an input record (e.g. `len(meta.x)` where `x` is absent)",
    "E300": "an input line or row is malformed or lacks a required field",
    "E301": "an input file is corrupt or truncated (gzip, xlsx, parquet)",
    "E302": "an input file is over a reader limit (inflated bytes or ratio, line length, rows, columns, cells, "
            "document or report size, directory depth, image pixels): `RULEKIT_LIMITS` raises it",
    "E303": "a pickle file holds more than plain data (a global other than a numpy scalar's, a call, an object b"
            "uild): refused unread, nothing in it is run",
    "E400": "a command-line option is malformed (e.g. `--field`)",
    "E401": "an input file does not exist",
    "E402": "`--options` is not LETTER=TEXT,...",
    "E403": "`explain` needs `-r` and either `--id ID INPUT` or `--response`",
    "E404": "`explain --id` names no record of the input",
    "E405": "`diff` needs exactly two rulesets",
    "E406": "`--output-dir`, a decisions file or `generate --output` cannot be written (a file in the way, no "
            "permission, a dangling symlink, a directory at the target; at `--output`, a link or not a file)",
    "E407": "a judge cache would be written in a directory other users can write (they could plant links where "
            "SQLite writes)",
    "E408": "`generate --no-chat` with items that have images: a plain prompt has no place for an image (vLLM finds "
            "no placeholder for it; a server's /completions takes none)",
    "E409": "`generate`: the vLLM engine refused an item (a prompt longer than the context, more images than "
            "`limit_mm_per_prompt`, images without their placeholders)",
    "E500": "an OpenAI-compatible server (the judge, `generate --base-url`) cannot be reached or keeps failing",
    "E501": "`--judge-replay`: a judge reply the run needs is not in the cache",
    "E502": "the judge cache is not a readable SQLite database",
    "E503": "a server answered with something that is not a completion (no `choices`, an `error` object, a body "
            "over the size cap)",
    "E510": "a worker process of a split run died (killed by the system, e.g. out of memory): rerun with "
            "`--workers 1`",
    "W301": "lint: a bare yes/no/on/off that YAML turns into a boolean",
    "W302": "lint: a step that always fires hides the steps after it",
    "W303": "lint: a token template contains a separator, so it never matches",
    "W304": "lint: upper-case `{letter}` patterns looked for in lowercased text",
    "W310": "input: a record id appears more than once (each occurrence is scored)",
    "W311": "input: records without a gold answer (scored wrong)",
    "W312": "input: multiple-choice records without options that a chosen ruleset cannot read (outcome "
            "`unreadable`, left out of its accuracy unless --count-unreadable)",
    "W313": "input: spreadsheet cells holding a formula with no cached value (read as empty)",
    "W320": "run: records stopped by a regex time limit (each one `error`; counted per ruleset and step)",
}


@dataclass(frozen=True)
class Loc:
    """A position in a file: 1-based line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        if self.col <= 0:
            return f"{self.file}:{self.line}" if self.line > 0 else self.file
        return f"{self.file}:{self.line}:{self.col}"


class RulekitError(Exception):
    """Base class of every error rulekit reports to a user (exit code 2)."""

    code = "E000"
    show_excerpt = True  # False where the located file is not text (a gzip, xlsx or parquet file)

    def __init__(self, message: str, loc: Loc | None = None, help: str | None = None,
                 code: str | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.help = help
        if code:
            self.code = code

    def render(self) -> str:
        """The full user-facing message, with source excerpt and caret when the file is known."""
        head = f"{self.loc}: " if self.loc else ""
        out = [f"{head}error[{self.code}]: {self.message}"]
        excerpt = _excerpt(self.loc) if self.show_excerpt else []
        if excerpt:
            out.extend(excerpt)
        if self.help:
            out.append(f"  help: {self.help}")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.render()


class RulesetError(RulekitError):
    """A ruleset file that cannot be loaded: YAML, schema, expression or regex problems."""

    code = "E100"


class ExpressionError(RulesetError):
    """A `when:`/`where:` condition that does not parse or names something unknown."""

    code = "E200"


class InputError(RulekitError):
    """A malformed input record or file."""

    code = "E300"


class CorruptInput(InputError):
    """An input file that ends early or is damaged (truncated gzip, broken .xlsx XML, a parquet
    file without its footer): located at the last line or row read, without an excerpt."""

    code = "E301"
    show_excerpt = False


class UsageError(RulekitError):
    """A command-line usage problem."""

    code = "E400"


class ErrorGroup(RulekitError):
    """Several errors found in one pass; all of them are reported."""

    def __init__(self, errors: list[RulekitError]):
        super().__init__(f"{len(errors)} errors")
        self.errors = errors
        self.code = errors[0].code if errors else "E000"

    def render(self) -> str:
        """Every error, in file order, separated by blank lines."""
        return "\n\n".join(e.render() for e in self.errors)


class Warnings:
    """Warnings about the input or the run, found while reading and scoring: counted per code, the first
    occurrence kept (`rulekit eval` prints one line per code on stderr: `warning[W310]: 2 duplicate ids
    (first: r1, line 6)`). With `strict` set (`--strict`), the first warning is raised as an error instead."""

    def __init__(self, strict: bool = False):
        self.strict = strict
        self.found: dict[str, list] = {}  # code -> [count, what, first, loc]

    def warn(self, code: str, what: str, first: str = "", loc: Loc | None = None, count: int = 1) -> None:
        """Count `count` occurrences of warning `code`; `what` names them in the plural ("duplicate ids"),
        `first` describes the first one ("r1, line 6")."""
        if self.strict:
            raise RulekitError(f"{what}" + (f" (first: {first})" if first else "") + "; --strict makes warnings errors",
                               loc, code=code)
        entry = self.found.get(code)
        if entry is None:
            self.found[code] = [count, what, first, loc]
        else:
            entry[0] += count

    def lines(self) -> list[str]:
        """One rendered line per warning code, in code order."""
        out = []
        for code in sorted(self.found):
            count, what, first, loc = self.found[code]
            where = f"{loc}: " if loc else ""
            out.append(f"{where}warning[{code}]: {count:,} {what}" + (f" (first: {first})" if first else ""))
        return out

    def clear(self) -> None:
        """Forget every warning (a new command starts)."""
        self.found.clear()


WARNINGS = Warnings()


def warn(code: str, what: str, first: str = "", loc: Loc | None = None, count: int = 1) -> None:
    """Record a warning in the process-wide collector (see `Warnings`)."""
    WARNINGS.warn(code, what, first, loc, count)


EXCERPT_WINDOW = 60  # characters of the offending line shown on each side of the column
_CONTROL = dict.fromkeys([*range(0x20), 0x7f, *range(0x80, 0xa0)], "\ufffd")
del _CONTROL[0x09]  # a tab stays a tab (E104 points at it)


def _line_window(path: str, line: int, col: int) -> tuple[str, int, bool, bool] | None:
    """(text, caret index, cut before?, cut after?) of a window of at most 2 x EXCERPT_WINDOW
    characters of line `line` of `path` around column `col`, read as a stream: a 500 MB line costs
    a scan, never a copy. Undecodable bytes show as U+FFFD; None when the file or line is absent."""
    import codecs

    try:
        f = open(path, "rb")
    except OSError:
        return None
    with f:
        if f.read(4).startswith((b"\x1f\x8b", b"PK\x03\x04", b"PAR1")):
            return None  # gzip, xlsx (zip) or parquet: no text line to show
        f.seek(0)
        n, chunk, rest = 1, b"", b""
        while n < line:  # skip to the line's start
            chunk = f.read(1 << 20)
            if not chunk:
                return None
            i = -1
            while n < line:
                i = chunk.find(b"\n", i + 1)
                if i < 0:
                    break
                n += 1
            rest = chunk[i + 1:] if n == line else b""
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        before, after, seen, cut_after = "", "", 0, False
        want = max(col - 1, 0)
        data = rest or f.read(1 << 16)
        if not data:
            return None  # the file ends before this line
        while True:
            end = data.find(b"\n")
            text = decoder.decode(data if end < 0 else data[:end], final=end >= 0 or not data)
            if seen < want:
                take = text[:want - seen]
                before = (before + take)[-EXCERPT_WINDOW:]
                seen += len(take)
                text = text[len(take):]
            if seen >= want:
                after += text
                if len(after) > EXCERPT_WINDOW:
                    after, cut_after = after[:EXCERPT_WINDOW], True
                    break
            if end >= 0 or not data:
                break
            data = f.read(1 << 16)
    cut_before = seen > len(before)
    text = (before + after).translate(_CONTROL).rstrip("\r")
    return text, len(before), cut_before, cut_after


def _excerpt(loc: Loc | None) -> list[str]:
    """The gutter, the offending line (a window around the column, control characters replaced)
    and a caret under the column."""
    if loc is None or loc.line <= 0:
        return []
    window = _line_window(loc.file, loc.line, loc.col)
    if window is None:
        return []
    text, caret, cut_before, cut_after = window
    if cut_before:
        text, caret = "…" + text, caret + 1
    if cut_after:
        text += "…"
    gutter = str(loc.line)
    return [f"{' ' * len(gutter)} |", f"{gutter} | {text}", f"{' ' * len(gutter)} | {' ' * caret}^"]
