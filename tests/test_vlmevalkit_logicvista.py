"""Issue 16: `vlmevalkit-logicvista+judge` asks, reads and scores as VLMEvalKit's ORIGINAL LogicVista_auxeval and
reports as evaluate_logicvista (tests/fidelity/vlmevalkit/README.md), on real multiple-choice replies with
scripted judge replies: the same prompt byte for byte, the same tries at the same temperatures, the same
hit per record, the same table."""
from __future__ import annotations

import hashlib
import json
import random

import pytest

from conftest import CORPUS
from judge_support import eval_decisions, fidelity_labels, replay_scripted, replayed, tries_temperatures, write_rows
from rulekit.core.records import Record

pytestmark = pytest.mark.slow  # a fidelity sweep against the original scorer's labels

SKILLS = ["inductive", "deductive", "numerical", "spatial", "mechanical", "inductive, spatial", "deductive,numerical",
          "spatial reasoning"]
ODD = ["", "Z", "z", "A1", "Ａ", "ǅ", "ΑΒ", "Answer: A", "AB.", "ÀB", "ß", "A B", "B\n", " C", "a"]


def _reply_pool(letters: list[str], rng: random.Random) -> list[str]:
    """What a judge might answer about a record whose gold letters are `letters`."""
    joined = "".join(letters)
    return [joined, joined[::-1], ", ".join(letters), joined + "\n", " " + joined, joined.lower(), joined + joined[:1],
            rng.choice("ABCDE"), rng.choice("ABCDE") + rng.choice("ABCDE"), rng.choice(ODD), rng.choice(ODD)]


def _logicvista_records(n: int = 1500) -> list[dict]:
    """The corpus's first `n` multiple-choice replies as LogicVista rows (seed 1617): the options written
    into the question (LogicVista is a VQA dataset in VLMEvalKit), the gold letter — or, for about a third,
    several letters written "A, C", "A,C" or "AC" —, a skill drawn, and five scripted judge replies —
    the same for records that make the same prompt."""
    rng = random.Random(1617)
    out, scripted = [], {}
    with CORPUS.open(encoding="utf-8") as f:
        for r in map(json.loads, f):
            if not r["choices"] or len(out) >= n or r["answer"] not in r["choices"]:
                continue
            letters = [r["answer"]]
            if rng.random() < 0.35:
                letters = sorted(set(letters + rng.sample(sorted(r["choices"]), min(2, len(r["choices"])))))
            gold = rng.choice([", ".join(letters)] * 4 + [",".join(letters), "".join(letters)])
            question = (r.get("question") or "") + "\n" + "\n".join(f"{k}. {v}" for k, v in r["choices"].items())
            replies = [rng.choice(_reply_pool(letters, rng)) for _ in range(5)]
            replies = scripted.setdefault((question, r["response"]), replies)
            out.append({"id": r["id"], "question_type": "open", "question": question, "response": r["response"],
                        "answer": gold, "meta": {"skill": rng.choice(SKILLS)}, "judge_replies": replies})
    return out


def test_vlmevalkit_logicvista_judges_and_reports_as_the_original(tmp_path):
    rows = _logicvista_records()
    labels = fidelity_labels("logicvista")
    assert set(labels["records"]) == {r["id"] for r in rows}
    data = tmp_path / "logicvista.jsonl"
    write_rows(data, rows)
    prompts = replay_scripted("vlmevalkit-logicvista+judge", rows, tmp_path / "judge.sqlite")
    # every record is asked, with the same prompt byte for byte
    assert {i: hashlib.sha256(p.encode("utf-8")).hexdigest() for i, p in prompts.items()} == \
        {i: label["prompt_sha256"] for i, label in labels["records"].items()}
    name = "vlmevalkit-logicvista+judge"
    decisions, metrics = eval_decisions(name, data, tmp_path / "out", *replayed(tmp_path / "judge.sqlite"))
    # the same hit per record, the same reply kept; five refused replies: res "" and hit 0, unresolved here
    assert {i: int(d["correct"] is True) for i, d in decisions.items()} == \
        {i: label["hit"] for i, label in labels["records"].items()}
    for i, label in labels["records"].items():
        d = decisions[i]
        assert (d["pred"] if d["outcome"] == "judge" else "") == label["res"], i
        assert (d["outcome"] == "unresolved") == (label["res"] == ""), i
    # the same tries at the same temperatures: the try that gave the answer is the original's last
    for i, d in decisions.items():
        temps = labels["records"][i]["temperatures"]
        assert tries_temperatures(name, "open", len(temps)) == temps
        if d["outcome"] == "judge":
            assert d["message"].startswith(f"judge try {len(temps)}:"), d["message"]
    assert {len(label["temperatures"]) for label in labels["records"].values()} == {1, 2, 3, 4, 5}
    # evaluate_logicvista: Overall and the five skills (tot, hit, acc in percent)
    for skill, (tot, hit, acc) in labels["table"].items():
        mine = {"n": len(decisions), "accuracy": metrics["accuracy"]} if skill == "Overall" else metrics["by_skill"][skill]
        assert (mine["n"], round(mine["n"] * mine["accuracy"]), 100 * mine["accuracy"]) == \
            (tot, hit, pytest.approx(acc, rel=1e-12, abs=1e-9)), skill


@pytest.mark.parametrize("pred,gold,correct", [
    ("CA", "A, C", True), ("AC", "AC", True), ("AAC", "A, C", False), ("AC", "A,C", False), ("ac", "A, C", True),
    ("A", ["B", "A"], True), ("", "", True), ("AB", "A, B, C", False)])
def test_sorted_join_compares_as_logicvista_does(pred, gold, correct):
    """logicvista.py:47-52, 60-64: the gold's ", "-pieces and the reply's characters, lowercased and sorted."""
    from rulekit.language.compares import SortedJoin

    record = Record("x", "open", pred, gold, None)
    assert SortedJoin.model_validate({"sorted-join": {}}).verdict(pred, record)[0] is correct


@pytest.mark.parametrize("text,upper,alpha", [("AB", True, True), ("A1", True, False), ("", False, False),
                                              ("Ab", False, True), ("A\n", True, False), ("Ａ", True, True),
                                              ("ǅ", False, True), ("ß", False, True)])
def test_isupper_and_isalpha_are_pythons(text, upper, alpha):
    from rulekit.core.records import Record as R
    from rulekit.core.record_env import RecordEnv
    from rulekit.language.expr import compile_condition

    env = RecordEnv(R("x", "open", text, "A", None), text=text)
    assert compile_condition("isupper(text)")(env) is upper
    assert compile_condition("isalpha(text)")(env) is alpha
    assert compile_condition("judge_reply")(env) is False
