"""lm-evaluation-harness and lmms-eval: a ruleset as a task's answer extraction.

Both harnesses post-process replies with filters: `FilterEnsemble.apply` calls each filter's
`apply(resps, docs)` with every instance's list of replies and its document, and the task's metric
then compares what the filters return with the target. `filter_fn(ruleset, ...)` is what lm-eval's
and lmms-eval's built-in `custom` filter calls (`filter_fn(resps, docs)`), so a task YAML needs one
line of Python beside it:

    # rulekit_filters.py, next to the task YAML
    from rulekit.adapters.harness import filter_fn
    vlmevalkit = filter_fn("vlmevalkit", options="choices")

    # the task YAML
    filter_list:
      - name: rulekit
        filter:
          - function: custom
            filter_fn: !function rulekit_filters.vlmevalkit

lmms-eval 0.7 has no `custom` filter; its filter list takes a class (`function: !function
rulekit_filters.RulekitFilter` with `ruleset: vlmevalkit` beside it), or `function: rulekit` once the
task's utils.py has called `register("lmms_eval")`.

Each reply becomes the answer the ruleset extracts (a letter for a multiple-choice doc), or "" when
it extracts nothing, so `exact_match` against a letter target scores the ruleset's decision.
`register()` also adds a `rulekit` filter to the harness's registry (`function: rulekit` with
`ruleset:` and `options:` as filter kwargs) and, in lmms-eval, a `rulekit` extractor and verifier to
`lmms_eval.verifiers` (`build_verification_pipeline({"verifier": {"type": "rulekit", "ruleset": ...}})`).
"""
from __future__ import annotations

from typing import Any, Callable

from rulekit.adapters import answer_text, decision_score
from rulekit.core.records import MULTIPLE_CHOICE, OPEN, Record
from rulekit.engine.compiler import load_ruleset
from rulekit.engine.decide import Evaluator
from rulekit.readers.jsonl import LETTERS, normalize_choices


def _doc_field(doc: Any, name: str | None) -> Any:
    if name is None or not isinstance(doc, dict):
        return None
    value: Any = doc
    for part in name.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


class RulekitFilter:
    """A harness filter: every reply of every instance replaced by the answer `ruleset` extracts.

    `options` names the doc field with the options (a list lettered A, B, ... or a {letter: text}
    dict; dotted for nested fields); `gold` the doc field with the gold answer (only the ruleset's
    compare-dependent steps need it); `id` the doc field that keys per-record random fallbacks (default:
    the instance's position). A doc without options is an open question."""

    def __init__(self, ruleset: str = "vlmevalkit", options: str | None = "choices", gold: str | None = None,
                 id: str | None = None, seed: int | None = 0, **_: Any):
        self.evaluator = Evaluator(load_ruleset(ruleset), seed)
        self.options, self.gold, self.id = options, gold, id

    def record(self, reply: Any, doc: Any, n: int) -> Record:
        """The Record rulekit decides for one reply to one doc: options lettered as the lighteval and Inspect
        adapters letter them (the first 26, A to Z); a doc whose options cannot be read as a list or a
        {letter: text} mapping (a plain string, a 5,000-digit integer) is an open question, as a doc without
        options is — never an exception in the middle of a harness's run."""
        choices = _options(_doc_field(doc, self.options))
        rid = _doc_field(doc, self.id)
        return Record(str(rid) if rid is not None else str(n), MULTIPLE_CHOICE if choices else OPEN,
                      reply if isinstance(reply, str) else "" if reply is None else str(reply),
                      _doc_field(doc, self.gold), choices)

    def extract(self, reply: Any, doc: Any, n: int = 0) -> str:
        """The extracted answer as text ("" when nothing was extracted)."""
        return answer_text(self.evaluator.decide(self.record(reply, doc, n)))

    def apply(self, resps, docs) -> list:
        """What a harness filter returns: per instance, its replies replaced by the extracted answers. The
        harnesses pass one doc per instance; a different count is a ValueError (zip would silently drop the
        instances without a doc, and the harness would score fewer than it ran)."""
        resps, docs = list(resps), list(docs)
        if len(resps) != len(docs):
            raise ValueError(f"rulekit filter: {len(resps)} instances' replies but {len(docs)} docs; "
                             "a filter is given one doc per instance")
        return [[self.extract(reply, doc, n) for reply in (replies if isinstance(replies, (list, tuple)) else [replies])]
                for n, (replies, doc) in enumerate(zip(resps, docs))]


