"""Ruleset examples and golden cases: a response, options and what must come out (`rulekit test`)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from rulekit.engine.compiler import CompiledRuleset
from rulekit.engine.decide import Evaluator
from rulekit.core.errors import ErrorGroup, RulekitError, RulesetError
from rulekit.language.loader import read_yaml, validation_errors
from rulekit.core.records import Record
from rulekit.language.schema import Example


@dataclass
class CaseResult:
    """One checked example: `problems` is empty when it passed."""

    number: int
    example: Example
    problems: list[str]
    pred: object = None
    step: str | None = None
    outcome: str | None = None


def check_examples(ruleset: CompiledRuleset, examples: list[Example], seed: int = 0) -> list[CaseResult]:
    """Run each example through the ruleset (per-item seeded, so examples are order-independent)."""
    results = []
    for i, ex in enumerate(examples, 1):
        evaluator = Evaluator(ruleset, seed)
        record = Record(f"example-{i}", ex.question_type, ex.response, ex.answer, ex.options, meta=dict(ex.meta))
        try:
            d = (evaluator.decide(record) if ex.judge_replies is None
                 else _decide_with_judge_replies(ruleset, evaluator, record, ex.judge_replies, seed,
                                                 ex.grader_replies or []))
        except RulekitError as exc:  # e.g. a judge try beyond the example's replies
            results.append(CaseResult(i, ex, [str(exc)]))
            continue
        problems = []
        if d is None:
            problems.append(f"the ruleset has no `{ex.question_type}` section")
        else:
            given = ex.model_fields_set
            if "expect" in given and d.pred != ex.expect:
                problems.append(f"expected {ex.expect!r}, got {d.pred!r}")
            if "via" in given and d.step != ex.via and not (ex.via is None and d.outcome != "rule"):
                problems.append(f"expected step `{ex.via}` to decide, `{d.step}` did")
            if "outcome" in given and d.outcome != ex.outcome:
                problems.append(f"expected outcome {ex.outcome}, got {d.outcome}")
            if "correct" in given and d.correct != ex.correct:
                problems.append(f"expected correct={ex.correct}, got {d.correct}")
            if "score" in given and (d.score is None or ex.score is None or abs(d.score - ex.score) > 1e-9) \
                    and d.score != ex.score:
                problems.append(f"expected score={ex.score}, got {d.score}")
        results.append(CaseResult(i, ex, problems, d.pred if d else None, d.step if d else None,
                                  d.outcome if d else None))
    return results


def _decide_with_judge_replies(ruleset: CompiledRuleset, evaluator: Evaluator, record: Record, replies: list[str],
                               seed: int, grader_replies: list[str]):
    """Decide `record` with the judge's replies an example gives: written, try by try, under the cache key
    of each prompt the judge will be asked, into a scratch cache that the engine then replays; then the
    grader's replies (a two-stage judge) under the keys of the prompts its answer leaves to the grader."""
    import dataclasses
    import tempfile

    from rulekit.engine import judge
    from rulekit.run.judging import grader_pending, pending

    saved = dataclasses.asdict(judge.SETTINGS)
    fake = {"base_url": "http://judge.invalid/v1", "model": "example-judge"}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            cache = str(Path(tmp) / "judge.sqlite")
            judge.configure(cache=cache, **fake)
            for section, _, prompts, _ in pending(ruleset, [record], seed):
                client = judge.client_for(section.fallback.judge)
                for prompt in prompts:
                    for attempt, reply in enumerate(replies, 1):
                        client.cache.put(client.key(prompt, attempt), client.model, prompt, attempt, reply)
            for _, _, grader, prompts in grader_pending(ruleset, [record], seed):
                for prompt in prompts:
                    for attempt, reply in enumerate(grader_replies, 1):
                        grader.cache.put(grader.key(prompt, attempt), grader.model, prompt, attempt, reply)
            judge.configure(cache=cache, replay=True, **fake)
            return evaluator.decide(record)
    finally:
        judge.configure(**saved)


def load_cases(path: Path) -> tuple[str, list[Example]]:
    """A golden-case file: `ruleset: NAME` and `cases: [...]` (each an Example)."""
    data = read_yaml(path)
    if not isinstance(data, dict) or "ruleset" not in data or "cases" not in data:
        raise RulesetError("a case file needs `ruleset:` and `cases:`", getattr(data, "loc", None), code="E140")
    examples, errors = [], []
    for i, raw in enumerate(data["cases"]):
        try:
            examples.append(Example.model_validate(raw))
        except ValidationError as exc:
            errors.extend(validation_errors(exc, raw))
    if errors:
        raise ErrorGroup(errors)
    return str(data["ruleset"]), examples
