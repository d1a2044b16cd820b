"""Apply a compiled ruleset to records: prepare → steps in order → fallback → compare.

`Evaluator.decide(record)` returns a `Decision` (with a step-by-step trace when asked). It is
pure and deterministic: a random fallback draws from an RNG keyed by (seed, record id), unless the
ruleset asks for `order: stream`, where one RNG is shared in input order.
"""
from __future__ import annotations

import math
import numbers
import random
from typing import Any, Iterable, Iterator

from rulekit.language import schema as S
from rulekit.language.expr import ConditionFailed, SkipStep
from rulekit.core.regex import CLOCK, RECORD_BUDGET, RegexTimeout
from rulekit.core.watchdog import WATCH, rest, watching
from rulekit.engine.compiler import CompiledRuleset, CompiledSection
from rulekit.engine.judge import judge_fallback
from rulekit.core.options import option_set
from rulekit.language.picks import NO_ANSWER
from rulekit.core.records import Record
from rulekit.language.compares import letter_correct, normalize_answers, scored_decision
from rulekit.core.trace import Candidate, Decision, StepTrace

MAX_TRACE_CANDIDATES = 200
MAX_CHARS = 1_000_000  # replies longer than this are not decided (outcome `error`); --max-chars changes it


class Env:
    """What a condition can see: the step's text, the record, its options, the candidates."""

    __slots__ = ("text", "record", "opts", "cands", "candidate", "tokens_count", "_words")

    def __init__(self, text: str, record: Record, opts):
        self.text, self.record, self.opts = text, record, opts
        self.cands: list[Candidate] = []
        self.candidate = None
        self.tokens_count = None
        self._words = None

    def get(self, name: str) -> Any:
        """Value of a condition variable (see expr.VARIABLES)."""
        if name == "words":
            if self._words is None:
                self._words = len(self.text.split())
            return self._words
        if name == "length":
            return len(self.text)
        if name == "text":
            return self.text
        if name == "tokens":
            return self.tokens_count if self.tokens_count is not None else self.get("words")
        if name == "options":
            return len(self.opts.letters)
        if name == "options_length":
            return self.opts.length
        if name == "letters":
            return self.opts.letter_list
        if name == "candidates":
            return len(self.cands)
        if name == "distinct":
            return len({c.answer if not isinstance(c.answer, list) else tuple(c.answer) for c in self.cands})
        if name in ("question_type", "benchmark", "model", "judge_reply", "grading_reply"):
            return getattr(self.record, name)
        if name == "gold":
            return self.record.answer
        raise KeyError(name)  # pragma: no cover - names are checked at compile time


def _unprepared(step, record: Record, original: str) -> str:
    """A step's text other than the prepared one: the original text (`look-in: original`), or the model's
    own reply while a judge's is parsed (`look-in: model-reply`; the text itself otherwise)."""
    if step.look_in == "model-reply" and record.model_response is not None:
        return record.model_response
    return original


class DrawLater:
    """`decide`'s answer, with `defer_stream` set, for a record left to a stream-order random draw:
    the section's name and `options`, the decision each letter would make (`_draw_options`)."""

    __slots__ = ("section", "options")

    def __init__(self, section: str, options: list[tuple]):
        self.section, self.options = section, options


class Batch:
    """What `Evaluator.decide_batch` gives back: one entry per reply, in the order given."""

    __slots__ = ("decisions", "preds", "correct", "scores", "outcomes", "steps")

    def __init__(self):
        self.decisions: list[Decision] = []
        self.preds: list[Any] = []              # the extracted answer (None: nothing)
        self.correct: list[bool | None] = []    # None: no gold, or partial credit only
        self.scores: list[float | None] = []    # 1.0 / 0.0, or the partial credit the compare gives
        self.outcomes: list[str] = []           # rule, fallback, judge, abstain, unresolved, error
        self.steps: list[str | None] = []       # the step that decided

    def add(self, d: Decision) -> None:
        """Append one decision."""
        self.decisions.append(d)
        self.preds.append(d.pred)
        self.correct.append(d.correct)
        self.scores.append(d.score)
        self.outcomes.append(d.outcome)
        self.steps.append(d.step)

    @property
    def rewards(self) -> list[float]:
        """Each reply's reward in [0, 1]: its score (1.0 right, partial credit such as ANLS or MMVet's 0.5,
        0.0 wrong, unresolved or error), or 1.0 / 0.0 from `correct` where a decision has no score."""
        return [s if s is not None else float(c is True) for s, c in zip(self.scores, self.correct)]

    def __len__(self) -> int:
        return len(self.decisions)


