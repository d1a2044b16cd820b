"""What a framework's per-row result sheet says: the judge's replies (to replay), which rows its rules left
unmatched, and its own `hit` per row (to compare with ours)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from rulekit.report.reproduce.files import sheet_records

# VLMEvalKit's eval_vanilla logs f"Match Log: {log}. " where `log` is the prediction (matched by the rules),
# the judge's reply (matched on it), "Failed in Prefetch, ..." (no judge: scored Z) or "Failed to predict,
# thus randomly generate one. " (the judge failed every try: an unseeded random.choice).
MATCH_LOG = "Match Log: "
NO_JUDGE_LOG = "Failed in Prefetch"
RANDOM_LOG = "Failed to predict, thus randomly generate one"


def sheet_judge_replies(sheet: Path) -> tuple[dict[str, str], set[str], set[str]]:
    """({id: the judge's reply}, {ids VLMEvalKit guessed at random}, {ids its rules did not match}) of a
    VLMEvalKit result sheet: a row whose `log` holds something other than its own prediction was
    matched on the judge's reply; "Failed in Prefetch" rows had no judge."""
    replies, guessed, unmatched = {}, set(), set()
    for r in sheet_records(sheet):
        log = r.meta.get("log")
        if not isinstance(log, str):
            continue
        said = log[len(MATCH_LOG):-2] if log.startswith(MATCH_LOG) and log.endswith(". ") else log
        if said.startswith(RANDOM_LOG):
            guessed.add(r.id)
        elif said.startswith(NO_JUDGE_LOG):
            unmatched.add(r.id)
        elif said != r.response and log.startswith(MATCH_LOG):
            replies[r.id] = said
    return replies, guessed, unmatched | guessed | set(replies)


def judge_sheet_replies(sheet: Path, spec: dict) -> tuple[dict[str, str], set[str], set[str] | None]:
    """({id: the judge's reply}, {}, {ids the rules did not settle} or None) of a judge benchmark's sheet, as
    the registry's `judge-sheet:` reads it: `reply: COLUMN` (MathVision's `res`, MMVet's `score`,
    DynaMath's `extracted`) or `json: [COLUMN, ...]` (the reply is the JSON object of those columns:
    CharXiv's sheet keeps its judge's `extracted_answer` and `score`, not the reply itself); `log: COLUMN`
    with `settled: TEXT` leaves out the rows no judge was asked about (MathVision's "Prefetch succeed").
    With a `log` column every row it keeps was asked; without one the sheet does not say which were
    (DynaMath), so the third item is None. An empty cell is the empty reply; a number is its repr (MMVet's
    score 0.5 is the reply "0.5"); `values: {CELL: REPLY}` names the reply a cell stands for.
    `match-log: true`: a sheet whose multiple-choice rows went through VLMEvalKit's answer matching
    (ImageShortQADataset's: EMMA) — a row whose `log` is a `Match Log: ...` is read as a result sheet's
    (sheet_judge_replies: the judge's reply where it is not the row's own prediction, a random guess said so),
    every other row by `reply`/`values`."""
    import json

    def text(value: Any) -> str:
        return "" if value is None else value if isinstance(value, str) else repr(value)

    replies, guessed = {}, set()
    for r in sheet_records(sheet):
        log = r.meta.get(spec.get("log", "log"))
        if spec.get("match-log") and isinstance(log, str) and log.startswith(MATCH_LOG):
            said = log[len(MATCH_LOG):-2] if log.endswith(". ") else log[len(MATCH_LOG):]
            if said.startswith(RANDOM_LOG):
                guessed.add(r.id)
            elif said != r.response:  # its own prediction: settled by the rules
                replies[r.id] = said
            continue
        if "settled" in spec and r.meta.get(spec.get("log", "log")) == spec["settled"]:
            continue
        if "json" in spec:  # numbers stay numbers in the object, anything else is its text
            replies[r.id] = json.dumps({c: r.meta.get(c) if type(r.meta.get(c)) in (int, float) else text(r.meta.get(c))
                                        for c in spec["json"]}, ensure_ascii=False)
        else:  # `values`: what a cell stands for (MathVerse's score True for the grader's "1")
            reply = text(r.meta.get(spec.get("reply", "res")))
            replies[r.id] = (spec.get("values") or {}).get(reply, reply)
    return replies, guessed, ((set(replies) | guessed) if "log" in spec else None)


def circular_judge_replies(sheet: Path, records: list) -> tuple[dict[str, str], set[str], set[str]]:
    """({id: the judge's reply}, {ids VLMEvalKit guessed at random}, {ids its judge never saw}) of a
    CircularEval result sheet, whose rows are the groups' main questions and whose `log` tells the
    group's story (eval_circular_group): "Rolling i Matched." (the rules read rotation i), "Rolling i:
    Answer is G, Prediction is P, Pre-fetched is X." (the judge answered X, which was right; only the
    letter is kept, so X is its reply here), "Failed in Rolling i: ...; Pre-fetched is X; Match Log is
    REPLY." (the judge's own reply, wrong, or VLMEvalKit's random guess), "Failed in Prefetching ..." /
    "Succeed During Pre-fetching" (no judge). Rotation i is the i-th row of the group in file order; the
    rotations after a failure were never judged, and cannot change their failed group."""
    from rulekit.engine.compiler import load_ruleset
    from rulekit.metrics.groups import group_key

    spec = load_ruleset("vlmevalkit+circular").model.metrics.groups  # the groups the ruleset scores
    groups: dict[str, list] = {}
    for r in records:
        key = spec.key_of(r)
        if key is not None:
            groups.setdefault(group_key(key), []).append(r)
    replies, guessed, never = {}, set(), set()
    for row in sheet_records(sheet):
        log = row.meta.get("log")
        rows = groups.get(group_key(row.meta.get("g_index", row.id)))
        if not isinstance(log, str) or not rows or "Rolling" not in log or log.startswith("Failed in Prefetching"):
            continue
        judged = set()
        for digits, letter in rolls_judged_right(log):
            i = _rotation(digits)
            if i < len(rows):
                replies[rows[i].id] = letter
                judged.add(i)
        failed = roll_failed(log)
        if failed and _rotation(failed[0]) < len(rows):
            i, said = _rotation(failed[0]), failed[1]
            if said.startswith(RANDOM_LOG):
                guessed.add(rows[i].id)
            else:
                replies[rows[i].id] = said
            judged.add(i)
            never |= {r.id for n, r in enumerate(rows) if n > i}
    return replies, guessed, never


# A `log` cell is untrusted text: it is read with str.find in linear time, never with a regex that
# backtracks (the patterns these functions stand for are cubic on a cell of repeated "Rolling 0: Answer is
# A, Prediction is B, ", and a Python `re` call cannot be interrupted).
def rolls_judged_right(log: str) -> list[tuple[str, str]]:
    """(rotation digits, letter) of each "Rolling i: Answer is G, Prediction is P, Pre-fetched is X." line of a
    CircularEval log, exactly what re.finditer(r"Rolling (\\d+): Answer is .*?, Prediction is .*?, Pre-fetched
    is ([A-Z])\\.(?:\\n|$)", log, re.S) finds (tests/test_bounds.py compares the two)."""
    out, pos, n = [], 0, len(log)
    while True:
        at = log.find("Rolling ", pos)
        if at < 0:
            return out
        k = at + 8
        while k < n and log[k].isdecimal():  # what \d matches in a str pattern
            k += 1
        if k == at + 8 or not log.startswith(": Answer is ", k):
            pos = at + 1
            continue
        said = log.find(", Prediction is ", k + 12)
        if said < 0:
            return out  # a later start has even less text after it: no match there either
        look = said + 16
        while True:
            t = log.find(", Pre-fetched is ", look)
            if t < 0:
                return out
            c = t + 17
            if c + 1 < n and "A" <= log[c] <= "Z" and log[c + 1] == "." and (c + 2 == n or log[c + 2] == "\n"):
                break
            look = t + 1
        out.append((log[at + 8:k], log[c]))
        pos = c + 2 + (c + 2 < n)


def roll_failed(log: str) -> tuple[str, str] | None:
    """(rotation digits, the judge's reply) of a "Failed in Rolling i: ...; Match Log is REPLY." log, exactly
    what re.search(r"Failed in Rolling (\\d+): .*?; Match Log is (.*)\\.\\n?$", log, re.S) finds."""
    pos, n = 0, len(log)
    while True:
        at = log.find("Failed in Rolling ", pos)
        if at < 0:
            return None
        k = at + 18
        while k < n and log[k].isdecimal():
            k += 1
        if k == at + 18 or not log.startswith(": ", k):
            pos = at + 1
            continue
        mark = log.find("; Match Log is ", k + 2)
        end = log.rfind(".")  # (.*)\\.\\n?$: the last "." with at most two line ends after it
        if mark < 0 or end < mark + 15 or log[end + 1:] not in ("", "\n", "\n\n"):
            return None  # a later start cannot do better
        return log[at + 18:k], log[mark + 15:end]


def _rotation(digits: str) -> int:
    """A rotation number from a log (digits of any script, as int() reads them); a number too long to be a
    rotation (a 5,000-digit one, which int() refuses) is past every group."""
    return int(digits) if len(digits) <= 9 else 1 << 40


def sheet_differences(sheet: Path, records: list, decisions: list, correct: list[bool]) -> tuple[list[dict], float | None]:
    """The records our decision scores differently from the framework's own `hit` (its result sheet),
    and the mean of those `hit`s (what the sheet itself says Overall is)."""
    hits = {}
    for r in sheet_records(sheet):
        hit = r.meta.get("hit")
        if hit is not None:
            try:
                hits[r.id] = bool(int(float(hit)))
            except (TypeError, ValueError, OverflowError):  # "nan", "inf", text: not a verdict the sheet gives
                continue
    out = []
    for rec, d, ok in zip(records, decisions, correct):
        if rec.id in hits and hits[rec.id] != ok:
            out.append({"id": rec.id, "framework_hit": hits[rec.id], "ours": ok, "pred": d.pred, "outcome": d.outcome,
                        "step": d.step, "response": rec.response[:200]})
    return out, (sum(hits.values()) / len(hits) if hits else None)
