"""`rulekit explain`: every step tried on one record, with spans, picks and file:line."""
from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from rulekit.engine.compiler import CompiledRuleset
from rulekit.engine.decide import Evaluator
from rulekit.core.records import Record
from rulekit.core.trace import Decision

_STATUS_STYLE = {"fired": "bold green", "passed": "yellow", "skipped": "dim", "skipped-to": "cyan", "error": "red",
                 "unresolved": "magenta"}


def explain_record(ruleset: CompiledRuleset, record: Record, seed: int | None = None) -> Decision | None:
    """Decide one record with a full trace."""
    return Evaluator(ruleset, seed).decide(record, trace=True)


def explain_json(ruleset: CompiledRuleset, record: Record, decision: Decision | None,
                 seed: int | None = None) -> dict[str, Any]:
    """JSON form: the decision and its trace, with the fingerprint of the ruleset run with `seed` (as `eval`)."""
    if decision is None:
        return {"ruleset": ruleset.name, "fingerprint": ruleset.fingerprint_for(seed), "id": record.id,
                "pred": None, "outcome": None, "message": f"the ruleset has no `{record.question_type}` section"}
    return {"ruleset": ruleset.name, "fingerprint": ruleset.fingerprint_for(seed), "seed": ruleset.run_seed(seed),
            "id": record.id, "pred": decision.pred,
            "correct": decision.correct, "outcome": decision.outcome, "step": decision.step, "answer": record.answer,
            "text": decision.text, "trace": [s.as_dict() for s in decision.trace or []],
            **({"message": decision.message} if decision.message else {})}


def highlight(text: str, spans: list[tuple[int, int]], limit: int = 600) -> Text:
    """The text with the given spans highlighted (long texts are cut around the spans)."""
    start = 0
    if len(text) > limit and spans:
        start = max(0, min(s for s, _ in spans) - limit // 3)
    shown = text[start:start + limit]
    out = Text("…" if start else "")
    out.append(shown)
    for s, e in spans:
        s2, e2 = s - start + (1 if start else 0), e - start + (1 if start else 0)
        if 0 <= s2 < len(out) and e2 > s2:
            out.stylize("bold reverse", s2, min(e2, len(out)))
    if start + limit < len(text):
        out.append("…")
    return out


def fingerprint_label(ruleset: CompiledRuleset, seed: int | None) -> str:
    """The fingerprint as `eval` prints it: `FINGERPRINT` and ` seed=N` when the ruleset draws letters."""
    run_seed = ruleset.run_seed(seed)
    return ruleset.fingerprint_for(seed) + (f" seed={run_seed}" if run_seed is not None else "")


def render_explain(console: Console, ruleset: CompiledRuleset, record: Record, decision: Decision | None,
                   seed: int | None = None) -> None:
    """Rich, human-readable trace of one record (the fingerprint of the ruleset run with `seed`, as `eval`)."""
    console.print(Text.assemble((ruleset.name, "bold"), " ", (fingerprint_label(ruleset, seed), "dim"), " on record ",
                                (str(record.id), "bold")))
    if decision is None:
        console.print(f"  the ruleset has no `{record.question_type}` section; not scored")
        return
    if record.choices:
        console.print("  options: " + ", ".join(f"{k}={v!r}" for k, v in record.choices.items()), markup=False)
    console.print(Text("  reply:    ") + Text(repr(record.response[:400])))
    if decision.text != record.response:
        console.print(Text("  prepared: ") + Text(repr(decision.text[:400])))
    for st in decision.trace or []:
        style = _STATUS_STYLE.get(st.status, "")
        line = Text(f"  {st.status:>10} ", style=style)
        line.append(f"{st.step}", style="bold")
        line.append(f"  ({st.file.rsplit('/', 1)[-1]}:{st.line})", style="dim")
        console.print(line)
        console.print(f"             looked for: {st.looked_for}", markup=False)
        if st.candidates:
            shown = ", ".join(f"{c.answer!r}@{c.start}" for c in st.candidates[:12])
            more = f" (+{len(st.candidates) - 12} more)" if len(st.candidates) > 12 else ""
            console.print(f"             candidates: {shown}{more}", markup=False)
            if st.kept is not None:
                console.print(f"             kept by where: {', '.join(f'{c.answer!r}@{c.start}' for c in st.kept[:12]) or 'none'}", markup=False)
        console.print(f"             {st.reason}", markup=False)
        if st.status == "fired" and st.candidates:
            spans = [(c.start, c.end) for c in (st.kept if st.kept is not None else st.candidates) if c.answer == st.answer or isinstance(st.answer, list)]
            console.print(Text("             ") + highlight(decision.text if st.candidates else "", spans[:20]))
    verdict = {True: ("correct", "green"), False: ("wrong", "red"), None: ("not scored", "yellow")}[decision.correct]
    partial = f" (score {decision.score:g})" if decision.score not in (0.0, 1.0) else ""  # partial credit: anls, mra, tiers
    console.print(Text.assemble("  → pred ", (repr(decision.pred), "bold"), " outcome ", (decision.outcome, "bold"),
                                " step ", (str(decision.step), "bold"), f" gold {record.answer!r}: ", verdict, partial))
    if decision.message:
        console.print(f"    {decision.message}", markup=False)


def side_by_side(console: Console, a: tuple, b: tuple, seed: int | None = None) -> None:
    """Two rulesets' traces of the same record next to each other (`explain --diff`)."""
    table = Table(title=f"record {a[1].id}", show_lines=True)
    for rs, _, _ in (a, b):
        table.add_column(f"{rs.name} ({fingerprint_label(rs, seed)})")
    rows = max(len(a[2].trace or []) if a[2] else 0, len(b[2].trace or []) if b[2] else 0)
    for i in range(rows):
        cells = []
        for _, _, d in (a, b):
            tr = (d.trace or []) if d else []
            if i < len(tr):
                st = tr[i]
                cells.append(Text(f"{st.status} {st.step}\n", style=_STATUS_STYLE.get(st.status, "")) + Text(st.reason))
            else:
                cells.append(Text(""))
        table.add_row(*cells)
    table.add_row(*[Text(f"→ {d.pred!r} ({d.outcome}, {d.step}), correct={d.correct}", style="bold") if d else Text("not scored")
                    for _, _, d in (a, b)])
    console.print(table)