UNREADABLE_REASON = "multiple-choice without options"


def unreadable(record: Record, trace: list | None = None) -> Decision:
    """Outcome `unreadable`: a multiple-choice record without options, for a section that reads option
    letters (`CompiledSection.needs_options`). Decided before any step (its trace, when asked, is empty):
    no judge is asked, no letter drawn."""
    return Decision(record.id, None, None, 0.0, "unreadable", None, trace=trace, reason=UNREADABLE_REASON,
                    message="a multiple-choice record without options: this ruleset answers with one of the "
                            "record's option letters (`letters-if-missing` gives a ruleset letters of its own)")


class Evaluator:
    """Runs one compiled ruleset over records. `seed` overrides the ruleset's fallback seed.

    With `defer_stream` set (worker processes), a record that falls to a stream-order random
    fallback gets a `DrawLater` (the decision each letter would make) instead of a decision; the
    process that sees the records in input order calls `draw_index` for each of them, in that order.
    """

    defer_stream = False

    def __init__(self, ruleset: CompiledRuleset, seed: int | None = None, max_chars: int = MAX_CHARS):
        self.ruleset = ruleset
        self.seed_override = seed
        self.max_chars = max_chars
        self._streams: dict[str, random.Random] = {}
        self.budget = RECORD_BUDGET  # regex seconds per record; a record past it is `error`, the next starts afresh

    def seed_for(self, section: CompiledSection) -> int:
        """The seed a section's random fallback uses."""
        if self.seed_override is not None:
            return self.seed_override
        fb = S.final_fallback(section.fallback)
        return fb.random_option.seed if isinstance(fb, S.RandomOption) else 0

    def _draw_options(self, compare: Any, record: Record, letters: list[str]) -> list[tuple]:
        """For every letter a random draw can give (in draw order), the fields of the decision that
        letter makes: (pred, correct, score, outcome, step, k, message)."""
        k = len(letters)
        if compare == "letter":
            gold = record.answer
            return [(p, c, 1.0 if c else 0.0, "fallback", "random-option", k, "")
                    for p, c in ((p, letter_correct(p, gold)) for p in letters)]
        out = []
        for pred in letters:
            d = scored_decision(compare, pred, record, None, "fallback", "random-option", k=k)
            out.append((d.pred, d.correct, d.score, d.outcome, d.step, d.k, str(d.message)))
        return out

    def draw_index(self, section_name: str, k: int) -> int:
        """Draw from section `section_name`'s stream as `random.choice` over k letters does (same
        RNG state consumed), and return the index drawn."""
        section = self.ruleset.sections[section_name]
        return self._stream(section, S.final_fallback(section.fallback).random_option).choice(range(k))

    def _stream(self, section: CompiledSection, spec: S.RandomOptionSpec) -> random.Random:
        """The section's one stream-order RNG, created on first use from the fallback's seed."""
        rng = self._streams.get(section.name)
        if rng is None:
            seed = spec.seed if self.seed_override is None else self.seed_override
            rng = self._streams[section.name] = random.Random(seed)
        return rng

    def run(self, records: Iterable[Record], trace: bool = False) -> Iterator[tuple[Record, Decision | None]]:
        """Decide every record in order; a record whose question type has no section yields None."""
        for record in records:
            yield record, self.decide(record, trace)

    def decide(self, record: Record, trace: bool = False) -> Decision | None:
        """The decision on one record (None when the ruleset has no section for its question type); a
        reply that is None or not text (bytes, a list; numbers are read as their text) is outcome `error`.
        It depends on the record, the ruleset and the seed only (and, for a stream-order fallback, on
        the draws before it): a regex call past its time limit makes this record `error` and leaves
        nothing behind for the next one."""
        section = self.ruleset.sections.get(record.question_type)
        if section is None:
            return None
        if section.needs_options and not record.choices:
            return unreadable(record, [] if trace else None)
        traces: list[StepTrace] | None = [] if trace else None
        response = record.response
        if not isinstance(response, str) and (isinstance(response, bool) or not isinstance(response, numbers.Real)):
            # None (no completion), bytes (their repr would be read), a list...: outcome error, never a reward.
            # (Numbers stay: a spreadsheet cell read as one is scored as its text, as the frameworks do.)
            what = "None: there is no reply" if response is None else f"a {type(response).__name__}, not text"
            return Decision(record.id, None, None, 0.0, "error", None, message=f"the reply is {what}",
                            reason="reply missing or not text")
        if isinstance(response, str) and len(response) > self.max_chars:
            return Decision(record.id, None, None, 0.0, "error", None,
                            message=f"reply of {len(record.response):,} characters exceeds the limit of "
                                    f"{self.max_chars:,} (--max-chars)", reason="reply over --max-chars")
        clock = CLOCK
        clock.left = self.budget
        clock.step = section
        try:
            return self._decide(section, record, traces)
        except RegexTimeout as exc:
            return self._error(record, clock.step, traces, "ran out of the record's regex budget" if exc.budget else
                               "ran past its time limit", "regex budget" if exc.budget else "regex time limit")
        except ConditionFailed as exc:
            where = _where(clock.step)
            return Decision(record.id, None, None, 0.0, "error", getattr(clock.step, "id", None),
                            message=f"{where}: {exc}", trace=traces, reason=f"failed condition or op in {where}")
        finally:
            clock.left = math.inf
            if WATCH.armed:  # its regex calls are over: no stray alarm during the next record's other work
                rest()           # (on the watchdog's own thread only: another thread's timer is left alone)

    def _error(self, record: Record, at: Any, traces, what: str, why: str) -> Decision:
        """Outcome `error` for a regex limit hit at step `at` (or the section's prepare)."""
        where = _where(at)
        return Decision(record.id, None, None, 0.0, "error", getattr(at, "id", None),
                        message=f"a regex of {where} {what}", trace=traces, reason=f"{why} in {where}")

    def decide_batch(self, responses: list[str], golds: list[Any] | None = None,
                     options: list[Any] | None = None, *, ids: list[str] | None = None,
                     question_types: list[str] | None = None) -> "Batch":
        """Decide many replies in one call — the shape of an RL reward function: parallel lists in,
        parallel lists out (`Batch`: `preds`, `correct`, `scores`, `outcomes`, `steps`, and `rewards`,
        the score of each reply in [0, 1]). `options[i]` is a list of option texts (lettered A, B, ...)
        or a {letter: text} dict; a reply with options is a multiple-choice record, one without an open
        one, unless `question_types` says. `ids` (default: the position in the batch) key the per-record
        random fallbacks, so a reply keeps its decision in any batch; a ruleset whose fallback draws in
        stream order (lmms-eval's) draws in batch order. A question type the ruleset has no section for
        is decided `unresolved`. A reply that is None (no completion) or not text (bytes, ...) is
        decided `error`, reward 0: it is never read as the text of its repr."""
        from rulekit.readers.jsonl import normalize_choices

        n = len(responses)
        for name, given in (("golds", golds), ("options", options), ("ids", ids), ("question_types", question_types)):
            if given is not None and len(given) != n:
                raise ValueError(f"{name} has {len(given)} entries for {n} responses")
        out = Batch()
        with watching():  # regex limits by one timer, not a `timeout` per call, where SIGALRM is free
            for i, response in enumerate(responses):
                choices = normalize_choices(options[i]) if options is not None else None
                qt = question_types[i] if question_types is not None else ("multiple-choice" if choices else "open")
                record = Record(ids[i] if ids is not None else str(i), qt, response,
                                golds[i] if golds is not None else None, choices)
                d = self.decide(record)
                if d is None:
                    d = Decision(record.id, None, None, 0.0, "unresolved", None,
                                 message=f"the ruleset has no `{qt}` section")
                out.add(d)
        return out

    def _decide(self, section: CompiledSection, record: Record, traces: list | None) -> Decision:
        opts = option_set(record.choices, section.letters_if_missing, section.letters_at_least, section.letters_count)
        original = record.response if isinstance(record.response, str) else str(record.response)
        prepared = section.prepare(original) if section.prepare else original
        steps = section.steps
        clock = CLOCK
        i = 0
        while i < len(steps):
            step = steps[i]
            clock.step = step
            if traces is None and step.direct is not None:  # a literal find and its pick in one call
                text = prepared if step.look_in == "prepared" else _unprepared(step, record, original)
                if step.prepare is not None:
                    try:
                        text = step.prepare(text)
                    except SkipStep:
                        i += 1
                        continue
                if step.when is None or step.when(Env(text, record, opts)):
                    answer = step.direct(text, opts)
                    if answer is not NO_ANSWER:
                        return self._fired(section, record, opts, step, answer, None, prepared)
                i += 1
                continue
            if traces is None and step.plain:  # find → pick and nothing else: the short road
                text = prepared if step.look_in == "prepared" else _unprepared(step, record, original)
                cands = step.finder.find(text, opts, False)
                if cands:
                    answer = step.picker(cands, text, opts, False)[0]
                    if answer is not NO_ANSWER:
                        return self._fired(section, record, opts, step, answer, None, prepared)
                i += 1
                continue
            text = prepared if step.look_in == "prepared" else _unprepared(step, record, original)
            if step.prepare is not None:
                try:
                    text = step.prepare(text)
                except SkipStep as exc:
                    if traces is not None:
                        traces.append(_st(step, "passed", f"its prepare skipped it: {exc}"))
                    i += 1
                    continue
            when = step.when
            env = Env(text, record, opts) if when is not None or step.where is not None else None
            if when is not None and not when.needs_candidates and not when(env):
                if traces is not None:
                    traces.append(_st(step, "skipped", f"`when: {when.source}` is false"))
                i += 1
                continue
            cands = step.finder.find(text, opts, traces is not None) if step.finder is not None else []
            if env is not None:
                env.cands = cands
                if hasattr(step.finder, "last_token_count"):
                    env.tokens_count = step.finder.last_token_count
            if when is not None and when.needs_candidates and not when(env):
                if traces is not None:
                    traces.append(_st(step, "skipped", f"`when: {when.source}` is false", cands))
                i += 1
                continue
            kept = cands
            if step.where is not None:
                kept = []
                for c in cands:
                    env.candidate = c
                    if step.where(env):
                        kept.append(c)
            if step.finder is not None and not kept:
                if traces is not None:
                    why = "nothing found" if not cands else f"`where: {step.where.source}` kept none of {len(cands)} candidates"
                    traces.append(_st(step, "passed", why, cands, kept if step.where is not None else None))
                i += 1
                continue
            if step.answer is not None:
                answer, reason = step.answer, f"found, so the fixed answer `{step.answer}`"
            else:
                answer, reason = step.picker(kept, text, opts, traces is not None)
                if answer is NO_ANSWER:
                    if traces is not None:
                        traces.append(_st(step, "passed", reason, cands, kept if step.where is not None else None))
                    i += 1
                    continue
            if step.skip_to is not None:
                if traces is not None:
                    target = steps[step.skip_to].id if step.skip_to < len(steps) else "the fallback"
                    traces.append(_st(step, "skipped-to", f"found; continue at `{target}`", cands))
                i = step.skip_to
                continue
            if step.also:
                answer = _with_also(answer, step.also, opts, True)  # every match counts, traced or not
            if traces is not None:
                st = _st(step, "fired", reason, cands, kept if step.where is not None else None)
                st.answer = answer
                traces.append(st)
            return self._fired(section, record, opts, step, answer, traces, prepared)
        return self._fallback(section, record, opts, traces, prepared)

    def _fired(self, section, record, opts, step, answer, traces, prepared) -> Decision:
        """The decision once `step` fired with `answer`: normalize, compare, and ask the section's
        judge when the compare cannot decide (the step's own compare, when it has one)."""
        compare = section.compare if step.compare is None else step.compare
        if traces is None and section.normalize is None and compare == "letter" and type(answer) is str:
            correct = letter_correct(answer, record.answer)  # compares.verdict's common case, without its dispatch
            return Decision(record.id, answer, correct, 1.0 if correct else 0.0, step.outcome, step.id)
        if section.normalize is not None:
            answer = normalize_answers(answer, section.normalize)
        decision = scored_decision(compare, answer, record, section.normalize, step.outcome, step.id,
                                   trace=traces, text=prepared if traces is not None else "")
        if decision.outcome == "unresolved" and isinstance(section.fallback, S.Judge):
            return judge_fallback(self, section, record, opts, traces, prepared, section.fallback, decision)
        return decision

    def _fallback(self, section, record, opts, traces, prepared, fb=None) -> Decision:
        fb = section.fallback if fb is None else fb  # `fb`: a judge's `then:` fallback
        if fb is None:
            return Decision(record.id, None, False, 0.0, "unresolved", None,
                            message="no step fired and the ruleset has no fallback", trace=traces, text=prepared if traces is not None else "")
        return fb.decide(FallbackRun(self, section, record, opts, traces, prepared))


