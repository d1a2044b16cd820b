"""Inspect AI: a ruleset as a scorer.

Registered through the `inspect_ai` entry point (pyproject.toml), so with rulekit installed beside
Inspect AI:

    inspect score LOG --scorer rulekit/vlmevalkit
    inspect score LOG --scorer rulekit/ruleset -S ruleset=vlmevalkit
    inspect eval task.py --scorer rulekit/ruleset -S ruleset=lmms-eval ...

Inspect names a scorer's scores by the name it is registered under, so every built-in ruleset is also
a scorer of its own, `rulekit/NAME` (`-S seed=N`), whose scores are named NAME: two rulesets on one log
are told apart (`vlmevalkit` and `lmms-eval`, not `ruleset` and `ruleset1`). In Python,
`named_scorer(RULESET)` does the same for a YAML file (named by `score_name`). The generic
`rulekit/ruleset -S ruleset=...` stays for any ruleset; Inspect names its scores `ruleset`.

A sample's options are its `choices` (lettered A, B, ... in order; a sample without choices is an
open question), its gold is the target. Rulekit's outcomes map onto Inspect's scores: a right
answer is CORRECT, a wrong one INCORRECT, partial credit its score in [0, 1]; a reply the ruleset
could not read (`unresolved`), one it declined (`abstain`) and an `error` are NOANSWER — never a plain
INCORRECT — with the reason in the explanation. Every score carries the extracted answer, the
outcome and the deciding step (`metadata`).
"""
from __future__ import annotations

from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState

from rulekit.adapters import score_name
from rulekit.core.records import MULTIPLE_CHOICE, OPEN, Record
from rulekit.engine.compiler import load_ruleset
from rulekit.engine.decide import Evaluator
from rulekit.readers.jsonl import LETTERS


def to_score(decision) -> Score:
    """An Inspect Score for a rulekit Decision (see the module docstring for the mapping)."""
    meta = {"pred": decision.pred, "outcome": decision.outcome, "step": decision.step}
    answer = None if decision.pred is None else str(decision.pred)
    if decision.outcome in ("unresolved", "abstain", "error", "unreadable"):
        why = decision.message or decision.reason or {"unresolved": "no step of the ruleset read an answer",
                                                       "abstain": "the ruleset declined to answer"}.get(decision.outcome, "")
        return Score(value=NOANSWER, answer=answer, explanation=f"{decision.outcome}: {why}".rstrip(": "),
                     metadata=meta)
    how = f"{decision.outcome} by step {decision.step}" if decision.step else decision.outcome
    if decision.score is not None and 0 < decision.score < 1:  # ANLS, MMVet's 0.5, word recall
        return Score(value=decision.score, answer=answer, explanation=f"partial credit, {how}", metadata=meta)
    return Score(value=CORRECT if decision.correct else INCORRECT, answer=answer, explanation=how, metadata=meta)


def named_scorer(ruleset: str, seed: int = 0) -> Scorer:
    """An Inspect scorer for `ruleset` (a built-in name or a YAML path) whose scores are named
    `score_name(ruleset)`, for a Task's `scorer=[...]`: `[named_scorer("vlmevalkit"), named_scorer("mine.yaml")]`."""
    @scorer(metrics=[accuracy(), stderr()], name=score_name(ruleset))
    def named(seed: int = seed):
        return _scorer(ruleset, seed)

    return named(seed)


def _builtin_scorer(name: str) -> None:
    """Register `rulekit/NAME`, the scorer of the built-in ruleset NAME (scores named NAME)."""
    def factory(seed: int = 0):
        return _scorer(name, seed)

    factory.__doc__ = f"Score each sample's completion with the built-in ruleset `{name}` (scores named `{name}`)."
    scorer(metrics=[accuracy(), stderr()], name=name)(factory)


@scorer(metrics=[accuracy(), stderr()])
def ruleset(ruleset: str = "vlmevalkit", seed: int = 0):
    """Score each sample's completion with a rulekit ruleset (a built-in name or a YAML path)."""
    return _scorer(ruleset, seed)


def _scorer(ruleset: str, seed: int):
    """The scoring coroutine of `ruleset` (the ruleset loaded once, here)."""
    evaluator = Evaluator(load_ruleset(ruleset), seed)

    async def score(state: TaskState, target: Target) -> Score:
        choices = [c.value for c in state.choices] if state.choices else []
        options = {LETTERS[i]: text for i, text in enumerate(choices[:len(LETTERS)])} or None
        gold = target.text if len(target.target) <= 1 else list(target.target)
        record = Record(str(state.sample_id), MULTIPLE_CHOICE if options else OPEN, state.output.completion or "",
                        gold, options)
        decision = evaluator.decide(record)
        if decision is None:
            return Score(value=NOANSWER, explanation=f"the ruleset has no `{record.question_type}` section")
        return to_score(decision)

    return score


def _register_builtins() -> None:
    from rulekit.core.resources import builtin_rulesets

    for name in builtin_rulesets():
        if score_name(name) == name and name != "ruleset":
            _builtin_scorer(name)


_register_builtins()