def _options(value: Any) -> dict[str, str] | None:
    """A doc's options as {letter: text}: a list lettered A, B, ... (the first 26), a mapping as it is, a
    string holding either; None when there are none or they cannot be read that way."""
    if isinstance(value, (list, tuple)):
        value = list(value)[:len(LETTERS)]  # as the lighteval and Inspect adapters letter a 27th option: not at all
    try:
        return normalize_choices(value)
    except ValueError:
        return None


def filter_fn(ruleset: str = "vlmevalkit", **options: Any) -> Callable[[list, list], list]:
    """The callable the harnesses' `custom` filter takes as `filter_fn` (`!function` in a task YAML)."""
    return RulekitFilter(ruleset, **options).apply


_REGISTERED: set[str] = set()


def register(harness: str = "lm_eval") -> None:
    """Add rulekit to a harness's registries: the `rulekit` filter (lm_eval or lmms_eval), and for
    lmms_eval also the `rulekit` extractor and verifier of `lmms_eval.verifiers`."""
    import importlib

    if harness in _REGISTERED:
        return
    registry = importlib.import_module(f"{harness}.api.registry")
    registry.register_filter("rulekit")(RulekitFilter)
    _REGISTERED.add(harness)
    if harness == "lmms_eval":
        # lmms-eval's tasks build their filters from lmms_eval.filters' own registry
        importlib.import_module("lmms_eval.filters").FILTER_REGISTRY.setdefault("rulekit", RulekitFilter)
        verifiers = importlib.import_module("lmms_eval.verifiers")
        verifiers.EXTRACTOR_REGISTRY.setdefault("rulekit", _lmms_extractor(verifiers))
        verifiers.VERIFIER_REGISTRY.setdefault("rulekit", _lmms_verifier(verifiers))


def _lmms_extractor(verifiers):
    class RulekitExtractor(verifiers.Extractor):
        """lmms-eval extractor: the reply replaced by the answer the ruleset extracts (`options=` per call:
        a list or {letter: text})."""

        def __init__(self, ruleset: str = "vlmevalkit", seed: int | None = 0):
            self.filter = RulekitFilter(ruleset, options="options", seed=seed)

        def extract(self, text: str, **kwargs: Any) -> str:
            return self.filter.extract(text, {"options": kwargs.get("options")})

    return RulekitExtractor


def _lmms_verifier(verifiers):
    class RulekitVerifier(verifiers.Verifier):
        """lmms-eval verifier: the ruleset's decision on (prediction, ground truth), with its outcome and
        deciding step in the result's metadata."""

        def __init__(self, ruleset: str = "vlmevalkit", seed: int | None = 0):
            self.filter = RulekitFilter(ruleset, options="options", gold="gold", seed=seed)

        def verify(self, question: str, prediction: str, ground_truth: str, **kwargs: Any):
            d = self.filter.evaluator.decide(self.filter.record(
                prediction, {"options": kwargs.get("options"), "gold": ground_truth}, 0))
            return verifiers.VerifyResult(score=decision_score(d),
                                          is_correct=bool(d is not None and d.correct is True),
                                          metadata={"pred": None if d is None else d.pred,
                                                    "outcome": None if d is None else d.outcome,
                                                    "step": None if d is None else d.step})

    return RulekitVerifier
