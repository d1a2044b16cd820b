"""Scoring an artifact with every generation its family lists, and choosing the one that gives the
published numbers back (then the one closest to the framework's own per-row evidence, then the one
whose dates hold the run's own date, then the one the other files of the run need), named with its dates
(`rulekit/data/generations.yaml`)."""
from __future__ import annotations

from dataclasses import dataclass, field

from rulekit.core.terminal import plural
from rulekit.report.reproduce.files import kept_records
from rulekit.report.reproduce.found import Artifact, Note, Row, error_note, is_headline
from rulekit.report.reproduce.index_join import INDEX_JOIN, index_joined, repeated_ids
from rulekit.report.reproduce.lmms_eval import lmms_numbers, lmms_sample_scores
from rulekit.report.reproduce.mmevalpro import mmevalpro_numbers
from rulekit.report.reproduce.parts import part_rollup
from rulekit.report.reproduce.verdicts import replayed_metrics
from rulekit.report.reproduce.numbers import circular_numbers, report_acc_numbers, score_file_numbers, with_counts
from rulekit.report.reproduce.published import Published
from rulekit.report.reproduce.registry import Family, generation_info
from rulekit.report.reproduce.replay import replayed
from rulekit.report.reproduce.sheets import (circular_judge_replies, judge_sheet_replies, sheet_differences,
                                             sheet_judge_replies)
from rulekit.report.reproduce.vlmevalkit import SCORE_SUFFIXES


@dataclass
class Scored:
    """An artifact scored with every candidate generation: (Result, our numbers, agreement per number,
    correct per record) each, and what the framework's result sheet says its rules left unmatched."""

    art: Artifact
    family: Family | None
    candidates: list[tuple]
    notes: list[str]
    unmatched: set[str] | None
    percent: bool
    logged: tuple[str, dict[str, float]] | None = None  # lmms-eval: (metric, {id: its per-sample value})
    joined: dict[int, int] = field(default_factory=dict)  # id(Result) scored with `index-join`: rows it changed
    writers: dict[int, str] = field(default_factory=dict)  # id(candidate) → the report writer's generation

    def label(self, candidate: tuple) -> str:
        """A candidate's name: its ruleset, `with index-join` when scored with that option, `+ WRITER` when
        the report's writer has generations of its own."""
        name = candidate[0].ruleset
        name = f"{name} with {INDEX_JOIN}" if id(candidate[0]) in self.joined else name
        return f"{name} + {self.writers[id(candidate)]}" if id(candidate) in self.writers else name

    def distance(self, candidate: tuple) -> int:
        """Rows whose rules-matched status differs from the framework's own sheet, or (lmms-eval) whose
        score differs from the value its samples log holds for them (0 with neither)."""
        if self.logged is not None:
            logged = self.logged[1]
            return sum(1 for d, mine in zip(candidate[0].decisions, candidate[3])
                       if d.id in logged and abs(logged[d.id] - mine) > 1e-9)
        if self.unmatched is None:
            return 0
        # not settled by the rules: left undecided, judged, or decided by the fallback (a judge's `then:` too)
        left = {d.id for d in candidate[0].decisions
                if d.outcome in ("unresolved", "judge", "fallback") or (d.outcome == "abstain" and d.step == "abstain")}
        return len(left ^ self.unmatched)

    def best(self) -> list[str]:
        """Generations that give back every number with the least sheet distance."""
        complete = [c for c in self.candidates if all(c[2].values())]
        if not complete:
            return []
        low = min(self.distance(c) for c in complete)
        return [generation(c[0].ruleset) for c in complete if self.distance(c) == low]


def not_supported(art: Artifact) -> str:
    """The note of a dataset no family scores: `not supported: <dataset> (<class>)`."""
    if art.dataset is not None:
        return f"not supported: {art.dataset.described()}: no ruleset reproduces it (rulekit/data/benchmarks.yaml)"
    return (f"not supported: {art.benchmark} (unknown dataset: no name in VLMEvalKit's dataset lists of any era, "
            "nor in rulekit/data/benchmarks.yaml, ends this file name)")


