"""The fallback family: what decides a record when no step fired — each word's model (its docstring
is what `rulekit vocabulary` prints), what it does, and the registry the schema reads, in one module.

A fallback word is a model with `decide(run)`: `run` is the engine's view of the record being
decided (a `FallbackRun`), which offers the few things a fallback may do — score an answer with the
section's compare, report an error, draw a letter from the section's random stream, ask the judge.
The engine calls `section.fallback.decide(run)` and nothing else, so a new fallback word is a new
model here (plus its golden cases); a word that needs a new engine capability adds it to
`FallbackRun` and to the engine's implementation of it (rulekit/engine/decide.py).
"""

from typing import Any, Literal, Protocol

from pydantic import Field, model_validator

from rulekit.core.options import OptionSet
from rulekit.language.prepare import PrepareOp
from rulekit.language.words import Word, word_union

__all__ = ["FALLBACK_MODELS", "Fallback", "FallbackRun", "final_fallback", "RandomOption", "RandomOptionSpec",
           "Constant", "Abstain", "Judge", "JudgeSpec"]


class FallbackRun(Protocol):
    """What a fallback can do for the record being decided (implemented by the engine)."""

    opts: OptionSet  # the record's options, as finders see them

    def score(self, answer: Any, outcome: str, step: str, k: int | None = None) -> Any:
        """The Decision for `answer` under the section's compare, with this outcome and step name."""

    def error(self, message: str, step: str, reason: str) -> Any:
        """A Decision with outcome `error` (counted as wrong, never dropped)."""

    def draw(self, letters: list[str], spec: "RandomOptionSpec") -> Any:
        """The Decision for a letter drawn at random from `letters` as `spec` orders (per item or stream)."""

    def ask_judge(self, fallback: "Judge") -> Any:
        """The Decision the judge fallback makes of the record."""


class RandomOptionSpec(Word):
    """Options of `random-option`: `order: per-item` draws from an RNG keyed by (seed, record id), so order
    and parallelism never matter; `order: stream` draws `choice(letters)` from ONE `random.Random(seed)`
    in input order, one draw per fallback record (reproduces lmms-eval / MMMU; order-dependent).
    `extra` adds letters to draw from (VLMEvalKit draws from the options plus `Z`)."""

    order: Literal["per-item", "stream"] = "per-item"
    seed: int = Field(default=0, ge=-(2**63), le=2**63 - 1)
    extra: list[str] = []


class RandomOption(Word):
    """`random-option: {...}` — guess a letter at random (outcome `fallback`; expected accuracy counts 1/k)."""

    random_option: RandomOptionSpec = RandomOptionSpec.model_construct()

    def decide(self, run: FallbackRun) -> Any:
        """A letter drawn from the record's options (plus `extra`); no options is an `error`."""
        spec = self.random_option
        opts = run.opts
        if not opts.letters:
            return run.error("random-option fallback: the record has no options", "random-option",
                             "no options to draw from")
        letters = opts.letter_list + [x for x in dict.fromkeys(spec.extra) if x not in opts.letters]
        return run.draw(letters, spec)


class Constant(Word):
    """`constant: X` — answer X when no step fired (outcome `fallback`)."""

    constant: str

    def decide(self, run: FallbackRun) -> Any:
        """The constant, scored by the section's compare."""
        return run.score(self.constant, "fallback", "constant")


class Abstain(Word):
    """`abstain: X` — decline with answer X (e.g. VLMEvalKit's `Z`), outcome `abstain`; counts as wrong
    unless the gold is X."""

    abstain: str | None = None

    def decide(self, run: FallbackRun) -> Any:
        """The abstention's answer, scored by the section's compare (outcome `abstain`)."""
        return run.score(self.abstain, "abstain", "abstain")


