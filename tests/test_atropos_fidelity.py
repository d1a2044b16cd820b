"""Issue 16: the atropos-* rulesets decide as Atropos' ORIGINAL vision-eval code does.

The labels in tests/fidelity/atropos/ were made by running the original environments (NousResearch/
atropos @ 655faa77, modules loaded unchanged, only the framework imports stubbed; `run_item` with the
model call replaced by the stored reply) on real corpus replies (../shared) and on generated edge
cases, under PYTHONHASHSEED 0-5 (tests/fidelity/atropos/README.md). Where the original's answer
depends on the hash seed (its last resort walks a Python set), the ruleset's answer must be one the
original can give: a valid letter present in the uppercased reply (eval_helpers.py:625-630).
"""
from __future__ import annotations

import gzip
import hashlib
import json
import sys
from pathlib import Path
from string import ascii_uppercase

import pytest

from conftest import CORPUS
from rulekit import Evaluator, load_ruleset
from rulekit.core.records import Record

pytestmark = pytest.mark.slow  # a fidelity sweep against the original scorer's labels

HERE = Path(__file__).parent / "fidelity" / "atropos"

# The environment's count of valid letters (`ascii_uppercase[:num_choices]`): (which options count — every one,
# or the non-blank strings among the first k letters —, at least, when the item has no options)
VALID = {"atropos-mmstar": ("non-blank", "ABCDEF", 4, 4), "atropos-blink": ("non-blank", "ABCDEF", 4, 4),
         "atropos-mmt-bench": ("non-blank", "ABCDEFGH", 4, 4), "atropos-mmvp": ("non-blank", "ABCD", 2, 2),
         "atropos-mmbench": ("all", ascii_uppercase, 4, 4), "atropos-mmmu": ("all", None, 0, 4),
         "atropos-mmmu-pro": ("all", None, 0, 10), "atropos-ai2d": ("all", None, 0, 4),
         "atropos-seedbench2-plus": ("all", None, 0, 4)}


def valid_letters(ruleset: str, choices: dict | None) -> str:
    """The letters the original environment accepts for an item with these options (mmstar_environment.py:111-119,
    mmbench_environment.py:120-128, ai2d_environment.py:130, mmmu_environment.py:161, ...)."""
    count, among, at_least, if_none = VALID.get(ruleset, ("all", None, 4, 4))
    if not choices:
        return ascii_uppercase[:if_none]
    n = sum(1 for letter, text in choices.items() if (among is None or letter in among)
            and (count == "all" or (isinstance(text, str) and text.strip())))
    return ascii_uppercase[:max(n, at_least)]


def gold_as_index(r: dict) -> dict:
    """AI2D's dataset gives the gold as an option index: a record whose id's sha256 starts with an even byte
    gets its gold letter's index ("0" for A) instead of the letter (how labels.ai2d.mcq_ai2d was made)."""
    gold = r["answer"]
    if hashlib.sha256(r["id"].encode()).digest()[0] % 2 == 0 and isinstance(gold, str) and len(gold) == 1 \
            and gold.isupper():
        return dict(r, answer=str(ord(gold) - ord("A")))
    return r


