"""`rulekit diff`: where two rulesets decide the same records differently, and why.

`diff_results(a, b, seed)` pairs the decisions of two `Result`s (same input stream), lists every
record where the predictions or the correctness differ, groups those flips by the two deciding
steps and by direction, and adds a paired test: the accuracy delta A − B with McNemar's exact
p-value and a seeded paired bootstrap 95% CI. Each flip falls in one category:

- ``rule``: both sides decided by a step (a rule, a judge or an abstention);
- ``one_sided``: one side could not score the record (``unresolved`` or ``error``), the other did;
- ``fallback``: either side drew a random (or constant) fallback — noise, counted apart.

Records are compared like for like: only those both rulesets scored (a record of a question type one
side has no section for, or one it cannot read — outcome `unreadable`, unless `--count-unreadable` —
is left out, and the report counts what each side left out and why; `rulekit.report.joint` applies
the same rule to `eval`'s band). With no record scored by both, there is nothing to compare, and the
report says so. Each side's accuracy on all the records it scored is kept too (`own_a`, `own_b`).

`DiffStream` builds the same report one record at a time (`rulekit diff` streams its input through
it, keeping counts, the disagreeing rows and the first `--show` examples of each flip group, never every
decision); `diff_results` feeds it the pairs of two Results kept in full. `render_diff` prints the report as a rich table, JSON (DESIGN.md §5) or Markdown;
`extraction_band` is the like-for-like band of several rulesets for `eval -r A -r B -r C`.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import orjson
from rich.console import Console
from rich.table import Table
from rich.text import Text

from rulekit.core.terminal import json_safe, safe
from rulekit.metrics.accumulate import RIGHT, UNREADABLE
from rulekit.run.evaluate import Result
from rulekit.report.explain import answer_label, highlight, plain_marks
from rulekit.report.joint import compare, left_out_text, why_left_out
from rulekit.metrics.stats import bootstrap_ci, mcnemar_exact, paired_bootstrap_ci
from rulekit.core.trace import Decision

CATEGORIES = ("rule", "one_sided", "fallback")
DIRECTIONS = {"a_right_only": "A right only", "b_right_only": "B right only",
              "both_wrong": "both wrong, different preds", "both_right": "both right, different preds"}
_UNSCORED = ("unresolved", "error")


def _right(d: Decision) -> bool:
    return d.correct is True


def _pairs(a: Result, b: Result) -> tuple[list[tuple[Decision, Decision, Any]], int, Counter]:
    """Decisions of both sides on the records both scored, in input order; how many records were left out;
    and the left-out records counted by their (A status, B status) (rulekit.metrics.accumulate).

    With per-record statuses (`Result.status`, as `evaluate` gives) records are matched by position in the
    shared stream; otherwise the k-th occurrence of an id on one side is the k-th occurrence of that id on
    the other (a record one side did not score is absent there).
    """
    sa, sb = a.status, b.status
    if sa and sb and len(sa) == len(sb) and len(a.decisions) == a.n and len(b.decisions) == b.n:
        pairs, outside, i, j = [], Counter(), 0, 0
        for x, y in zip(sa, sb):
            if x < UNREADABLE and y < UNREADABLE:
                pairs.append((a.decisions[i], b.decisions[j], a.records[i]))
            else:
                outside[(x, y)] += 1
            i += x < UNREADABLE
            j += y < UNREADABLE
        return pairs, sum(outside.values()), outside

    def keys(result: Result) -> list[tuple[str, int]]:
        seen: Counter = Counter()
        out = []
        for rec in result.records:
            out.append((rec.id, seen[rec.id]))
            seen[rec.id] += 1
        return out

    b_at = {k: i for i, k in enumerate(keys(b))}
    pairs = []
    for i, k in enumerate(keys(a)):
        j = b_at.get(k)
        if j is not None:
            pairs.append((a.decisions[i], b.decisions[j], a.records[i]))
    total = max(len(a.records) + sum(a.skipped.values()), len(b.records) + sum(b.skipped.values()))
    return pairs, total - len(pairs), Counter()


def _direction(da: Decision, db: Decision) -> str:
    ra, rb = _right(da), _right(db)
    if ra != rb:
        return "a_right_only" if ra else "b_right_only"
    return "both_right" if ra else "both_wrong"


def _category(da: Decision, db: Decision) -> tuple[str, str]:
    """(category, readable label) of one flip, computed from the two outcomes and steps."""
    if "fallback" in (da.outcome, db.outcome):
        def side(d: Decision) -> str:
            if d.outcome == "fallback":
                return "random fallback" if d.step == "random-option" else f"{d.step} fallback"
            return d.outcome
        if da.outcome == db.outcome == "fallback":
            return "fallback", "random fallback in both"
        return "fallback", f"{side(da)} (A) vs {side(db)} (B)"
    ua, ub = da.outcome in _UNSCORED, db.outcome in _UNSCORED
    if ua != ub:
        return "one_sided", f"{da.outcome} in A, {db.outcome} in B"
    return "rule", f"{da.outcome} vs {db.outcome}: {da.step} vs {db.step}"


def _compiled(result: Result, given):
    """The CompiledRuleset behind a Result (given, or loaded by name when its fingerprint matches)."""
    if given is not None:
        return given
    try:
        from rulekit.engine.compiler import load_ruleset

        rs = load_ruleset(result.ruleset)
        return rs if rs.fingerprint_for(result.seed) == result.fingerprint else None
    except Exception:  # a YAML path's ruleset name need not be loadable by name: no spans then
        return None


def _spans(ruleset, record, decision: Decision, seed: int | None) -> dict:
    """The text the deciding step looked in and the spans of what it matched (re-decided with a trace)."""
    out = {"pred": decision.pred, "step": decision.step, "outcome": decision.outcome,
           "text": record.response if isinstance(record.response, str) else str(record.response), "spans": []}
    if ruleset is None or decision.outcome in ("fallback", "unresolved"):
        return out
    from rulekit.engine.decide import Evaluator

    again = Evaluator(ruleset, seed).decide(record, trace=True)
    fired = [st for st in (again.trace or []) if st.status == "fired"] if again is not None else []
    if not fired or fired[-1].step != decision.step:
        return out
    st = fired[-1]
    section = ruleset.sections.get(record.question_type)
    step = next((s for s in section.steps if s.id == st.step), None) if section else None
    if step is None or step.look_in != "original":
        out["text"] = again.text
    cands = st.kept if st.kept is not None else st.candidates
    out["spans"] = [(c.start, c.end) for c in cands if isinstance(st.answer, list) or c.answer == st.answer][:20]
    return out


class DiffStream:
    """The diff of two rulesets built one record at a time, in input order (`rulekit diff` streams the input
    through it: `evaluate(..., on_decisions=stream.see)`), keeping per record only what the report needs:

    - per pair of decisions both sides scored, the right/wrong table (four counts) and, for the paired
      bootstrap, nothing: the CI is computed from the Results' per-record status bytes (one byte a record
      and ruleset, which `eval` keeps too);
    - per disagreeing record, one small tuple (the JSON's ``disagree`` list, which lists every one) — none
      when `list_disagreements` is False (table and Markdown print only their count);
    - per flip group, its count and its first `show` examples in input order (the decisions and the record,
      re-decided with a trace for the spans at the end): `show` bounds what is kept per group.

    `report(a, b, seed, ...)` gives the same dict as `diff_results` on Results kept in full (same numbers,
    same order, byte-identical `--format json`).
    """

    __slots__ = ("show", "list_disagreements", "count_unreadable", "n", "table", "rows", "disagreements", "groups")

    def __init__(self, show: int = 2, list_disagreements: bool = True, count_unreadable: bool = False):
        self.show = show
        self.list_disagreements = list_disagreements
        self.count_unreadable = count_unreadable  # as the run's: an `unreadable` decision counts only then
        self.n = 0
        self.table: Counter = Counter()
        self.rows: list[tuple] = []
        self.disagreements = 0
        self.groups: dict[tuple, dict] = {}

    def see(self, record, decisions) -> None:
        """One input record and each side's decision on it (None: no section), as `evaluate(...,
        on_decisions=stream.see)` gives them; only records both sides scored are compared (an `unreadable`
        decision is left out unless `count_unreadable`, as the run leaves it out of its `n`)."""
        da, db = decisions
        if da is None or db is None:
            return
        if not self.count_unreadable and "unreadable" in (da.outcome, db.outcome):
            return
        self.add(da, db, record)

    def add(self, da: Decision, db: Decision, rec) -> None:
        """One record both sides scored (`da`, `db`: their decisions), in input order."""
        ra, rb = da.correct is True, db.correct is True
        self.n += 1
        self.table[(ra, rb)] += 1
        if da.pred == db.pred and ra == rb:
            return
        self.disagreements += 1
        if self.list_disagreements:
            self.rows.append((da.id, da.pred, db.pred, da.correct, db.correct, da.outcome, db.outcome,
                              da.step, db.step))
        category, label = _category(da, db)
        direction = _direction(da, db)
        g = self.groups.get((da.step, db.step, direction, label))
        if g is None:
            g = self.groups[(da.step, db.step, direction, label)] = {
                "a_step": da.step, "b_step": db.step, "direction": direction, "category": category,
                "label": label, "count": 0, "contribution": 0.0, "share_of_delta": None, "examples": [],
                "_items": [], "_sign": ra - rb}
        g["count"] += 1
        if len(g["examples"]) < self.show:
            g["examples"].append(da.id)
            g["_items"].append((da, db, rec))

    def report(self, a: Result, b: Result, seed: int, rulesets: tuple | None = None,
               skipped: int | None = None, outside: Counter | None = None, scores: tuple | None = None) -> dict:
        """The JSON-able report of DESIGN.md §5 (see `diff_results`). `skipped` and `outside` (records left out,
        counted by their (A status, B status)) default to what the Results' status bytes say; so do `scores`,
        both sides' 1/0 scores on the compared records in input order (the paired bootstrap's input)."""
        if outside is None:
            outside = Counter()
            sa, sb = a.status, b.status
            if sa and sb:
                for pair, count in Counter(zip(sa, sb)).items():
                    if not (pair[0] < UNREADABLE and pair[1] < UNREADABLE):
                        outside[pair] += count
        if skipped is None:
            skipped = sum(outside.values())
        n, table = self.n, self.table
        for g in self.groups.values():  # the same float sum, term by term, as adding (ra - rb) / n per record
            term, total = g["_sign"] / n, 0.0
            for _ in range(g["count"]):
                total += term
            g["contribution"] = total
        acc_a = (table[(True, True)] + table[(True, False)]) / n if n else None
        acc_b = (table[(True, True)] + table[(False, True)]) / n if n else None
        delta = acc_a - acc_b if n else None
        a_only, b_only = table[(True, False)], table[(False, True)]
        ci = None
        if n:
            xa, xb = scores if scores is not None else _paired_scores(a, b)
            lo, hi = paired_bootstrap_ci(xa, xb, seed)
            ci = [lo, hi]
        order = sorted(self.groups.values(), key=lambda g: (CATEGORIES.index(g["category"]), -g["count"], g["label"]))
        rs_a, rs_b = rulesets if rulesets else (None, None)
        rs_a, rs_b = (_compiled(a, rs_a), _compiled(b, rs_b)) if self.show > 0 and order else (None, None)
        examples = {}
        for g in order:
            g.pop("_sign", None)
            if delta:
                g["share_of_delta"] = g["contribution"] / delta
            for da, db, rec in g.pop("_items"):
                examples[da.id] = {"answer": rec.answer, "choices": rec.choices,
                                   "a": _spans(rs_a, rec, da, a.seed), "b": _spans(rs_b, rec, db, b.seed)}
        categories = Counter(g["category"] for g in order for _ in range(g["count"]))
        left_out = {}
        for side, k in (("a", 0), ("b", 1)):
            reasons: Counter = Counter()
            for t, count in outside.items():
                if t[k] < UNREADABLE:
                    reasons[why_left_out([a, b], t)] += count
            left_out[side] = {"n": sum(reasons.values()), "why": dict(reasons.most_common())}
        disagree = [dict(zip(_ROW_KEYS, row)) for row in self.rows]
        summary = {
            "agree": n - self.disagreements, "disagree": self.disagreements, "skipped": skipped,
            "comparable": n > 0, "left_out": left_out,
            "own_a": {"n": a.n, "accuracy": a.metrics.get("accuracy")},
            "own_b": {"n": b.n, "accuracy": b.metrics.get("accuracy")},
            "both_correct": table[(True, True)], "both_wrong": table[(False, False)],
            "a_only_correct": a_only, "b_only_correct": b_only,
            "accuracy_a": acc_a, "accuracy_b": acc_b, "delta": delta,
            "mcnemar_p": mcnemar_exact(a_only, b_only) if n else None, "bootstrap_ci": ci, "seed": seed,
            "categories": {c: categories.get(c, 0) for c in CATEGORIES},
            "groups": order, "fingerprint_a": a.fingerprint, "fingerprint_b": b.fingerprint,
        }
        return {"a": a.ruleset, "b": b.ruleset, "n": n, "disagree": disagree, "summary": summary,
                "_examples": examples}


_ROW_KEYS = ("id", "a_pred", "b_pred", "a_correct", "b_correct", "a_outcome", "b_outcome", "a_step", "b_step")


def _paired_scores(a: Result, b: Result):
    """Both sides' 1/0 scores on the records both scored, in input order, from the Results' status bytes."""
    import numpy as np

    sa, sb = np.frombuffer(a.status, np.uint8), np.frombuffer(b.status, np.uint8)
    both = (sa < UNREADABLE) & (sb < UNREADABLE)
    return (sa[both] == RIGHT).astype(float), (sb[both] == RIGHT).astype(float)


def diff_results(a: Result, b: Result, seed: int, show: int = 2, rulesets: tuple | None = None) -> dict:
    """Compare two rulesets' Results on the same records: the JSON-able report of DESIGN.md §5.

    `seed` seeds the paired bootstrap; `show` is the number of example ids kept per flip group (the first
    ones in input order). `rulesets` (the two CompiledRulesets) lets the examples be re-decided with a
    trace to find the matched spans; without it they are loaded by name when that reproduces the
    fingerprint. The key ``_examples`` (id → both sides' text, spans, pred) is for rendering only.
    The Results hold their decisions (`evaluate(..., keep=True)`); `DiffStream` gives the same report
    from a stream without keeping them.
    """
    pairs, skipped, outside = _pairs(a, b)
    stream = DiffStream(show)
    for da, db, rec in pairs:
        stream.add(da, db, rec)
    scores = ([float(_right(d)) for d, _, _ in pairs], [float(_right(d)) for _, d, _ in pairs])
    return stream.report(a, b, seed, rulesets, skipped, outside, scores)


def public(report: dict) -> dict:
    """The report without its rendering-only ``_`` keys (what `--format json` prints)."""
    return {k: v for k, v in report.items() if not k.startswith("_")}


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.2f}"


def compared_text(report: dict) -> str:
    """How many records were compared and what each side left out of the comparison, and why."""
    s = report["summary"]
    left = s.get("left_out") or {}
    out = f"{report['n']:,} (every record both rulesets scored)"
    parts = [f"{side.upper()} {left_out_text(left[side])}" for side in ("a", "b") if left.get(side, {}).get("n")]
    if parts:
        out += "; left out of the comparison: " + "; ".join(parts)
    elif s["skipped"]:
        out += f"; {s['skipped']:,} left out: not scored on one side"
    return out


def own_text(report: dict) -> str:
    """Each side's accuracy on all the records it scored (its own headline)."""
    s = report["summary"]
    if "own_a" not in s:
        return "—"
    return " / ".join(f"{_pct(s[k]['accuracy'])} % of {s[k]['n']:,}" if s[k]["n"] else "no record scored"
                      for k in ("own_a", "own_b"))


def cannot_compare(report: dict) -> str:
    """The sentence a diff with no record scored by both sides prints instead of its numbers."""
    left = report["summary"]["left_out"]
    parts = [f"{side.upper()}'s {left_out_text(left[side])}" for side in ("a", "b") if left[side]["n"]]
    return (f"cannot compare: no record was scored by both {report['a']} and {report['b']}"
            + (f" ({'; '.join(parts)})" if parts else ""))


def _summary_table(report: dict, wide: bool = False) -> Table:
    from rich import box

    s = report["summary"]
    where = f" ({report['_where']})" if report.get("_where") else ""
    t = Table(title=f"rulekit diff: A = {report['a']}, B = {report['b']}{where}", title_justify="left", show_header=False,
              **({} if wide else {"box": None, "pad_edge": False}))
    t.add_column(style="bold", overflow="fold")
    t.add_column(overflow="fold")
    ci = s["bootstrap_ci"]
    if s.get("comparable") is False:
        t.add_row("records compared", cannot_compare(report))
        t.add_row("A / B on their own records", own_text(report))
        t.add_row("fingerprints", f"A {s['fingerprint_a']}  B {s['fingerprint_b']}")
        return t
    rows = [
        ("records compared", compared_text(report)),
        ("agree / disagree", f"{s['agree']} / {s['disagree']}"),
        ("both right / both wrong", f"{s['both_correct']} / {s['both_wrong']}"),
        ("A right only / B right only", f"{s['a_only_correct']} / {s['b_only_correct']}"),
        ("accuracy A / B %", f"{_pct(s['accuracy_a'])} / {_pct(s['accuracy_b'])}"),
        ("delta A − B (points)", _pct(s["delta"])),
        ("A / B on their own records", own_text(report)),
        ("McNemar exact p", f"{s['mcnemar_p']:.3g}" if s["mcnemar_p"] is not None else "—"),
        ("paired bootstrap 95% CI", f"{_pct(ci[0])} to {_pct(ci[1])} (seed {s['seed']})" if ci else "—"),
        ("flips: rule / one side only / fallback", " / ".join(str(s["categories"][c]) for c in CATEGORIES)),
        ("fingerprints", f"A {s['fingerprint_a']}  B {s['fingerprint_b']}"),
    ]
    for k, v in rows:
        t.add_row(k, v)
    return t


COMPACT_DIRECTIONS = {"a_right_only": "A right only", "b_right_only": "B right only", "both_wrong": "both wrong",
                      "both_right": "both right"}


def _groups_table(report: dict, wide: bool = False) -> Table:
    """The flips by deciding steps. Compact (default, fits 80 columns): one section per category, a row per
    pair of steps and direction (the predictions always differ where both are wrong or both right); `wide`:
    category, A step, B step and direction in columns of their own."""
    if not wide:
        return _compact_groups_table(report)
    t = Table(title="flips by deciding steps", title_justify="left")
    for col, just in (("category", "left"), ("A step", "left"), ("B step", "left"), ("direction", "left"),
                      ("count", "right"), ("Δ points", "right"), ("share of Δ %", "right")):
        t.add_column(col, justify=just)
    for g in report["summary"]["groups"]:
        t.add_row(g["label"], g["a_step"] or "—", g["b_step"] or "—", DIRECTIONS[g["direction"]], str(g["count"]),
                  f"{100 * g['contribution']:+.2f}", _pct(g["share_of_delta"]))
    return t


def _compact_groups_table(report: dict) -> Table:
    from rich import box

    t = Table(title="flips by deciding steps (A step → B step)", title_justify="left", box=box.SIMPLE_HEAD,
              pad_edge=False, show_edge=False)
    t.add_column("category / steps", overflow="fold")
    t.add_column("direction", overflow="fold")
    for col in ("n", "Δ points", "share of Δ %"):
        t.add_column(col, justify="right", no_wrap=True)
    section = None
    for g in report["summary"]["groups"]:
        category = g["label"].split(":", 1)[0]
        if category != section:
            section = category
            t.add_row(Text(category, style="bold"), "", "", "", "")
        t.add_row(f"  {g['a_step'] or '—'} → {g['b_step'] or '—'}", COMPACT_DIRECTIONS[g["direction"]],
                  str(g["count"]), f"{100 * g['contribution']:+.2f}", _pct(g["share_of_delta"]))
    return t


def side_label(side: dict) -> str:
    """One side of a flip in words: `'C' (rule, answer-is)`, `no answer (unresolved)` — never `None`."""
    return answer_label(side.get("pred"), side.get("outcome"), side.get("step"))


def _side_text(side: dict, name: str, limit: int = 300, marks: bool = False) -> Text:
    head = Text(f"    {name}: ", style="bold")
    head.append(f"{side_label(side)}  ", style="cyan")
    return head + highlight(side["text"], side["spans"], limit, marks=marks)


def render_diff(report: dict, fmt: str, console: Console, wide: bool = False) -> None:
    """Print a diff report as `table` (rich; compact unless `wide`), `json` (DESIGN.md §5, no ``_`` keys) or
    `markdown`."""
    if fmt == "json":
        console.file.write(json_safe(orjson.dumps(public(report), option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode())
                           + "\n")
        return
    if fmt == "markdown":
        console.file.write(safe(diff_markdown(report)) + "\n")
        return
    console.print(_summary_table(report, wide))
    if report["summary"].get("comparable") is False:
        return
    if not report["summary"]["groups"]:
        console.print("the two rulesets agree on every record")
        return
    console.print(_groups_table(report, wide))
    examples = report.get("_examples", {})
    for g in report["summary"]["groups"]:
        if not g["examples"]:
            continue
        console.print(Text(f"{g['label']} — {DIRECTIONS[g['direction']]} ({g['count']})", style="bold underline"))
        for rid in g["examples"]:
            ex = examples.get(rid)
            if ex is None:
                continue
            gold = "none" if ex["answer"] is None else repr(ex["answer"])
            console.print(Text(f"  {rid}  gold {gold}", style="dim"))
            marks = plain_marks(console)  # piped: the matched spans between ⟦ ⟧, as in Markdown
            console.print(_side_text(ex["a"], "A", marks=marks))
            console.print(_side_text(ex["b"], "B", marks=marks))
    console.print(Text(f"{report['summary']['disagree']} disagreeing records in all: --format json lists them.", style="dim"))


def _md_pred(side: dict) -> str:
    return "no answer" if side.get("pred") is None else f"`{side['pred']!r}`"


def _md_reply(side: dict, limit: int = 200) -> str:
    text, out, pos = side["text"], [], 0
    for s, e in sorted(side["spans"]):
        if s < pos:
            continue
        out += [text[pos:s], "⟦", text[s:e], "⟧"]
        pos = e
    out.append(text[pos:])
    flat = "".join(out).replace("\n", "⏎").replace("`", "'")
    return flat[:limit] + ("…" if len(flat) > limit else "")


