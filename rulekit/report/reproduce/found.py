"""What `reproduce` finds (an Artifact: a prediction file with the numbers reported about it) and what it
gives back (a Row per published number)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rulekit.report.reproduce.names import Dataset
from rulekit.report.reproduce.published import Published
from rulekit.report.reproduce.registry import Family

@dataclass(frozen=True)
class Note:
    """Something said about a file that `reproduce` found: `missed` when the file holds published numbers
    that were not given back (a report that cannot be read, or has no prediction file beside it) — the
    command then exits 1 — else for information (a prediction file with no report). `where` is its
    location when it is more than the file (`path:line`)."""

    file: str
    text: str
    missed: bool = False
    where: str = ""

    def __str__(self) -> str:
        return f"{self.where or self.file}: {self.text}"


def error_note(file, exc: Exception, what: str = "not reproduced") -> Note:
    """A missed-file note for an error met while reading or scoring `file`: a rulekit error as it renders
    (located, with its code; no source excerpt), another exception named by its type (a bug in rulekit:
    the other files are still reproduced)."""
    from rulekit.core.errors import RulekitError

    if isinstance(exc, RulekitError):
        return Note(str(file), f"error[{exc.code}]: {exc.message}" + (f" ({exc.help})" if exc.help else "")
                    + f"; {what}", True, str(exc.loc) if exc.loc else "")
    return Note(str(file), f"rulekit failed on this file ({type(exc).__name__}: {exc}); {what} (a bug in "
                           "rulekit: please report it)", True)


HEADLINES = ("Overall", "genuine_accuracy_score")  # the number a framework's leaderboard shows, per file


def is_headline(row) -> bool:
    """A number a leaderboard shows: VLMEvalKit's `Overall` (in a report with a row per category, as
    VisuLogic's: the Overall row's `acc`; MMMU's 2023 sheets: `field.Overall`'s), MMEvalPro's Genuine
    Accuracy, every metric of an lmms-eval results.json (each task's table row)."""
    # a report with a sheet per grouping names its rows SHEET.ROW (MMMU's 2023 `field.Overall`)
    return (row.framework == "lmms-eval" or row.metric.strip() in HEADLINES
            or (row.split.strip().rpartition(".")[2] in HEADLINES and row.metric.strip() == "acc"))


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
    dataset: Dataset | None = None  # VLMEvalKit: the dataset as the file names it (a variant, its class)
    notes: list[str] = field(default_factory=list)  # said while finding it (a per-row pickle refused)
    parts: list[tuple[str, Artifact]] = field(default_factory=list)  # a report over several sheets: each (parts.py)


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
    writer: dict | None = None  # the report writer's own generation (its dates), where the family lists several

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
                **({"fingerprint": self.fingerprint} if self.fingerprint else {}),
                **({"writer": self.writer} if self.writer else {})}
