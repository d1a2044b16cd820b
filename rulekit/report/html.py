"""`--format html`: one self-contained page for `eval`, `diff` and `reproduce`.

The page needs nothing from the network and runs no script: tables and bars are HTML and CSS, each
disagreeing record is a `<details>` element that opens on a click, and a Content-Security-Policy
forbids scripts, so a model reply that slipped past escaping still could not run. Every text from the
data goes through `html.escape`. The page carries the same object `--format json` prints, in a
`<script type="application/json" id="rulekit-data">` block (a data block, never executed), so a
program can read the numbers back from the page.
"""
from __future__ import annotations

import html
import re
from typing import Any, Iterable

import orjson

OUTCOMES = ("rule", "judge", "fallback", "abstain", "unresolved", "error", "unreadable")

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1100px;color:#1d2330;padding:0 1em}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.15em;margin:1.6em 0 .5em;border-bottom:1px solid #dde;padding-bottom:.2em}
table{border-collapse:collapse;margin:.4em 0 1em;font-variant-numeric:tabular-nums}
th,td{padding:.25em .7em;border-bottom:1px solid #e6e8ef;text-align:left;vertical-align:top}
th{background:#f4f5f9;font-weight:600}td.n{text-align:right}
.bar{display:flex;height:1.1em;width:520px;max-width:100%;border-radius:3px;overflow:hidden;background:#eee}
.bar span{display:block;height:100%;color:#fff;font-size:11px;line-height:1.1em;text-align:center;overflow:hidden;white-space:nowrap}
.abstain,.unreadable{color:#1d2330!important}.run{list-style:none;padding:0}.run code{word-break:break-all}.chartbox{overflow-x:auto}.chart{min-width:540px}.warn li{color:#8a5a00}
@media (max-width:600px){.bar{width:100%;min-width:180px}table{display:block;overflow-x:auto}}
.rule{background:#3d7be0}.judge{background:#8e5bd6}.fallback{background:#e0a030}.abstain{background:#9aa3b5}
.unresolved{background:#d9534f}.error{background:#6b1b1b}.unreadable{background:#c8ccd6}
.a_right_only{background:#2f9e5b}.b_right_only{background:#d9534f}.both_wrong{background:#9aa3b5}.both_right{background:#3d7be0}
.legend span{display:inline-block;width:.8em;height:.8em;margin:0 .3em 0 1em;border-radius:2px;vertical-align:-1px}
.ok{color:#1f7a44;font-weight:600}.no{color:#b3261e;font-weight:600}.muted{color:#667}
details{border:1px solid #e2e4ec;border-radius:4px;margin:.3em 0;padding:.3em .6em}
summary{cursor:pointer}pre{white-space:pre-wrap;word-break:break-word;background:#f8f8fb;padding:.5em;margin:.3em 0}
mark{background:#ffe27a;padding:0 1px}
"""


def esc(value: Any) -> str:
    """Any value as escaped HTML text (None as an em dash)."""
    return "—" if value is None else html.escape(str(value), quote=True)


_CODE = re.compile(r"`([^`\n]+)`")


def code_text(value: Any) -> str:
    """Text as escaped HTML with its `backtick` spans (Markdown's inline code, as notes write rule and file
    names) shown as <code>, never as raw backticks."""
    return _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", esc(value))


def pct(x: float | None, digits: int = 2) -> str:
    """A fraction as a percentage, or an em dash."""
    return "—" if x is None else f"{100 * x:.{digits}f}"


def utf8(text: str) -> str:
    """`text` as valid UTF-8 text: a file name's undecodable bytes (Python keeps them as lone surrogates,
    `m\\udcff.xlsx`) shown as U+FFFD, as `ls` shows them, instead of failing the page."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate no file name decodes to: "?"
        return text.encode("utf-8", "replace").decode("utf-8")


def _utf8_data(value: Any) -> Any:
    """`value` with every string (keys too) made valid UTF-8 by `utf8`."""
    if isinstance(value, str):
        return utf8(value)
    if isinstance(value, dict):
        return {utf8(k) if isinstance(k, str) else k: _utf8_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_utf8_data(v) for v in value]
    return value


def page(title: str, body: Iterable[str], data: Any) -> str:
    """The whole document: `body` parts under a heading, `data` embedded as JSON. Text that is not valid
    UTF-8 (a non-UTF-8 file name) is shown with U+FFFD for its undecodable bytes."""
    try:
        payload = orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # "str is not valid UTF-8: surrogates not allowed"
        payload = orjson.dumps(_utf8_data(data), option=orjson.OPT_NON_STR_KEYS).decode()
    payload = payload.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")  # no `</script>`
    return utf8("\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title>", f"<style>{CSS}</style>", "</head>", "<body>",
        f"<h1>{esc(title)}</h1>", *body,
        f'<script type="application/json" id="rulekit-data">{payload}</script>', "</body>", "</html>", ""]))


def table(headers: list[str] | None, rows: Iterable[list[str]], numeric: set[int] = frozenset()) -> str:
    """An HTML table (no header row for None); cells are already-escaped HTML, columns in `numeric`
    right-aligned."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers or ())
    body = "".join("<tr>" + "".join(f'<td class="n">{c}</td>' if i in numeric else f"<td>{c}</td>"
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f"<table>{f'<thead><tr>{head}</tr></thead>' if head else ''}<tbody>{body}</tbody></table>"


def bar(parts: list[tuple[str, int]], total: int, numbers: bool = False) -> str:
    """A stacked bar of (css class, count) parts, each as wide as its share of `total`; `numbers`: each part
    that has room (8% of the bar or more) carries its count."""
    spans = "".join(f'<span class="{cls}" style="width:{100 * count / total:.3f}%" title="{esc(cls)}: {count:,}">'
                    + (f"{count:,}" if numbers and count / total >= 0.08 else "") + "</span>"
                    for cls, count in parts if count and total)
    return f'<div class="bar">{spans}</div>'


def legend(classes: Iterable[str]) -> str:
    """Colour keys for the bars."""
    return '<p class="legend">' + "".join(f'<span class="{c}"></span>{esc(c.replace("_", " "))}' for c in classes) + "</p>"


def marked(text: str, spans: list, limit: int = 4000) -> str:
    """`text` (cut at `limit`) escaped, with the matched `spans` [(start, end), ...] in <mark>."""
    text = text[:limit]
    out, at = [], 0
    for start, end in sorted((s, e) for s, e in spans if 0 <= s < e <= len(text)):
        if start < at:
            continue
        out += [esc(text[at:start]), f"<mark>{esc(text[start:end])}</mark>"]
        at = end
    out.append(esc(text[at:]))
    return "".join(out)


# ---------------------------------------------------------------- eval
def eval_page(results: list, data: dict, report: Any = None) -> str:
    """`rulekit eval --format html`: the run (inputs, command, seed, warnings), an accuracy chart, each
    ruleset on the records it scored (accuracy, expected accuracy, score, 95% CI, outcome bars with their
    counts, what it left out and why); with several rulesets, the like-for-like table and band on the
    records all of them scored and the `--by` tables across rulesets; then each ruleset's own breakdowns.
    `report`: the run's rulekit.report.model.EvalReport (built from `results` and `data["band"]` if None)."""
    return page("rulekit eval", eval_sections(results, band=data.get("band"), report=report), data)


def eval_sections(results: list, h: str = "h2", band: dict | None = None, report: Any = None) -> list[str]:
    """The body of an eval page, its headings at level `h` (`rulekit run` nests them under a benchmark);
    `band`: the like-for-like comparison of several rulesets (rulekit.report.joint), if any; `report`: the
    EvalReport to show (built here from `results` and `band` when None)."""
    from rulekit.report.joint import band_line, ci_text, left_out_lines, left_out_text
    from rulekit.report.model import build_report
    from rulekit.report.table import outcomes_text

    rep = report if report is not None else build_report(results, band)
    band = rep.band
    body = []
    if rep.headline:
        body.append(f"<p>{esc(rep.headline)}</p>")
    run = rep.run_lines()
    if run:
        body.append('<ul class="run">' + "".join(
            f"<li><b>{esc(k)}</b>: " + (f"<code>{esc(v)}</code>" if k in ("command", "input") else esc(v)) + "</li>"
            for k, v in (line.split(": ", 1) for line in run)) + "</ul>")
    if rep.warnings:
        body.append(f"<{h}>Warnings</{h}>" + '<ul class="warn">' + "".join(
            f"<li>{code_text(w)}</li>" for w in rep.warnings) + "</ul>")
    if rep.chart:
        body += [f"<{h}>Accuracy by {esc(rep.chart_field)}</{h}>" if rep.chart_field else f"<{h}>Accuracy</{h}>",
                 accuracy_chart(rep.chart, [s.ruleset for s in rep.scores])]
    rows, bars = [], []
    for s in rep.scores:
        rows.append([f"<b>{esc(s.ruleset)}</b>", f"{s.n:,}", pct(s.accuracy),
                     *([pct(s.expected)] if rep.show_expected else []),
                     *([pct(s.score)] if rep.show_score else []),
                     *([ci_text(s.ci)] if band else []),
                     *(f"{s.outcomes.get(o, 0):,}" for o in rep.outcomes),
                     f"<code>{esc(s.fingerprint)}</code>" + (f" seed={esc(s.seed)}" if s.seed is not None else "")])
        total = sum(s.outcomes.values())
        bars.append([f"<b>{esc(s.ruleset)}</b>",
                     bar([(o, s.outcomes.get(o, 0)) for o in OUTCOMES], total, numbers=True)
                     + f'<div class="muted">{esc(outcomes_text(s, rep.outcomes))}</div>'])
    head = ["ruleset", "n", "accuracy %", *(["expected %"] if rep.show_expected else []),
            *(["score %"] if rep.show_score else []), *(["95% CI"] if band else []), *rep.outcomes, "fingerprint"]
    body += [f"<{h}>Results: each ruleset on the records it scored</{h}>" if band else f"<{h}>Results</{h}>",
             table(head, rows, set(range(1, len(head) - 1))),
             *(["<ul>" + "".join(f"<li>{code_text(n)}</li>" for n in rep.notes) + "</ul>"] if rep.notes else []),
             f"<{h}>Who decided</{h}>", legend(rep.outcomes), table(["ruleset", "outcomes"], bars)]
    if band and not band["comparable"]:
        items = "".join(f"<li>{esc(x)}</li>" for x in left_out_lines(band))
        body += [f"<{h}>Like for like</{h}>", f"<ul>{items}</ul>", f"<p><b>{esc(band_line(band))}</b></p>"]
    elif band:
        body += [f"<{h}>Like for like: the {band['n']:,} records every ruleset scored</{h}>",
                 table(["ruleset", "n", "accuracy %", "95% CI", "own records left out"],
                       ([esc(name), f"{band['n']:,}", pct(band["accuracy"].get(name)), ci_text(band["ci"].get(name)),
                         esc(left_out_text(band["left_out"].get(name, {})))] for name in band["rulesets"]), {1, 2, 3}),
                 f"<p><b>{esc(band_line(band))}</b></p>"]
        for fld, values in (band.get("by") or {}).items():
            names = band["rulesets"]
            body += [f"<{h}>Like for like by {esc(fld)}: per {esc(fld)}, the records every ruleset scored</{h}>",
                     table([fld, "n", *(f"{n} %" for n in names), "spread", "left out"],
                           ([esc(v), f"{f['n']:,}", *(pct(f["accuracy"].get(n)) for n in names), pct(f["spread"]),
                             esc(left_out_text(f["left_out"]))] for v, f in values.items()),
                           set(range(1, len(names) + 3)))]
    own = " (its own records)" if band else ""
    for b in rep.breakdowns:
        head = [b.field, "n", "accuracy %", "expected %", *(["score %"] if b.show_score else [])]
        body += [f"<{h}>{esc(b.ruleset)} by {esc(b.field)}{own}</{h}>",
                 table(head, ([esc(x.value), "—" if x.n is None else f"{x.n:,}", pct(x.accuracy), pct(x.expected),
                               *([pct(x.score)] if b.show_score else [])] for x in b.rows),
                       set(range(1, len(head))))]
    return body


PALETTE = ("#3d7be0", "#e0a030", "#2f9e5b", "#8e5bd6", "#d9534f", "#17a2b8", "#6b4e16", "#c2185b")


def accuracy_chart(points: list, rulesets: list[str], limit: int = 60) -> str:
    """An inline SVG (no script) of accuracy per group × ruleset: one horizontal bar per ruleset in each
    group, its 95% Wilson interval as a whisker, the accuracy written at its end; groups past `limit` are
    left out (and said to be). Scales to the page's width (viewBox)."""
    groups: list[str] = []
    for p in points:
        if p.group not in groups:
            groups.append(p.group)
    shown = groups[:limit]
    colour = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(rulesets)}
    label_w, plot_w, right, bar_h, gap = 170, 480, 60, 14, 10
    width = label_w + plot_w + right
    per = {g: [p for p in points if p.group == g] for g in shown}
    legend_h = 22
    y, parts = legend_h + 18, []
    x0 = label_w
    for pct_tick in (0, 25, 50, 75, 100):  # the axis grid
        x = x0 + plot_w * pct_tick / 100
        parts.append(f'<text x="{x:.1f}" y="{legend_h + 12}" text-anchor="middle" class="ax">{pct_tick}%</text>')
    grid_top = legend_h + 16
    for g in shown:
        top = y
        for p in per[g]:
            w = plot_w * p.accuracy
            lo, hi = x0 + plot_w * p.lo, x0 + plot_w * p.hi
            mid = y + bar_h / 2
            c = colour.get(p.ruleset, PALETTE[0])
            parts.append(f'<rect x="{x0}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{c}">'
                         f"<title>{esc(g)} · {esc(p.ruleset)}: {pct(p.accuracy)}% "
                         f"(95% CI {pct(p.lo)}–{pct(p.hi)}, n={p.n:,})</title></rect>")
            parts.append(f'<path d="M{lo:.1f} {mid:.1f}H{hi:.1f}M{lo:.1f} {mid - 4:.1f}V{mid + 4:.1f}'
                         f'M{hi:.1f} {mid - 4:.1f}V{mid + 4:.1f}" class="ci"/>')
            parts.append(f'<text x="{max(hi, x0 + w) + 4:.1f}" y="{mid + 4:.1f}" class="v">{pct(p.accuracy)}</text>')
            y += bar_h + 2
        parts.append(f'<text x="{label_w - 8}" y="{(top + y) / 2 + 4:.1f}" text-anchor="end" class="g">'
                     f"{esc(_short(g))}<title>{esc(g)}</title></text>")
        y += gap
    for pct_tick in (0, 25, 50, 75, 100):
        x = x0 + plot_w * pct_tick / 100
        parts.insert(0, f'<line x1="{x:.1f}" y1="{grid_top}" x2="{x:.1f}" y2="{y - gap + 2}" class="grid"/>')
    keys, kx = [], x0
    for name in rulesets:
        keys.append(f'<rect x="{kx}" y="4" width="12" height="12" fill="{colour[name]}"/>'
                    f'<text x="{kx + 16}" y="14" class="g">{esc(_short(name, 28))}</text>')
        kx += 24 + 7 * min(len(name), 28)
    height = y - gap + 8
    svg = (f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" '
           f'width="100%" style="max-width:{width}px" aria-label="accuracy per group and ruleset">'
           "<style>.ax,.g,.v{font:11px system-ui,sans-serif;fill:#1d2330}.v{font-weight:600}"
           ".grid{stroke:#e1e4ec;stroke-width:1}.ci{stroke:#1d2330;stroke-width:1.3;fill:none}</style>"
           + "".join(keys) + "".join(parts) + "</svg>")
    note = (f'<p class="muted">{len(shown)} of {len(groups)} groups shown.</p>' if len(groups) > len(shown) else "")
    return ('<div class="chartbox">' + svg + '</div><p class="muted">Bars: accuracy % on the records each ruleset scored; whiskers: 95% Wilson '
            "score interval.</p>" + note)


def _short(text: str, limit: int = 30) -> str:
    """A label cut to `limit` characters (with an ellipsis)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _num(x: Any) -> str:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return esc(x)
    return str(x) if isinstance(x, int) else f"{x:.4f}"


# ---------------------------------------------------------------- diff
def diff_page(report: dict, data: dict) -> str:
    """`rulekit diff --format html`: the summary, the flip plot (which step pairs flip how many records,
    coloured by who was right) and every disagreeing record shown, expandable with both sides' traces."""
    return page(f"rulekit diff: {report['a']} vs {report['b']}", diff_sections(report), data)


def diff_sections(report: dict, h: str = "h2", h3: str = "h3") -> list[str]:
    """The body of a diff page, its headings at levels `h` and `h3`."""
    from rulekit.report.diff import cannot_compare, compared_text, own_text

    s = report["summary"]
    ci = s["bootstrap_ci"]
    if s.get("comparable") is False:
        summary = [["records compared", cannot_compare(report)], ["A / B on their own records", own_text(report)]]
    else:
        summary = [["records compared", compared_text(report)],
                   ["agree / disagree", f"{s['agree']} / {s['disagree']}"],
                   ["accuracy A / B %", f"{pct(s['accuracy_a'])} / {pct(s['accuracy_b'])}"],
                   ["delta A − B (points)", pct(s["delta"])],
                   ["A / B on their own records", own_text(report)],
                   ["A right only / B right only", f"{s['a_only_correct']} / {s['b_only_correct']}"],
                   ["McNemar exact p", f"{s['mcnemar_p']:.3g}"],
                   ["paired bootstrap 95% CI", f"{pct(ci[0])} to {pct(ci[1])}" if ci else "—"]]
    summary.append(["fingerprints", f"A {s['fingerprint_a']}, B {s['fingerprint_b']}"])
    top = max((g["count"] for g in s["groups"]), default=1)
    flips = [[esc(g["label"]), f"<code>{esc(g['a_step'])}</code>", f"<code>{esc(g['b_step'])}</code>",
              esc(g["direction"].replace("_", " ")), str(g["count"]),
              bar([(g["direction"], g["count"])], top), f"{100 * g['contribution']:+.2f}"] for g in s["groups"]]
    body = [f"<p>A = <b>{esc(report['a'])}</b>, B = <b>{esc(report['b'])}</b></p>",
            f"<{h}>Summary</{h}>", table(None, ([f"<b>{esc(k)}</b>", esc(v)] for k, v in summary)),
            f"<{h}>Flips by deciding steps</{h}>", legend(("a_right_only", "b_right_only", "both_wrong", "both_right")),
            table(["flip", "A step", "B step", "who is right", "records", "", "Δ points"], flips, {4, 6}),
            f"<{h}>Disagreeing records</{h}>"]
    examples = report.get("_examples") or {}
    by_id = {d["id"]: d for d in report["disagree"]}
    for g in s["groups"]:
        items = []
        for rid in g["examples"]:
            ex, d = examples.get(rid), by_id.get(rid)
            if ex is None or d is None:
                continue
            sides = "".join(
                f"<p><b>{name}</b> ({esc(report[key])}): {esc(repr(side['pred']))} — {esc(side['outcome'])}, step "
                f"<code>{esc(side['step'])}</code></p><pre>{marked(side['text'], side['spans'])}</pre>"
                for name, key, side in (("A", "a", ex["a"]), ("B", "b", ex["b"])))
            items.append(f"<details><summary><code>{esc(rid)}</code>: A {esc(d['a_pred'])} / B {esc(d['b_pred'])}, "
                         f"gold {esc(ex['answer'])}</summary>{sides}</details>")
        more = g["count"] - len(items)
        body.append(f"<{h3}>{esc(g['label'])} — {g['count']} records</{h3}>" + "".join(items)
                    + (f'<p class="muted">{more} more (raise --show)</p>' if more > 0 else ""))
    return body


# ---------------------------------------------------------------- run
def run_page(runs: list[dict], data: dict) -> str:
    """`rulekit run`'s report.html: an overview (each benchmark's rulesets' accuracy side by side), then per
    benchmark what was generated (model, prompt style, records), its results and, for two rulesets, where
    they part (the diff). `runs`: [{"benchmark", "generation", "results", "diff", "notes"}]."""
    names = []
    for run in runs:
        for r in run["results"]:
            if r.ruleset not in names:
                names.append(r.ruleset)
    overview = []
    for run in runs:
        d = run.get("diff")
        overview.append([f'<a href="#{esc(run["benchmark"])}">{esc(run["benchmark"])}</a>',
                         str(run["generation"].get("records", "—")),
                         " / ".join(f"{esc(r.ruleset)} {pct(r.metrics.get('accuracy'))}" for r in run["results"]) or "—",
                         "—" if not d else f"{d['summary']['disagree']}",
                         "—" if not d else pct(d["summary"]["delta"])])
    body = ["<h2>Overview</h2>",
            table(["benchmark", "records", "accuracy % per ruleset", "disagree", "Δ points (A − B)"], overview, {1, 3, 4})]
    for run in runs:
        g = run["generation"]
        body.append(f'<h2 id="{esc(run["benchmark"])}">{esc(run["benchmark"])}</h2>')
        body.append(table(None, ([f"<b>{esc(k)}</b>", esc(v)] for k, v in g.items())))
        if run.get("notes"):
            body.append("<ul>" + "".join(f"<li>{esc(n)}</li>" for n in run["notes"]) + "</ul>")
        if run["results"]:
            body += eval_sections(run["results"], h="h3")
        if run.get("diff"):
            body.append(f"<h3>Where they part: A = {esc(run['diff']['a'])}, B = {esc(run['diff']['b'])}</h3>")
            body += diff_sections(run["diff"], h="h4", h3="h5")
    return page("rulekit run", body, data)


# ---------------------------------------------------------------- reproduce
def reproduce_page(rows: list, notes: list[str], data: dict) -> str:
    """`rulekit reproduce --format html`: one row per published number, notes and differing records."""
    from rulekit.report.reproduce import is_headline, same_digits, summary_line

    rows = sorted(rows, key=lambda r: (r.file, r.split, not is_headline(r), r.metric))
    out = []
    for r in rows:
        shown = r.shown()
        out.append([esc(r.model), esc(r.benchmark), esc(r.metric), esc(r.split), esc(r.reported),
                     "—" if shown is None else esc(same_digits(r.reported, shown)),
                     f"<code>{esc(r.ruleset)}</code>" + "".join(f" +<code>{esc(o)}</code>" for o in r.options)
                     + (f"<br><small>{esc(r.generation['from'])} – {esc(r.generation['until'] or 'now')}</small>"
                        if r.generation else ""),
                     '<span class="ok">✓</span>' if r.matched else '<span class="no">✗</span>'])
    ok = all(r.matched for r in rows) and not any(getattr(n, "missed", False) for n in notes)
    body = ["<h2>Published numbers</h2>",
            f'<p class="summary"><span class="{"ok" if ok and rows else "no"}">{esc(summary_line(rows, notes))}</span></p>',
            table(["model", "benchmark", "metric", "split", "reported", "reproduced", "ruleset", ""], out, {4, 5})]
    files: dict[str, Any] = {}
    for r in rows:
        files.setdefault(r.file, r)
    for file, r in files.items():
        diffs = next((x.differences for x in rows if x.file == file and x.differences), [])
        items = "".join(f"<details><summary><code>{esc(d['id'])}</code>: ours {esc(d.get('pred'))} "
                        f"({esc(d.get('outcome'))}, step <code>{esc(d.get('step'))}</code>)</summary>"
                        f"<pre>{esc(d.get('response'))}</pre></details>" for d in diffs)
        body.append(f"<h2>{esc(file)}</h2><ul>" + "".join(f"<li>{code_text(n)}</li>" for n in r.notes) + "</ul>" + items)
    if notes:
        body.append("<h2>Notes</h2><ul>" + "".join(f"<li>{code_text(n)}</li>" for n in notes) + "</ul>")
    return page("rulekit reproduce", body, data)
