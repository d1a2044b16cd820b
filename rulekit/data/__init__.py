"""Data files bundled with rulekit: the sample of real model outputs (see SAMPLE.md)."""
from __future__ import annotations

from importlib import resources


def sample_path() -> str:
    """Filesystem path of the bundled sample.jsonl (real corpus records, our JSONL schema)."""
    return str(resources.files(__name__).joinpath("sample.jsonl"))
