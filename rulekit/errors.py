"""One error hierarchy for everything a user can get wrong.

Every user error renders as ``file:line:col: error[CODE]: message``, followed by the offending
source line with a caret and an optional ``help:`` line. The CLI prints them and exits 2; no
Python traceback is shown for a user error.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Loc:
    """A position in a file: 1-based line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class RulekitError(Exception):
    """Base class of every error rulekit reports to a user (exit code 2)."""

    code = "E000"

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
        excerpt = _excerpt(self.loc)
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


def _excerpt(loc: Loc | None) -> list[str]:
    if loc is None or loc.line <= 0:
        return []
    try:
        lines = Path(loc.file).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    if loc.line > len(lines):
        return []
    text = lines[loc.line - 1]
    gutter = str(loc.line)
    return [f"{' ' * len(gutter)} |", f"{gutter} | {text}",
            f"{' ' * len(gutter)} | {' ' * max(loc.col - 1, 0)}^"]
