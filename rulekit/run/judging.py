"""The judge before a run (`rulekit eval`): the `--judge-*` overrides written into the rulesets (so
fingerprints name the judge model used), the dry run, and the concurrent prefetch that asks the
judge everything the engine will need, so the engine then reads replies from the cache."""
from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from typing import Any, Iterable

from rulekit.core.records import Record
from rulekit.engine.decide import Evaluator
from rulekit.engine.judge import client_for, configure, endpoint, judge_score, judges_of, parse_reply
from rulekit.language import schema as S
from rulekit.language.fingerprint import fingerprint, plain_data


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
        if section.needs_options and not record.choices:
            continue  # the engine decides it `unreadable` before any step or judge
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


def grader_pending(ruleset, records: Iterable[Record], seed: int | None = None) -> list[tuple[Any, Record, Any, list[str]]]:
    """(section, record, grader client, prompts) for each record whose two-stage judge (a `grader`) has
    its extracting judge's answer in the cache already: the grader prompts the engine will need."""
    from rulekit.language.compares import scored_decision

    evaluator, out = Evaluator(ruleset, seed), []
    for sec, rec, prompts, _ in pending(ruleset, records, seed):
        client = client_for(sec.fallback.judge)
        if client.spec.grader is None:
            continue
        for attempt in range(1, client.spec.retries + 1):
            reply = client.cached(prompts[0], attempt)
            if reply is None:
                break
            parsed = parse_reply(evaluator, sec, rec, reply)
            if parsed.pred is None or parsed.outcome not in ("rule", "abstain"):
                continue
            verdict = scored_decision(sec.compare, parsed.pred, rec, None, "judge", "judge")
            if verdict.outcome == "unresolved" and getattr(verdict.message, "pairs", ()):
                grader = client_for(client.spec.grader_spec())
                out.append((sec, rec, grader, grader.prompts(rec, verdict)))
            break
    return out


def prefetch(ruleset, records: list[Record], seed: int | None = None, concurrency: int = 8,
             progress: Any = None, on_request: Any = None) -> dict:
    """Ask the judge everything `pending` lists, `concurrency` calls at a time, in rounds (a record
    goes to the next round, with its next try, only when no step answered its reply, a scoring judge's
    pair when its reply gave no score; an equal-if-contains judge's pairs are asked once; a judge
    with a `grader` adds, once its answer is read, the grader's first tries on the pairs the compare
    leaves to it). Returns counts. `on_request(round, requests in this round, from the cache?)` is
    called (under a lock) as each request is answered; `progress(round, asked, left)` after each
    round."""
    from rulekit.language.compares import scored_decision

    evaluator = Evaluator(ruleset, seed)
    found = pending(ruleset, records, seed)
    todo = [(sec, rec, client_for(sec.fallback.judge), prompt, 1)
            for sec, rec, prompts, _ in found for prompt in prompts]
    counts = {"judged": len(found), "calls": 0, "cached": 0}
    rnd = 1
    lock = threading.Lock()
    while todo:
        def one(job):
            sec, rec, cl, prompt, attempt = job
            hit = cl.cached(prompt, attempt) is not None
            reply = cl.ask(prompt, attempt, rec.id)
            if on_request is not None:
                with lock:
                    on_request(rnd, len(todo), hit)
            return hit, reply
        from concurrent.futures import ThreadPoolExecutor  # only when a judge is asked

        with ThreadPoolExecutor(max(1, concurrency)) as pool:
            results = list(pool.map(one, todo))
        nxt = []
        for job, (hit, reply) in zip(todo, results):  # replies are parsed here, in one thread
            counts["cached" if hit else "calls"] += 1
            sec, rec, cl, prompt, attempt = job
            spec, again = cl.spec, (sec, rec, cl, prompt, attempt + 1)
            if spec.equal_if_contains is not None:
                continue  # an equal-if-contains judge is asked once per pair
            if spec.scores:  # a scoring judge: again until its reply gives a score
                if judge_score(evaluator, sec, rec, reply) is None and attempt < spec.retries:
                    nxt.append(again)
                continue
            parsed = parse_reply(evaluator, sec, rec, reply)
            if parsed.pred is None or parsed.outcome not in ("rule", "abstain"):
                if attempt < spec.retries:
                    nxt.append(again)
                continue
            if spec.grader is not None:  # a two-stage judge: its grader on what the compare leaves to a judge
                verdict = scored_decision(sec.compare, parsed.pred, rec, None, "judge", "judge")
                if verdict.outcome == "unresolved" and getattr(verdict.message, "pairs", ()):
                    grader = client_for(spec.grader_spec())
                    nxt += [(sec, rec, grader, p, 1) for p in grader.prompts(rec, verdict)]
        if progress is not None:
            progress(rnd, len(todo), len(nxt))
        todo, rnd = nxt, rnd + 1
    return counts


@contextlib.contextmanager
def _judge_bar(name: str, console):
    """A live line while the judge is asked (on a terminal): requests answered of the round's, how many
    came from the cache, requests per second. Yields the `on_request` callback (None: no terminal)."""
    if console is None or not console.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn(f"judging {name}"), TextColumn("try {task.fields[attempt]}"), BarColumn(),
                   MofNCompleteColumn(), TextColumn("requests, {task.fields[hits]} from the cache, {task.fields[rate]}"),
                   TimeElapsedColumn(), console=console, transient=True)
    state = {"task": None, "attempt": 0, "hits": 0, "done": 0, "start": time.perf_counter()}

    def on_request(attempt: int, size: int, hit: bool) -> None:
        if state["task"] is None or attempt != state["attempt"]:
            if state["task"] is not None:
                bar.remove_task(state["task"])
            state.update(task=bar.add_task("judge", total=size, attempt=attempt, hits=0, rate=""),
                         attempt=attempt, hits=0, done=0, start=time.perf_counter())
        state["done"] += 1
        state["hits"] += hit
        rate = state["done"] / max(time.perf_counter() - state["start"], 1e-9)
        bar.update(state["task"], completed=state["done"], hits=state["hits"], rate=f"{rate:,.1f}/s")

    bar.start()
    try:
        yield on_request
    finally:
        bar.stop()


def prepare_eval(loaded: list, records: Iterable[Record], seed: int | None, console, *, judge_url=None,
                 judge_model=None, judge_cache=None, judge_dry_run=False, judge_replay=False,
                 judge_concurrency=8, status=None):
    """Before `evaluate`: apply the `--judge-*` options, then dry-run (returns None) or prefetch the
    judge replies concurrently (a live bar on `status`, a terminal console, while the judge is asked).
    Returns (rulesets, records) to evaluate."""
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
        with _judge_bar(rs.name, status) as on_request:
            counts = prefetch(rs, records, seed, judge_concurrency, on_request=on_request)
        if counts["judged"]:
            import sys

            from rulekit.core.terminal import safe
            print(safe(f"{rs.name}: judged {counts['judged']} records: {counts['calls']} judge calls, "
                       f"{counts['cached']} from the cache"), file=sys.stderr)
    return None if judge_dry_run else (loaded, records)
