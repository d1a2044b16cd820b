"""Shared fixtures: the real corpus and conformance labels from ../shared."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vllm_support import items_file, tiny_model, vllm_env, vllm_server  # noqa: F401  (real-engine fixtures)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus" / "responses.jsonl"
LABELS = SHARED / "conformance" / "labels.jsonl"


@pytest.fixture(scope="session")
def labelled_records():
    """(labels, records): the labelled corpus records in label order, read by our JSONL reader."""
    from rulekit.readers import read_records

    labels = [json.loads(line) for line in LABELS.open(encoding="utf-8")]
    by_id = {r.id: r for r in read_records([str(CORPUS)])}
    return labels, [by_id[lab["id"]] for lab in labels]
