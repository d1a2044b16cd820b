"""Issue 16: `vlmevalkit-mmvet+judge` grades as VLMEvalKit's ORIGINAL MMVet_auxeval and reports as MMVet_acc, on
real replies with scripted judge replies (tests/fidelity/vlmevalkit/README.md): the same prompt to the
judge, the same tries at the same temperatures, the same score per record and the same figures."""
from __future__ import annotations

import hashlib
import json
import random

import pytest

from conftest import CORPUS
from judge_support import eval_decisions, fidelity_labels, replay_scripted, replayed, tries_temperatures, write_rows

pytestmark = pytest.mark.slow  # a fidelity sweep against the original scorer's labels

REPLIES = ["1.0", "0.0", "0.5", " 0.3\n", "0.9", "abc", "1.5", "-0.2", "inf", "1e-1", "0.7 because", "", "0.4", "1",
           "0", ".5"]
TAGS = ["rec", "ocr", "rec,know", "ocr,math", "ocr,spat,math", "rec,know,gen", "rec,ocr,spat", "ocr,know", "spat,rec",
        "gen"]


def _mmvet_records(n: int = 1200) -> list[dict]:
    """The corpus's first `n` open replies as MMVet rows (seed 16): list golds joined by <AND> or <OR>, a
    capability tag set and five scripted judge replies drawn per record — the same replies for records
    that make the same prompt (a judge cache is keyed by the prompt, as it should be)."""
    rng = random.Random(16)
    out, scripted = [], {}
    with CORPUS.open(encoding="utf-8") as f:
        for r in map(json.loads, f):
            if r["choices"] or r["answer"] in (None, "", []) or len(out) >= n:
                continue
            gold = r["answer"]
            if isinstance(gold, list):
                gold = rng.choice(["<AND>", "<OR>"]).join(map(str, gold))
            replies = [rng.choice(REPLIES) for _ in range(5)]
            replies = scripted.setdefault((r.get("question") or "", str(gold), r["response"]), replies)
            out.append({"id": r["id"], "question_type": "open", "question": r.get("question") or "",
                        "response": r["response"], "answer": str(gold), "meta": {"category": rng.choice(TAGS)},
                        "judge_replies": replies})
    return out


def test_vlmevalkit_mmvet_grades_and_reports_as_the_original(tmp_path):
    rows = _mmvet_records()
    labels = fidelity_labels("mmvet")
    assert set(labels["records"]) == {r["id"] for r in rows}
    data = tmp_path / "mmvet.jsonl"
    write_rows(data, rows)
    prompts = replay_scripted("vlmevalkit-mmvet+judge", rows, tmp_path / "judge.sqlite")
    # the same prompt, byte for byte
    assert {i: hashlib.sha256(p.encode("utf-8")).hexdigest() for i, p in prompts.items()} == \
        {i: label["prompt_sha256"] for i, label in labels["records"].items()}
    by_id, metrics = eval_decisions("vlmevalkit-mmvet+judge", data, tmp_path / "out", *replayed(tmp_path / "judge.sqlite"))
    decisions = list(by_id.values())
    # the same score per record; a record the original scored 0.0 after 5 failed tries is unresolved here
    assert {d["id"]: d["score"] for d in decisions} == {i: label["score"] for i, label in labels["records"].items()}
    failed = {i for i, label in labels["records"].items() if len(label["temperatures"]) == 5 and label["score"] == 0.0}
    assert {d["id"] for d in decisions if d["outcome"] == "unresolved"} <= failed
    assert any(d["outcome"] == "unresolved" for d in decisions) and any(0 < d["score"] < 1 for d in decisions)
    # the same tries at the same temperatures: the try that gave the score is the original's last
    for d in decisions:
        temps = labels["records"][d["id"]]["temperatures"]
        assert tries_temperatures("vlmevalkit-mmvet+judge", "open", len(temps)) == temps
        if d["outcome"] == "judge":
            assert f"(try {len(temps)})" in d["message"]
    # MMVet_acc's tables: capabilities, and categories (written with "_" there), in percent
    ours = metrics["by_mmvet"]
    for table in ("capabilities", "categories"):
        for name, (n, acc) in labels[table].items():
            mine = {"n": len(decisions), "score": metrics["score"]} if name == "Overall" else ours[name]
            assert (mine["n"], 100 * mine["score"]) == (n, pytest.approx(acc, rel=1e-12, abs=1e-9)), name
    assert labels["capabilities"]["rec"][0] > sum(r["meta"]["category"].split(",").count("rec") for r in rows)
