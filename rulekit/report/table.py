"""Render evaluation results: rich tables for terminals, JSON and Markdown for files and CI (rich is
imported only where a table is drawn: JSON and Markdown output start faster without it)."""
from __future__ import annotations

from typing import Any

import orjson

from rulekit.core.terminal import json_safe, safe
from rulekit.run.evaluate import Result
from rulekit.core.trace import OUTCOMES
from rulekit.report.model import captions  # noqa: F401  (the results' notes; here before the model was)


def pct(value: Any) -> str:
    """A fraction as a percentage with two decimals ('–' for None)."""
    return "–" if value is None else f"{100 * value:.2f}"


def results_json(results: list[Result], extra: dict | None = None) -> str:
    """`--format json`: {"results": [...]} with unrounded fractions (and `extra`'s keys: `band`, `unreadable`)."""
    payload = {"results": [r.as_json() for r in results]}
    if extra:
        payload.update(extra)
    return orjson.dumps(payload, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()


def report_extra(results: list[Result], band: dict | None) -> dict:
    """What `--format json` (and the HTML page's data) adds beside `results`: `band`, the like-for-like
    comparison (rulekit.report.joint), and `unreadable`, per benchmark the records some ruleset cannot read
    with the built-in rulesets that read them."""
    from rulekit.report.joint import as_plain, unreadable_notes

    extra: dict = {}
    if band:
        extra["band"] = as_plain(band)
    notes = unreadable_notes(results)
    if notes:
        extra["unreadable"] = notes
    return extra


def _has_fallback(results: list[Result]) -> bool:
    return any(r.metrics.get("fallback") for r in results)


def _outcomes(results: list[Result]) -> list[str]:
    """The outcome columns: `unreadable` only where some ruleset has such records."""
    return [o for o in OUTCOMES if o != "unreadable" or any(r.unreadable for r in results)]


def seed_label(r: Result) -> str:
    """` seed=N` after a fingerprint when the ruleset draws letters (its decisions depend on the seed)."""
    return f" seed={r.seed}" if r.seed is not None else ""


def outcomes_text(r: Result, outcomes: list[str], sep: str = ", ") -> str:
    """The outcomes a ruleset's decisions had, the nonzero ones only: `247 rule, 60 unresolved`."""
    return sep.join(f"{r.outcomes[o]:,} {o}" for o in outcomes if r.outcomes.get(o)) or "none"


def results_table(results: list[Result], band: dict | None = None, wide: bool = False) -> Table:
    """One row per ruleset, on the records it scored: accuracy (and expected accuracy when random fallbacks
    happened), the 95% CI when several rulesets run, the outcome of every decision, the fingerprint.

    Compact by default (fits 80 columns: the nonzero outcomes in one column, numbers never cut; the
    fingerprints and notes are `compact_notes`, printed under it); `wide` gives every outcome its own column and the fingerprint its own."""
    if not wide:
        return _compact_results_table(results, band)
    from rich.table import Table
    from rich.text import Text

    several = len(results) > 1
    table = Table(title="rulekit eval" + (": each ruleset on the records it scored" if several else ""),
                  title_justify="left")
    table.add_column("ruleset", style="bold")
    table.add_column("n", justify="right")
    table.add_column("accuracy %", justify="right")
    show_expected = _has_fallback(results)
    if show_expected:
        table.add_column("expected %", justify="right")
    show_score = any("score" in r.metrics for r in results)  # partial credit (ANLS, MRA): mean score
    if show_score:
        table.add_column("score %", justify="right")
    if band:
        table.add_column("95% CI", justify="right")
    outcomes = _outcomes(results)
    for outcome in outcomes:
        table.add_column(outcome, justify="right")
    table.add_column("fingerprint", style="dim")
    for r in results:
        row = [Text(r.ruleset), str(r.n), *_score_cells(r, show_expected, show_score, band)]
        row += [str(r.outcomes.get(o, 0)) for o in outcomes]
        row.append(r.fingerprint + seed_label(r))
        table.add_row(*row)
    lines = captions(results)
    if lines:
        table.caption = "\n".join(lines)
        table.caption_justify = "left"
    return table


def _score_cells(r: Result, show_expected: bool, show_score: bool, band: dict | None) -> list[str]:
    """A results row's accuracy, then the expected accuracy, score and 95% CI where the table shows them."""
    from rulekit.report.joint import ci_text

    cells = [pct(r.metrics.get("accuracy"))]
    if show_expected:
        cells.append(pct(r.metrics.get("expected_accuracy")))
    if show_score:
        cells.append(pct(r.metrics.get("score", r.metrics.get("accuracy"))))
    if band:
        cells.append(ci_text(band["own"].get(r.ruleset, {}).get("ci")))
    return cells


def _compact_results_table(results: list[Result], band: dict | None) -> Table:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    several = len(results) > 1
    table = Table(title="rulekit eval" + (": each ruleset on the records it scored" if several else ""),
                  title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    table.add_column("ruleset", style="bold", overflow="fold")
    number = {"justify": "right", "no_wrap": True}
    table.add_column("n", **number)
    table.add_column("accuracy %", **number)
    show_expected = _has_fallback(results)
    if show_expected:
        table.add_column("expected %", **number)
    show_score = any("score" in r.metrics for r in results)
    if show_score:
        table.add_column("score %", **number)
    if band:
        table.add_column("95% CI", **number)
    outcomes = _outcomes(results)
    table.add_column("outcomes", overflow="fold")
    for r in results:
        row = [Text(r.ruleset), f"{r.n:,}", *_score_cells(r, show_expected, show_score, band)]
        row.append(outcomes_text(r, outcomes, sep="\n"))
        table.add_row(*row)
    return table


def compact_notes(results: list[Result]) -> list[str]:
    """What the compact table prints under itself, at the console's full width: each ruleset's fingerprint,
    then `captions`."""
    several = len(results) > 1
    return [f"fingerprint {r.fingerprint}{seed_label(r)}" + (f" ({r.ruleset})" if several else "")
            for r in results] + captions(results)


def like_for_like_table(band: dict, wide: bool = True) -> Table:
    """The rulesets on the records every one of them scored: accuracy, 95% CI and, with `wide`, what each left
    out of the comparison (and why) in a column of its own; compact (`wide` False, `rulekit eval`'s default:
    it fits 80 columns), that goes under the table (`like_for_like_notes`). `band_line` under it."""
    from rich.table import Table

    from rulekit.report.joint import ci_text, left_out_text

    table = Table(title=f"like for like: the {band['n']:,} records every ruleset scored", title_justify="left")
    cols = (("ruleset", "left"), ("n", "right"), ("accuracy %", "right"), ("95% CI", "right"))
    for col, just in cols + ((("own records left out", "left"),) if wide else ()):
        table.add_column(col, justify=just, overflow="fold", no_wrap=col != "ruleset" and col != "own records left out")
    for name in band["rulesets"]:
        cells = [name, str(band["n"]), pct(band["accuracy"].get(name)), ci_text(band["ci"].get(name))]
        table.add_row(*cells, *([left_out_text(band["left_out"].get(name, {}))] if wide else []))
    return table


def like_for_like_notes(band: dict) -> list[str]:
    """Under the compact like-for-like table: each ruleset's own records left out of it, and why."""
    from rulekit.report.joint import left_out_text

    return [f"{name}: own records left out {left_out_text(band['left_out'][name])}" for name in band["rulesets"]
            if (band["left_out"].get(name) or {}).get("n")]


def by_like_for_like_table(band: dict, name: str, values: dict, wide: bool = True) -> Table:
    """`--by FIELD` across rulesets: per value, each ruleset's accuracy on the value's records every ruleset
    scored, the spread and, with `wide`, the records left out (and why) in a column of its own; compact (`wide`
    False, the default of `rulekit eval`: it fits 80 columns, a value's name folded, never cut), they go under
    the table (`by_like_for_like_notes`). "—" where none was scored by all."""
    from rich.table import Table

    from rulekit.report.joint import left_out_text

    table = Table(title=f"like for like by {name}: per {name}, the records every ruleset scored", title_justify="left")
    table.add_column(name, overflow="fold")
    table.add_column("n", justify="right", no_wrap=True)
    for rs in band["rulesets"]:
        table.add_column(f"{rs} %", justify="right", overflow="fold")
    table.add_column("spread", justify="right", no_wrap=True)
    if wide:
        table.add_column("left out")
    for value, f in values.items():
        spread = pct(f["spread"])
        table.add_row(str(value), str(f["n"]), *(pct(f["accuracy"].get(rs)) for rs in band["rulesets"]), spread,
                      *([left_out_text(f["left_out"])] if wide else []))
    return table


def by_like_for_like_notes(name: str, values: dict) -> list[str]:
    """Under the compact `--by` like-for-like table: per value, the records left out of it, and why."""
    from rulekit.report.joint import left_out_text

    return [f"{name} {value}: left out {left_out_text(f['left_out'])}" for value, f in values.items()
            if (f.get("left_out") or {}).get("n")]


def _md(text: Any) -> str:
    """Text for a Markdown table cell: `|` escaped, line breaks as spaces."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def results_markdown(results: list[Result], band: dict | None = None, report: Any = None) -> str:
    """GitHub-flavoured Markdown: the run (seed, inputs, command), warnings, the results table (each ruleset on
    the records it scored: accuracy, expected, score, 95% CI, outcomes), what each left out, with several
    rulesets the like-for-like table, the band and the `--by` tables across rulesets, then each ruleset's
    breakdowns (`--by`, `metrics: breakdown:`). `report`: the run's rulekit.report.model.EvalReport
    (built from `results` and `band` when None)."""
    from rulekit.report.joint import band_line, ci_text, left_out_lines, left_out_text
    from rulekit.report.model import build_report

    rep = report if report is not None else build_report(results, band)
    band = rep.band
    lines = [f"- {line}" for line in rep.run_lines()]
    if rep.warnings:
        lines += [f"- {w}" for w in rep.warnings]
    if lines:
        lines.append("")
    outcomes = rep.outcomes
    head = ["ruleset", "n", "accuracy %", *(["expected %"] if rep.show_expected else []),
            *(["score %"] if rep.show_score else []), *(["95% CI"] if band else []), *outcomes, "fingerprint"]
    lines += ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 2) + "---|"]
    for s in rep.scores:
        cells = [_md(s.ruleset), f"{s.n:,}", pct(s.accuracy), *([pct(s.expected)] if rep.show_expected else []),
                 *([pct(s.score)] if rep.show_score else []), *([ci_text(s.ci)] if band else []),
                 *(f"{s.outcomes.get(o, 0):,}" for o in outcomes),
                 f"`{s.fingerprint}`" + (f" seed={s.seed}" if s.seed is not None else "")]
        lines.append("| " + " | ".join(cells) + " |")
    if rep.notes:
        lines += [""] + [f"- {line}" for line in rep.notes]
    if band and not band["comparable"]:
        lines += [""] + [f"- {line}" for line in left_out_lines(band)] + ["", band_line(band)]
    elif band:
        lines += ["", f"**Like for like: the {band['n']:,} records every ruleset scored**", "",
                  "| ruleset | n | accuracy % | 95% CI | own records left out |", "|---|---:|---:|---:|---|"]
        for name in band["rulesets"]:
            lines.append(f"| {_md(name)} | {band['n']:,} | {pct(band['accuracy'].get(name))} | "
                         f"{ci_text(band['ci'].get(name))} | {_md(left_out_text(band['left_out'].get(name, {})))} |")
        lines += ["", band_line(band)]
        for field, values in (band.get("by") or {}).items():
            lines += ["", f"**Like for like by {field}** (per {field}, the records every ruleset scored)", "",
                      f"| {field} | n | " + " | ".join(f"{_md(rs)} %" for rs in band["rulesets"]) + " | spread | left out |",
                      "|---|---:|" + "---:|" * len(band["rulesets"]) + "---:|---|"]
            for value, f in values.items():
                spread = pct(f["spread"])
                shares = " | ".join(pct(f["accuracy"].get(rs)) for rs in band["rulesets"])
                lines.append(f"| {_md(value)} | {f['n']:,} | {shares} | {spread} | {_md(left_out_text(f['left_out']))} |")
    own = " (its own records)" if band else ""
    for b in rep.breakdowns:
        head = [b.field, "n", "accuracy %", "expected %", *(["score %"] if b.show_score else [])]
        lines += ["", f"**{_md(b.ruleset)} by {_md(b.field)}{own}**", "", "| " + " | ".join(head) + " |",
                  "|---|" + "---:|" * (len(head) - 1)]
        for x in b.rows:
            lines.append(f"| {_md(x.value)} | {'–' if x.n is None else f'{x.n:,}'} | {pct(x.accuracy)} | "
                         f"{pct(x.expected)} |" + (f" {pct(x.score)} |" if b.show_score else ""))
    return "\n".join(lines)


def print_results(results: list[Result], fmt: str, console: Any, band: dict | None = None,
                  headline: str | None = None, wide: bool = False, report: Any = None) -> None:
    """Print results in the chosen format; group metrics get their own table. With several rulesets (`band`:
    rulekit.report.joint.compare), every cross-ruleset number is on the records all of them scored.
    `headline` (e.g. what `--where` kept) goes in the table's title and above the Markdown (JSON: unchanged);
    `wide`: the full results table (`--wide`), else the compact one that fits 80 columns; `report`: the run's
    rulekit.report.model.EvalReport (its breakdowns, warnings, seed, inputs and command), built when None."""
    from rulekit.report.model import build_report, json_extra

    rep = report if report is not None else build_report(results, band, headline=headline)
    if fmt == "json":
        console.file.write(json_safe(results_json(results, {**report_extra(results, band), **json_extra(rep)})) + "\n")
        return
    if fmt == "markdown":
        console.file.write(safe((f"{headline}\n\n" if headline else "") + results_markdown(results, band, rep)) + "\n")
        return
    table = results_table(results, band, wide=wide)
    if headline:
        table.title = f"{table.title} ({headline})"
    if not wide:  # the title at the console's width, not wrapped to the compact table's
        console.print(table.title, markup=False, highlight=False)
        table.title = None
    console.print(table)
    if not wide:
        for line in compact_notes(results):
            console.print(line, markup=False, highlight=False)
    from rulekit.metrics import render_group_table

    if band:
        from rulekit.report.joint import band_line, left_out_lines

        if band["comparable"]:
            console.print(like_for_like_table(band, wide=wide))
            for line in [] if wide else like_for_like_notes(band):
                console.print(line, markup=False, highlight=False)
        else:
            for line in left_out_lines(band):
                console.print(line)
        console.print(band_line(band))
        for name, values in (band.get("by") or {}).items():
            console.print(by_like_for_like_table(band, name, values, wide=wide))
            for line in [] if wide else by_like_for_like_notes(name, values):
                console.print(line, markup=False, highlight=False)
    own = " (its own records)" if len(results) > 1 else ""
    for r in results:
        if "genuine_accuracy" in r.metrics:
            console.print(render_group_table(r.metrics, f"{r.ruleset}: group metrics (%)"))
        for b in rep.breakdowns:
            if b.ruleset == r.ruleset:
                console.print(_breakdown_table(b, own))
        if "binary" in r.metrics:
            console.print(_binary_table(r.ruleset, r.metrics))
        if r.metrics.get("all_correct"):
            console.print(_all_correct_table(r.ruleset, r.metrics["all_correct"]))
        for name, entry in (r.metrics.get("totals") or {}).items():
            console.print(_totals_table(r.ruleset, name, entry))
    footer = rep.run_footer()  # the seed, the inputs and the command, as the HTML page names them
    if footer:
        from rich.text import Text

        console.print(Text(safe(footer), style="dim", overflow="fold"))


def _totals_table(ruleset: str, name: str, entry: dict) -> Table:
    """`metrics: totals:` — the sums first, then the total of each field value."""
    from rich.table import Table

    table = Table(title=f"{ruleset}: {name} totals", title_justify="left")
    table.add_column("of")
    table.add_column(name, justify="right")
    per_value = next((v for k, v in entry.items() if k.startswith("by_")), {})
    for key, value in entry.items():
        if not key.startswith("by_") and key != "missing":
            table.add_row(key, "—" if value is None else f"{value:.2f}")
    for value, total in per_value.items():
        table.add_row(str(value), f"{total:.2f}")
    if entry.get("missing"):
        table.caption = f"absent from the data: {', '.join(entry['missing'])}"
    return table


def _all_correct_table(ruleset: str, figures: dict) -> Table:
    """`metrics: all-correct:` — each figure (a column) overall and per `by` value (rows)."""
    from rich.table import Table

    table = Table(title=f"{ruleset}: all-correct groups (%)", title_justify="left")
    table.add_column("split")
    names = list(figures)
    for name in names:
        table.add_column(name, justify="right")
    rows: dict[str, list] = {}
    for i, name in enumerate(names):
        for key, values in figures[name].items():
            if key == "overall":
                rows.setdefault("Overall", [None] * len(names))[i] = values
            else:
                for value, share in values.items():
                    rows.setdefault(f"{key[3:]}={value}", [None] * len(names))[i] = share
    for label, shares in rows.items():
        table.add_row(label, *(pct(s) for s in shares))
    return table


def _binary_table(ruleset: str, metrics: dict) -> Table:
    """`metrics: binary:` — F1, precision, recall and accuracy overall and per `by` value."""
    from rich.table import Table

    table = Table(title=f"{ruleset}: yes/no figures (%)", title_justify="left")
    for name in ("split", "n", "f1", "precision", "recall", "accuracy"):
        table.add_column(name, justify="left" if name == "split" else "right")
    rows = [("Overall", metrics["binary"])]
    for key, values in metrics.items():
        if key.startswith("binary_by_") and isinstance(values, dict):
            rows += [(f"{key[len('binary_by_'):]}={value}", m) for value, m in values.items()]
    for label, m in rows:
        table.add_row(label, str(m["n"]), pct(m["f1"]), pct(m["precision"]), pct(m["recall"]), pct(m["accuracy"]))
    return table


def _breakdown_table(b: Any, own: str = "") -> Table:
    """A ruleset's breakdown (rulekit.report.model.Breakdown): per value n, accuracy, expected and score."""
    from rich.table import Table

    table = Table(title=f"{b.ruleset} by {b.field}{own}", title_justify="left")
    table.add_column(b.field)
    table.add_column("n", justify="right")
    table.add_column("accuracy %", justify="right")
    table.add_column("expected %", justify="right")
    if b.show_score:
        table.add_column("score %", justify="right")
    for x in b.rows:
        cells = [x.value, str(x.n), pct(x.accuracy), pct(x.expected)]
        if b.show_score:
            cells.append(pct(x.score))
        table.add_row(*cells)
    return table
