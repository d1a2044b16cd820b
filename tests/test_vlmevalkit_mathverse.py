"""Issue 16: `vlmevalkit-mathverse+judge`, a two-stage judge, extracts, prefetches, grades and reports as
VLMEvalKit's ORIGINAL MathVerse_auxeval_extract / MathVerse_auxeval_score / MathVerse_acc
(tests/fidelity/vlmevalkit/README.md), on real open replies with scripted replies for both judges: the
same two prompts byte for byte, the same prefetch, the same grading tries at the same temperatures,
the same score per record, every figure of the table."""
from __future__ import annotations

import hashlib
import json
import random
import re

import pytest
from click.testing import CliRunner

from conftest import CORPUS
from judge_support import eval_decisions, fidelity_labels, replay_scripted, replayed, tries_temperatures, write_rows
from rulekit.cli import main

pytestmark = pytest.mark.slow  # a fidelity sweep against the original scorer's labels

NAME = "vlmevalkit-mathverse+judge"
VERSIONS = ["Text Dominant", "Text Lite", "Vision Intensive", "Vision Dominant", "Vision Only", "Text Only"]
SUBJECTS = {"plane geometry": ["Length", "Area", "Angle", "Analytic"], "solid geometry": ["Volume", "Surface"],
            "functions": ["Coordinate", "Property", "Expression", "Applied"]}
XLSX_ESCAPED = re.compile("[\x00-\x08\x0b-\x1f]")
GRADES = ["1", "0", " 1\n", "0 ", "Judgement: 1", "1.0", "2", "", "yes", "01", "1"]


def _mathverse_records(n: int = 1500) -> list[dict]:
    """The corpus's first `n` open replies with a text gold and a question as MathVerse rows (seed 1618): the question as
    question_for_eval, a problem version, subject and subfield drawn; one scripted extraction reply (the
    gold, padded, with a unit, the reply's last number, "", "null", ...) and five scripted grading
    replies — the same for records that make the same prompt (a judge cache is keyed by the prompt)."""
    rng = random.Random(1618)
    out, scripted = [], {}
    with CORPUS.open(encoding="utf-8") as f:
        for r in map(json.loads, f):
            if r["choices"] or not isinstance(r["answer"], str) or not r["answer"].strip() or len(out) >= n:
                continue
            if not (r.get("question") or "").strip():  # MathVerse always has its question_for_eval
                continue
            if any(XLSX_ESCAPED.search(t) for t in (r["question"], r["response"], r["answer"])):
                continue  # VLMEvalKit's prediction .xlsx holds these as "_x000D_": a real file has no "\r" left
            gold = r["answer"]
            number = next((w for w in reversed(r["response"].replace("$", " ").split()) if w[:1].isdigit()), "7")
            extract = rng.choice([gold, f" {gold}\n", gold.strip(), f"{gold} cm", number, "", "null", "A",
                                  f"Extracted Answer: {gold}", gold.upper()])
            grades = [rng.choice(GRADES) for _ in range(5)]
            # the extraction prompt holds only the reply, the grading prompt the question, gold and extract
            extract = scripted.setdefault(r["response"], extract)
            shown = "nan" if extract in ("", "null") else extract  # as the grader sees it (the .xlsx reads NaN)
            grades = scripted.setdefault((r.get("question") or "", gold, shown), grades)
            subject = rng.choice(sorted(SUBJECTS))
            meta = {"question_for_eval": r.get("question") or "", "problem_version": rng.choice(VERSIONS),
                    "subject": subject, "subfield": rng.choice(SUBJECTS[subject])}
            out.append({"id": r["id"], "question_type": "open", "question": r.get("question") or "",
                        "response": r["response"], "answer": gold, "meta": meta,
                        "judge_replies": [extract], "grader_replies": grades})
    return out


def test_vlmevalkit_mathverse_two_stage_judge_scores_as_the_original(tmp_path):
    rows = _mathverse_records()
    labels = fidelity_labels("mathverse")
    assert set(labels["records"]) == {r["id"] for r in rows}
    data = tmp_path / "mathverse.jsonl"
    write_rows(data, rows)
    prompts = replay_scripted(NAME, rows, tmp_path / "judge.sqlite")
    graded = prompts.pop("grader")
    sha = lambda p: hashlib.sha256(p.encode("utf-8")).hexdigest()  # noqa: E731
    # every record goes to the extracting judge; the same records to the grader; both prompts byte for byte
    assert {i: sha(p) for i, p in prompts.items()} == {i: lab["extract_sha256"] for i, lab in labels["records"].items()}
    assert {i: sha(p) for i, p in graded.items()} == \
        {i: lab["grader_sha256"] for i, lab in labels["records"].items() if lab["grader_sha256"]}
    decisions, metrics = eval_decisions(NAME, data, tmp_path / "out", *replayed(tmp_path / "judge.sqlite"))
    assert {i: d["correct"] is True for i, d in decisions.items()} == \
        {i: lab["score"] for i, lab in labels["records"].items()}
    for i, lab in labels["records"].items():
        assert decisions[i]["pred"] == ("nan" if lab["extract"] in ("", "null") else lab["extract"]), i
        assert (i not in graded) == lab["prefetch"], i
        temps = lab["temperatures"]
        assert tries_temperatures(NAME, "open", len(temps), grader=True) == temps
    assert {len(lab["temperatures"]) for lab in labels["records"].values()} == {0, 1, 2, 3, 4, 5}
    # MathVerse_acc: per problem version, its Overall and each subject / subfield inside it (percent)
    for version, row in labels["table"].items():
        for column, acc in row.items():
            if column == "Overall":
                mine = metrics["by_problem_version"][version]
            else:
                table = "by_version_subject" if column in SUBJECTS else "by_version_subfield"
                mine = metrics[table].get(f"{version} / {column}")
            if acc is None:  # no row of that subject / subfield in this version: NaN there, absent here
                assert mine is None, (version, column)
            else:
                assert 100 * mine["accuracy"] == pytest.approx(acc, rel=1e-12, abs=1e-9), (version, column)


def test_a_prompt_reads_meta_fields_and_an_absent_one_is_empty():
    from rulekit.llm.prompts import load_prompt

    style = load_prompt("vlmevalkit-mathverse-score")
    text = style.render("open", "ignored", None, prediction="x = 2", gold="2", meta={"question_for_eval": "Find x."}).text
    assert text.endswith("    [Question]: Find x.\n    [Standard Answer]: 2\n    [Model_answer] : x = 2\n    Judgement:")
    assert "[Question]: \n" in style.render("open", "ignored", None, prediction="x", gold="2", meta={}).text


@pytest.mark.parametrize("judge,message", [
    ({"prompt": "vlmevalkit-mathverse-extract", "grader": {"prompt": "vlmevalkit-mathverse-score"}}, "a `grader` grades"),
    ({"prompt": "vlmevalkit-mathverse-score", "scores": True, "grader": {"prompt": "vlmevalkit-mathverse-score",
                                                                          "scores": True}}, "grades itself"),
    ({"prompt": "vlmevalkit-mathverse-extract", "grader": {"prompt": "vlmevalkit-mathverse-score", "scores": True,
                                                           "then": {"abstain": None}}}, "no `grader` or `then`")])
def test_a_grader_is_checked_when_the_ruleset_loads(tmp_path, judge, message):
    path = tmp_path / "bad.yaml"
    path.write_text(json.dumps({"ruleset": "bad", "open": {"steps": [{"id": "w", "find": {"whole": True}}],
                                                           "fallback": {"judge": judge}}}), encoding="utf-8")
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 2 and message in result.output, result.output