def generation(ruleset: str) -> str:
    """The rules generation of a ruleset name: `vlmevalkit@v1+judge` → `vlmevalkit@v1`."""
    return ruleset.removesuffix("+judge")


def era_of(art: Artifact) -> tuple[str, str] | None:
    """(YYYY-MM-DD, where it was read) of the run that wrote `art`'s report, when its names say it: a
    VLMEvalKit run folder `T<YYYYMMDD>_G<hash>` (2025 on) above the report, or an lmms-eval results file
    `<YYYYMMDD>_<HHMMSS>_results.json`. None when nothing dates it (a file's mtime is not trusted: a copy
    or a checkout resets it)."""
    name = art.report.name
    if len(name) > 16 and name[:8].isdigit() and name[8] == "_" and name[9:15].isdigit() \
            and name.endswith("results.json"):
        return _day(name[:8]), f"the results file's name {name}"
    for part in reversed(art.report.parent.parts):
        if len(part) > 11 and part[0] == "T" and part[1:9].isdigit() and part[9:11] == "_G":
            return _day(part[1:9]), f"the run folder {part}"
    return None


def _day(digits: str) -> str:
    return f"{digits[:4]}-{digits[4:6]}-{digits[6:8]}"


def _era_rank(ruleset: str, era: tuple[str, str] | None) -> int:
    """0 when the generation's dates hold the run's date (or nothing dates the run, or the generation has
    no dates), 1 when they do not."""
    info = generation_info(ruleset)
    return 0 if era is None or info is None or info.covers(era[0]) else 1


def _writer_rank(ruleset: str, writer: str | None) -> int:
    """0 when the ruleset's generation was the framework's for some of the days its report writer's generation
    was (or either has no dates), 1 when never: a 2023 prefetch table was read with that era's can_infer."""
    ours, theirs = generation_info(ruleset), generation_info(writer)
    if ours is None or theirs is None:
        return 0
    return 0 if ours.since[:10] <= (theirs.until or "9999")[:10] and theirs.since[:10] <= (ours.until or "9999")[:10] \
        else 1