# ruleset → [(labels file, records: "corpus" or an edge-case file, max options or None)]
CASES = {
    "atropos-mmstar": [("labels.mmstar.mcq_le6", "corpus", 6), ("labels.mmstar.edge_mcq", "edge_mcq", None),
                       ("labels.mmstar.edge_unicode_mcq", "edge_unicode_mcq", 6)],
    "atropos-mmbench": [("labels.mmbench.sub_mmbench", "corpus", None),
                        ("labels.mmbench.edge_unicode_mcq", "edge_unicode_mcq", None)],
    "atropos-blink": [("labels.blink.sub_blink", "corpus", None), ("labels.blink.edge_unicode_mcq", "edge_unicode_mcq", 6)],
    "atropos-mmvp": [("labels.mmvp.mcq_le6", "corpus", 4), ("labels.mmvp.edge_unicode_mcq", "edge_unicode_mcq", 4)],
    "atropos-mmmu": [("labels.mmmu.sub_mmmu", "corpus", None), ("labels.mmmu.edge_unicode_mcq", "edge_unicode_mcq", None)],
    "atropos-mmmu-pro": [("labels.mmmu_pro.sub_mmmu_pro", "corpus", None),
                         ("labels.mmmu_pro.edge_unicode_mcq", "edge_unicode_mcq", None)],
    "atropos-pope": [("labels.pope.sub_hallusionbench", "corpus", None), ("labels.pope.edge_yn", "edge_yn", None),
                     ("labels.pope.edge_unicode_open", "edge_unicode_open", None)],
    "atropos-hallusionbench": [("labels.hallusionbench.sub_hallusionbench", "corpus", None),
                               ("labels.hallusionbench.edge_yn", "edge_yn", None),
                               ("labels.hallusionbench.edge_unicode_open", "edge_unicode_open", None)],
    # every corpus multiple-choice reply (25,207; MMT-Bench reads options A-H: the 20,855 with at most 8)
    "atropos-ai2d": [("labels.ai2d.mcq_ai2d", "corpus", None, gold_as_index),
                     ("labels.ai2d.edge_unicode_mcq", "edge_unicode_mcq", None)],
    "atropos-seedbench2-plus": [("labels.seedbench2_plus.mcq_all", "corpus", None),
                                ("labels.seedbench2_plus.edge_unicode_mcq", "edge_unicode_mcq", None)],
    "atropos-mmt-bench": [("labels.mmt_bench.mcq_le8", "corpus", 8),
                          ("labels.mmt_bench.edge_unicode_mcq", "edge_unicode_mcq", 8)],
}
# Issue 29: generated replies on the Unicode edges where Python's `re` (the originals) and the regex module
# part ways — letters and digits newer than the interpreter's tables, IGNORECASE's "ı", "İ", "ſ", Kelvin
# (harness/unicode_edge.py); labelled by the originals under Python 3.11 (unicodedata 14.0.0).
UNICODE_INTERPRETER = (3, 11)


def record_from_dict(r: dict) -> Record:
    """A corpus-shaped dict as the JSONL reader would give it."""
    return Record(r["id"], r["question_type"], r["response"], r.get("answer"), r.get("choices"), r.get("benchmark"),
                  r.get("model"), r.get("question"), r.get("meta") or {})


