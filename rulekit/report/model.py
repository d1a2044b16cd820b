"""One report of an `eval`, built once from its Results and rendered by every format (terminal, Markdown,
JSON, HTML) so that each shows the same numbers: per ruleset accuracy, expected accuracy, mean score, 95% CI
and outcomes; what each left out and why (not scored, unreadable, errors by reason); the run's warnings,
seed, inputs and command; the like-for-like band; the `--by` breakdowns; and the points of the HTML page's
accuracy chart (per benchmark, or per `--by` value, with a 95% interval)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from rulekit.core.trace import OUTCOMES

# the breakdown columns as a person reads them (the metric keys are `expected_accuracy`, ...)
COLUMN_NAMES = {"n": "n", "accuracy": "accuracy %", "expected_accuracy": "expected %", "score": "score %"}


@dataclass(frozen=True)
class Score:
    """One ruleset's row: its numbers on the records it scored (fractions; None where there is none)."""

    ruleset: str
    n: int
    accuracy: float | None
    expected: float | None
    score: float | None
    ci: tuple[float, float] | None
    outcomes: dict
    fingerprint: str
    seed: int | None


@dataclass(frozen=True)
class BreakdownRow:
    """One value of a breakdown field: its records' count and figures (fractions)."""

    value: str
    n: int | None
    accuracy: float | None
    expected: float | None
    score: float | None


@dataclass(frozen=True)
class Breakdown:
    """A ruleset's figures per value of one field (`metrics: breakdown:` or `--by`)."""

    ruleset: str
    field: str
    rows: list[BreakdownRow]
    show_score: bool


@dataclass(frozen=True)
class ChartPoint:
    """A bar of the accuracy chart: `ruleset` on the records of `group` (a value of the chart's field, or
    `all`), with a 95% Wilson score interval [lo, hi]."""

    group: str
    ruleset: str
    n: int
    accuracy: float
    lo: float
    hi: float


@dataclass
class EvalReport:
    """Everything an `eval` report shows, in the order it is shown (see the module docstring)."""

    scores: list[Score]
    outcomes: list[str]
    show_expected: bool
    show_score: bool
    notes: list[str]
    band: dict | None = None
    breakdowns: list[Breakdown] = field(default_factory=list)
    chart_field: str | None = None
    chart: list[ChartPoint] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seed: int | None = None
    inputs: list[str] = field(default_factory=list)
    command: str | None = None
    headline: str | None = None

    @property
    def several(self) -> bool:
        """More than one ruleset (the results are then each on its own records, the band like for like)."""
        return len(self.scores) > 1

    def run_lines(self) -> list[str]:
        """The run in words: the seed, the inputs and the command (those that are known)."""
        seeds = sorted({s.seed for s in self.scores if s.seed is not None})
        out = []
        if self.seed is not None or seeds:
            out.append(f"seed: {self.seed if self.seed is not None else ', '.join(map(str, seeds))}")
        if self.inputs:
            out.append("input: " + ", ".join(self.inputs))
        if self.command:
            out.append(f"command: {self.command}")
        return out

    def run_footer(self) -> str:
        """`run_lines` as one line, for the foot of the terminal report ("" when none is known)."""
        return " · ".join(self.run_lines())


def captions(results: list) -> list[str]:
    """What each ruleset left out of its numbers, and why: question types it has no section for, records it
    cannot read, errors by reason; then, per benchmark, which built-in rulesets read what some cannot."""
    from rulekit.report.joint import NO_OPTIONS, note_lines, unreadable_notes

    lines = []
    for r in results:
        if r.skipped:
            what = ", ".join(f"{n:,} {t}" for t, n in r.skipped.items())
            lines.append(f"{r.ruleset}: not scored (no section for them): {what}")
        if r.unreadable:
            lines.append(f"{r.ruleset}: {r.unreadable:,} unreadable ({NO_OPTIONS}), "
                         + ("counted wrong (--count-unreadable)" if r.count_unreadable else
                            "left out of n and accuracy (--count-unreadable counts them wrong)"))
        if r.errors:
            lines.append(f"{r.ruleset}: errors by reason: " + "; ".join(
                f"{n:,} {reason or 'other'}" for reason, n in r.errors.items()))
    return lines + note_lines(unreadable_notes(results))