def score_artifact(art: Artifact, loaded: dict | None = None) -> Scored:
    """Score `art`'s predictions with each generation its family lists (and, when its result sheet holds
    judge replies, each judged generation with those replies replayed). `loaded` (name → compiled ruleset)
    keeps the rulesets compiled for one file for the next ones of the same run."""
    from rulekit.engine.compiler import load_ruleset as load
    from rulekit.run.evaluate import evaluate

    def load_ruleset(name: str):
        if loaded is None:
            return load(name)
        if name not in loaded:
            loaded[name] = load(name)
        return loaded[name]

    notes = list(art.notes)
    family = art.family
    if art.parts and family is not None:  # a report over several sheets: each scored as its own dataset
        return _score_parts(art, loaded)
    if family is not None and (family.score_file or {}).get("replay"):  # the framework's verdicts, replayed
        return _score_replayed(art)
    if family is None:  # never scored with another dataset's rules
        return Scored(art, None, [], [not_supported(art)], None, False)
    if art.dataset is not None and art.dataset.variant:
        notes.append(f"`{art.dataset.name}` is `{art.dataset.base}` with a suffix VLMEvalKit never wrote itself (a "
                     f"fork's variant, or one part of it): scored with {art.dataset.base}'s rules")
    elif art.dataset is not None and art.dataset.name.lower() not in (d.lower() for d in family.datasets):
        notes.append(f"`{art.dataset.name}` is served by VLMEvalKit's {art.dataset.cls}, which runs "
                     f"{art.dataset.evaluates}'s evaluate: scored with the {family.name} family")
    # a generation that is also among the judged ones asks a judge about every row (LogicVista, MMVet):
    # it runs only with the sheet's replies replayed
    rulesets = [load_ruleset(name) for name in family.rulesets if name not in family.judged]
    by_name = {rs.name: rs for rs in rulesets}
    records = kept_records(art.predictions, dict(family.fields) or None)
    # a framework's number counts every row: one a ruleset cannot read (no options) is counted wrong, as there
    results = evaluate(rulesets, records, keep=True, count_unreadable=True) if rulesets else []
    records = results[0].records if results else records
    never: set[str] = set()
    grades: dict[str, str] | None = None
    if art.result_sheet is not None and family.name == "circular":
        replies, guessed, never = circular_judge_replies(art.result_sheet, records)
        unmatched = None  # the sheet has one row per group: which rotations the rules matched is not all there
    elif art.result_sheet is not None and family.judge_sheet:
        spec = family.judge_sheet
        replies, guessed, unmatched = judge_sheet_replies(art.result_sheet, spec)
        if spec.get("grader"):  # a two-stage judge: its grader's replies, where it was asked
            grades = judge_sheet_replies(art.result_sheet, spec["grader"])[0]
    else:
        replies, guessed, unmatched = (sheet_judge_replies(art.result_sheet) if art.result_sheet is not None
                                       else ({}, set(), None))
    if (replies or guessed) and family.judged:
        notes.append(f"{art.result_sheet.name}: {plural(len(replies), 'row')} decided on the judge's reply (replayed), "
                     f"{len(guessed)} guessed at random by VLMEvalKit"
                     + (f", {len(never)} never judged (after a failed rotation of their group)" if never else ""))
        judged = []
        for result, why in replayed(family.judged, records, replies, guessed | never, art.result_sheet, grades):
            if result is None:
                notes.append(why)
            else:
                judged.append(result)
        results = judged + results  # with the framework's judge replies first
        if guessed:
            notes.append(f"{plural(len(guessed), 'row')} were VLMEvalKit's unseeded random guess: rulekit draws its own, "
                         "so those rows can differ")
    if not results:
        notes.append(f"{', '.join(f'`{n}`' for n in family.rulesets)} asks a judge: reproducing needs the judge's "
                     f"replies, in its sheet `{art.predictions.stem}_<judge>.xlsx`"
                     + (f" ({art.result_sheet.name} has none)" if art.result_sheet is not None else ", not found"))
    # a score file, or any report whose family maps its numbers (`score-file:`: VisuLogic's and CharXiv's `_acc.csv`)
    # (`score-file: {reports: [SUFFIX, ...]}`: only for reports so named; MTVQA's `_acc.json`, not its older `_acc.csv`)
    file_spec = family.score_file if family.score_file is not None and art.report.name.endswith(
        tuple(family.score_file.get("reports") or ("",))) else None
    score_file = art.framework == "vlmevalkit" and (art.report.name.endswith(SCORE_SUFFIXES) or file_spec is not None)
    # VLMEvalKit's accuracy tables print fractions or percent; its score files and lmms-eval's results are
    # on the scale of the figure itself (MME's sums)
    percent = any(n.value > 1.0 for n in art.numbers) and not score_file and art.framework != "lmms-eval"
    # VLMEvalKit's multiple-choice evaluate joins answers by a non-unique index: score that way too (`index-join`)
    joined: dict[int, int] = {}
    if art.framework == "vlmevalkit" and family.name != "circular" and not score_file and results \
            and repeated_ids(results[-1].records):
        plain = [r for r in results if r.ruleset in by_name]
        if plain:
            rewritten, changed = index_joined(plain[0].records)
            if changed:
                extra = evaluate([by_name[r.ruleset] for r in plain], rewritten, keep=True, count_unreadable=True)
                joined = {id(r): changed for r in extra}
                results = results + extra
    scored = []
    writers: dict[int, str] = {}
    for result in results:
        records = result.records
        tables: list[tuple[str | None, dict]] = []  # (the table writer's generation, our numbers): score files
        if art.framework == "mmevalpro":
            ours = mmevalpro_numbers(art.numbers, result.metrics)
            correct = [d.correct is True for d in result.decisions]
        elif art.framework == "lmms-eval":
            correct = [d.score if d.score is not None else float(d.correct is True) for d in result.decisions]
            ours, why = lmms_numbers(art, family, result, correct)
            notes += [w for w in why if w not in notes]
        elif score_file:
            counted = with_counts(result, file_spec)
            tables = [(name, score_file_numbers(art.numbers, counted, spec)) for name, spec in table_writers(file_spec)]
            ours = tables[0][1]
            correct = [d.correct is True for d in result.decisions]
        elif family.name == "circular":
            spec = (by_name.get(result.ruleset) or load_ruleset(result.ruleset)).model.metrics.groups
            ours = circular_numbers(art.numbers, result, spec)
            correct = [d.correct is True for d in result.decisions]
        else:
            correct = [d.correct is True for d in result.decisions]
            ours = report_acc_numbers(art.numbers, records, [float(c) if d.score is None else d.score
                                                   for c, d in zip(correct, result.decisions)])
        for writer, ours in tables or [(None, ours)]:
            agree = {k: n.agrees(ours[(n.split, n.metric)], percent) for k, n in
                     ((n.split + "\0" + n.metric, n) for n in art.numbers)}
            scored.append((result, ours, agree, correct))
            if writer is not None:
                writers[id(scored[-1])] = writer
    logged = None
    if art.framework == "lmms-eval":  # the per-sample scores of every published metric, where the log has them
        names, values = [], {}
        for metric in dict.fromkeys(n.metric.partition(",")[0] for n in art.numbers):
            found = lmms_sample_scores(results[0].records, metric)
            if found:
                names.append(metric)
                values.update(found)
        logged = ("`, `".join(names), values) if values else None
    return Scored(art, family, scored, notes, unmatched, percent, logged, joined, writers)


