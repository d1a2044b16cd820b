"""Issue 16: `vlmevalkit-dynamath+judge` reads, asks and scores as VLMEvalKit's ORIGINAL DynaMath_auxeval and
reports as Dynamath.evaluate (tests/fidelity/vlmevalkit/README.md), on real replies — as they are, and
wrapped in the JSON DynaMath asks for with short answers of every shape — with scripted judge replies:
the same rows sent to the judge with the same prompt byte for byte, the same correct per record, both
rows of the table (Average and Worst Case)."""
from __future__ import annotations

import hashlib
import json
import random

import pytest

from conftest import CORPUS
from judge_support import eval_decisions, fidelity_labels, replay_scripted, replayed, write_rows

pytestmark = pytest.mark.slow  # a fidelity sweep against the original scorer's labels

NAME = "vlmevalkit-dynamath+judge"
SUBJECTS = ["algebra", "plane geometry", "graph theory", "statistics"]
LEVELS = ["elementary school", "high school", "undergraduate"]


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _short_answers(kind: str, gold: str, rng: random.Random) -> list:
    if kind == "multiple choice":
        other = rng.choice([c for c in "ABCDE" if c != gold])
        return [gold, gold.lower(), f"({gold})", f"Answer: {gold}", gold + other, "", other, 3, f"{gold}. it",
                "none", None]
    if kind == "float":
        return [gold, f"{gold} cm", f" {gold}", "π", "2π", f"{gold}π", "1,000", "²", float(gold), "abc", "3.14159",
                f"{gold}\\n", None]
    return [gold, gold.upper(), f"{gold} and more", "", "x", f"\\text{{{gold}}}"]


def _judge_replies(kind: str, gold: str) -> list[str]:
    if kind == "multiple choice":
        return [gold, gold.lower(), f"({gold})", f"The answer is {gold}", "AB", "none", "", "C", "I cannot tell"]
    return [gold, f"{gold} cm", "π", "2π", "x", "", "1e3", "0.5", "three"]


def _shown(response: str) -> str:
    """The reply as DynaMath's prompt shows it (its preprocess): from the first "{" to the last "}", no
    backslashes — two replies shown alike make one prompt, so they get one scripted judge reply."""
    if 0 <= response.find("{") < response.rfind("}"):
        response = response[response.find("{"): response.rfind("}") + 1]
    return response.replace("\\", "")


def _dynamath_records(n: int = 800) -> list[dict]:
    """The corpus's first `n` replies of each answer type as DynaMath rows (seed 1620): multiple choice
    (a gold letter A-E), float (a gold float() reads) and free form (any other text gold); three variants to a question (the
    first variant's `index` is its qid, as the Worst Case code needs); 40% of the replies as they are,
    the rest wrapped as {"solution": ..., "short answer": X} (fenced or not) with X drawn by answer type
    (letters, "Answer: C", numbers with units, π multiples, "²", JSON numbers, null, ...); one judge reply
    drawn per prompt. Rows on which the original raises are left out: an all-digit reply float() refuses
    (outside the JSON) and a free-form short answer that is not a string."""
    rng = random.Random(1620)
    out, scripted, taken = [], {}, {"multiple choice": 0, "float": 0, "free form": 0}
    with CORPUS.open(encoding="utf-8") as f:
        for r in map(json.loads, f):
            if min(taken.values()) >= n:
                break
            gold = r["answer"]
            if r["choices"]:
                if gold not in list("ABCDE"):
                    continue
                kind = "multiple choice"
            elif isinstance(gold, str) and gold.strip():
                kind = "float" if _is_float(gold) else "free form"
            else:
                continue
            if taken[kind] >= n:
                continue
            taken[kind] += 1
            response = r["response"]
            if rng.random() < 0.6:
                short = rng.choice(_short_answers(kind, gold, rng))
                body = json.dumps({"solution": response[:200], "short answer": short}, ensure_ascii=rng.random() < 0.5)
                response = rng.choice([body, f"```json\n{body}\n```", f"Here it is: {body} done."])
            if response.isdigit() and not _is_float(response):
                continue
            i = len(out)
            qid, varid = i // 3 + 1, i % 3 + 1
            reply = scripted.setdefault((_shown(response), kind), rng.choice(_judge_replies(kind, gold)))
            out.append({"id": r["id"] + f"#{i}", "question_type": "open", "question": r.get("question") or "",
                        "response": response, "answer": gold,
                        "meta": {"answer_type": kind, "qid": qid, "varid": varid,
                                 "index": qid if varid == 1 else 100000 + i,
                                 "subject": SUBJECTS[qid % len(SUBJECTS)], "knowledge_level": LEVELS[qid % len(LEVELS)]},
                        "judge_replies": [reply]})
    return out


def test_vlmevalkit_dynamath_reads_asks_and_scores_as_the_original(tmp_path):
    rows = _dynamath_records()
    labels = fidelity_labels("dynamath")
    assert set(labels["records"]) == {r["id"] for r in rows}
    from rulekit.llm.prompts import load_prompt
    assert load_prompt("vlmevalkit-dynamath").style.system == labels["system"]
    data = tmp_path / "dynamath.jsonl"
    write_rows(data, rows)
    prompts = replay_scripted(NAME, rows, tmp_path / "judge.sqlite")
    # the judge is asked about the same rows, with the same prompt byte for byte
    assert {i: hashlib.sha256(p.encode("utf-8")).hexdigest() for i, p in prompts.items()} == \
        {i: lab["prompt_sha256"] for i, lab in labels["records"].items() if lab["prompt_sha256"]}
    decisions, metrics = eval_decisions(NAME, data, tmp_path / "out", *replayed(tmp_path / "judge.sqlite"))
    assert {i: d["correct"] is True for i, d in decisions.items()} == \
        {i: lab["correct"] for i, lab in labels["records"].items()}
    kinds = {r["meta"]["answer_type"] for r in rows}
    assert kinds == {"multiple choice", "float", "free form"} and 100 < len(prompts) < len(rows) // 2
    # Dynamath.evaluate: Average (Overall, Subject-*, Level-*) and Worst Case (a question right in every variant)
    worst = metrics["all_correct"]["worst_case"]
    for setting, row in labels["table"].items():
        for column, value in row.items():
            if setting == "Average":
                mine = (metrics["accuracy"] if column == "Overall" else
                        metrics["by_subject"][column[8:]]["accuracy"] if column.startswith("Subject-") else
                        metrics["by_knowledge_level"][column[6:]]["accuracy"])
            else:
                mine = (worst["overall"] if column == "Overall" else
                        worst["by_subject"][column[8:]] if column.startswith("Subject-") else
                        worst["by_knowledge_level"][column[6:]])
            assert mine == pytest.approx(value, rel=1e-12, abs=1e-12), (setting, column)
