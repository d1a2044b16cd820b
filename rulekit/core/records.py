"""The record: one model reply to one question, as every reader yields it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MULTIPLE_CHOICE = "multiple-choice"
OPEN = "open"
QUESTION_TYPES = (MULTIPLE_CHOICE, OPEN)


@dataclass(slots=True)  # not frozen: a frozen __init__ costs 1.3 µs more per record; nothing mutates a Record
class Record:
    """One model output to score (treated as immutable: `dataclasses.replace` makes changed copies).

    `choices` maps option letters to option texts in option order (None when the source ships
    no options); `answer` is the gold answer: a letter for multiple-choice, a string, number or
    list of accepted answers for open questions. `where` is "file:line" for error messages.
    """

    id: str
    question_type: str
    response: str
    answer: Any = None
    choices: dict[str, str] | None = None
    benchmark: str | None = None
    model: str | None = None
    question: str | None = None
    meta: dict = field(default_factory=dict)
    where: str = ""
    judge_reply: bool = False  # `response` is a judge's reply being read by the section's steps
    grading_reply: bool = False  # ... a grading (scoring) judge's reply
    model_response: str | None = None  # while a judge's reply is read: the model's own reply

    def field(self, name: str) -> Any:
        """Value of a top-level field or of `meta.NAME` / a bare meta key; None when absent."""
        if name.startswith("meta."):
            return self.meta.get(name[5:])
        if name in _TOP_LEVEL:
            return getattr(self, name)
        return self.meta.get(name)


_TOP_LEVEL = {"id", "question_type", "response", "answer", "choices", "benchmark", "model", "question"}