def _score_parts(art: Artifact, loaded: dict | None = None) -> Scored:
    """A report computed over several prediction sheets (parts.py): each part scored as its own dataset (its
    judge's replies replayed from its own result sheet), then, for each generation every part was scored with,
    the report's numbers from the parts' per-record verdicts (`part_rollup`), as the family's `score-file:`
    names them."""
    spec = art.family.score_file or {}
    scored = [(name, score_artifact(part, loaded)) for name, part in art.parts]
    notes = list(art.notes)
    for name, sc in scored:
        notes += [f"part `{name}` ({sc.art.predictions.name}): {n}" for n in sc.notes if not n.startswith("`")]
    candidates = []
    first = scored[0][1]
    for label in dict.fromkeys(first.label(c) for c in first.candidates):
        picks = [next((c for c in sc.candidates if sc.label(c) == label), None) for _, sc in scored]
        if any(c is None for c in picks):
            continue
        metrics = part_rollup(spec.get("key", "category"), [(name, c[0].records, c[3])
                                                            for (name, _), c in zip(scored, picks)])
        ours = score_file_numbers(art.numbers, metrics, spec)
        agree = {n.split + "\0" + n.metric: n.agrees(ours[(n.split, n.metric)], False) for n in art.numbers}
        candidates.append((picks[0][0], ours, agree, [ok for c in picks for ok in c[3]]))
    if not candidates:
        notes.append(f"its parts ({', '.join(name for name, _ in scored)}) share no generation that scored them all")
    return Scored(art, art.family, candidates, notes, None, False)