class FallbackRun:
    """The engine's side of a fallback word's `decide(run)` (rulekit/language/fallbacks.py): the record
    being decided and what a fallback may do with it."""

    __slots__ = ("evaluator", "section", "record", "opts", "traces", "prepared")

    def __init__(self, evaluator: Evaluator, section: CompiledSection, record: Record, opts, traces, prepared):
        self.evaluator, self.section, self.record = evaluator, section, record
        self.opts, self.traces, self.prepared = opts, traces, prepared

    def _text(self) -> str:
        return self.prepared if self.traces is not None else ""

    def score(self, answer: Any, outcome: str, step: str, k: int | None = None) -> Decision:
        """The Decision for `answer` under the section's compare."""
        extra = {"k": k} if k is not None else {}
        return scored_decision(self.section.compare, answer, self.record, None, outcome, step,
                               trace=self.traces, text=self._text(), **extra)

    def error(self, message: str, step: str, reason: str) -> Decision:
        """A Decision with outcome `error`."""
        return Decision(self.record.id, None, None, 0.0, "error", step, message=message, trace=self.traces,
                        text=self._text(), reason=reason)

    def draw(self, letters: list[str], spec: S.RandomOptionSpec) -> Decision | DrawLater:
        """A letter drawn from `letters`: from an RNG keyed by (seed, record id), or from the section's one
        stream (in a worker process: a `DrawLater`, the parent draws in input order)."""
        ev, section = self.evaluator, self.section
        if spec.order == "stream":
            if ev.defer_stream:  # a worker process: the parent draws in input order (rulekit/run/parallel.py)
                return DrawLater(section.name, ev._draw_options(section.compare, self.record, letters))
            rng = ev._stream(section, spec)
        else:
            seed = spec.seed if ev.seed_override is None else ev.seed_override
            rng = random.Random(f"{seed}\x1f{self.record.id}")
        return self.score(rng.choice(letters), "fallback", "random-option", k=len(letters))

    def ask_judge(self, fallback: S.Judge) -> Decision:
        """The judge fallback's Decision (rulekit/engine/judge.py)."""
        return judge_fallback(self.evaluator, self.section, self.record, self.opts, self.traces, self.prepared,
                              fallback)


def _where(at: Any) -> str:
    """`step `ID`` for a step, the section's prepare ops for a section."""
    if isinstance(at, CompiledSection):
        return f"the `{at.name}` section's prepare"
    return f"step `{at.id}`" if at is not None else "the ruleset"


def _st(step, status, reason, cands=None, kept=None) -> StepTrace:
    loc = step.loc
    return StepTrace(step.id, status, reason, loc.line if loc else 0, loc.file if loc else "", step.describe,
                     list(cands[:MAX_TRACE_CANDIDATES]) if cands else [],
                     list(kept[:MAX_TRACE_CANDIDATES]) if kept is not None else None)


def _with_also(answer, finders, opts, full) -> list:
    answers = answer if isinstance(answer, list) else [answer]
    extra = []
    for a in answers:
        for finder in finders:
            extra.extend(c.answer for c in finder.find(str(a), opts, full))
    return list(answers) + extra
