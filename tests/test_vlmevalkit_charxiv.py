"""Issue 16: `vlmevalkit-charxiv-reasoning+judge` and `-descriptive+judge` ask and read their judge as VLMEvalKit's
ORIGINAL charxiv.py auxeval and report as CharXiv.get_scores (tests/fidelity/vlmevalkit/README.md), on real
open replies with scripted judge replies: the same prompt byte for byte (the row's grading query with the
reply in it), the same tries, the same score per record, both tables."""
from __future__ import annotations

import hashlib
import json
import random

import pytest

from conftest import CORPUS
from judge_support import eval_decisions, fidelity_labels, replay_scripted, replayed, write_rows

pytestmark = pytest.mark.slow  # a fidelity sweep against the original scorer's labels

NAMES = {"reasoning": "vlmevalkit-charxiv-reasoning+judge", "descriptive": "vlmevalkit-charxiv-descriptive+judge"}


def _replies(gold: str) -> list[str]:
    good = json.dumps({"extracted_answer": gold, "score": 1})
    return [good, '{"extracted_answer": "x", "score": 0}', f"```json\n{good}\n```", "The answer is correct.", "[1, 0]",
            '{"score": 1}', '{"extracted_answer": "x"}', '{"extracted_answer": "x", "score": 0.5}',
            ' {"score": 0, "extracted_answer": "y"}\n', "null", '{"extracted_answer": "a\x01", "score": 1}', "",
            '{"extracted_answer": "x", "score": 1, "score": 0}', "NaN", '{"extracted_answer": null, "score": 1}',
            '{"extracted_answer": "x", "score": 1', "not json at all"]


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _charxiv_records(n: int = 1500) -> list[dict]:
    """The corpus's first `n` open replies with a text gold as CharXiv rows (seed 1619): a grading query
    holding the question, the gold and a {PREDICTION} slot (and JSON braces, as CharXiv's do), a qid and an
    inst_category drawn, ten scripted judge replies — many not JSON, so tries repeat, and for about 5% none
    JSON at all — the same for
    records that make the same prompt."""
    rng = random.Random(1619)
    out, scripted = [], {}
    with CORPUS.open(encoding="utf-8") as f:
        for r in map(json.loads, f):
            if r["choices"] or not isinstance(r["answer"], str) or len(out) >= n:
                continue
            query = (f"Question: {r.get('question') or ''}\nGround truth: {r['answer']}\nModel response: {{PREDICTION}}\n"
                     'Reply as {"extracted_answer": "...", "score": 0 or 1}.')
            pool = _replies(r["answer"])
            unread = [x for x in pool if not _is_json(x)]
            draw = rng.random()
            replies = [rng.choice(unread if draw < 0.05 else pool[3:] if draw < 0.6 else pool) for _ in range(10)]
            replies = scripted.setdefault((query, r["response"]), replies)
            out.append({"id": r["id"], "question_type": "open", "question": r.get("question") or "",
                        "response": r["response"], "answer": r["answer"],
                        "meta": {"grading_query": query, "qid": rng.randint(1, 19), "inst_category": rng.randint(1, 4)},
                        "judge_replies": replies})
    return out


@pytest.mark.parametrize("mode", ["reasoning", "descriptive"])
def test_vlmevalkit_charxiv_judges_and_reports_as_the_original(tmp_path, mode):
    rows = _charxiv_records()
    labels = fidelity_labels("charxiv")
    assert set(labels["records"]) == {r["id"] for r in rows}
    name = NAMES[mode]
    data = tmp_path / "charxiv.jsonl"
    write_rows(data, rows)
    prompts = replay_scripted(name, rows, tmp_path / "judge.sqlite")
    assert {i: hashlib.sha256(p.encode("utf-8")).hexdigest() for i, p in prompts.items()} == \
        {i: lab["prompt_sha256"] for i, lab in labels["records"].items()}
    assert {lab["sampling"]["temperature"] for lab in labels["records"].values()} == {0}
    decisions, metrics = eval_decisions(name, data, tmp_path / "out", *replayed(tmp_path / "judge.sqlite"))
    assert {i: d["score"] for i, d in decisions.items()} == {i: lab["score"] for i, lab in labels["records"].items()}
    for i, lab in labels["records"].items():
        d = decisions[i]
        if lab["extracted_answer"] == "Failed to parse response" and lab["tries"] == 10:
            assert d["outcome"] == "unresolved", i  # ten unreadable replies
        else:
            assert d["outcome"] == "judge" and f"(try {lab['tries']})" in d["message"], (i, d["message"])
    assert {lab["tries"] for lab in labels["records"].values()} >= {1, 2, 3, 10}
    for category, value in labels["tables"][mode].items():
        mine = metrics["score"] if category == "Overall" else metrics["by_category"][category]["score"]
        assert mine == pytest.approx(value, rel=1e-12, abs=1e-12), category


def test_fill_puts_the_reply_into_a_field_and_json_strict_require_read_as_charxiv():
    from rulekit.language.prepare import _json_field
    from rulekit.llm.prompts import load_prompt

    style = load_prompt("vlmevalkit-charxiv")
    text = style.render("open", "q", None, prediction="It is {3}.", gold="3",
                        meta={"grading_query": 'Q: x\nResponse: {PREDICTION}\nJSON: {"score": 1}'}).text
    assert text == 'Q: x\nResponse: It is {3}.\nJSON: {"score": 1}'
    assert _json_field('{"score": 1, "extracted_answer": "a"}', "score", True, ("extracted_answer",)) == ["1"]
    assert _json_field('{"score": 1}', "score", True, ("extracted_answer",)) == []
    assert _json_field('{"score": 1, "extracted_answer": "a\x01"}', "score", False, ()) == ["1"]
    assert _json_field('{"score": 1, "extracted_answer": "a\x01"}', "score", True, ()) == []