def _score_replayed(art: Artifact) -> Scored:
    """A report whose per-row verdicts rulekit does not recompute (verdicts.py): the means of the family's
    `replay:` columns of the evaluation's own sheet, as its `score-file:` names them; every row says that
    the verdicts were replayed."""
    spec = art.family.score_file
    sheet = art.result_sheet or art.predictions
    columns = list(spec["replay"])
    result, blank = replayed_metrics(sheet, columns, spec.get("key", "category"))
    notes = list(art.notes) + [
        f"the per-row verdicts {', '.join(f'`{c}`' for c in columns)} of {sheet.name} were replayed, not "
        f"recomputed (rulekit has no ruleset for {art.benchmark}'s checkers): only their aggregation is reproduced"]
    if not result.metrics["all"]:  # no verdict to replay (a prediction sheet without them, an older sheet)
        return Scored(art, art.family, [], list(art.notes) + [
            f"{sheet.name} has no {' or '.join(f'`{c}`' for c in columns)} verdicts: nothing to replay"], None, False)
    if blank:
        notes.append(f"{plural(blank, 'verdict cell')} of {sheet.name} empty or unreadable: left out of the means")
    ours = score_file_numbers(art.numbers, result.metrics, spec)
    agree = {n.split + "\0" + n.metric: n.agrees(ours[(n.split, n.metric)], False) for n in art.numbers}
    return Scored(art, art.family, [(result, ours, agree, [])], notes, None, False)


def table_writers(spec: dict) -> list[tuple[str | None, dict]]:
    """(generation, score-file spec) for each generation of the report's own writer that a family's
    `score-file: {writers: {NAME: {SPLIT/METRIC: ENTRY, ...}}}` lists (the numbers each computed its own way:
    VLMEvalKit's prefetch table divided `hit` by `match` until 2024-01-24, by `tot` after), newest first;
    [(None, spec)] when the writer never changed."""
    if not spec.get("writers"):
        return [(None, spec)]
    return [(name, dict(spec, numbers={**(spec.get("numbers") or {}), **(own or {})}))
            for name, own in spec["writers"].items()]


def tied_generations(sc: Scored) -> list[str]:
    """The generations `rows_of` chooses among by its `prefer` list, in the order it would fall back on them:
    those of the complete candidates (every number given back) tied on the sheet distance, the run's date
    and the report writer's date; [] when no candidate is complete (then `prefer` changes nothing).
    `rows_of(sc, prefer)` equals `rows_of(sc, [g])` for g the first of these by `prefer`'s rank (the first
    listed when `prefer` names none of them): what lets a file be scored apart from the others of its run."""
    era = era_of(sc.art)
    keys = [(sc.distance(s), _era_rank(s[0].ruleset, era), _writer_rank(s[0].ruleset, sc.writers.get(id(s))))
            for s in sc.candidates if all(s[2].values())]
    if not keys:
        return []
    low = min(keys)
    complete = [s for s in sc.candidates if all(s[2].values())]
    return list(dict.fromkeys(generation(s[0].ruleset) for s, k in zip(complete, keys) if k == low))


