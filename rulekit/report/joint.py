"""Like for like: several rulesets compared on the records every one of them scored.

Each ruleset's own accuracy covers the records it scored: those of a question type it has a section
for, less those it cannot read (outcome `unreadable`: a multiple-choice record without options, for
a ruleset that answers with one of the record's option letters), unless `--count-unreadable` counts
them wrong. Two rulesets that score different records cannot be compared on those numbers: on the
bundled sample VLMEvalKit's matcher scores the 307 multiple-choice records, lmms-eval all 400, and
the band of their own accuracies (31.75-35.50) mixes denominators where the like-for-like one is
35.50-41.04.

`compare(results, seed)` is the one rule every cross-ruleset number follows (the `eval` band and its
table, JSON, Markdown and HTML, the `--by` tables across rulesets; `diff` pairs records the same
way): the records every compared ruleset scored, found from each Result's per-record status
(`Result.status`, input order); each ruleset's accuracy there with a seeded bootstrap 95% CI; the
band (min, max, spread); and per ruleset the records it scored that were left out of the comparison,
counted by why (another ruleset has no section for them, or cannot read them). Where no record was
scored by all, there is no band: the rulesets cannot be compared on this input, and the report says
so. `readers_of(benchmark)` names the built-in rulesets the registry (rulekit/data/benchmarks.yaml)
lists for a benchmark that read multiple-choice records without options.
"""
from __future__ import annotations

import functools
from collections import Counter
from itertools import compress
from typing import Any

from rulekit.metrics.accumulate import NOT_SCORED, RIGHT, UNREADABLE
from rulekit.metrics.stats import bootstrap_ci
from rulekit.run.evaluate import Result

NO_OPTIONS = "multiple-choice without options"
_SCORED = bytes.maketrans(bytes(range(4)), bytes((1, 1, 0, 0)))  # status → 1 when in the ruleset's headline
_FLIP = bytes.maketrans(b"\x00\x01", b"\x01\x00")


def _mask(statuses: list[bytes]) -> bytes:
    """1 for each record every ruleset scored, else 0 (statuses of equal length)."""
    n = len(statuses[0])
    if n == 0:
        return b""
    common = -1
    for status in statuses:
        common &= int.from_bytes(status.translate(_SCORED), "big")
    return common.to_bytes(n, "big")


def _statuses(results: list[Result]) -> list[bytes] | None:
    """Each Result's per-record status; None when they did not see the same records."""
    statuses = [r.status or bytes(r.correct) for r in results]  # a Result made by hand: every record scored
    return statuses if len({len(s) for s in statuses}) == 1 else None


def why_left_out(results: list[Result], t: tuple) -> str:
    """Why a record with statuses `t` (one per ruleset) is not in the comparison, in words."""
    parts = []
    missing = [r for r, s in zip(results, t) if s == NOT_SCORED]
    if missing:
        kinds = {kind for r in missing for kind in r.skipped}
        parts.append(f"no section in {', '.join(r.ruleset for r in missing)}"
                     + (f" ({next(iter(kinds))})" if len(kinds) == 1 else ""))
    blind = [r.ruleset for r, s in zip(results, t) if s == UNREADABLE]
    if blind:
        parts.append(f"unreadable by {', '.join(blind)} ({NO_OPTIONS})")
    return "; ".join(parts)


def _figures(results: list[Result], bits: list[bytes], seed: int) -> dict:
    """Accuracy and bootstrap CI per ruleset on the same records (`bits`: 1/0 per record), and the band."""
    return _figures_of(results, [(b.count(RIGHT), len(b)) for b in bits], seed)


def _figures_of(results: list[Result], counts: list[tuple[int, int]], seed: int | None) -> dict:
    """`_figures` from (right, n) per ruleset: a bootstrap of 1/0 scores depends on their counts only
    (`metrics.stats`: a multinomial over the distinct values), so no per-record list is needed. With
    `seed` None, no CI (the `--by` values: one bootstrap per value and ruleset would cost more than the run)."""
    n = counts[0][1] if counts else 0
    accuracy = {r.ruleset: (right / n if n else None) for r, (right, _) in zip(results, counts)}
    ci = {r.ruleset: (tuple(bootstrap_ci([1.0] * right + [0.0] * (n - right), seed)) if n else (None, None))
          for r, (right, _) in zip(results, counts)} if seed is not None else None
    values = [a for a in accuracy.values() if a is not None]
    lo, hi = (min(values), max(values)) if values else (None, None)
    out = {"n": n, "comparable": n > 0, "min": lo, "max": hi, "spread": hi - lo if values else None,
           "accuracy": accuracy}
    if ci is not None:
        out["ci"] = ci
    return out


