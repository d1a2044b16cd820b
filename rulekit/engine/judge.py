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
undecided record first (`rulekit.run.judging`), `--judge-concurrency` requests at a time, in rounds
of attempts; the engine then reads the cache. A server that does not answer is an error (exit 2), never a silent switch
to another scoring mode.
"""
from __future__ import annotations

import dataclasses
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rulekit.language import schema as S
from rulekit.core.cachefiles import cache_home
from rulekit.core.errors import RulekitError, UsageError
from rulekit.core.records import Record
from rulekit.core.trace import Decision, StepTrace
from rulekit.core.watchdog import rest
from rulekit.language.compares import Settled, scored_decision

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
    return cache_home() / "judge.sqlite"


# ---------------------------------------------------------------- client
class JudgeClient:
    """One judge (endpoint, model, prompt style, sampling) with its cache."""

    def __init__(self, spec: S.JudgeSpec):
        from rulekit.llm.client import OpenAIClient
        from rulekit.llm.prompts import load_prompt

        self.spec = spec
        self.base_url, self.model = endpoint(spec)
        self.prompt = load_prompt(spec.prompt)
        self.sampling = {"temperature": spec.temperature,
                         "max_tokens": spec.max_tokens or self.prompt.style.max_tokens or DEFAULT_MAX_TOKENS}
        from rulekit.language.prepare import compile_prepare

        self.prepare_reply = compile_prepare(spec.prepare_reply, lambda i: None)  # checked when the ruleset loaded
        self.replay = SETTINGS.replay
        from rulekit.llm.cache import JudgeCache  # imported on use: most runs have no judge

        self.cache = JudgeCache(cache_path(), readonly=self.replay)
        self.http = OpenAIClient(self.base_url, timeout=SETTINGS.timeout)
        self.calls = self.hits = 0

    def render(self, record: Record) -> str:
        """The judge prompt for a record: the reply stripped, as most VLMEvalKit prompts take it, or as
        given (the prompt style's `reply: as-given`, e.g. MATH-Vision's `str(line['prediction'])`)."""
        reply = record.response if isinstance(record.response, str) else str(record.response)
        if self.prepare_reply is not None:
            reply = self.prepare_reply(reply)
        if self.prompt.style.reply == "stripped":
            reply = reply.strip()
        return self.prompt.render(record.question_type, record.question, record.choices, prediction=reply,
                                  meta=record.meta).text

    def render_pair(self, record: Record, prediction: str, gold: str) -> str:
        """A grading judge's prompt for one (prediction, gold) pair of a record."""
        return self.prompt.render(record.question_type, record.question, record.choices, prediction=prediction,
                                  gold=gold, meta=record.meta).text

    def prompts(self, record: Record, undecided: Decision | None) -> list[str]:
        """What the judge is asked about a record: the record itself, or (a grading judge) each pair
        its compare left undecided — none when no step fired."""
        if not self.spec.grades:
            return [self.render(record)]
        return [self.render_pair(record, p, g) for p, g in getattr(undecided and undecided.message, "pairs", ())]

    def sampling_for(self, attempt: int) -> dict:
        """The sampling of try `attempt` (1-based): `temperature-step` raises the temperature each try."""
        if not self.spec.temperature_step:
            return self.sampling
        return {**self.sampling, "temperature": self.spec.temperature + (attempt - 1) * self.spec.temperature_step}

    def key(self, prompt: str, attempt: int) -> str:
        """The cache key of one call."""
        from rulekit.llm.cache import JudgeCache

        return JudgeCache.key(self.model, self.prompt.fingerprint, prompt, attempt, self.sampling_for(attempt))

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
        rest()  # no regex alarm (rulekit.core.watchdog) while a server or a local model answers
        if self.replay:
            raise JudgeError(f"judge replay: no cached reply for record `{record_id}` (attempt {attempt}) "
                             f"in {self.cache.path}", help="run once without --judge-replay to fill the cache")
        sampling = self.sampling_for(attempt)
        seed = attempt if sampling["temperature"] > 0 else None
        system = [{"role": "system", "content": self.prompt.style.system}] if self.prompt.style.system else []
        reply = self.http.chat(self.model, system + [{"role": "user", "content": prompt}], seed=seed,
                               **sampling).text
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
def parse_reply(evaluator, section, record: Record, reply: str, grading: bool = False,
                settled: bool = True) -> Decision:
    """The section's steps (no fallback) run on a judge reply (`judge_reply` true; `grading_reply` too
    for a grading judge's), with the record's options and gold; the compare is settled — a judge's
    answer is never sent to a second judge — unless `settled` is false (a judge with a `grader`)."""

    steps_only = dataclasses.replace(section, fallback=None,
                                     compare=Settled(section.compare) if settled else section.compare)
    judged = dataclasses.replace(record, response=reply, judge_reply=True, grading_reply=grading,
                                 model_response=record.response if isinstance(record.response, str) else str(record.response))
    try:
        return evaluator._decide(steps_only, judged, None)
    except Exception as exc:  # a regex timeout or a failing condition: this reply is unusable
        return Decision(record.id, None, None, 0.0, "unresolved", None, message=str(exc))