def rows_of(sc: Scored, prefer: list[str] = ()) -> list[Row]:
    """One Row per published number of `sc.art`, with the generation chosen: every number given back,
    then the least disagreement with the framework's result sheet, then `prefer` (the generation that
    fits the other files of the same run), then the registry's order."""
    art, scored, notes, unmatched, percent = sc.art, sc.candidates, list(sc.notes), sc.unmatched, sc.percent
    if not scored:  # nothing could be run (a judge-only family without its judge's replies)
        return [Row(str(art.predictions), art.framework, art.model, art.benchmark, n.metric, n.split, n.text, None,
                    None, False, list(notes), [], percent, art.report.name) for n in art.numbers]
    sheet_distance = sc.distance
    rank = {name: i for i, name in enumerate(prefer)}
    era = era_of(art)
    complete = [s for s in scored if all(s[2].values())]
    whole = (min(complete, key=lambda s: (sheet_distance(s), _era_rank(s[0].ruleset, era),
                                          _writer_rank(s[0].ruleset, sc.writers.get(id(s))),
                                          rank.get(generation(s[0].ruleset), len(rank))))
             if complete else None)
    heads = _headline_keys(art)
    overall = next((s for s in scored if heads and all(s[2][k] for k in heads)), None)
    chosen = whole or overall or min(scored, key=lambda s: _distance(s[1], art.numbers))
    result, ours, agree, correct = chosen
    also = [sc.label(s) for s in scored if s is not chosen and all(s[2].values())]
    if whole is not None and also:
        notes.append(f"also reproduced by {', '.join(f'`{name}`' for name in also)} (they agree on these replies)")
    if sc.logged is not None:
        off = sheet_distance(chosen)
        notes.append(f"its per-record scores equal the samples log's `{sc.logged[0]}` on all {len(sc.logged[1])} records"
                     if off == 0 else f"its per-record scores differ from the samples log's `{sc.logged[0]}` "
                                      f"on {plural(off, 'record')}")
    if unmatched is not None:
        off = sheet_distance(chosen)
        notes.append(f"its rules leave the same {plural(len(unmatched), 'row')} unmatched as {art.result_sheet.name} shows"
                     if off == 0 else f"its rules and {art.result_sheet.name} disagree on which rows the rules "
                                      f"matched: {plural(off, 'row')}")
    if whole is None:
        missed = sum(1 for v in agree.values() if not v)
        if overall is not None:
            notes.append(f"{_label(art, heads)} reproduced; {plural(missed, 'other number')} {'is' if missed == 1 else 'are'} not (see their rows)")
        else:  # each generation's figure for the headline number, as the table shows it
            head = heads[0] if heads else next(iter(agree))
            tried = ", ".join(f"{sc.label(s)} {_shown(s[1], art, head, percent)}" for s in scored)
            notes.append(f"no generation reproduces it; closest `{result.ruleset}` (tried, {_label(art, [head])}: "
                         f"{tried})")
    differences: list[dict] = []
    if whole is None and art.result_sheet is not None:
        differences, sheet_overall = sheet_differences(art.result_sheet, result.records, result.decisions, correct)
        notes.append(f"{len(differences)} records scored differently from {art.result_sheet.name}'s `hit`")
        reported = next((n for n in art.numbers if n.metric.strip() == "Overall"), None)
        if not differences and sheet_overall is not None and reported is not None \
                and not reported.agrees(sheet_overall, percent):
            notes.append(f"the framework's own per-row `hit` gives Overall {sheet_overall!r}, not the published "
                         f"{reported.text}: the published number does not follow from its result sheet")
    if whole is None and sc.logged is not None:
        metric, logged = sc.logged
        for rec, d, mine in zip(result.records, result.decisions, correct):
            if rec.id in logged and abs(logged[rec.id] - mine) > 1e-9:
                differences.append({"id": rec.id, "framework_score": logged[rec.id], "ours": mine, "pred": d.pred,
                                    "outcome": d.outcome, "step": d.step, "response": rec.response[:200]})
    info = generation_info(result.ruleset)
    if info is not None:
        notes.append(f"generation `{generation(result.ruleset)}`: {info.framework}'s scorer {info.span} "
                     f"(commit {info.commit}: {info.change})")
        if era is not None and not info.covers(era[0]):
            notes.append(f"the run is dated {era[0]} ({era[1]}), outside the dates of `{generation(result.ruleset)}`")
    writer = sc.writers.get(id(chosen))
    written = generation_info(writer) if writer is not None else None
    if written is not None:
        notes.append(f"the report's writer `{writer}`: {written.framework}'s table {written.span} (commit "
                     f"{written.commit}: {written.change})")
    dup = repeated_ids(result.records)
    options = [INDEX_JOIN] if id(result) in sc.joined else []
    if dup:
        notes.append(_index_join_note(sc, chosen, dup) if art.framework == "vlmevalkit"
                     else f"{dup} records repeat an earlier record's id")
    rows = []
    for n in art.numbers:
        rows.append(Row(str(art.predictions), art.framework, art.model, art.benchmark, n.metric, n.split, n.text,
                        ours[(n.split, n.metric)], result.ruleset, agree[n.split + "\0" + n.metric], list(notes),
                        differences if n.metric == "Overall" or art.framework == "lmms-eval" else [], percent,
                        art.report.name, generation=info.as_dict() if info is not None else None, options=options,
                        fingerprint=result.fingerprint, writer=written.as_dict() if written is not None else None))
    return rows


