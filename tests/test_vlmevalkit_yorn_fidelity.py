"""Issue 16: `vlmevalkit-yorn` extracts as VLMEvalKit's ORIGINAL YOrN_Extraction does, on the corpus's
HallusionBench replies and on generated edge cases (tests/fidelity/vlmevalkit/README.md)."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from conftest import CORPUS
from rulekit import Evaluator, load_ruleset
from rulekit.core.records import Record

HERE = Path(__file__).parent / "fidelity" / "vlmevalkit"
TSV_GOLD = {"yes": "Yes", "no": "No"}  # VLMEvalKit's TSVs write the golds capitalized


def _gz(name: str) -> list[dict]:
    with gzip.open(HERE / f"{name}.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def _record(r: dict) -> Record:
    return Record(r["id"], "open", r["response"], r["answer"], None, r.get("benchmark"), r.get("model"))


def _corpus_hallusion() -> dict:
    out = {}
    with CORPUS.open(encoding="utf-8") as f:
        for r in map(json.loads, f):
            if r["benchmark"] == "HallusionBench":
                out[r["id"]] = {**r, "answer": TSV_GOLD.get(str(r["answer"]).strip().lower(), r["answer"])}
    return out


@pytest.mark.parametrize("labels, records", [("labels.yorn.hallusion", None), ("labels.yorn.edge", "edge_yn_cap"),
                                             ("labels.yorn.punct", "edge_punct")])
def test_vlmevalkit_yorn_extracts_as_the_original(labels, records):
    raw = _corpus_hallusion() if records is None else {r["id"]: r for r in _gz(records)}
    evaluator = Evaluator(load_ruleset("vlmevalkit-yorn"), 0)
    wrong = []
    rows = _gz(labels)
    for label in rows:
        d = evaluator.decide(_record(raw[label["id"]]))
        if d.pred != label["preds"][0] or bool(d.correct) != label["correct"][0]:
            wrong.append((label["id"], label["preds"][0], d.pred, d.step))
    assert len(rows) >= 254
    assert wrong == [], f"{len(wrong)} of {len(rows)} differ: {wrong[:5]}"
