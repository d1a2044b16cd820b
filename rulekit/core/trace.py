"""Decisions and their traces: what a ruleset decided for one record, and why."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

OUTCOMES = ("rule", "judge", "fallback", "abstain", "unresolved", "error", "unreadable")
# `unreadable`: the record lacks what the ruleset reads (a multiple-choice record without options, for a section
# that reads option letters); decided before any step, and left out of accuracy unless the user asks
# (`--count-unreadable`).


@dataclass(slots=True)
class Candidate:
    """One match of a step's `find`: the answer it stands for and where it was found."""

    answer: Any
    start: int
    end: int
    text: str = ""          # the matched text
    index: int = -1         # token index for token finds, else -1
    first_index: int = -1   # token index of this answer's first occurrence

    def as_dict(self) -> dict:
        """JSON form of the candidate."""
        d = {"answer": self.answer, "span": [self.start, self.end], "text": self.text}
        if self.index >= 0:
            d["token"] = self.index
        return d


@dataclass(slots=True)
class StepTrace:
    """What one step did: `status` is fired, passed, skipped (its `when` was false) or error."""

    step: str
    status: str
    reason: str
    line: int = 0
    file: str = ""
    looked_for: str = ""
    candidates: list[Candidate] = field(default_factory=list)
    kept: list[Candidate] | None = None
    answer: Any = None

    def as_dict(self) -> dict:
        """JSON form of the step trace."""
        d = {"step": self.step, "status": self.status, "reason": self.reason,
             "at": f"{self.file}:{self.line}", "looked_for": self.looked_for,
             "candidates": [c.as_dict() for c in self.candidates]}
        if self.kept is not None:
            d["kept"] = [c.as_dict() for c in self.kept]
        if self.status == "fired":
            d["answer"] = self.answer
        return d


@dataclass(slots=True)
class Decision:
    """The verdict on one record.

    `outcome` is one of OUTCOMES; `step` names the step or fallback that decided; `k` is the
    number of letters a random fallback drew from (for expected accuracy); `text` is the text
    the steps looked in after `prepare`.
    """

    id: str
    pred: Any
    correct: bool | None
    score: float | None
    outcome: str
    step: str | None
    k: int = 0
    message: str = ""
    trace: list[StepTrace] | None = None
    text: str = ""
    reason: str = ""  # outcome `error`: why, without record details ("regex time limit in step `x`"), for summaries

    def as_row(self) -> dict:
        """The decisions-file row (DESIGN.md §5)."""
        row = {"id": self.id, "pred": self.pred, "correct": self.correct, "score": self.score,
               "outcome": self.outcome, "step": self.step}
        if self.message:
            row["message"] = self.message
        return row