class JudgeSpec(Word):
    """Options of `judge` (see `judge`)."""

    base_url: str | None = None
    model: str | None = None
    prompt: str = "vlmevalkit-judge"
    retries: int = Field(default=3, ge=1, le=10)
    temperature: float = Field(default=0.0, ge=0.0)
    max_tokens: int | None = Field(default=None, ge=1)
    temperature_step: float = Field(default=0.0, ge=0.0)
    equal_if_contains: str | None = Field(default=None, min_length=1)
    scores: bool = False
    prepare_reply: list[PrepareOp] = []
    grader: "JudgeSpec | None" = None
    then: "Fallback | None" = None

    @model_validator(mode="after")
    def _one_grading_mode(self) -> "JudgeSpec":
        if self.scores and self.equal_if_contains is not None:
            raise ValueError("a judge either `scores` or answers `equal-if-contains`, not both")
        if self.grader is not None:
            if self.grades:
                raise ValueError("a `grader` follows a judge that extracts an answer: this judge grades itself")
            if not self.grader.grades:
                raise ValueError("a `grader` grades: give it `scores: true` or `equal-if-contains`")
            if self.grader.grader is not None or self.grader.then is not None:
                raise ValueError("a `grader` has no `grader` or `then` of its own (the extracting judge's `then` decides)")
        return self

    def grader_spec(self) -> "JudgeSpec | None":
        """The grader, its endpoint and model defaulting to this judge's."""
        g = self.grader
        if g is None:
            return None
        return g.model_copy(update={"base_url": g.base_url or self.base_url, "model": g.model or self.model})

    @property
    def grades(self) -> bool:
        """Whether this judge grades (prediction, gold) pairs (`scores` or `equal-if-contains`)."""
        return self.scores or self.equal_if_contains is not None


class Judge(Word):
    """`judge: {base-url, model, prompt, retries: 3, then: FALLBACK}` — ask an LLM judge on an
    OpenAI-compatible endpoint (e.g. `vllm serve`) about a record no step decided: the `prompt` style
    (default `vlmevalkit-judge`) gets the question, options and stripped reply; each judge reply is
    parsed by this section's own steps, and the first they answer decides (outcome `judge`). After
    `retries` unusable replies the `then` fallback decides (none: `unresolved`). `base-url`/`model`
    may be left out and given by `rulekit eval --judge-url/--judge-model` or RULEKIT_JUDGE_URL /
    RULEKIT_JUDGE_MODEL (which override them). `temperature` (0: greedy) and `max-tokens` are the
    judge's sampling. Replies are cached on disk, keyed by model and prompt (rulekit/engine/judge.py).
    A record whose step fired but whose compare cannot decide (outcome `unresolved`, e.g. `equivalent`
    with `otherwise: judge`) goes to the judge too; the judge's answer is then scored with no second
    judge, and without a usable reply or `then` the record stays `unresolved`.
    `equal-if-contains: TEXT` makes it a grading judge (VLMEvalKit's physics): it is asked about each
    (prediction, gold) pair the compare left to a judge — prompt variables `{prediction}`, `{gold}` —
    once per pair; a reply containing TEXT (any case: "not true" contains "true") makes the pair equal.
    `scores: true` makes it a scoring judge (VLMEvalKit's MMVet): asked about each such pair too, the
    answer this section's steps read from its reply must be a number from 0 to 1 (Python `float()`
    syntax; "nan" is refused, where the original would keep it), which is the pair's score — partial
    credit; correct at 1 —, and a reply without one is asked again, up to `retries` times (then the
    pair scores 0; with no pair scored the `then` fallback decides). `temperature-step: S` samples try
    k at `temperature + (k - 1) * S` (MMVet: 0, 0.5, 1.0, ...). A grading judge is never asked about
    records no step decided; the compare `judged` leaves every pair to it. `grader: {JUDGE}` makes a
    two-stage judge (VLMEvalKit's MathVerse: extract, then grade): after this judge's answer, the
    (answer, gold) pairs the compare leaves to a judge (e.g. `or-judge`) go to the grader — a grading
    judge (`scores: true` or `equal-if-contains`), its `base-url`/`model` defaulting to this judge's —
    whose replies the section's steps read with `grading_reply` true; no score in its `retries`
    tries leaves the answer wrong. `prepare-reply: [OPS]` puts the model's reply through prepare ops
    before the prompt takes it (VLMEvalKit's DynaMath shows its judge the reply cut to its outer braces,
    backslashes removed)."""

    judge: JudgeSpec

    def decide(self, run: FallbackRun) -> Any:
        """Whatever the judge (rulekit/engine/judge.py) makes of the record."""
        return run.ask_judge(self)


FALLBACK_MODELS = {"random-option": RandomOption, "constant": Constant, "abstain": Abstain, "judge": Judge}
Fallback = word_union(FALLBACK_MODELS)
# (the forward references above resolve when a model is first used: models build lazily, see Word)


def final_fallback(fallback):
    """The fallback that decides when every judge fails: a `judge`'s `then`, followed to the end."""
    while isinstance(fallback, Judge):
        fallback = fallback.judge.then
    return fallback
