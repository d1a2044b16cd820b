"""Render evaluation results: rich tables for terminals, JSON and Markdown for files and CI (rich is
imported only where a table is drawn: JSON and Markdown output start faster without it)."""
from __future__ import annotations

from typing import Any

import orjson

from rulekit.core.terminal import json_safe, safe
from rulekit.run.evaluate import Result
from rulekit.core.trace import OUTCOMES


def pct(value: Any) -> str:
    """A fraction as a percentage with two decimals ('–' for None)."""
    return "–" if value is None else f"{100 * value:.2f}"


def results_json(results: list[Result], extra: dict | None = None) -> str:
    """`--format json`: {"results": [...]} with unrounded fractions."""
    payload = {"results": [r.as_json() for r in results]}
    if extra:
        payload.update(extra)
    return orjson.dumps(payload, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()


def _has_fallback(results: list[Result]) -> bool:
    return any(r.metrics.get("fallback") for r in results)


def results_table(results: list[Result], band: dict | None = None) -> Table:
    """One row per ruleset: accuracy (and expected accuracy when random fallbacks happened), outcomes."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title="rulekit eval", title_justify="left")
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
    for outcome in OUTCOMES:
        table.add_column(outcome, justify="right")
    table.add_column("fingerprint", style="dim")
    for r in results:
        row = [Text(r.ruleset), str(r.n), pct(r.metrics.get("accuracy"))]
        if show_expected:
            row.append(pct(r.metrics.get("expected_accuracy")))
        if show_score:
            row.append(pct(r.metrics.get("score", r.metrics.get("accuracy"))))
        if band:
            lo, hi = band["ci"].get(r.ruleset, (None, None))
            row.append(f"{pct(lo)}–{pct(hi)}")
        row += [str(r.outcomes.get(o, 0)) for o in OUTCOMES]
        row.append(r.fingerprint + (f" seed={r.seed}" if r.seed is not None else ""))
        table.add_row(*row)
    captions = []
    for r in results:
        if r.skipped:
            what = ", ".join(f"{n} {t}" for t, n in r.skipped.items())
            captions.append(f"{r.ruleset}: not scored (no section for them): {what}")
        if r.errors:
            captions.append(f"{r.ruleset}: errors by reason: " + "; ".join(
                f"{n:,} {reason or 'other'}" for reason, n in r.errors.items()))
    if band and band.get("spread") is not None:
        captions.append(f"extraction band: {pct(band['min'])}–{pct(band['max'])} "
                        f"(spread {100 * band['spread']:.2f} points across {len(results)} rulesets)")
    if captions:
        table.caption = "\n".join(captions)
        table.caption_justify = "left"
    return table


def results_markdown(results: list[Result]) -> str:
    """A GitHub-flavoured Markdown table of the results."""
    head = ["ruleset", "n", "accuracy %", "expected %", *OUTCOMES, "fingerprint"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        cells = [r.ruleset, str(r.n), pct(r.metrics.get("accuracy")), pct(r.metrics.get("expected_accuracy")),
                 *(str(r.outcomes.get(o, 0)) for o in OUTCOMES), f"`{r.fingerprint}` seed={r.seed}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def print_results(results: list[Result], fmt: str, console: Any, band: dict | None = None) -> None:
    """Print results in the chosen format; group metrics get their own table."""
    if fmt == "json":
        console.file.write(json_safe(results_json(results, {"band": band} if band else None)) + "\n")
        return
    if fmt == "markdown":
        console.file.write(safe(results_markdown(results)) + "\n")
        return
    console.print(results_table(results, band))
    from rulekit.metrics import render_group_table

    for r in results:
        if "genuine_accuracy" in r.metrics:
            console.print(render_group_table(r.metrics, f"{r.ruleset}: group metrics (%)"))
        for key, value in r.metrics.items():
            if key.startswith("by_") and isinstance(value, dict) and "genuine_accuracy" not in r.metrics:
                console.print(_breakdown_table(r.ruleset, key[3:], value))
        if "binary" in r.metrics:
            console.print(_binary_table(r.ruleset, r.metrics))
        if r.metrics.get("all_correct"):
            console.print(_all_correct_table(r.ruleset, r.metrics["all_correct"]))
        for name, entry in (r.metrics.get("totals") or {}).items():
            console.print(_totals_table(r.ruleset, name, entry))


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


def _breakdown_table(ruleset: str, name: str, values: dict) -> Table:
    from rich.table import Table

    table = Table(title=f"{ruleset} by {name}", title_justify="left")
    table.add_column(name)
    table.add_column("n", justify="right")
    table.add_column("accuracy %", justify="right")
    table.add_column("expected %", justify="right")
    show_score = any(isinstance(m, dict) and "score" in m for m in values.values())
    if show_score:
        table.add_column("score %", justify="right")
    for key, m in values.items():
        cells = [str(key), str(m.get("n")), pct(m.get("accuracy")), pct(m.get("expected_accuracy"))]
        if show_score:
            cells.append(pct(m.get("score", m.get("accuracy"))))
        table.add_row(*cells)
    return table