def diff_markdown(report: dict) -> str:
    """GitHub-flavoured Markdown: summary, flips-by-group table and examples (matched spans in ⟦⟧)."""
    s = report["summary"]
    ci = s["bootstrap_ci"]
    lines = [f"## rulekit diff: A = `{report['a']}`, B = `{report['b']}`", ""]
    if report.get("_where"):
        lines += [report["_where"], ""]
    if s.get("comparable") is False:
        lines += [f"- {cannot_compare(report)}", f"- on their own records: A, B {own_text(report)}",
                  f"- fingerprints: A `{s['fingerprint_a']}`, B `{s['fingerprint_b']}`"]
        return "\n".join(lines)
    lines += [f"- records compared: {compared_text(report)}",
              f"- agree {s['agree']}, disagree {s['disagree']} (A right only {s['a_only_correct']}, "
              f"B right only {s['b_only_correct']})",
              f"- accuracy A {_pct(s['accuracy_a'])} %, B {_pct(s['accuracy_b'])} %, delta {_pct(s['delta'])} points, "
              f"McNemar exact p = {s['mcnemar_p']:.3g}, paired bootstrap 95% CI "
              + (f"[{_pct(ci[0])}, {_pct(ci[1])}]" if ci else "—") + f" (seed {s['seed']})",
              f"- on their own records: A, B {own_text(report)}",
              "- flips: " + ", ".join(f"{c} {s['categories'][c]}" for c in CATEGORIES),
              f"- fingerprints: A `{s['fingerprint_a']}`, B `{s['fingerprint_b']}`", ""]
    if s["groups"]:
        lines += ["| category | A step | B step | direction | count | Δ points | share of Δ % |", "|---|---|---|---|---:|---:|---:|"]
        for g in s["groups"]:
            lines.append(f"| {g['label']} | {g['a_step'] or '—'} | {g['b_step'] or '—'} | {DIRECTIONS[g['direction']]} | {g['count']} "
                         f"| {100 * g['contribution']:+.2f} | {_pct(g['share_of_delta'])} |")
        lines.append("")
        examples = report.get("_examples", {})
        for g in s["groups"]:
            shown = [rid for rid in g["examples"] if rid in examples]
            if not shown:
                continue
            lines.append(f"**{g['label']}** ({DIRECTIONS[g['direction']]}, {g['count']})")
            for rid in shown:
                ex = examples[rid]
                lines.append(f"- `{rid}` gold `{ex['answer']!r}`: A {_md_pred(ex['a'])}, B {_md_pred(ex['b'])}")
                lines.append(f"  - A: `{_md_reply(ex['a'])}`")
                lines.append(f"  - B: `{_md_reply(ex['b'])}`")
            lines.append("")
    return "\n".join(lines).rstrip()


def extraction_band(results: list[Result], seed: int) -> dict:
    """The like-for-like accuracy band of several rulesets (`rulekit.report.joint.compare`): ``{"min", "max",
    "spread", "ci": {name: (lo, hi)}, "n", "comparable", "accuracy", "left_out", "own", "by", ...}``, the band
    and its bootstrap CIs (seeded with `seed`) on the records every ruleset scored; None figures when
    there are none. Each ruleset's own accuracy and CI, on all the records it scored, are under ``own``."""
    return compare(results, seed)
