"""`reproduce`'s output: a table, Markdown for a paper appendix, JSON, and the exit code."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from rulekit.core.terminal import plural
from rulekit.report.reproduce.found import Row, is_headline


def same_digits(reported: str, value: float | None) -> str:
    """`value` written with as many decimals as the published number `reported` has (`73.4` and
    0.73412 in percent: `73.4`; `0.734567891234` and 0.7345678912: `0.734567891200`), so the two read
    digit for digit; "-" for None. A published number that is not plain decimal text (`1e-05`): `value`'s
    shortest round-trip form."""
    if value is None:
        return "-"
    text = reported.strip().removesuffix("%").strip()
    whole, dot, decimals = text.lstrip("+-").partition(".")
    if not (whole or decimals) or not (whole.isdigit() or not whole) or not (decimals.isdigit() or not decimals):
        return repr(value)
    return f"{value:.{min(len(decimals), 17)}f}"


def summary_line(rows: list[Row], notes: list = ()) -> str:
    """`N/M numbers reproduced`: how many of the published numbers rulekit gave back; then how many report
    files' numbers were not given back at all (`missed` notes: unreadable, or no prediction file)."""
    matched = sum(1 for r in rows if r.matched)
    missed = sum(1 for n in notes if getattr(n, "missed", False))
    return (f"{matched}/{len(rows)} {'number' if len(rows) == 1 else 'numbers'} reproduced"
            + (f"; {plural(missed, 'report')} not reproduced at all (see the notes)" if missed else ""))

def _benchmark_labels(rows: list[Row]) -> dict[int, str]:
    """Each row's benchmark as shown: with its report's own ending where one prediction file has several
    reports (MMVet's `_score.csv` and `_score_fine.csv`), so their rows can be told apart."""
    reports: dict[str, set[str]] = {}
    for row in rows:
        reports.setdefault(row.file, set()).add(row.report)
    out = {}
    for row in rows:
        ending = row.report[len(Path(row.file).stem):].rsplit(".", 1)[0] if row.report.startswith(Path(row.file).stem) else row.report
        out[id(row)] = f"{row.benchmark} ({ending})" if len(reports[row.file]) > 1 else row.benchmark
    return out


def _named(row: Row) -> str:
    """The ruleset column: the generation's name (and the named options it needed, `+index-join`), with its
    dates when the registry lists them."""
    if not row.ruleset:
        return "-"
    g = row.generation
    name = row.ruleset + "".join(f" +{o}" for o in row.options)
    return f"{name} ({g['from']} – {g['until'] or 'now'})" if g else name


def render_table(rows: list[Row], notes: list[str], console, wide: bool = False) -> None:
    """One line per published number (Overall first, then categories), notes under it. Compact by default
    (80 columns: a heading line per report naming the model, benchmark and the generation that gave it
    back, then metric, split where there is one, both numbers in full and ✓/✗, the difference only where
    one differs); `wide` (`--wide`): one table with every column."""
    from rich.text import Text

    if not rows:
        for note in notes:
            console.print(Text(f"note: {note}"))
        return
    ordered = sorted(rows, key=lambda r: (r.file, r.report, r.split, not is_headline(r), r.metric))
    (_wide_table if wide else _compact_tables)(ordered, console)
    console.print(Text(summary_line(rows, notes), style="bold"))
    seen = set()
    for row in rows:
        for note in row.notes:
            if (row.file, note) not in seen:
                seen.add((row.file, note))
                console.print(Text(f"{Path(row.file).name}: {note}"))
    for note in notes:
        console.print(Text(f"note: {note}"))


def _delta(row: Row) -> str:
    ours = row.shown()
    return f"{ours - float(row.reported):+.6f}" if ours is not None else "-"


def _mark(row: Row):
    from rich.text import Text

    return Text("✓" if row.matched else "✗", style="green" if row.matched else "red")