def wilson(right: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a proportion `right / n` (95% by default): [0, 1] for n = 0."""
    if n <= 0:
        return 0.0, 1.0
    p = right / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    lo, hi = max(0.0, centre - half), min(1.0, centre + half)
    return (0.0 if right <= 0 else lo), (1.0 if right >= n else hi)  # exact at the ends (no rounding error)


def _breakdowns(results: list) -> list[Breakdown]:
    """Every ruleset's `by_FIELD` tables, in metric order (none where group metrics take their place)."""
    out = []
    for r in results:
        if "genuine_accuracy" in r.metrics:
            continue
        for key, values in r.metrics.items():
            if not (key.startswith("by_") and isinstance(values, dict) and values
                    and all(isinstance(m, dict) for m in values.values())):
                continue
            rows = [BreakdownRow(str(v), m.get("n"), m.get("accuracy"), m.get("expected_accuracy"),
                                 m.get("score", m.get("accuracy"))) for v, m in values.items()]
            out.append(Breakdown(r.ruleset, key[3:], rows, any("score" in m for m in values.values())))
    return out


def _chart(results: list, breakdowns: list[Breakdown], by: list[str]) -> tuple[str | None, list[ChartPoint]]:
    """The chart's field (`benchmark` when the breakdowns have it, else the first `--by` field, else the first
    breakdown's) and its points, every ruleset per value; without a breakdown, one group `all`."""
    fields = [b.field for b in breakdowns]
    name = next((f for f in ("benchmark", *by, *fields) if f in fields), None)
    points = []
    if name is None:
        for r in results:
            acc = r.metrics.get("accuracy")
            if acc is not None and r.n:
                points.append(ChartPoint("all", r.ruleset, r.n, acc, *wilson(acc * r.n, r.n)))
        return None, points
    values: list[str] = []
    for b in breakdowns:
        if b.field == name:
            values += [row.value for row in b.rows if row.value not in values]
    for value in values:
        for b in breakdowns:
            if b.field != name:
                continue
            row = next((x for x in b.rows if x.value == value), None)
            if row is not None and row.accuracy is not None and row.n:
                points.append(ChartPoint(value, b.ruleset, row.n, row.accuracy, *wilson(row.accuracy * row.n, row.n)))
    return name, points


def build_report(results: list, band: dict | None = None, *, by: list[str] | None = None, seed: int | None = None,
                 inputs: list[str] | None = None, command: str | None = None, headline: str | None = None,
                 warnings: list[str] | None = None) -> EvalReport:
    """The report of `results` (rulekit.run.evaluate.Result, one per ruleset) and `band` (the like-for-like
    comparison, rulekit.report.joint.compare, with several rulesets); `by`: the `--by` fields; the rest says
    how the run was made (shown as given)."""
    own = (band or {}).get("own", {})
    scores = [Score(r.ruleset, r.n, r.metrics.get("accuracy"), r.metrics.get("expected_accuracy"),
                    r.metrics.get("score", r.metrics.get("accuracy")),
                    tuple(ci) if (ci := (own.get(r.ruleset) or {}).get("ci")) else None,
                    dict(r.outcomes), r.fingerprint, r.seed) for r in results]
    breakdowns = _breakdowns(results)
    chart_field, chart = _chart(results, breakdowns, by or [])
    return EvalReport(
        scores=scores,
        outcomes=[o for o in OUTCOMES if o != "unreadable" or any(r.unreadable for r in results)],
        show_expected=any(r.metrics.get("fallback") for r in results),
        show_score=any("score" in r.metrics for r in results),
        notes=captions(results), band=band, breakdowns=breakdowns, chart_field=chart_field, chart=chart,
        warnings=list(warnings or []), seed=seed, inputs=list(inputs or []), command=command, headline=headline)


def json_extra(report: EvalReport) -> dict[str, Any]:
    """What `--format json` adds for the report beyond `results`/`band`/`unreadable`: `warnings` (the run's
    warning lines), only when there are some."""
    return {"warnings": report.warnings} if report.warnings else {}
