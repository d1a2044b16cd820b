"""The base of every vocabulary word (a frozen pydantic model, unknown keys refused, keys spelled
with dashes) and the tag function of the words' discriminated unions."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


def _dash(name: str) -> str:
    return name.replace("_", "-")


class Word(BaseModel):
    """Base of every vocabulary entry: frozen, unknown keys are errors, keys spelled with dashes."""

    model_config = ConfigDict(frozen=True, extra="forbid", alias_generator=_dash, populate_by_name=True)


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
