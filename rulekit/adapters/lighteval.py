"""lighteval: a ruleset as a sample-level metric.

    from rulekit.adapters.lighteval import ruleset_metric
    vlmevalkit = ruleset_metric("vlmevalkit")          # SampleLevelMetric "rulekit_vlmevalkit"
    TASK = LightevalTaskConfig(..., metrics=[vlmevalkit])   # in a custom task file (TASKS_TABLE)

lighteval scores a generative task by calling each metric's `compute(doc=, model_response=)` per
sample (`lighteval.metrics.apply_metric`) and averaging the values over the corpus. Here the value
is the ruleset's decision on the sample's first generation: 1.0 right, 0.0 wrong, partial credit
(ANLS, MMVet's 0.5) in between; a reply the ruleset cannot read scores 0.0, as it would in the
ruleset's own accuracy.

A Doc's `choices` are the options, lettered A, B, ... in order, and its `gold_index` the right
one (several: the gold is the list of their letters). `open=True` is for open questions, whose
generative lighteval tasks keep the gold answers in `choices`: the choices at `gold_index` are the
gold (one text, or a list), and the record has no options. The Doc's `id` keys the ruleset's
per-record random fallbacks (a Doc without one: its query), so a sample keeps its score in any
order or batch.
"""
from __future__ import annotations

from typing import Any

from rulekit.adapters import decision_score
from rulekit.core.records import MULTIPLE_CHOICE, OPEN, Record
from rulekit.engine.compiler import load_ruleset
from rulekit.engine.decide import Evaluator
from rulekit.readers.jsonl import LETTERS


def _indices(gold_index: Any) -> list[int]:
    return [gold_index] if isinstance(gold_index, int) else list(gold_index or [])


def doc_record(doc: Any, reply: str, open: bool = False) -> Record:
    """The Record rulekit decides for one lighteval Doc and reply (see the module docstring)."""
    choices = list(doc.choices or [])
    golds = [i for i in _indices(doc.gold_index) if 0 <= i < len(choices)]
    rid = str(doc.id) if getattr(doc, "id", None) not in (None, "") else str(doc.query)
    if open:
        gold = [choices[i] for i in golds]
        return Record(rid, OPEN, reply, gold[0] if len(gold) == 1 else gold or None, None, question=doc.query)
    options = {LETTERS[i]: str(text) for i, text in enumerate(choices[:len(LETTERS)])}
    letters = [LETTERS[i] for i in golds if i < len(LETTERS)]
    return Record(rid, MULTIPLE_CHOICE if options else OPEN, reply, letters[0] if len(letters) == 1 else letters or None,
                  options or None, question=doc.query)


class RulekitComputation:
    """lighteval's SampleLevelComputation for a ruleset (a built-in name or a YAML path): the decision's
    score on the sample's first generation. Made by `ruleset_metric`; subclasses lighteval's base there."""

    def __init__(self, ruleset: str = "vlmevalkit", open: bool = False, seed: int | None = 0):
        self.evaluator = Evaluator(load_ruleset(ruleset), seed)
        self.open = open

    def decide(self, doc: Any, model_response: Any):
        """The rulekit Decision for one sample (None when the ruleset has no section for it)."""
        texts = list(model_response.final_text or [])
        reply = texts[0] if texts and isinstance(texts[0], str) else ""
        return self.evaluator.decide(doc_record(doc, reply, self.open))

    def compute(self, doc: Any, model_response: Any, **kwargs: Any) -> float:
        """What lighteval's apply_metric asks per sample: the decision's score (0.0 when none)."""
        return decision_score(self.decide(doc, model_response))


def ruleset_metric(ruleset: str = "vlmevalkit", name: str | None = None, open: bool = False, seed: int | None = 0):
    """A lighteval `SampleLevelMetric` (generative, mean over the corpus, higher is better) that scores
    each sample with `ruleset`; named `name` (default `rulekit_<ruleset>`)."""
    import numpy as np
    from lighteval.metrics.metrics_sample import SampleLevelComputation
    from lighteval.metrics.utils.metric_utils import SampleLevelMetric
    from lighteval.tasks.requests import SamplingMethod

    computation = type("RulekitComputation", (RulekitComputation, SampleLevelComputation), {})
    return SampleLevelMetric(metric_name=name or f"rulekit_{ruleset}", higher_is_better=True,
                             category=SamplingMethod.GENERATIVE,
                             sample_level_fn=computation(ruleset, open=open, seed=seed), corpus_level_fn=np.mean)
