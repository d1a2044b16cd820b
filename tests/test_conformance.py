"""The built-in rulesets reproduce what the ORIGINAL implementations decided on the real corpus.

Labels: ../shared/conformance/labels.jsonl (see its README). 100.00% agreement, not "close".
Stream-mode random fallbacks are replayed in label order with seed 0, as the labels were made.
"""
from __future__ import annotations

import math

import pytest

from rulekit import Evaluator, load_ruleset


def _decide_all(name, records, seed=0):
    evaluator = Evaluator(load_ruleset(name), seed)
    return [evaluator.decide(r) for r in records]


@pytest.mark.parametrize("name,field", [("vlmevalkit", "vlmeval_pred"), ("vlmevalkit@v2", "vlmeval_v2_pred"),
                                        ("vlmevalkit@v1", "vlmeval_v1_pred")])
def test_vlmevalkit_generations_match_every_multiple_choice_label(labelled_records, name, field):
    labels, records = labelled_records
    mismatches, checked = [], 0
    for lab, d in zip(labels, _decide_all(name, records)):
        if lab["question_type"] != "multiple-choice":
            assert d is None, "vlmevalkit has no open section: open records are not scored"
            continue
        checked += 1
        got = None if d.outcome == "unresolved" else d.pred
        if got != lab[field]:
            mismatches.append((lab["id"], lab[field], got, d.step))
    assert checked == 21_784
    assert mismatches == []


@pytest.mark.parametrize("generation", ["v0c", "v0b", "v0a"])
def test_vlmevalkit_first_generations_match_their_originals_on_every_multiple_choice_reply(labelled_records,
                                                                                          generation):
    """`vlmevalkit@v0c/@v0b/@v0a` (Nov 2023 - Feb 2024) against the ORIGINAL can_infer of bc4b28be, 39cebe2f and
    9ac258c1 on the same 21,784 replies: tests/fidelity/vlmevalkit/can_infer_v0.corpus.json.gz keeps, per
    generation, the original's letter where it differs from `vlmeval_v1_pred` (1,221 for v0b, 1,945 for v0a;
    labelled by tests/fidelity/frameworks/harness/label_corpus_can_infer.py)."""
    import gzip
    import json
    from pathlib import Path

    path = Path(__file__).parent / "fidelity" / "vlmevalkit" / "can_infer_v0.corpus.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        differs = json.load(f)[generation]
    labels, records = labelled_records
    mismatches, checked = [], 0
    for lab, d in zip(labels, _decide_all(f"vlmevalkit@{generation}", records)):
        if lab["question_type"] != "multiple-choice":
            continue
        checked += 1
        got = None if d.outcome == "unresolved" else d.pred
        want = differs.get(lab["id"], lab["vlmeval_v1_pred"])
        if got != want:
            mismatches.append((lab["id"], want, got, d.step))
    assert checked == 21_784 and (generation == "v0c" or len(differs) > 1000)
    assert mismatches == []


def test_vlmevalkit_exact_matching_hits(labelled_records):
    labels, records = labelled_records
    for lab, d in zip(labels, _decide_all("vlmevalkit", records)):
        if lab["question_type"] == "multiple-choice":
            assert d.correct == lab["vlmeval_hit_exact_matching"], lab["id"]


@pytest.mark.parametrize("name,prefix", [("lmms-eval", "lmms"), ("mmmu", "mmmu")])
def test_mmmu_parsers_match_multiple_choice_labels_and_random_letters(labelled_records, name, prefix):
    labels, records = labelled_records
    mismatches, fallbacks = [], 0
    for lab, d in zip(labels, _decide_all(name, records, seed=0)):
        if lab["question_type"] != "multiple-choice":
            continue
        is_fallback = d.outcome == "fallback"
        fallbacks += is_fallback
        if d.pred != lab[f"{prefix}_pred"] or is_fallback != (lab[f"{prefix}_fallback"] == "random") \
                or d.correct != lab[f"{prefix}_hit"]:
            mismatches.append((lab["id"], lab[f"{prefix}_pred"], lab[f"{prefix}_fallback"], d.pred, d.outcome, d.step))
    assert mismatches == []
    assert fallbacks == (2220 if name == "lmms-eval" else 2220 + 1097 + 470)


def _canonical(values):
    out = []
    for v in values:
        if v == "inf":  # JSON cannot hold infinity; the label file writes it as a string
            v = math.inf
        out.append(repr(v))
    return sorted(out)


def test_lmms_eval_open_ended_matches_all_5906_records(labelled_records):
    labels, records = labelled_records
    hit_mismatch, list_mismatch, n = [], [], 0
    for lab, d in zip(labels, _decide_all("lmms-eval", records)):
        if lab["question_type"] != "open":
            continue
        n += 1
        if d.correct != lab["lmms_open_hit_list"]:
            hit_mismatch.append(lab["id"])
        if _canonical(d.pred) != _canonical(lab["lmms_open_parsed_list"]):
            list_mismatch.append(lab["id"])
    assert n == 5906
    assert hit_mismatch == [] and list_mismatch == []


def test_mmmu_open_ended_matches(labelled_records):
    labels, records = labelled_records
    for lab, d in zip(labels, _decide_all("mmmu", records)):
        if lab["question_type"] == "open":
            assert d.correct == lab["mmmu_hit"], lab["id"]
