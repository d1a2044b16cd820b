"""The base of every vocabulary word (a frozen pydantic model, unknown keys refused, keys spelled
with dashes) and the tag function of the words' discriminated unions."""

from typing import Annotated, Any, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Tag


def _dash(name: str) -> str:
    return name.replace("_", "-")


class Word(BaseModel):
    """Base of every vocabulary entry: frozen, unknown keys are errors, keys spelled with dashes.

    `defer_build`: a model's validator is built when it first validates, not at import, so a run that
    takes its rulesets from the compiled-ruleset cache (`model_construct`, no validation) never pays
    for it. Defaults that are models are made with `model_construct()` for the same reason, and the
    vocabulary's modules do without `from __future__ import annotations`: pydantic would compile every
    string annotation at import (~15 ms)."""

    model_config = ConfigDict(frozen=True, extra="forbid", alias_generator=_dash, populate_by_name=True, defer_build=True)


def tag_of(value: Any, names) -> str | None:
    """Which word of `names` (key → model) a YAML value is: "bare" for a string, else its one known key."""
    if isinstance(value, str):
        return "bare"
    if isinstance(value, dict):
        hits = [k for k in value if k in names]
        if len(hits) == 1:
            return hits[0]
        if not hits and value:
            return next(iter(value))
    if isinstance(value, BaseModel):
        for name, model in names.items():
            if isinstance(value, model):
                return name
    return None


def word_union(models: dict[str, type], bare: Any = None) -> Any:
    """The discriminated union of a word family for pydantic: one member per registered model, tagged by
    its YAML key, plus the family's bare words (a `Literal` of strings) when it has them."""
    members = tuple(Annotated[m, Tag(k)] for k, m in models.items())
    if bare is not None:
        members += (Annotated[bare, Tag("bare")],)
    return Annotated[Union[members], Discriminator(lambda v: tag_of(v, models))]