def compare(results: list[Result], seed: int) -> dict:
    """The like-for-like comparison of `results` (DESIGN.md §5's `band`, extended):

    ``{"rulesets", "n", "comparable", "min", "max", "spread", "accuracy": {name: x}, "ci": {name: (lo, hi)},
    "left_out": {name: {"n", "why": {reason: count}}}, "own": {name: {"n", "accuracy", "ci"}}, "by": {...}}``

    `n` is the number of records every ruleset scored; `accuracy`, `ci` and the band (`min`, `max`,
    `spread`) are on those records only (None where there are none: `comparable` is False). `left_out`
    counts, per ruleset, the records it scored that are not among them, by reason. `own` is each
    ruleset's accuracy and CI on all the records it scored (its headline). With `Result.keys` (`eval
    --by`), `by[field][value]` holds the same figures on that value's records, and its `left_out` counts
    every record of the value outside the comparison (`{"n", "why"}`; no CI per value). CIs are bootstraps seeded with
    `seed`; everything is computed from exact counts, so the numbers do not depend on record order.
    """
    own = {}
    for r in results:
        scores = list(r.correct)
        own[r.ruleset] = {"n": r.n, "accuracy": r.metrics.get("accuracy"),
                          "ci": tuple(bootstrap_ci(scores, seed)) if scores else (None, None)}
    statuses = _statuses(results)
    if statuses is None:  # not the same input: nothing can be paired
        empty = _figures(results, [b"" for _ in results], seed)
        return {"rulesets": [r.ruleset for r in results], **empty, "left_out": {}, "own": own, "by": {},
                "why": "the rulesets did not score the same input"}
    mask = _mask(statuses)
    bits = [bytes(compress(s, mask)) for s in statuses]
    out = {"rulesets": [r.ruleset for r in results], **_figures(results, bits, seed)}
    outside = Counter(compress(zip(*statuses), mask.translate(_FLIP)))
    why = {t: why_left_out(results, t) for t in outside}
    left: dict[str, dict] = {}
    for i, r in enumerate(results):
        reasons: Counter = Counter()
        for t, count in outside.items():
            if t[i] < UNREADABLE:
                reasons[why[t]] += count
        left[r.ruleset] = {"n": sum(reasons.values()), "why": dict(reasons.most_common())}
    out["left_out"] = left
    out["own"] = own
    if not out["comparable"]:
        out["why"] = "no record was scored by every ruleset"
    out["by"] = _by(results, statuses, mask, why, seed)
    return out


def _by(results: list[Result], statuses: list[bytes], mask: bytes, why: dict, seed: int) -> dict:
    """The comparison per value of each `--by` field (`Result.keys`), from counts of (value, statuses)."""
    keys = results[0].keys if results else None
    if keys is None or any(len(rows) != len(mask) for rows in keys.rows):
        return {}
    out: dict[str, dict] = {}
    flip = mask.translate(_FLIP)
    for j, name in enumerate(keys.fields):
        labels, rows = keys.labels(j), keys.rows[j]
        k = len(results)
        right = [[0] * k for _ in labels]  # per value: records right, per ruleset, among those all scored
        common = [0] * len(labels)
        for (key, *t), count in Counter(compress(zip(rows, *statuses), mask)).items():
            common[key] += count
            for i, s in enumerate(t):
                if s == RIGHT:
                    right[key][i] += count
        reasons: list[Counter] = [Counter() for _ in labels]
        for (key, t), count in Counter(compress(zip(rows, zip(*statuses)), flip)).items():
            reasons[key][why.get(t) or why_left_out(results, t)] += count
        table = {}
        for key, label in enumerate(labels):
            figures = _figures_of(results, [(r, common[key]) for r in right[key]], None)
            figures["left_out"] = {"n": sum(reasons[key].values()), "why": dict(reasons[key].most_common())}
            table[label] = figures
        out[name.removeprefix("meta.")] = table
    return out


