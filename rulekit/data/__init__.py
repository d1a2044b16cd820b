"""Data files bundled with rulekit: the sample of real model outputs (see SAMPLE.md) and the
benchmark → ruleset registry (benchmarks.yaml)."""
from __future__ import annotations

from importlib import resources


def sample_path() -> str:
    """Filesystem path of the bundled sample.jsonl (real corpus records, our JSONL schema)."""
    return str(resources.files(__name__).joinpath("sample.jsonl"))


def data_path(name: str):
    """Path (a `Traversable` with `read_text`) of a bundled data file, e.g. ``benchmarks.yaml``."""
    return resources.files(__name__).joinpath(name)
