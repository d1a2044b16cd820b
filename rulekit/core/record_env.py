"""The condition environment of a whole record (outside a step): what `cases` of a compare or of a
breakdown can read."""
from __future__ import annotations

from typing import Any

from rulekit.core.records import Record


class RecordEnv:
    """What a condition outside a step sees (`cases` of a compare or of a breakdown): the record, its
    gold answer as `gold`, and `text` = the prediction (or the response when there is none)."""

    __slots__ = ("text", "record", "cands", "candidate")

    def __init__(self, record: Record, text: Any = None):
        self.record = record
        self.text = text if isinstance(text, str) else (record.response if text is None else str(text))
        self.cands: list = []
        self.candidate = None

    def get(self, name: str) -> Any:
        """Value of a condition variable (see expr.VARIABLES)."""
        record = self.record
        if name == "gold":
            return record.answer
        if name in ("words", "tokens"):
            return len(self.text.split())
        if name == "length":
            return len(self.text)
        if name == "text":
            return self.text
        choices = record.choices or {}
        if name == "options":
            return len(choices)
        if name == "options_length":
            return sum(len(str(v)) for v in choices.values())
        if name == "letters":
            return list(choices)
        if name in ("candidates", "distinct"):
            return 0
        if name in ("question_type", "benchmark", "model", "judge_reply", "grading_reply", "id"):
            return getattr(record, name)
        raise KeyError(name)  # pragma: no cover - names are checked at compile time
