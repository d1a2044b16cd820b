"""The judge before a run (`rulekit eval`): the `--judge-*` overrides written into the rulesets (so
fingerprints name the judge model used), the dry run, and the concurrent prefetch that asks the
judge everything the engine will need, so the engine then reads replies from the cache."""
from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterable

from rulekit.core.records import Record
from rulekit.engine.decide import Evaluator
from rulekit.engine.judge import client_for, configure, endpoint, judges_of, parse_reply
from rulekit.language import schema as S
from rulekit.language.loader import fingerprint, plain_data


def with_overrides(ruleset):
    """The ruleset with the effective judge endpoint written into its judge specs, and the effective
    judge model into its data, so the fingerprint names the judge model actually used."""
    judges = judges_of(ruleset)
    if not judges:
        return ruleset
    data = plain_data(ruleset.data)
    sections = dict(ruleset.sections)
    for name, fb in judges:
        url, model = endpoint(fb.judge)
        if (url, model) == (fb.judge.base_url, fb.judge.model):
            continue
        new = S.Judge(judge=fb.judge.model_copy(update={"base_url": url, "model": model}))
        sections[name] = dataclasses.replace(sections[name], fallback=new)
        node = data.get(name, {}).get("fallback", {}).get("judge")
        if isinstance(node, dict):  # the model decides the numbers; where it is served does not
            node["model"] = model
    if sections == ruleset.sections:
        return ruleset
    return dataclasses.replace(ruleset, sections=sections, data=data, fingerprint=fingerprint(data, ruleset.seed))


def pending(ruleset, records: Iterable[Record], seed: int | None = None) -> list[tuple[Any, Record, list[str], bool]]:
    """(section, record, prompts, fired) for every record of a judged section that goes to its judge:
    no step decided it (`fired` false), or a step did and its compare cannot (`fired` true).
    `prompts` are what the judge is asked (JudgeClient.prompts)."""
    evaluator = Evaluator(ruleset, seed)
    out = []
    for record in records:
        section = ruleset.sections.get(record.question_type)
        if section is None or not isinstance(section.fallback, S.Judge):
            continue
        if isinstance(record.response, str) and len(record.response) > evaluator.max_chars:
            continue  # the engine decides it `error` before any step or judge
        try:
            decision = evaluator._decide(dataclasses.replace(section, fallback=None), record, None)
        except Exception:  # a regex timeout, a failing condition: the engine decides it `error`
            continue
        if decision.outcome != "unresolved":
            continue
        fired = decision.step is not None
        prompts = client_for(section.fallback.judge).prompts(record, decision if fired else None)
        if prompts:
            out.append((section, record, prompts, fired))
    return out


def prefetch(ruleset, records: list[Record], seed: int | None = None, concurrency: int = 8,
             progress: Any = None) -> dict:
    """Ask the judge everything `pending` lists, `concurrency` calls at a time, one round per attempt
    (a record goes to the next round only when no step answered its reply; a grading judge's pairs
    are asked once). Returns counts."""
    evaluator = Evaluator(ruleset, seed)
    found = pending(ruleset, records, seed)
    todo = [(sec, rec, client_for(sec.fallback.judge), prompt) for sec, rec, prompts, _ in found for prompt in prompts]
    counts = {"judged": len(found), "calls": 0, "cached": 0}
    attempt = 1
    while todo:
        def one(job):
            sec, rec, cl, prompt = job
            hit = cl.cached(prompt, attempt) is not None
            return hit, cl.ask(prompt, attempt, rec.id)
        with ThreadPoolExecutor(max(1, concurrency)) as pool:
            results = list(pool.map(one, todo))
        nxt = []
        for job, (hit, reply) in zip(todo, results):  # replies are parsed here, in one thread
            counts["cached" if hit else "calls"] += 1
            spec = job[2].spec
            if spec.equal_if_contains is not None or attempt >= spec.retries:
                continue  # a grading judge is asked once per pair
            parsed = parse_reply(evaluator, job[0], job[1], reply)
            if parsed.pred is None or parsed.outcome not in ("rule", "abstain"):
                nxt.append(job)
        if progress is not None:
            progress(attempt, len(todo), len(nxt))
        todo, attempt = nxt, attempt + 1
    return counts


def prepare_eval(loaded: list, records: Iterable[Record], seed: int | None, console, *, judge_url=None,
                 judge_model=None, judge_cache=None, judge_dry_run=False, judge_replay=False,
                 judge_concurrency=8):
    """Before `evaluate`: apply the `--judge-*` options, then dry-run (returns None) or prefetch the
    judge replies concurrently. Returns (rulesets, records) to evaluate."""
    configure(base_url=judge_url, model=judge_model, cache=judge_cache, replay=judge_replay or judge_dry_run,
              concurrency=judge_concurrency)
    if not any(judges_of(rs) for rs in loaded):
        if judge_dry_run:
            console.print("no ruleset has a judge: nothing would be judged")
            return None
        return loaded, records
    loaded = [with_overrides(rs) for rs in loaded]
    records = list(records)
    for rs in loaded:
        if not judges_of(rs):
            continue
        if judge_dry_run:
            todo = pending(rs, records, seed)
            clients = {id(c): c for c in (client_for(sec.fallback.judge) for sec, *_ in todo)}
            cached = sum(1 for sec, _, prompts, _ in todo
                         if all(client_for(sec.fallback.judge).cached(p, 1) is not None for p in prompts))
            fired = sum(1 for *_, f in todo if f)
            where = ", ".join(f"`{c.model}` at {c.base_url}" for c in clients.values()) or "-"
            console.print(f"{rs.name}: {len(todo)} of {len(records)} records would go to the judge ({where}); "
                          f"{cached} already cached for the first try; {fired} of them because a step fired "
                          f"but its compare cannot decide, {sum(len(t[2]) for t in todo)} prompts")
            continue
        counts = prefetch(rs, records, seed, judge_concurrency)
        if counts["judged"]:
            import sys
            print(f"{rs.name}: judged {counts['judged']} records: {counts['calls']} judge calls, "
                  f"{counts['cached']} from the cache", file=sys.stderr)
    return None if judge_dry_run else (loaded, records)
