"""Cross-check the hand-written baselines (benchmarks/baselines.py) against the conformance labels.

The labels record what the ORIGINAL implementations decided on every labelled corpus record;
the baselines are written from the prose spec only, so 100% agreement is an independent check
of both the spec and the labels.
"""

from __future__ import annotations

import importlib.util
import math
import random
import sys
from collections import Counter
from pathlib import Path

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus" / "responses.jsonl"
LABELS = SHARED / "conformance" / "labels.jsonl"

pytestmark = [
    pytest.mark.slow,  # corpus-wide comparison with the labelled baselines
    pytest.mark.skipif(not (CORPUS.exists() and LABELS.exists()), reason="shared corpus/labels not available"),
]


def _load_baselines():
    spec = importlib.util.spec_from_file_location("rulekit_bench_baselines", ROOT / "benchmarks" / "baselines.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


bl = _load_baselines()


def _read_jsonl(path):
    with open(path, "rb") as fh:
        return [orjson.loads(line) for line in fh if line.strip()]


@pytest.fixture(scope="module")
def data():
    corpus = {r["id"]: r for r in _read_jsonl(CORPUS)}
    labels = _read_jsonl(LABELS)
    pairs = [(lab, corpus[lab["id"]]) for lab in labels]
    return pairs


def _mcq(data):
    return [(lab, rec) for lab, rec in data if lab["question_type"] == "multiple-choice"]


def _open(data):
    return [(lab, rec) for lab, rec in data if lab["question_type"] == "open"]


def _gold(rec):
    a = rec["answer"]
    return a if isinstance(a, str) else str(a)


def _report(name, mismatches, total):
    if mismatches:
        lines = [f"{name}: {total - len(mismatches)}/{total} agree; first mismatches:"]
        for m in mismatches[:15]:
            lines.append("  " + repr(m))
        pytest.fail("\n".join(lines))


def test_labels_cover_corpus_subset(data):
    mcq, opn = _mcq(data), _open(data)
    assert len(mcq) == 21784 and len(opn) == 5906
    assert all(rec["choices"] for _, rec in mcq)


def _check_random_parser(data, parse, pred_field, fallback_field, letters=lambda c: list(c)):
    rng = random.Random(0)
    bad = []
    mcq = _mcq(data)
    for lab, rec in mcq:
        choices = rec["choices"]
        pred = parse(rec["response"], choices)
        fb = None
        if pred is None:
            pred = rng.choice(letters(choices))
            fb = "random"
        if pred != lab[pred_field] or fb != lab[fallback_field]:
            bad.append((lab["id"], rec["response"][:120], pred, fb, lab[pred_field], lab[fallback_field]))
    _report(pred_field, bad, len(mcq))


def test_lmms_mcq(data):
    _check_random_parser(data, bl.lmms_mcq, "lmms_pred", "lmms_fallback")


def test_mmmu_mcq(data):
    _check_random_parser(data, bl.mmmu_mcq, "mmmu_pred", "mmmu_fallback")


def test_vmcbench_mcq(data):
    # The labels ran the parser on ALL options of the record (A-J for 10-option MMMU-Pro),
    # not get_mc_score's A-I subset: vmcbench_mcq defaults to that.
    _check_random_parser(data, bl.vmcbench_mcq, "vmcbench_pred", "vmcbench_fallback")


def test_mcq_hits(data):
    """lmms/mmmu/vmcbench hit = pred == gold; vlmeval exact matching = (pred or Z) == gold."""
    bad = []
    for lab, rec in _mcq(data):
        gold = rec["answer"]
        for p, h in (("lmms_pred", "lmms_hit"), ("mmmu_pred", "mmmu_hit"), ("vmcbench_pred", "vmcbench_hit")):
            if (lab[p] == gold) != lab[h]:
                bad.append((lab["id"], p))
        if ((lab["vlmeval_pred"] or "Z") == gold) != lab["vlmeval_hit_exact_matching"]:
            bad.append((lab["id"], "vlmeval"))
    _report("hits", bad, len(_mcq(data)))


def _open_choices(rec):
    return {"A": _gold(rec), "B": "Other Answers"}


@pytest.mark.parametrize("version,field", [(3, "vlmeval_pred"), (2, "vlmeval_v2_pred"), (1, "vlmeval_v1_pred")])
def test_vlmeval_can_infer(data, version, field):
    bad = []
    for lab, rec in data:
        if lab["question_type"] == "open":
            choices = _open_choices(rec)
            assert choices == lab["vlmeval_open_choices"], lab["id"]
        else:
            choices = rec["choices"]
        pred = bl.vlmeval_can_infer(rec["response"], dict(choices), version=version)
        pred = None if pred is False else pred
        if pred != lab[field]:
            bad.append((lab["id"], rec["response"][:120], pred, lab[field]))
    _report(field, bad, len(data))


def _canon(v):
    # JSON cannot hold inf/nan: the labels write those floats as the strings "inf"/"-inf"/"nan".
    # A parsed STRING can never be float()-able (normalize_str turns such strings into floats),
    # so mapping non-finite-looking strings back to floats is lossless.
    if isinstance(v, str) and v in ("inf", "-inf", "nan"):
        v = float(v)
    if isinstance(v, float):
        return ("f", "nan" if math.isnan(v) else v)
    return ("s", v)


def test_mmmu_open(data):
    bad = []
    opn = _open(data)
    for lab, rec in opn:
        parsed = bl.mmmu_parse_open(rec["response"])
        hit = bl.mmmu_eval_open(_gold(rec), parsed)
        same_list = Counter(map(_canon, parsed)) == Counter(map(_canon, lab["lmms_open_parsed_list"]))
        same_mmmu = Counter(map(_canon, parsed)) == Counter(map(_canon, lab["mmmu_pred"]))
        if not (same_list and same_mmmu) or hit != lab["lmms_open_hit_list"] or hit != lab["mmmu_hit"]:
            bad.append((lab["id"], rec["response"][:120], parsed, hit, lab["lmms_open_parsed_list"], lab["lmms_open_hit_list"]))
    _report("lmms_open_hit_list", bad, len(opn))


@pytest.mark.parametrize("parser,prefix", [("lmms", "lmms"), ("mmmu", "mmmu"), ("vmcbench", "vmcbench"),
                                           ("vlmevalkit", "vlmeval")])
def test_cli_roundtrip(tmp_path, data, parser, prefix):
    """The CLI scorers that benchmarks/run.py times agree with the labels on the same records,
    random letters included (the labels drew from one stream seeded 0, as `--seed 0` does)."""
    inp = tmp_path / "in.jsonl"
    with open(inp, "wb") as fh:
        for _, rec in data:
            fh.write(orjson.dumps(rec) + b"\n")
    expect = {lab["id"]: lab for lab, _ in _mcq(data)}
    out = tmp_path / f"{parser}.jsonl"
    assert bl.main(["--parser", parser, str(inp), "--output", str(out), "--seed", "0"]) == 0
    rows = _read_jsonl(out)
    assert len(rows) == len(expect)
    for row in rows:
        lab = expect[row["id"]]
        assert row["pred"] == lab[f"{prefix}_pred"], (parser, row)
        if parser == "vlmevalkit":
            assert row["correct"] == lab["vlmeval_hit_exact_matching"]
            assert row["outcome"] in ("rule", "abstain", "unresolved")
        else:
            assert (row["outcome"] == "fallback") == (lab[f"{prefix}_fallback"] == "random")
            assert row["correct"] == lab[f"{prefix}_hit"]


@pytest.mark.parametrize("parser,label", [("lmms", "lmms_open_hit_list"), ("mmmu", "mmmu_hit")])
def test_cli_open_ended(tmp_path, data, parser, label):
    """`--open` (what benchmarks/run.py times against `eval -r lmms-eval` / `-r mmmu`, which score open
    questions too) scores every open-ended record as the original's eval_open did, and leaves the
    multiple-choice rows and their random draws as they were without it."""
    inp = tmp_path / "in.jsonl"
    with open(inp, "wb") as fh:
        for _, rec in data:
            fh.write(orjson.dumps(rec) + b"\n")
    plain, with_open = tmp_path / "plain.jsonl", tmp_path / "open.jsonl"
    assert bl.main(["--parser", parser, str(inp), "-o", str(plain), "--seed", "0"]) == 0
    assert bl.main(["--parser", parser, str(inp), "-o", str(with_open), "--seed", "0", "--open"]) == 0
    rows = _read_jsonl(with_open)
    assert [r for r in rows if "pred" in r] == _read_jsonl(plain)
    expect = {lab["id"]: lab[label] for lab, _ in _open(data)}
    opened = {r["id"]: r["correct"] for r in rows if "pred" not in r}
    assert opened == expect and len(expect) > 5000


def test_cli_open_needs_an_open_parser(tmp_path):
    with pytest.raises(SystemExit) as exc:
        bl.main(["--parser", "vmcbench", "in.jsonl", "-o", str(tmp_path / "o.jsonl"), "--open"])
    assert exc.value.code == 2