@functools.lru_cache(maxsize=None)
def reads_without_options(name: str) -> bool:
    """Does built-in ruleset `name` read a multiple-choice record that ships no options (a section for it
    that does not need options: `CompiledSection.needs_options`)?"""
    from rulekit.engine.compiler import load_ruleset

    try:
        section = load_ruleset(name).sections.get("multiple-choice")
    except Exception:  # a registry name that does not load here: not offered
        return False
    return section is not None and not section.needs_options


def readers_of(benchmark: str) -> list[str]:
    """The built-in rulesets the registry lists for `benchmark` (every framework's family, judged generations
    included) that read its multiple-choice records without options, in registry order."""
    from rulekit.report.reproduce import families_for

    names = dict.fromkeys(name for family in families_for(benchmark) for name in (*family.rulesets, *family.judged))
    return [name for name in names if reads_without_options(name)]


def unreadable_notes(results: list[Result]) -> dict[str, dict]:
    """Per benchmark with multiple-choice records without options that a ruleset of `results` cannot read:
    ``{benchmark: {"n", "why", "cannot_read": [names], "rulesets_that_apply": [names]}}`` (the registry's
    rulesets that read them). Empty when every ruleset reads them or the records name no benchmark."""
    blind = [r for r in results if r.unreadable and r.unreadable_by]
    notes: dict[str, dict] = {}
    for r in blind:
        for bench, n in r.unreadable_by.items():
            entry = notes.setdefault(bench, {"n": n, "why": NO_OPTIONS, "cannot_read": [],
                                             "rulesets_that_apply": readers_of(bench)})
            entry["cannot_read"].append(r.ruleset)
    return notes


def note_lines(notes: dict[str, dict]) -> list[str]:
    """`unreadable_notes` as sentences (table captions, Markdown, HTML)."""
    lines = []
    for bench, e in notes.items():
        apply = ", ".join(e["rulesets_that_apply"]) or "none registered (rulekit/data/benchmarks.yaml)"
        lines.append(f"{bench}: {e['n']:,} multiple-choice records without options in this input, which "
                     f"{', '.join(e['cannot_read'])} cannot read; built-in rulesets that read them: {apply}")
    return lines


def left_out_text(entry: dict) -> str:
    """A `left_out` entry in words: "93: no section in vlmevalkit (open)", or "0"."""
    if not entry or not entry.get("n"):
        return "0"
    return f"{entry['n']:,}: " + "; ".join(f"{why}" if n == entry["n"] else f"{n:,} {why}"
                                            for why, n in entry["why"].items())


def ci_text(ci: Any) -> str:
    """A 95% CI as `lo–hi` in percent, or "–" when there is none."""
    lo, hi = ci if ci else (None, None)
    return "–" if lo is None else f"{100 * lo:.2f}–{100 * hi:.2f}"


def left_out_lines(band: dict) -> list[str]:
    """Per ruleset that left records out of the comparison: how many, and why (for a band that cannot
    compare, where there is no like-for-like table to carry them)."""
    return [f"{name} left out {left_out_text(entry)}" for name, entry in band.get("left_out", {}).items()
            if entry.get("n")]


def band_line(band: dict) -> str:
    """The extraction band in one line, saying which records it is on (or that there is none)."""
    k = len(band.get("rulesets") or band.get("accuracy") or ())
    if not band.get("comparable"):
        return f"extraction band: cannot compare: {band.get('why', 'no record was scored by every ruleset')}"
    return (f"extraction band: {100 * band['min']:.2f}–{100 * band['max']:.2f} (spread {100 * band['spread']:.2f} "
            f"points across {k} rulesets, on the {band['n']:,} records all of them scored)")


def as_plain(band: Any) -> Any:
    """The band with tuples as lists (what JSON gives back)."""
    if isinstance(band, dict):
        return {k: as_plain(v) for k, v in band.items()}
    if isinstance(band, (list, tuple)):
        return [as_plain(v) for v in band]
    return band
