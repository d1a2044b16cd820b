"""OpenCompass: a ruleset as a dataset's `pred_postprocessor`.

OpenCompass's eval task applies `eval_cfg['pred_postprocessor']` to every prediction string,
`proc(prediction, **cfg)` (`type` taken out of cfg; a callable, a TEXT_POSTPROCESSORS name, or a
dotted import path), and its evaluator then compares what comes back with the reference:

    eval_cfg = dict(evaluator=dict(type=AccEvaluator),
                    pred_postprocessor=dict(type="rulekit.adapters.opencompass.postprocess",
                                            ruleset="vlmevalkit", options="ABCD"))

The dotted path is the form to use: OpenCompass runs each eval task in a fresh process from a
dumped config, where a name registered in the launching process is unknown (`register()` adds the
name `rulekit` for in-process use).

A postprocessor sees the prediction text and nothing else of the item, so a multiple-choice
record has the option letters of `options` ("ABCD": letters whose texts are unknown, so only letter
rules can fire; a list or {letter: text} mapping gives texts shared by every item). `options=""`
makes every prediction an open question. The returned text is the ruleset's answer ("" when it
extracts none); per-record random fallbacks are keyed by the prediction text, so a reply gets the
same answer wherever it stands.
"""
from __future__ import annotations

import functools
from typing import Any

from rulekit.adapters import answer_text
from rulekit.core.records import MULTIPLE_CHOICE, OPEN, Record
from rulekit.engine.compiler import load_ruleset
from rulekit.engine.decide import Evaluator
from rulekit.readers.jsonl import normalize_choices


@functools.lru_cache(maxsize=32)
def _evaluator(ruleset: str, seed: int | None) -> Evaluator:
    return Evaluator(load_ruleset(ruleset), seed)


def _options(options: Any) -> dict[str, str] | None:
    if isinstance(options, str):
        return {letter: "" for letter in options} or None
    return normalize_choices(options)


def postprocess(text: Any, ruleset: str = "vlmevalkit", options: Any = "ABCD", seed: int | None = 0, **_: Any) -> str:
    """What OpenCompass's `pred_postprocessor` calls for one prediction: the answer `ruleset` extracts
    from it, as text ("" when it extracts nothing). See the module docstring for `options`."""
    reply = text if isinstance(text, str) else "" if text is None else str(text)
    choices = _options(options)
    return answer_text(_evaluator(ruleset, seed).decide(Record(reply, MULTIPLE_CHOICE if choices else OPEN, reply,
                                                                None, choices)))


def register() -> None:
    """Add `postprocess` to OpenCompass's TEXT_POSTPROCESSORS as `rulekit` (in this process only)."""
    from opencompass.registry import TEXT_POSTPROCESSORS

    TEXT_POSTPROCESSORS.register_module(name="rulekit", module=postprocess, force=True)
