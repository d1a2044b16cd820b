"""What `reproduce` finds (an Artifact: a prediction file with the numbers reported about it) and what it
gives back (a Row per published number)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rulekit.report.reproduce.published import Published
from rulekit.report.reproduce.registry import Family

HEADLINES = ("Overall", "genuine_accuracy_score")  # the number a framework's leaderboard shows, per file


def is_headline(row) -> bool:
    """A number a leaderboard shows: VLMEvalKit's `Overall` (in a report with a row per category, as
    VisuLogic's: the Overall row's `acc`), MMEvalPro's Genuine Accuracy, every metric of an lmms-eval
    results.json (each task's table row)."""
    return (row.framework == "lmms-eval" or row.metric.strip() in HEADLINES
            or (row.split.strip() in HEADLINES and row.metric.strip() == "acc"))


@dataclass
class Artifact:
    """A prediction file with what its framework reported about it."""

    framework: str
    model: str
    benchmark: str
    family: Family | None
    predictions: Path
    report: Path
    numbers: list[Published]
    result_sheet: Path | None = None
    aggregations: dict[str, str] = field(default_factory=dict)  # lmms-eval: metric -> its aggregation


@dataclass
class Row:
    """One published number and what rulekit made of it."""

    file: str
    framework: str
    model: str
    benchmark: str
    metric: str
    split: str
    reported: str
    reproduced: float | None
    ruleset: str | None
    matched: bool
    notes: list[str] = field(default_factory=list)
    differences: list[dict] = field(default_factory=list)
    percent: bool = False  # `reproduced` is a fraction of a number published in percent
    report: str = ""  # the file the number was published in (MMVet writes two beside one prediction file)
    generation: dict | None = None  # the chosen ruleset's dates (rulekit/data/generations.yaml), when listed
    options: list[str] = field(default_factory=list)  # named scoring options it needed (`index-join`)
    fingerprint: str | None = None  # of `ruleset` as run (the same as `eval` and `explain` print for it)

    def shown(self) -> float | None:
        """`reproduced` on the published number's scale."""
        return None if self.reproduced is None else self.reproduced * (100 if self.percent else 1)

    def as_dict(self) -> dict:
        """The JSON form (`rulekit reproduce --format json`)."""
        return {"file": self.file, "framework": self.framework, "model": self.model, "benchmark": self.benchmark,
                "metric": self.metric, "split": self.split, "reported": self.reported,
                "reproduced": self.reproduced, "ruleset": self.ruleset, "matched": self.matched,
                "notes": self.notes, **({"differences": self.differences} if self.differences else {}),
                **({"report": self.report} if self.report else {}),
                **({"generation": self.generation} if self.generation else {}),
                **({"options": self.options} if self.options else {}),
                **({"fingerprint": self.fingerprint} if self.fingerprint else {})}