def judge_score(evaluator, section, record: Record, reply: str) -> float | None:
    """A scoring judge's reply read: the answer the section's steps give, as a Python float from 0 to 1;
    None when they give none, it is not a number, or it is out of range (NaN included)."""
    parsed = parse_reply(evaluator, section, record, reply, grading=True)
    if parsed.pred is None or parsed.outcome not in ("rule", "abstain") or isinstance(parsed.pred, list):
        return None
    try:
        value = float(parsed.pred)
    except (TypeError, ValueError, OverflowError):
        return None
    return value if 0.0 <= value <= 1.0 else None


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
    if spec.grades:
        graded = (_score(evaluator, section, client, record, undecided, traces, text) if spec.scores
                  else _grade(client, record, undecided, traces, text))
        if graded is not None:
            return graded
        why = ("a grading judge needs a step's answer the compare left to it: none"
               if not getattr(undecided and undecided.message, "pairs", ())
               else f"the judge gave no score from 0 to 1 in {spec.retries} tries")
        return _judge_failed(evaluator, section, record, opts, traces, prepared, spec, undecided, why)
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
            said = f"judge try {attempt}: {_short(reply)} → step {parsed.step}"
            if spec.grader is not None:
                return _then_grade(evaluator, section, record, spec, parsed.pred, traces, text, said)
            return scored_decision(Settled(section.compare), parsed.pred, record, None, "judge", "judge", trace=traces,
                                   text=text, message=said)
        tried.append(reply)
    if traces is not None:
        traces.append(StepTrace("judge", "passed", f"judge `{client.model}`: no step answered any of "
                                                   f"{spec.retries} replies: {', '.join(map(_short, tried))}"))
    return _judge_failed(evaluator, section, record, opts, traces, prepared, spec, undecided,
                         f"the judge gave no usable answer in {spec.retries} tries")


def _then_grade(evaluator, section, record: Record, spec, answer, traces, text: str, said: str) -> Decision:
    """A two-stage judge: the extracting judge's answer under the section's compare; what the compare
    leaves to a judge goes to the grader (no score from it: the answer is wrong)."""
    verdict = scored_decision(section.compare, answer, record, None, "judge", "judge", trace=traces, text=text)
    if verdict.outcome != "unresolved":
        return verdict if verdict.message else dataclasses.replace(verdict, message=said)
    if not getattr(verdict.message, "pairs", ()):  # nothing for a grader: settled, as a one-stage judge's answer
        settled = scored_decision(Settled(section.compare), answer, record, None, "judge", "judge", trace=traces,
                                  text=text)
        return dataclasses.replace(settled, message=said)
    grader = client_for(spec.grader_spec())
    graded = (_score(evaluator, section, grader, record, verdict, traces, text) if grader.spec.scores
              else _grade(grader, record, verdict, traces, text))
    if graded is not None:
        return dataclasses.replace(graded, message=f"{said}; {graded.message}")
    settled = scored_decision(Settled(section.compare), answer, record, None, "judge", "judge", trace=traces, text=text)
    return dataclasses.replace(settled, message=f"{said}; the grader gave no score in {grader.spec.retries} tries")


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


def _score(evaluator, section, client: JudgeClient, record: Record, undecided: Decision | None, traces,
           text: str) -> Decision | None:
    """A scoring judge on every (prediction, gold) pair the compare left undecided, each asked until its
    reply gives a score (up to `retries` tries; then the pair scores 0). A prediction's score is its best
    gold's, the record's the mean over its predictions. None: no pairs, or no pair got a score."""
    problem = undecided.message if undecided is not None else None
    pairs = getattr(problem, "pairs", ())
    if not pairs:
        return None
    best: dict[str, float] = {}
    said, scored = [], 0
    for (pred, gold), prompt in zip(pairs, client.prompts(record, undecided)):
        best.setdefault(pred, 0.0)
        tried = []
        for attempt in range(1, client.spec.retries + 1):
            reply = client.ask(prompt, attempt, record.id)
            value = judge_score(evaluator, section, record, reply)
            if value is not None:
                best[pred], scored = max(best[pred], value), scored + 1
                said.append(f"{pred!r} vs {gold!r}: {_short(reply)} → {value!r} (try {attempt})")
                break
            tried.append(_short(reply))
        else:
            said.append(f"{pred!r} vs {gold!r}: no score in {client.spec.retries} tries ({', '.join(tried)})")
    if traces is not None:
        traces.append(StepTrace("judge", "fired" if scored else "passed",
                                f"judge `{client.model}` scored {scored} of {len(pairs)} pair(s): {'; '.join(said)}"))
    if not scored:
        return None
    score = sum(best.values()) / len(best)
    return Decision(record.id, undecided.pred, score == 1.0, score, "judge", "judge", trace=traces, text=text,
                    message=f"judge scored: {'; '.join(said)}")


def _short(text: str) -> str:
    text = repr(text)
    return text if len(text) <= 60 else text[:57] + "...'"


# ---------------------------------------------------------------- eval: overrides, dry run, concurrent prefetch
def judges_of(ruleset) -> list[tuple[str, S.Judge]]:
    """(section name, judge fallback) of each section of a compiled ruleset that has one."""
    return [(name, sec.fallback) for name, sec in ruleset.sections.items() if isinstance(sec.fallback, S.Judge)]