def _headline_keys(art: Artifact) -> list[str]:
    """The keys (split NUL metric) of the numbers a leaderboard shows for `art` (found.is_headline): VLMEvalKit's
    Overall, MMEvalPro's Genuine Accuracy over the whole run (every source's when there is no whole run)."""
    heads = [n for n in art.numbers if is_headline(_Named(art.framework, n.split, n.metric))]
    whole = [n for n in heads if n.split in ("Micro_Average", "none")]
    return [n.split + "\0" + n.metric for n in (whole if art.framework == "mmevalpro" and whole else heads)]


@dataclass
class _Named:
    """What is_headline reads of a row."""

    framework: str
    split: str
    metric: str


def _label(art: Artifact, keys: list[str]) -> str:
    """How a note names published numbers: `Overall`, or split/metric where the split says more."""
    names = []
    for key in keys:
        split, metric = key.split("\0", 1)
        names.append(metric.strip() if split in ("none", "") else f"{split.strip()}/{metric.strip()}")
    return ", ".join(names) if names else "the numbers"


def _shown(ours: dict, art: Artifact, key: str, percent: bool) -> str:
    """Our figure for the published number `key`, on its scale and with the table's digits ("-": none)."""
    split, metric = key.split("\0", 1)
    value = ours.get((split, metric))
    return "-" if value is None else f"{value * (100 if percent else 1):.6f}"


def _index_join_note(sc: Scored, chosen: tuple, dup: int) -> str:
    """What the repeated indexes of `chosen`'s records did, and the option `index-join`'s effect on Overall
    in points (the same ruleset scored with and without it)."""
    head = (f"{dup} repeated indexes: VLMEvalKit joins answers to predictions by index (mcq_vanilla_eval's "
            "`answer_map`), so every row of an index is judged against its last row's answer and counted")
    is_joined = id(chosen[0]) in sc.joined
    other = next((s for s in sc.candidates if s[0].ruleset == chosen[0].ruleset and s is not chosen
                  and (id(s[0]) in sc.joined) != is_joined), None)
    if other is None:
        return head + f"; the option `{INDEX_JOIN}` changes no row here"
    mine, theirs = _overall(chosen[1]), _overall(other[1])
    with_it, without = (mine, theirs) if is_joined else (theirs, mine)
    size = (f"Overall {_fmt(with_it, sc.percent)} with it, {_fmt(without, sc.percent)} without: "
            f"{100 * (with_it - without):+.2f} points" if with_it is not None and without is not None else "")
    rows = sc.joined[id(chosen[0] if is_joined else other[0])]
    if is_joined:
        return head + f"; scored with the option `{INDEX_JOIN}` ({plural(rows, 'row')} take their index's last answer; {size})"
    return head + f"; the option `{INDEX_JOIN}` ({plural(rows, 'row')}) does not give the numbers back ({size})"


def _overall(ours: dict) -> float | None:
    return next((v for (split, metric), v in ours.items() if metric == "Overall"), None)


def _fmt(value: float | None, percent: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value * 100:.2f}" if percent else f"{value:.6f}"


def _distance(ours: dict, numbers: list[Published]) -> float:
    total = 0.0
    for n in numbers:
        v = ours[(n.split, n.metric)]
        total += abs((v if v is not None else 0.0) - (n.value / 100 if n.value > 1 else n.value))
    return total


def _guarded(score, art: Artifact) -> Scored:
    """`score(art)`, or (an error on the way: a prediction file that cannot be read, a bug) a Scored with
    nothing run and the error as its note."""
    try:
        return score(art)
    except Exception as exc:  # one file never ends the run (issue 30)
        return _failed(art, exc)


def _failed(art: Artifact, exc: Exception) -> Scored:
    """A Scored whose numbers are all left unreproduced, for the error `exc`."""
    note = error_note(art.predictions, exc)
    return Scored(art, art.family, [], [str(note)], None, False)
