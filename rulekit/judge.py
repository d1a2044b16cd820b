"""The `judge:` fallback: ask an LLM judge on an OpenAI-compatible endpoint what the reply means.

VLMEvalKit's pipeline (behaviour.md §2.4) as data: when no step of a section fires, the judge
prompt (a prompt style, default `vlmevalkit-judge`) is filled with the question, the options and
the stripped reply and sent to the judge, up to `retries` times; each judge reply is parsed by the
SAME section's steps. The first reply they answer decides (outcome `judge`, step `judge`); after
`retries` unusable replies the `then:` fallback decides (VLMEvalKit: a random letter or `Z`).

A record whose step fired but whose compare cannot decide (an `Unresolved` verdict, outcome
`unresolved`: e.g. MathVista's falsy prefetch, physics' `\text` answers) goes to the judge the same
way. The judge's answer is scored by the same compare, settled: where it would ask a judge again,
its `settled` verdict counts. Without a usable reply and without `then:` the record stays
`unresolved`. A grading judge (`equal-if-contains:`, VLMEvalKit's physics) is asked instead about
each (prediction, gold) pair the compare left undecided (prompt variables `{prediction}`, `{gold}`);
a reply containing the text makes the pair equal, and the compare rescores the record.

Where the judge is: `base-url`/`model` in the ruleset, overridden by the environment
(`RULEKIT_JUDGE_URL`, `RULEKIT_JUDGE_MODEL`) and by `rulekit eval --judge-url/--judge-model`.

Replies are cached on disk (SQLite, `RULEKIT_JUDGE_CACHE` or `~/.cache/rulekit/judge.sqlite`,
`--judge-cache`), keyed by (judge model, prompt-template fingerprint, rendered prompt, attempt,
sampling), and committed as they arrive: a rerun is free and gives the same decisions, and an
interrupted run resumes where it stopped. `--judge-replay` uses only the cache and fails on a
miss; `--judge-dry-run` counts what would be judged. `rulekit eval` asks the judge for every
undecided record first, `--judge-concurrency` requests at a time, in rounds of attempts; the engine
then reads the cache. A server that does not answer is an error (exit 2), never a silent switch
to another scoring mode.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import click

from . import schema as S
from .errors import RulekitError, UsageError
from .records import Record
from .trace import Decision, StepTrace

ENV_URL, ENV_MODEL, ENV_CACHE = "RULEKIT_JUDGE_URL", "RULEKIT_JUDGE_MODEL", "RULEKIT_JUDGE_CACHE"
DEFAULT_MAX_TOKENS = 32


class JudgeError(RulekitError):
    """A judge reply is needed but cannot be had (e.g. `--judge-replay` and not in the cache)."""

    code = "E501"


@dataclass
class Settings:
    """Process-wide judge settings (the CLI's `--judge-*` options); None = from ruleset/environment."""

    base_url: str | None = None
    model: str | None = None
    cache: str | None = None
    replay: bool = False
    concurrency: int = 8
    timeout: float = 120.0


SETTINGS = Settings()
_CLIENTS: dict[tuple, "JudgeClient"] = {}
_LOCK = threading.Lock()


def configure(**kwargs: Any) -> None:
    """Set judge settings (see `Settings`) and forget clients made with the old ones."""
    global SETTINGS
    SETTINGS = dataclasses.replace(Settings(), **kwargs)
    for client in _CLIENTS.values():
        client.cache.close()
    _CLIENTS.clear()


def endpoint(spec: S.JudgeSpec) -> tuple[str, str]:
    """(base URL, model) of a judge: CLI settings, else environment, else the ruleset."""
    url = SETTINGS.base_url or os.environ.get(ENV_URL) or spec.base_url
    model = SETTINGS.model or os.environ.get(ENV_MODEL) or spec.model
    if not url or not model:
        missing = "a base URL" if not url else "a model"
        raise UsageError(f"the judge needs {missing}",
                         help="`base-url:`/`model:` in the ruleset's `judge:`, --judge-url/--judge-model, "
                              f"or {ENV_URL}/{ENV_MODEL}", code="E400")
    return url, model


def cache_path() -> Path:
    """Where judge replies are cached."""
    if SETTINGS.cache:
        return Path(SETTINGS.cache)
    if os.environ.get(ENV_CACHE):
        return Path(os.environ[ENV_CACHE])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "rulekit" / "judge.sqlite"


# ---------------------------------------------------------------- cache
class JudgeCache:
    """Judge replies on disk (SQLite), committed one by one; thread-safe."""

    def __init__(self, path: Path, readonly: bool = False):
        self.path = path
        self.readonly = readonly
        self._lock = threading.Lock()
        self.conn: sqlite3.Connection | None = None

    def _broken(self, e: Exception) -> RulekitError:
        """E502 for a cache file that is not a readable SQLite database."""
        return RulekitError(f"the judge cache {self.path} is not a readable SQLite database ({e})", code="E502",
                            help="move it aside (the judge is then asked again) or pass another --judge-cache")

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        """Open the database on first use; a missing file is created only to store a reply. A file that
        is not a SQLite database raises E502."""
        try:
            return self._open(create)
        except sqlite3.DatabaseError as e:
            self.close()
            raise self._broken(e) from None

    def _open(self, create: bool) -> sqlite3.Connection | None:
        if self.conn is None:
            if not self.path.exists() and not create:
                return None
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            uri = f"file:{self.path}?mode=ro" if self.readonly else f"file:{self.path}"
            self.conn = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=30)
            if not self.readonly:
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT, "
                                  "prompt TEXT, attempt INTEGER, reply TEXT, created REAL)")
                self.conn.commit()
            else:
                self.conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads the header
        return self.conn

    @staticmethod
    def key(model: str, template: str, prompt: str, attempt: int, sampling: dict) -> str:
        """The content address of one judge call."""
        blob = json.dumps([model, template, prompt, attempt, sampling], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()

    def get(self, key: str) -> str | None:
        """The cached reply, or None."""
        with self._lock:
            conn = self._connect(create=False)
            if conn is None:
                return None
            try:
                row = conn.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
            except sqlite3.OperationalError as e:
                if "no such table" in str(e):  # an empty file opened read-only: no table yet
                    return None
                raise self._broken(e) from None
            except sqlite3.DatabaseError as e:
                raise self._broken(e) from None
        return row[0] if row else None

    def put(self, key: str, model: str, prompt: str, attempt: int, reply: str) -> None:
        """Store one reply (committed at once)."""
        with self._lock:
            try:
                self._connect(create=True).execute("INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?)",
                                                   (key, model, prompt, attempt, reply, time.time()))
                self.conn.commit()
            except sqlite3.DatabaseError as e:
                raise self._broken(e) from None

    def close(self) -> None:
        """Close the database."""
        if self.conn is not None:
            self.conn.close()
            self.conn = None


# ---------------------------------------------------------------- client
class JudgeClient:
    """One judge (endpoint, model, prompt style, sampling) with its cache."""

    def __init__(self, spec: S.JudgeSpec):
        from .generate.openai_api import OpenAIClient
        from .generate.prompts import load_prompt

        self.spec = spec
        self.base_url, self.model = endpoint(spec)
        self.prompt = load_prompt(spec.prompt)
        self.sampling = {"temperature": spec.temperature,
                         "max_tokens": spec.max_tokens or self.prompt.style.max_tokens or DEFAULT_MAX_TOKENS}
        self.replay = SETTINGS.replay
        self.cache = JudgeCache(cache_path(), readonly=self.replay)
        self.http = OpenAIClient(self.base_url, timeout=SETTINGS.timeout)
        self.calls = self.hits = 0

    def render(self, record: Record) -> str:
        """The judge prompt for a record (the reply stripped, as VLMEvalKit does)."""
        reply = record.response if isinstance(record.response, str) else str(record.response)
        return self.prompt.render(record.question_type, record.question, record.choices, prediction=reply.strip()).text

    def render_pair(self, record: Record, prediction: str, gold: str) -> str:
        """A grading judge's prompt for one (prediction, gold) pair of a record."""
        return self.prompt.render(record.question_type, record.question, record.choices, prediction=prediction,
                                  gold=gold).text

    def prompts(self, record: Record, undecided: Decision | None) -> list[str]:
        """What the judge is asked about a record: the record itself, or (a grading judge) each pair
        its compare left undecided — none when no step fired."""
        if self.spec.equal_if_contains is None:
            return [self.render(record)]
        return [self.render_pair(record, p, g) for p, g in getattr(undecided and undecided.message, "pairs", ())]

    def key(self, prompt: str, attempt: int) -> str:
        """The cache key of one call."""
        return JudgeCache.key(self.model, self.prompt.fingerprint, prompt, attempt, self.sampling)

    def cached(self, prompt: str, attempt: int) -> str | None:
        """The cached reply of one call, if any."""
        return self.cache.get(self.key(prompt, attempt))

    def ask(self, prompt: str, attempt: int, record_id: str = "") -> str:
        """The judge's reply to `prompt` on try `attempt` (1-based): from the cache, else the server."""
        key = self.key(prompt, attempt)
        found = self.cache.get(key)
        if found is not None:
            self.hits += 1
            return found
        if self.replay:
            raise JudgeError(f"judge replay: no cached reply for record `{record_id}` (attempt {attempt}) "
                             f"in {self.cache.path}", help="run once without --judge-replay to fill the cache")
        seed = attempt if self.spec.temperature > 0 else None
        system = [{"role": "system", "content": self.prompt.style.system}] if self.prompt.style.system else []
        reply = self.http.chat(self.model, system + [{"role": "user", "content": prompt}], seed=seed,
                               **self.sampling).text
        self.calls += 1
        self.cache.put(key, self.model, prompt, attempt, reply)
        return reply


def client_for(spec: S.JudgeSpec) -> JudgeClient:
    """The shared client of a judge spec under the current settings."""
    key = (spec.model_dump_json(), SETTINGS.base_url, SETTINGS.model, SETTINGS.cache, SETTINGS.replay,
           os.environ.get(ENV_URL), os.environ.get(ENV_MODEL), os.environ.get(ENV_CACHE))
    with _LOCK:
        client = _CLIENTS.get(key)
        if client is None:
            client = _CLIENTS[key] = JudgeClient(spec)
    return client


# ---------------------------------------------------------------- the fallback (called by the engine)
def parse_reply(evaluator, section, record: Record, reply: str) -> Decision:
    """The section's steps (no fallback) run on a judge reply, with the record's options and gold;
    the compare is settled: a judge's answer is never sent to a second judge."""
    from .scoring import Settled

    steps_only = dataclasses.replace(section, fallback=None, compare=Settled(section.compare))
    judged = dataclasses.replace(record, response=reply)
    try:
        return evaluator._decide(steps_only, judged, None)
    except Exception as exc:  # a regex timeout or a failing condition: this reply is unusable
        return Decision(record.id, None, None, 0.0, "unresolved", None, message=str(exc))


def judge_fallback(evaluator, section, record: Record, opts, traces, prepared, fb: S.Judge,
                   undecided: Decision | None = None) -> Decision:
    """Decide a record no step decided, or whose step's answer the compare cannot score (`undecided`,
    that `unresolved` decision): up to `retries` judge replies, then the `then:` fallback."""
    spec = fb.judge
    client = client_for(spec)
    text = prepared if traces is not None else ""
    if undecided is not None and traces is not None:
        traces.append(StepTrace("compare", "unresolved", f"step `{undecided.step}` fired with {undecided.pred!r}, "
                                                         f"but its compare cannot decide ({undecided.message}): "
                                                         "the judge is asked"))
    if spec.equal_if_contains is not None:
        graded = _grade(client, record, undecided, traces, text)
        return graded or _judge_failed(evaluator, section, record, opts, traces, prepared, spec, undecided,
                                       "a grading judge needs a step's answer the compare left to it: none")
    prompt = client.render(record)
    tried = []
    for attempt in range(1, spec.retries + 1):
        reply = client.ask(prompt, attempt, record.id)
        parsed = parse_reply(evaluator, section, record, reply)
        if parsed.pred is not None and parsed.outcome in ("rule", "abstain"):
            if traces is not None:
                st = StepTrace("judge", "fired", f"judge `{client.model}` try {attempt}: {reply!r} → "
                                                 f"{parsed.pred!r} by step `{parsed.step}`", looked_for=prompt[-200:])
                st.answer = parsed.pred
                traces.append(st)
            from .scoring import Settled, scored_decision
            return scored_decision(Settled(section.compare), parsed.pred, record, None, "judge", "judge", trace=traces,
                                   text=text, message=f"judge try {attempt}: {_short(reply)} → step {parsed.step}")
        tried.append(reply)
    if traces is not None:
        traces.append(StepTrace("judge", "passed", f"judge `{client.model}`: no step answered any of "
                                                   f"{spec.retries} replies: {', '.join(map(_short, tried))}"))
    return _judge_failed(evaluator, section, record, opts, traces, prepared, spec, undecided,
                         f"the judge gave no usable answer in {spec.retries} tries")


def _judge_failed(evaluator, section, record, opts, traces, prepared, spec, undecided, why: str) -> Decision:
    """No judge answer: the `then:` fallback decides, as for any record; without one the record stays
    `unresolved` (keeping the step's answer, when a step fired)."""
    if spec.then is not None:
        return evaluator._fallback(section, record, opts, traces, prepared, spec.then)
    text = prepared if traces is not None else ""
    if undecided is not None:
        return dataclasses.replace(undecided, message=f"{undecided.message}; {why}", trace=traces, text=text)
    return Decision(record.id, None, False, 0.0, "unresolved", "judge", trace=traces, text=text, message=why)


def _grade(client: JudgeClient, record: Record, undecided: Decision | None, traces, text: str) -> Decision | None:
    """A grading judge on every (prediction, gold) pair the compare left undecided; None: no pairs."""
    problem = undecided.message if undecided is not None else None
    pairs = getattr(problem, "pairs", ())
    if not pairs:
        return None
    needle = client.spec.equal_if_contains.lower()
    equal, said = set(), []
    for (pred, gold), prompt in zip(pairs, client.prompts(record, undecided)):
        reply = client.ask(prompt, 1, record.id)
        if needle in reply.lower():
            equal.add(pred)
        said.append(f"{pred!r} vs {gold!r}: {_short(reply)}")
    correct, score = problem.rescore(equal)
    if traces is not None:
        traces.append(StepTrace("judge", "fired", f"judge `{client.model}` graded {len(pairs)} pair(s): "
                                                  f"{'; '.join(said)}; equal: {sorted(equal)!r}"))
    return Decision(record.id, undecided.pred, correct, score, "judge", "judge", trace=traces, text=text,
                    message=f"judge graded: {'; '.join(said)}")


def _short(text: str) -> str:
    text = repr(text)
    return text if len(text) <= 60 else text[:57] + "...'"


# ---------------------------------------------------------------- eval: overrides, dry run, concurrent prefetch
def judges_of(ruleset) -> list[tuple[str, S.Judge]]:
    """(section name, judge fallback) of each section of a compiled ruleset that has one."""
    return [(name, sec.fallback) for name, sec in ruleset.sections.items() if isinstance(sec.fallback, S.Judge)]


def with_overrides(ruleset):
    """The ruleset with the effective judge endpoint written into its judge specs, and the effective
    judge model into its data, so the fingerprint names the judge model actually used."""
    judges = judges_of(ruleset)
    if not judges:
        return ruleset
    from .loader import _plain, fingerprint

    data = _plain(ruleset.data)
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
    from .engine import Evaluator

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
    from .engine import Evaluator

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


def judge_options(fn):
    """The `--judge-*` options of `rulekit eval`."""
    options = [
        click.option("--judge-url", help=f"OpenAI-compatible base URL of the judge (overrides the ruleset; env {ENV_URL})."),
        click.option("--judge-model", help=f"Judge model name (overrides the ruleset; env {ENV_MODEL})."),
        click.option("--judge-cache", type=click.Path(dir_okay=False),
                     help=f"SQLite cache of judge replies (env {ENV_CACHE}; default ~/.cache/rulekit/judge.sqlite)."),
        click.option("--judge-dry-run", is_flag=True, help="Only print how many records would be judged."),
        click.option("--judge-replay", is_flag=True, help="Use only cached judge replies; a miss is an error."),
        click.option("--judge-concurrency", type=click.IntRange(1, 256), default=8, show_default=True,
                     help="Judge requests in flight at most."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


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