def _jsonl_gz(name: str) -> list[dict]:
    with gzip.open(HERE / f"{name}.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="module")
def corpus() -> dict:
    with CORPUS.open(encoding="utf-8") as f:
        return {r["id"]: r for r in map(json.loads, f)}


def _labelled_here(source: str) -> bool:
    """The Unicode edge labels hold for the interpreter that made them: a letter of Unicode 15 is a letter
    to Python 3.12's `re` (Unicode 15.0), so its originals decide otherwise there."""
    return "unicode" not in source or sys.version_info[:2] == UNICODE_INTERPRETER


@pytest.mark.parametrize("ruleset", sorted(CASES))
def test_atropos_ruleset_decides_as_the_original(ruleset, corpus):
    evaluator = Evaluator(load_ruleset(ruleset), 0)
    for labels_name, source, max_options, *transform in CASES[ruleset]:
        if not _labelled_here(source):
            continue
        labels = _jsonl_gz(labels_name)
        raw = corpus if source == "corpus" else {r["id"]: r for r in _jsonl_gz(source)}
        compared = seed_dependent = 0
        wrong = []
        for label in labels:
            data = transform[0](raw[label["id"]]) if transform else raw[label["id"]]
            if max_options is not None and len(data.get("choices") or {}) > max_options:
                continue  # the environment reads at most this many option keys
            record = record_from_dict(data)
            d = evaluator.decide(record)
            compared += 1
            if not data["response"]:  # the original returns an error row: no prediction, accuracy 0
                if d.correct:
                    wrong.append((label["id"], label["preds"], "empty reply", d.pred, d.step))
            elif len(label["preds"]) == 1:
                if d.pred != label["preds"][0] or bool(d.correct) != label["correct"][0]:
                    wrong.append((label["id"], label["preds"], label["method"], d.pred, d.step))
            else:
                seed_dependent += 1
                valid = valid_letters(ruleset, data.get("choices"))
                present = {letter for letter in valid if letter in data["response"].upper()}
                if d.step != "last-resort" or d.pred not in set(label["preds"]) | present:
                    wrong.append((label["id"], label["preds"], "seed-dependent", d.pred, d.step))
        assert compared > 0
        assert wrong == [], f"{ruleset} vs {labels_name}: {len(wrong)} of {compared} differ: {wrong[:5]}"


@pytest.mark.parametrize("ruleset", ["atropos-chartqa", "atropos-docvqa", "atropos-infovqa"])
@pytest.mark.parametrize("source", ["open_real", "edge_vqa", "edge_unicode_open"])
def test_atropos_vqa_ruleset_scores_as_the_original(ruleset, source, corpus):
    """Every open-ended reply of the corpus (real text, its own gold) and generated cases: the same
    extracted text, the same correct, and for ANLS the same score. ChartQA's item holds the gold as
    text (`str(label)`), so a list gold is compared as its text there."""
    bench = ruleset.split("-", 1)[1]
    if not _labelled_here(source):
        pytest.skip(f"labelled under Python {UNICODE_INTERPRETER}")
    labels = _jsonl_gz(f"labels.{bench}.{source}")
    raw = ({k: v for k, v in corpus.items() if v["question_type"] == "open"} if source == "open_real"
           else {r["id"]: r for r in _jsonl_gz(source)})
    evaluator = Evaluator(load_ruleset(ruleset), 0)
    wrong = []
    for label in labels:
        data = dict(raw[label["id"]])
        if bench == "chartqa" or not isinstance(data["answer"], list):
            data["answer"] = str(data["answer"]) if bench == "chartqa" else data["answer"]
        d = evaluator.decide(record_from_dict(data))
        if not data["response"]:  # the original returns an error row (accuracy 0)
            ok = not d.correct
        else:
            ok = d.pred == label["pred"] and bool(d.correct) == bool(label["correct"])
            if bench != "chartqa":
                ok = ok and abs(d.score - (label["anls"] or 0.0)) < 1e-9
        if not ok:
            wrong.append((label["id"], label["pred"], label["anls"], d.pred, d.score, d.step))
    assert len(labels) >= 2000
    assert wrong == [], f"{len(wrong)} of {len(labels)} differ: {wrong[:5]}"


# ruleset → (labels, records, how the corpus record is made into the environment's item)
OTHERS = {
    # RealWorldQA: every corpus reply, its gold as text (the environment compares text)
    ("atropos-realworldqa", "rwqa_real"): lambda r: {**r, "question_type": "open",
                                                     "answer": str(r["answer"][0] if isinstance(r["answer"], list) else r["answer"])},
    ("atropos-realworldqa", "edge_misc"): lambda r: {**r, "answer": str(r["answer"])},
    # VisuLogic: multiple-choice replies whose gold is A-D
    ("atropos-visulogic", "visulogic_real"): lambda r: r,
    ("atropos-visulogic", "edge_mcq"): lambda r: r,
    # OCRBench: open replies with a category drawn per record (the labels' item had the same)
    ("atropos-ocrbench", "ocr_real"): None,
    ("atropos-ocrbench", "edge_misc"): lambda r: r,
    # WeMath, LogicVista: every multiple-choice reply, gold as text (GAOKAO's multi-select "BC" too)
    ("atropos-wemath", "mcq_all"): lambda r: {**r, "answer": str(r["answer"])},
    ("atropos-wemath", "edge_misc2"): lambda r: {**r, "question_type": "multiple-choice"},
    ("atropos-logicvista", "mcq_all"): lambda r: {**r, "answer": str(r["answer"])},
    ("atropos-logicvista", "edge_misc2"): lambda r: {**r, "question_type": "multiple-choice"},
    # MathVerse (no API key): every reply, its gold as text
    ("atropos-mathverse", "all_text"): lambda r: {**r, "question_type": "open",
                                                  "answer": str(r["answer"][0] if isinstance(r["answer"], list) else r["answer"])},
    ("atropos-mathverse", "edge_misc2"): lambda r: r,
    # MMVet (no API key): every reply, its gold as text; the score (1 / 0.5 / 0) is compared
    ("atropos-mmvet", "all_text"): lambda r: {**r, "question_type": "open",
                                              "answer": str(r["answer"][0] if isinstance(r["answer"], list) else r["answer"])},
    ("atropos-mmvet", "edge_misc2"): lambda r: r,
    # CountBench: every reply (made into an item by _count_records)
    ("atropos-countbench", "count_real"): None,
    ("atropos-countbench", "edge_misc2"): lambda r: r,
    # issue 29's Unicode edges (harness/unicode_edge.py)
    ("atropos-realworldqa", "edge_unicode_open"): lambda r: r,
    ("atropos-visulogic", "edge_unicode_mcq"): lambda r: r,
    ("atropos-ocrbench", "edge_unicode_open"): lambda r: r,
    ("atropos-wemath", "edge_unicode_mcq"): lambda r: r,
    ("atropos-logicvista", "edge_unicode_mcq"): lambda r: r,
    ("atropos-mathverse", "edge_unicode_open"): lambda r: r,
    ("atropos-mmvet", "edge_unicode_open"): lambda r: r,
    ("atropos-countbench", "edge_unicode_open"): lambda r: r,
}
CANONICAL = {"atropos-logicvista": lambda p: "".join(sorted(set(c for c in p if c in "ABCDE"))) if isinstance(p, str) else p}


@pytest.mark.parametrize("ruleset, source", sorted(OTHERS))
def test_atropos_text_rulesets_score_as_the_original(ruleset, source, corpus):
    """Same prediction (where the environment extracts one) and same correct. OCRBench: the original
    eval()s a gold string and then calls .lower() on it, so a numeric gold ("42") raises and the item
    scores 0 (labels marked `raised`): the ruleset must not score those right."""
    bench = ruleset.split("-", 1)[1]
    if not _labelled_here(source):
        pytest.skip(f"labelled under Python {UNICODE_INTERPRETER}")
    labels = _jsonl_gz(f"labels.{bench}.{source}")
    if source == "ocr_real":
        raw = {r["id"]: r for r in _ocr_records(corpus)}
    elif source == "count_real":
        raw = {r["id"]: r for r in _count_records(corpus)}
    elif source.endswith("_real") or source in ("mcq_all", "all_text"):
        raw = corpus
    else:
        raw = {r["id"]: r for r in _jsonl_gz(source)}
    make = OTHERS[(ruleset, source)] or (lambda r: r)
    evaluator = Evaluator(load_ruleset(ruleset), 0)
    wrong, raised = [], 0
    for label in labels:
        data = make(raw[label["id"]])
        d = evaluator.decide(record_from_dict(data))
        if label.get("raised"):
            raised += 1
            if d.correct:
                wrong.append((label["id"], "the original raises", label["correct"], d.pred, d.correct, d.step))
            continue
        if not data["response"]:
            ok = not d.correct
        else:
            ours = CANONICAL.get(ruleset, lambda p: p)(d.pred)
            if label["pred"] == "" and ours is None:  # the original's "nothing found" is the empty answer
                ours = ""
            ok = bool(d.correct) == bool(label["correct"]) and (label["pred"] is None and bench in ("ocrbench", "countbench", "mmvet")
                                                                or ours == label["pred"])
            if "score" in label:
                ok = ok and abs(d.score - label["score"]) < 1e-12
        if not ok:
            wrong.append((label["id"], label["pred"], label["correct"], d.pred, d.correct, d.step))
    assert len(labels) - raised >= 500
    assert wrong == [], f"{len(wrong)} of {len(labels) - raised} differ: {wrong[:5]}"


def _replay(ruleset: str, labels: list[dict], raw: dict, agrees) -> tuple[list, set]:
    """Decide every labelled record; (the records where `agrees(decision, record, label)` is false,
    the deciding steps seen). A label with `error` is the environment's error row for an empty
    reply: the ruleset must not score it right."""
    evaluator = Evaluator(load_ruleset(ruleset), 0)
    wrong, steps = [], set()
    for label in labels:
        data = raw[label["id"]]
        d = evaluator.decide(record_from_dict(data))
        steps.add(d.step)
        ok = (not d.correct and not data["response"]) if "error" in label else agrees(d, data, label)
        if not ok:
            wrong.append((label["id"], label, d.pred, d.correct, d.step))
    return wrong, steps


@pytest.mark.parametrize("source", ["blind_real", "edge_blind", "edge_unicode_open"])
def test_atropos_vlmblind_scores_as_the_original(source, corpus):
    """VLMBlind: the same correct, and the same prediction as the environment writes it — the braces'
    content stripped and lowercased, the grid size, or (substring path) the lowercased, stripped reply
    cut at 50 characters; labels store that last one as `substring`. Real replies get a task and a
    gold per record (`_blind_records`); the edge cases carry theirs."""
    if not _labelled_here(source):
        pytest.skip(f"labelled under Python {UNICODE_INTERPRETER}")
    labels = _jsonl_gz(f"labels.vlmblind.{source}")
    raw = ({r["id"]: r for r in _blind_records(corpus)} if source == "blind_real"
           else {r["id"]: r for r in _jsonl_gz(source)})

    def agrees(d, data, label):
        shown = {"braced": lambda p: p.strip().lower(),
                 "gold-in-reply": lambda p: p.lower().strip()[:50]}.get(d.step, lambda p: p)(d.pred or "")
        want = data["response"].lower().strip()[:50] if label.get("substring") else label["pred"]
        return bool(d.correct) == label["correct"] and shown == want
    wrong, steps = _replay("atropos-vlmblind", labels, raw, agrees)
    assert len(labels) >= 3000
    assert source == "edge_unicode_open" or {"braced", "grid-x", "grid-rows-columns", "grid-columns-rows", "gold-in-reply"} <= steps
    assert wrong == [], f"{len(wrong)} of {len(labels)} differ: {wrong[:5]}"


@pytest.mark.parametrize("source", ["charxiv_real", "edge_charxiv", "edge_unicode_open"])
def test_atropos_charxiv_scores_as_the_original(source, corpus):
    """CharXiv without an API key: the same score (word recall, or 1/0 in reasoning mode) on every
    record, correct exactly when it is 1. Real replies keep their gold; mode and category are drawn
    per record (`_charxiv_records`)."""
    if not _labelled_here(source):
        pytest.skip(f"labelled under Python {UNICODE_INTERPRETER}")
    labels = _jsonl_gz(f"labels.charxiv.{source}")
    raw = ({r["id"]: r for r in _charxiv_records(corpus)} if source == "charxiv_real"
           else {r["id"]: r for r in _jsonl_gz(source)})
    evaluator = Evaluator(load_ruleset("atropos-charxiv"), 0)
    wrong, partial = [], 0
    for label in labels:
        d = evaluator.decide(record_from_dict(raw[label["id"]]))
        partial += 0 < label["score"] < 1
        if abs(d.score - label["score"]) > 1e-12 or bool(d.correct) != (label["score"] == 1.0):
            wrong.append((label["id"], label, d.pred, d.score, d.step))
    assert len(labels) >= 3000 and (partial > 10 or source == "edge_unicode_open")
    assert wrong == [], f"{len(wrong)} of {len(labels)} differ: {wrong[:5]}"


def _dynamath_shown(d, answer_type):
    """Our prediction as DynaMath writes `extracted`: None when it parsed nothing; a float answer as
    `str(float(...))` (π multiples: the number before π times π, as `transfer_pi`)."""
    import math

    if d.pred is None or d.outcome == "abstain":
        return None
    if answer_type != "float":
        return d.pred
    try:
        head = d.pred.split("π")[0]
        return str(float(head) * math.pi) if "π" in d.pred else str(float(d.pred))
    except ValueError:
        return None


@pytest.mark.parametrize("source", ["dynamath_real", "edge_dynamath", "edge_unicode_open"])
def test_atropos_dynamath_scores_as_the_original(source, corpus):
    """DynaMath: the same `extracted` (None when nothing parsed) and the same correct, over JSON
    replies of every shape (edge cases) and plain real replies with a drawn answer type."""
    if not _labelled_here(source):
        pytest.skip(f"labelled under Python {UNICODE_INTERPRETER}")
    labels = _jsonl_gz(f"labels.dynamath.{source}")
    raw = ({r["id"]: r for r in _dynamath_records(corpus)} if source == "dynamath_real"
           else {r["id"]: r for r in _jsonl_gz(source)})
    wrong, steps = _replay("atropos-dynamath", labels, raw, lambda d, data, label: (
        bool(d.correct) == label["correct"]
        and _dynamath_shown(d, (data.get("meta") or {}).get("answer_type")) == label["pred"]))
    assert len(labels) >= 3000
    if source == "edge_dynamath":
        assert {"json-letter", "json-no-letter", "json-number", "json-text", "first-letter", "letter-in-first-20",
                "first-number"} <= steps
    assert wrong == [], f"{len(wrong)} of {len(labels)} differ: {wrong[:5]}"


def _math_shown(d, response: str):
    """Our prediction as MathVista / MATH-Vision write `extracted`: "" when nothing was found; for
    MATH-Vision's `*-as-text` steps (an option letter can_infer found inside the fallback's
    prediction) that prediction itself — the last A-H letter, the last number, the first 100
    characters of the stripped reply."""
    import re

    t = response.strip()
    if d.step == "last-letter-as-text":
        return re.findall("[A-H]", t.upper())[-1]
    if d.step == "number-as-text":
        return re.findall(r"-?\d+\.?\d*", t)[-1]
    if d.step == "head-as-text":
        return t[:100]
    return d.pred if d.pred is not None else ""


MATH_CASES = [("atropos-mathvista", "sub_mathvista", "MathVista"), ("atropos-mathvista", "edge_math", None),
              ("atropos-mathvista", "all_corpus", None),
              ("atropos-mathvision", "sub_mathvision", "MATH-Vision"), ("atropos-mathvision", "edge_math", None),
              ("atropos-mathvision", "all_corpus", None),
              ("atropos-mathvista", "edge_unicode_open", None), ("atropos-mathvision", "edge_unicode_open", None)]


@pytest.mark.parametrize("ruleset, source, benchmark", MATH_CASES)
def test_atropos_math_rulesets_score_as_the_original(ruleset, source, benchmark, corpus):
    """MathVista and MATH-Vision without an API key: the same extracted answer and the same correct,
    on the corpus replies of that benchmark (their own options, answer types and precisions), on
    every corpus reply (`all_corpus`: options when the record has them, gold as text) and on
    generated edge cases (lists such as "[1-2]", "10^3", the letter-A quirk of is_equal)."""
    bench = ruleset.split("-", 1)[1]
    if not _labelled_here(source):
        pytest.skip(f"labelled under Python {UNICODE_INTERPRETER}")
    labels = _jsonl_gz(f"labels.{bench}.{source}")
    raw = corpus if source not in ("edge_math", "edge_unicode_open") else {r["id"]: r for r in _jsonl_gz(source)}
    raw = {k: {**raw[k], "answer": str(raw[k]["answer"])} for k in (label["id"] for label in labels)}

    def agrees(d, data, label):
        want = data["response"].strip() if label.get("whole") else label["pred"]
        return bool(d.correct) == label["correct"] and _math_shown(d, data["response"]) == want
    wrong, _ = _replay(ruleset, labels, raw, agrees)
    assert len(labels) >= 3000
    assert wrong == [], f"{len(wrong)} of {len(labels)} differ: {wrong[:5]}"


def _ocr_records(corpus: dict) -> list[dict]:
    """The corpus's open records with the category the labelling run drew for each (seed 11)."""
    import random

    rng = random.Random(11)
    cats = ["Handwritten Mathematical Expression Recognition", "Regular Text Recognition", "Scene Text-centric VQA", ""]
    out = []
    for r in corpus.values():  # corpus order = file order, as when the labels were made
        if r["question_type"] == "open":
            g = r["answer"]
            out.append({**r, "answer": [str(x) for x in g] if isinstance(g, list) else str(g),
                        "meta": {**(r.get("meta") or {}), "category": rng.choice(cats)}})
    return out


def _blind_records(corpus: dict) -> list[dict]:
    """Every corpus reply as a VLMBlind item: a task drawn per record (seed 17, file order), and its
    own gold as text or a gold of the drawn task's kind, as when the labels were made."""
    import random

    rng = random.Random(17)
    tasks = ["Subway Connections", "Nested Squares", "Line Plot Intersections", "Circled Letter", "Touching Circles",
             "Counting Grid - Blank Grids", "Counting Grid - Word Grids", "Olympic Counting - Circles",
             "Olympic Counting - Pentagons"]
    golds = {"Counting Grid": ["5,4", "6,6", "{7, 3}", "4x4"], "Circled Letter": ["a", "B", "e"],
             "Touching Circles": ["Yes", "No"]}
    out = []
    for r in corpus.values():
        task = rng.choice(tasks)
        kind = next((golds[k] for k in golds if task.startswith(k)), ["0", "1", "2", "3", "4", "5", "9"])
        gold = str(r["answer"]) if rng.random() < 0.5 else rng.choice(kind)
        out.append({**r, "question_type": "open", "answer": gold, "meta": {"task": task}})
    return out


def _charxiv_records(corpus: dict) -> list[dict]:
    """Every corpus reply as a CharXiv item: its own gold as text, a mode and a category id drawn per
    record (seed 19, file order), as when the labels were made."""
    import random

    rng = random.Random(19)
    out = []
    for r in corpus.values():
        g = r["answer"]
        mode = rng.choice(["descriptive", "reasoning"])
        meta = {"mode": mode, "qid": rng.randint(1, 19)} if mode == "descriptive" else {"mode": mode, "inst_category": rng.randint(1, 4)}
        out.append({**r, "question_type": "open", "answer": str(g[0] if isinstance(g, list) else g), "meta": meta})
    return out


def _dynamath_records(corpus: dict) -> list[dict]:
    """Every corpus reply as a DynaMath item: an answer type drawn per record (seed 23, file order) and
    its own gold as text where that fits the type (a letter, a number), else a drawn one."""
    import random

    rng = random.Random(23)
    out = []
    for r in corpus.values():
        g = r["answer"]
        g = str(g[0] if isinstance(g, list) and g else g)
        kind = rng.choice(["multiple choice", "float", "free form"])
        if kind == "multiple choice" and g not in list("ABCDE"):
            g = rng.choice("ABCDE")
        elif kind == "float":
            try:
                float(g)
            except ValueError:
                g = str(rng.randint(0, 20))
        out.append({**r, "question_type": "open", "answer": g, "meta": {"answer_type": kind}})
    return out


def _count_records(corpus: dict) -> list[dict]:
    """Every corpus reply as a CountBench item: its gold when that is an integer, else a count drawn
    (seed 13, file order) as when the labels were made."""
    import random

    rng = random.Random(13)
    out = []
    for r in corpus.values():
        g = str(r["answer"])
        out.append({**r, "question_type": "open",
                    "answer": g if g.strip().lstrip("-").isdigit() else str(rng.randint(0, 12))})
    return out


# ====================================================================== hostile replies (issue 29)
# Every environment of the seed suite on generated hostile records (tests/hostile.py, made per environment by
# harness/hostile_sets.py): markdown, Unicode look-alikes, long chains of thought, repetition loops up to 64k
# characters, blank replies, <think> blocks, <answer> tags, \boxed{}, odd golds. Labelled by the original
# environments run unchanged under PYTHONHASHSEED 0-5 (harness/build.py): `hostile_<env>.jsonl.gz` holds the
# records, `labels.<env>.hostile.jsonl.gz` what the original decided.
HOSTILE_ENVS = ["ai2d", "blink", "chartqa", "charxiv", "countbench", "docvqa", "dynamath", "hallusionbench", "infovqa",
                "logicvista", "mathverse", "mathvision", "mathvista", "mmbench", "mmmu", "mmmu_pro", "mmstar", "mmt_bench",
                "mmvet", "mmvp", "ocrbench", "pope", "realworldqa", "seedbench2_plus", "visulogic", "vlmblind", "wemath"]
MCQ_ENVS = {"ai2d", "blink", "mmbench", "mmmu", "mmmu_pro", "mmstar", "mmt_bench", "mmvp", "seedbench2_plus"}
# The original's own prediction is a slice of the reply (no extraction): only `correct` (and the score) is compared.
NO_PREDICTION = {"ocrbench", "countbench", "mmvet", "charxiv"}
SCORED = {"mmvet": "accuracy", "charxiv": "score", "docvqa": "anls", "infovqa": "anls"}


def _hostile_shown(env: str, d, data: dict):
    """Our decision's prediction as the environment writes its own (None: nothing to compare)."""
    if env in NO_PREDICTION:
        return None
    if env == "vlmblind":
        return {"braced": lambda p: p.strip().lower(),
                "gold-in-reply": lambda p: p.lower().strip()[:50]}.get(d.step, lambda p: p)(d.pred or "")
    if env == "dynamath":
        return _dynamath_shown(d, (data.get("meta") or {}).get("answer_type"))
    if env in ("mathvista", "mathvision"):
        return _math_shown(d, data["response"])
    pred = CANONICAL.get(f"atropos-{env}", lambda p: p)(d.pred)
    return "" if pred is None and env in ("realworldqa", "visulogic", "wemath", "logicvista") else pred


def hostile_disagreements(env: str) -> tuple[list, int]:
    """(the hostile records of `env` where the ruleset and the original differ, records compared). A record
    differs when its correct differs, its score differs (MMVet, CharXiv, DocVQA, InfoVQA), or its prediction
    differs from the one the original wrote; where the original's letter depends on the hash seed (the MCQ
    last resort), any letter it can give there is accepted. An original that raised on the record (its error
    row, accuracy 0) only asks that the ruleset does not score it right."""
    ruleset = "atropos-" + env.replace("_", "-")
    records = {r["id"]: r for r in _jsonl_gz(f"hostile_{env}")}
    labels = _jsonl_gz(f"labels.{env}.hostile")
    evaluator = Evaluator(load_ruleset(ruleset), 0)
    wrong = []
    for label in labels:
        data = records[label["id"]]
        d = evaluator.decide(record_from_dict(data))
        why = None
        if label.get("error") or not data["response"]:  # the original's error row: accuracy 0, no prediction
            if d.correct:
                why = f"original: error row {label.get('error')}"
        elif len(label["correct"]) > 1 and env not in MCQ_ENVS:
            why = "seed-dependent label outside the MCQ last resort"
        elif env in MCQ_ENVS and len(label["preds"]) > 1:
            valid = valid_letters(ruleset, data.get("choices"))
            present = {letter for letter in valid if letter in data["response"].upper()}
            if d.step != "last-resort" or d.pred not in set(label["preds"]) | present:
                why = "seed-dependent"
        elif bool(d.correct) != (label["accuracy"][0] == 1.0):
            why = "correct"  # the item's accuracy (CharXiv's, MMVet's and WeMath's samples carry no `correct`)
        elif env in SCORED and abs((d.score or 0.0) - (label.get(SCORED[env]) or [0.0])[0]) > 1e-9:
            why = "score"
        else:
            shown = _hostile_shown(env, d, data)
            if env not in NO_PREDICTION and shown != label["preds"][0]:
                why = "prediction"
        if why:
            wrong.append((label["id"], why, label["preds"], label["correct"], d.pred, d.correct, d.step, d.outcome,
                          d.message[:160]))
    return wrong, len(labels)


@pytest.mark.parametrize("env", HOSTILE_ENVS)
def test_atropos_ruleset_decides_hostile_replies_as_the_original(env):
    """Issue 29: the atropos-* ruleset of each environment decides every generated hostile record as the
    original environment did."""
    wrong, n = hostile_disagreements(env)
    assert n >= 300
    assert wrong == [], f"{len(wrong)} of {n} differ: {wrong[:5]}"