def _wide_table(rows: list[Row], console) -> None:
    """Every row in one table: model, benchmark, metric, split, reported, reproduced, delta, ruleset."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title="rulekit reproduce", title_justify="left")
    for col, justify in (("model", "left"), ("benchmark", "left"), ("metric", "left"), ("split", "left"),
                         ("reported", "right"), ("reproduced", "right"), ("delta", "right"), ("ruleset", "left"),
                         ("", "left")):
        table.add_column(col, justify=justify)
    label = _benchmark_labels(rows)
    for row in rows:
        table.add_row(Text(row.model), Text(label[id(row)]), Text(row.metric), Text(row.split), row.reported,
                      same_digits(row.reported, row.shown()), _delta(row), Text(_named(row)), _mark(row))
    console.print(table)


def _compact_tables(rows: list[Row], console) -> None:
    """A heading per (model, benchmark, generation), then a borderless table of its numbers; the `split`
    column only where a row has one, `delta` only where a number differs. Metric names fold, numbers never."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    label = _benchmark_labels(rows)
    groups: dict[tuple, list[Row]] = {}
    for row in rows:
        groups.setdefault((row.model, label[id(row)], _named(row)), []).append(row)
    console.print(Text("rulekit reproduce", style="bold"))
    for (model, benchmark, named), members in groups.items():
        console.print(Text(f"{model} · {benchmark} · {named}"), overflow="fold")
        splits = any(r.split not in ("", "none") for r in members)
        deltas = any(not r.matched for r in members)
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 2))
        table.add_column("metric", overflow="fold", ratio=1, min_width=8)
        if splits:
            table.add_column("split", overflow="fold", max_width=14)
        table.add_column("reported", justify="right", no_wrap=True)
        table.add_column("reproduced", justify="right", no_wrap=True)
        if deltas:
            table.add_column("delta", justify="right", no_wrap=True)
        table.add_column("", no_wrap=True)
        for row in members:
            cells = [Text(row.metric)] + ([Text(row.split)] if splits else [])
            cells += [row.reported, same_digits(row.reported, row.shown())]
            cells += ([_delta(row)] if deltas else []) + [_mark(row)]
            table.add_row(*cells)
        console.print(table)


def render_markdown(rows: list[Row], notes: list[str]) -> str:
    """The summary as a Markdown table, for a paper appendix: each file's headline numbers (VLMEvalKit's
    `Overall`, MMEvalPro's `genuine_accuracy_score`), then the other numbers that did not match."""
    out = ["| model | benchmark | split | metric | reported | reproduced | ruleset | matched |",
           "|---|---|---|---|---:|---:|---|---|"]
    label = _benchmark_labels(rows)
    for row in sorted(rows, key=lambda r: (r.model, r.benchmark, r.report, r.split)):
        if not is_headline(row):
            continue
        ours = same_digits(row.reported, row.shown())
        out.append(f"| {row.model} | {label[id(row)]} | {row.split} | {row.metric} | {row.reported} | {ours} | "
                   f"`{row.ruleset}`{''.join(f' +`{o}`' for o in row.options)} | {'yes' if row.matched else 'no'} |")
    named = {r.generation["name"]: r.generation for r in rows if r.generation}
    if named:
        out.append("")
        out.append("Generations: " + "; ".join(f"`{name}` {g['framework']} {g['from']} – {g['until'] or 'now'} "
                                                f"({g['commit']})" for name, g in sorted(named.items())))
    missed = [r for r in rows if not is_headline(r) and not r.matched]
    if missed:
        out.append("")
        out.append(f"{plural(len(missed), 'other number')} {'was' if len(missed) == 1 else 'were'} not reproduced: "
                   + ", ".join(f"{r.model}/{label[id(r)]}/{r.split}/{r.metric}" for r in missed[:20]))
    out += ["", f"**{summary_line(rows, notes)}**"]
    for note in notes:
        out.append(f"\n- {note}")
    return "\n".join(out) + "\n"


def exit_code(rows: list[Row], notes: list = ()) -> int:
    """0 when every published number was reproduced; 1 when one was not (a row not matched, or a report
    file that could not be read or paired: a `missed` note), or nothing was found."""
    missed = any(getattr(n, "missed", False) for n in notes)
    return 0 if rows and all(r.matched for r in rows) and not missed else 1


def as_json(rows: list[Row], notes: list) -> dict[str, Any]:
    """`{"results": [...], "notes": [...], "missed": [...]}`: `missed` names each report file whose numbers
    were not given back at all ({file, where, why}: it could not be read, or has no prediction file)."""
    missed = [{"file": n.file, "where": n.where or n.file, "why": n.text} for n in notes if getattr(n, "missed", False)]
    return {"results": [r.as_dict() for r in rows], "notes": [str(n) for n in notes], "missed": missed}
