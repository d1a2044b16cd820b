"""`--where EXPR`: keep only the records a condition holds for (eval, diff, explain, reproduce).

The condition is the ruleset language's own (`rulekit.language.expr`, the Lark grammar), read over the
whole record as a compare's `cases` sees it (`rulekit.core.record_env`): `benchmark`, `id`, `model`,
`question_type`, `gold`, `text` (the reply), `options`, `meta.NAME`, and the functions (`search`,
`contains`, `lower`, ...). Nothing is evaluated as Python."""
from __future__ import annotations

from typing import Iterable, Iterator

from rulekit.core.errors import ExpressionError, Loc, RulekitError
from rulekit.core.record_env import RecordEnv
from rulekit.core.records import Record
from rulekit.core.terminal import safe
from rulekit.language.expr import ConditionFailed, compile_condition

WHERE_HELP = ("keep only the records this condition holds for (the rulesets' condition language over the record: "
              "benchmark, id, model, question_type, gold, text, options, meta.NAME; e.g. 'benchmark == \"MMMU\"')")


class WhereError(RulekitError):
    """A `--where` condition that cannot be read (its code from the condition family, E201-E204), or that
    cannot be evaluated on one record (E205): shown with the expression and a caret under the column."""

    code = "E205"
    show_excerpt = False  # located at an input record's line: the expression is shown, not the record


class RecordFilter:
    """A compiled `--where` condition with its counts: `read` records offered, `kept` that it held for.

    Call it with a record (True: keep it); `filter(records)` yields the kept ones. A record the condition
    cannot be evaluated on (e.g. `meta.year > 2000` where `year` is text) is an error (E205) naming the
    record, never silently dropped."""

    def __init__(self, source: str):
        self.source = source
        try:
            self.condition = compile_condition(source, Loc("--where", 1, 1))
        except ExpressionError as exc:
            col = exc.loc.col if exc.loc is not None else 1
            raise WhereError(_pointed(f"--where: {exc.message}", source, col), help=exc.help, code=exc.code) from None
        self.read = 0
        self.kept = 0

    def __call__(self, record: Record) -> bool:
        self.read += 1
        try:
            keep = self.condition(RecordEnv(record))
        except ConditionFailed as exc:
            raise WhereError(_pointed(f"--where cannot be evaluated on record `{record.id}`: {exc}", self.source, 0),
                             _record_loc(record), code="E205",
                             help="a field may be absent (None) or hold text in some records; `rulekit vocabulary` "
                                  "lists the names and functions") from None
        if keep:
            self.kept += 1
        return keep

    def filter(self, records: Iterable[Record]) -> Iterator[Record]:
        """The records the condition holds for, in input order (counted in `read` and `kept`)."""
        for record in records:
            if self(record):
                yield record

    def headline(self) -> str:
        """`--where EXPR: kept K of N records`, for a report's title or a note."""
        return f"--where {self.source}: kept {self.kept:,} of {self.read:,} records"


def _record_loc(record: Record) -> Loc | None:
    """`file:line` of a record (`Record.where`) as a Loc, so a split run's worker numbering is corrected."""
    file, _, line = record.where.rpartition(":")
    return Loc(file, int(line), 0) if file and line.isdigit() else None


def _pointed(message: str, source: str, col: int) -> str:
    lines = [message, f"  | {safe(source)}"]
    if col > 0:
        lines.append(f"  | {' ' * (col - 1)}^")
    return "\n".join(lines)


def where_filter(source: str | None) -> RecordFilter | None:
    """The `--where` option's filter (None when it was not given)."""
    return RecordFilter(source) if source is not None else None
