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
    """JSON form: the decision and its trace, with the fingerprint of the ruleset run with `seed` (as `eval`);
    `response` is the reply as read, `text` what the steps looked in (prepared)."""
    if decision is None:
        return {"ruleset": ruleset.name, "fingerprint": ruleset.fingerprint_for(seed), "id": record.id,
                "pred": None, "outcome": None, "message": f"the ruleset has no `{record.question_type}` section"}
    return {"ruleset": ruleset.name, "fingerprint": ruleset.fingerprint_for(seed), "seed": ruleset.run_seed(seed),
            "id": record.id, "pred": decision.pred,
            "correct": decision.correct, "outcome": decision.outcome, "step": decision.step, "answer": record.answer,
            "text": decision.text, "response": record.response, "trace": [s.as_dict() for s in decision.trace or []],
            **({"message": decision.message} if decision.message else {})}


MARK_OPEN, MARK_CLOSE = "⟦", "⟧"  # matched spans in plain text (piped output, Markdown)


def highlight(text: str, spans: list[tuple[int, int]], limit: int = 600, marks: bool = False) -> Text:
    """The text with the given spans highlighted (long texts are cut around the spans). `marks`: each span is
    also put between ⟦ and ⟧, so it survives where styles do not (piped output: `plain_marks(console)`)."""
    start = 0
    if len(text) > limit and spans:
        start = max(0, min(s for s, _ in spans) - limit // 3)
    shown = text[start:start + limit]
    out = Text("…" if start else "")
    merged: list[list[int]] = []  # the spans within `shown`, overlapping ones joined
    for s, e in sorted(spans):
        s2, e2 = max(s - start, 0), min(e - start, len(shown))
        if s2 >= len(shown) or e2 <= s2:
            continue
        if merged and s2 <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e2)
        else:
            merged.append([s2, e2])
    pos = 0
    for s2, e2 in merged:
        out.append(shown[pos:s2])
        out.append(f"{MARK_OPEN}{shown[s2:e2]}{MARK_CLOSE}" if marks else shown[s2:e2], style="bold reverse")
        pos = e2
    out.append(shown[pos:])
    if start + limit < len(text):
        out.append("…")
    return out


def plain_marks(console: Console) -> bool:
    """Does `console` drop styles (piped, redirected, TERM=dumb)? Then matched spans are marked ⟦ ⟧."""
    return console.color_system is None


def _candidates_text(st) -> str:
    """A step's candidates with their positions: `'A'@12, 'B'@30` (the first 12, then how many more)."""
    shown = ", ".join(f"{c.answer!r}@{c.start}" for c in st.candidates[:12])
    more = f" (+{len(st.candidates) - 12} more)" if len(st.candidates) > 12 else ""
    return shown + more


def _fired_spans(st) -> list[tuple[int, int]]:
    """The spans of what a fired step matched (kept by its `where:` when it has one)."""
    return [(c.start, c.end) for c in (st.kept if st.kept is not None else st.candidates)
            if c.answer == st.answer or isinstance(st.answer, list)][:20]


def answer_label(pred, outcome: str | None, step: str | None) -> str:
    """A decision's answer in words: `'C' (rule, answer-is)`, `no answer (unresolved)` — never `None`."""
    how = ", ".join(str(x) for x in (outcome, step) if x is not None)
    text = "no answer" if pred is None else repr(pred)
    return f"{text} ({how})" if how else text


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
            console.print(f"             candidates: {_candidates_text(st)}", markup=False)
            if st.kept is not None:
                console.print(f"             kept by where: {', '.join(f'{c.answer!r}@{c.start}' for c in st.kept[:12]) or 'none'}", markup=False)
        console.print(f"             {st.reason}", markup=False)
        if st.status == "fired" and st.candidates:
            console.print(Text("             ") + highlight(decision.text, _fired_spans(st), marks=plain_marks(console)))
    verdict = {True: ("correct", "green"), False: ("wrong", "red"), None: ("not scored", "yellow")}[decision.correct]
    partial = f" (score {decision.score:g})" if decision.score not in (0.0, 1.0) else ""  # partial credit: anls, mra, tiers
    console.print(Text.assemble("  → pred ", (repr(decision.pred), "bold"), " outcome ", (decision.outcome, "bold"),
                                " step ", (str(decision.step), "bold"), f" gold {record.answer!r}: ", verdict, partial))
    if decision.message:
        console.print(f"    {decision.message}", markup=False)


def side_by_side(console: Console, a: tuple, b: tuple, seed: int | None = None) -> None:
    """Two rulesets' traces of the same record next to each other (`explain --diff`): the record's options and
    reply (and each side's prepared text where it differs), then per step its status, reason, candidates
    with their positions and, for the step that fired, the reply with what it matched highlighted (⟦ ⟧ when
    piped)."""
    record = a[1]
    marks = plain_marks(console)
    if record.choices:
        console.print("options: " + ", ".join(f"{k}={v!r}" for k, v in record.choices.items()), markup=False)
    reply = record.response if isinstance(record.response, str) else str(record.response)
    console.print(Text("reply:    ") + Text(repr(reply[:400])))
    for rs, _, d in (a, b):
        if d is not None and d.text is not None and d.text != reply:
            console.print(Text(f"prepared by {rs.name}: ") + Text(repr(d.text[:400])))
    table = Table(title=f"record {record.id}", show_lines=True)
    for rs, _, _ in (a, b):
        table.add_column(f"{rs.name} ({fingerprint_label(rs, seed)})", overflow="fold")
    rows = max(len(a[2].trace or []) if a[2] else 0, len(b[2].trace or []) if b[2] else 0)
    for i in range(rows):
        cells = []
        for _, _, d in (a, b):
            tr = (d.trace or []) if d else []
            if i < len(tr):
                st = tr[i]
                cell = Text(f"{st.status} {st.step}\n", style=_STATUS_STYLE.get(st.status, "")) + Text(st.reason)
                if st.candidates:
                    cell.append(f"\ncandidates: {_candidates_text(st)}")
                    if st.kept is not None:
                        cell.append(f"\nkept by where: {', '.join(f'{c.answer!r}@{c.start}' for c in st.kept[:12]) or 'none'}")
                    if st.status == "fired":
                        cell.append("\n")
                        cell.append_text(highlight(d.text or "", _fired_spans(st), 200, marks=marks))
                cells.append(cell)
            else:
                cells.append(Text(""))
        table.add_row(*cells)
    table.add_row(*[Text(f"→ {answer_label(d.pred, d.outcome, d.step)}, correct={d.correct}", style="bold") if d else Text("not scored")
                    for _, _, d in (a, b)])
    console.print(table)
