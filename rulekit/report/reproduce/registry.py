"""The registry of benchmark families (`rulekit/data/benchmarks.yaml`, data shipped in the wheel): per
framework, which built-in rulesets score which datasets, newest generation first."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import yaml


@dataclass(frozen=True)
class Family:
    """A way a framework scores a set of benchmarks: the rulesets to try, newest generation first."""

    framework: str
    name: str
    summary: str
    rulesets: tuple[str, ...]
    datasets: tuple[str, ...]
    judged: tuple[str, ...] = ()  # the same generations with a judge fallback, for replayed judge replies
    # (published metric, our figure) where it is not a plain mean; a figure may be a mapping (lmms-eval's
    # `{path, scale}`, `{mean-by: FIELD}`), so the field stays out of the hash
    metrics: tuple[tuple[str, object], ...] = field(default=(), hash=False)
    score_file: dict | None = field(default=None, compare=False, hash=False)  # VLMEvalKit `_score.*`: see below
    fields: tuple[tuple[str, str], ...] = ()  # how its prediction sheets' columns map to record fields (`--field`)
    # VLMEvalKit classes whose datasets it scores without naming them: a dataset of VLMEvalKit's list
    # (rulekit/data/vlmevalkit_datasets.tsv) whose class runs one of these classes' `evaluate`
    classes: tuple[str, ...] = ()
    spec: dict | None = field(default=None, compare=False, hash=False)  # the family's YAML entry, as written

    @property
    def judge_sheet(self) -> dict | None:
        """How the family's judge sheet is replayed (`judge-sheet:`, in its `score-file:` or, for a family whose
        report is a plain `_acc.csv`, beside it: EMMA's `_judge.xlsx`); None: read as a result sheet's `log`."""
        return (self.score_file or {}).get("judge-sheet") or (self.spec or {}).get("judge-sheet")


@functools.lru_cache(maxsize=1)
def registry() -> tuple[Family, ...]:
    """Every (framework, family) of `rulekit/data/benchmarks.yaml`."""
    from rulekit.data import data_path

    # package data, not user input: the C loader when PyYAML has it (`eval` reads this on every run)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    raw = yaml.load(data_path("benchmarks.yaml").read_text(encoding="utf-8"), Loader=loader)
    return tuple(Family(framework, name, spec.get("summary", ""), tuple(spec["rulesets"]), tuple(spec["datasets"]),
                        tuple(spec.get("judged", ())), tuple((spec.get("metrics") or {}).items()),
                        spec.get("score-file"), tuple((spec.get("fields") or {}).items()),
                        tuple(spec.get("classes", ())), spec)
                 for framework, families in raw.items() for name, spec in families.items())


def families_for(benchmark: str) -> list[Family]:
    """The families whose dataset list names `benchmark` (case-insensitive)."""
    key = benchmark.lower()
    return [f for f in registry() if key in (d.lower() for d in f.datasets)]


def report_family(report: str, family: Family | None, dataset: str | None = None,
                  framework: str = "vlmevalkit") -> Family | None:
    """The family that scores the report file named `report` of the dataset `dataset`, which `family` scores: a
    family whose `reports:` holds a suffix that ends the name, whose `of-families:` names `family` and, when it
    has `of-datasets:`, that lists the dataset (VLMEvalKit's 2023 prefetch table `_prefetch.xlsx` of an MMBench
    or SEEDBench run: can_infer alone, no judge, its own columns; MMMU's `_acc.xlsx` of Dec 2023), else
    `family` itself."""
    if family is None:
        return None
    for other in registry():
        spec = other.spec or {}
        named = spec.get("of-datasets")
        if other.framework == framework and family.name in spec.get("of-families", ()) \
                and report.endswith(tuple(spec.get("reports", ()))) \
                and (named is None or (dataset or "").lower() in (d.lower() for d in named)):
            return other
    return family


def parts_families(framework: str = "vlmevalkit") -> list[Family]:
    """The families whose reports are computed over several prediction sheets (`parts:`, parts.py)."""
    return [f for f in registry() if f.framework == framework and (f.spec or {}).get("parts")]


@dataclass(frozen=True)
class Generation:
    """When a built-in ruleset's behaviour was its framework's (`rulekit/data/generations.yaml`): from
    `since` (a YYYY-MM-DD day, with the commit's HH:MM when two generations share a day) until `until`
    (None: still current), brought by `commit`, `change` in a line."""

    name: str
    framework: str
    since: str
    until: str | None
    commit: str
    change: str

    @property
    def span(self) -> str:
        """The dates as shown: `2024-03-27 – 2025-09-01`, `2025-09-01 – now`."""
        return f"{self.since} – {self.until or 'now'}"

    def covers(self, day: str) -> bool:
        """Was this the framework's behaviour on `day` (YYYY-MM-DD)? Both ends count: a run on the day of a
        change may have either generation."""
        return self.since[:10] <= day[:10] and (self.until is None or day[:10] <= self.until[:10])

    def as_dict(self) -> dict:
        """The JSON form (`reproduce --format json`, each result's `generation`)."""
        return {"name": self.name, "framework": self.framework, "from": self.since, "until": self.until,
                "commit": self.commit, "change": self.change}


@functools.lru_cache(maxsize=1)
def generations() -> dict[str, Generation]:
    """Every entry of `rulekit/data/generations.yaml`, by ruleset name."""
    from rulekit.data import data_path

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    raw = yaml.load(data_path("generations.yaml").read_text(encoding="utf-8"), Loader=loader) or {}
    return {name: Generation(name, str(spec["framework"]), str(spec["from"]),
                             None if spec.get("until") is None else str(spec["until"]), str(spec["commit"]),
                             str(spec.get("change", "")))
            for name, spec in raw.items()}


def generation_info(ruleset: str | None) -> Generation | None:
    """The dates of a ruleset's generation (a judged variant `NAME+judge` has its own entry, else NAME's), or
    None."""
    if not ruleset:
        return None
    dated = generations()
    return dated.get(ruleset) or dated.get(ruleset.removesuffix("+judge"))
