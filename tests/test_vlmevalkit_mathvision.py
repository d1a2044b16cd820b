"""Issue 16: `vlmevalkit-mathvision` and `vlmevalkit-mathvision+judge` decide as VLMEvalKit's ORIGINAL
MATH_V_auxeval and report as MATH_V_acc (tests/fidelity/vlmevalkit/README.md), on the corpus's real
MATH-Vision replies and generated short replies, each with a scripted judge reply: the same records
settled by the prefetch, the same prompt to the judge, the same hit per record, the same table."""
from __future__ import annotations

import hashlib
import json
import random

import pytest

from conftest import CORPUS
from judge_support import eval_decisions, fidelity_labels, replay_scripted, replayed, write_rows
from rulekit import load_ruleset
from rulekit.core.records import Record

pytestmark = pytest.mark.slow  # a fidelity sweep against the original scorer's labels

# short free-form replies (prefetch: the whole reply against the gold) and judge replies that stress is_equal
EDGE = [("14", "14"), ("14.0", "14"), ("14.", "14"), (" 14 \n", "14"), ("1,000", "1000"), ("1000", "1,000"),
        ("\\frac{1}{2}", "0.5"), ("0.5", "\\frac{1}{2}"), ("1/2", "0.5"), ("a", "5"), ("A", "\\frac{1}{2}"),
        ("a", "\\sqrt{2}"), ("b", "5"), ("A", "7.7"), ("2^3", "1"), ("2**3", "8"), ("8", "2^3"), ("2^{3}", "8"),
        ("\\sqrt{41}", "$\\sqrt{41}$"), ("$\\sqrt{41}$", "\\sqrt{41}"), ("5.656854", "4\\sqrt{2}"),
        ("25.1327", "8\\pi"), ("69", "69{degrees}"), ("69°", "69{degrees}"), ("11", "11 "), ("0", "0"),
        ("0.0", "0"), ("−100", "-100"), ("-100", "-100"), ("1e2", "100"), ("100%", "1"), ("50\\%", "0.5"),
        ("3:4", "0.75"), ("(2,3)", "(2,3)"), ("[1, 2]", "[1,2]"), ("True", "1"), ("true", "1"), ("x+1", "1+x"),
        ("\\frac{3}{2}", "1.5"), ("1.4999999", "\\frac{3}{2}"), ("1.49", "\\frac{3}{2}"), ("07", "7"),
        ("1_000", "1000"), ("0x10", "16"), ("\\dfrac{1}{2}", "0.5"), ("\\frac12", "0.5"), ("2 \\times 3", "6"),
        ("2\\cdot 3", "6"), ("6 cm", "6"), ("\\boxed{6}", "6"), ("e", "2.718281828"), ("\\pi", "3.14159265"),
        ("", "5"), ("asw", "5"), ("gt_asw", "5"), ("'5'", "5"), ("1+0j", "1"), ("5j", "5j"), ("a", "a"),
        ("b", "\\frac{1}{2}"), ("2a", "3"), ("1/3", "0.333333"), ("0.3333", "1/3"), ("{1}", "1"), ("1.", "1"),
        ("-0", "0"), ("+5", "5"), ("5", "+5"), ("10^{2}", "100"), ("10^2", "100"), ("\\$5", "5"), ("5\\%", "5"),
        ("\\text{5}", "5"), ("5 \\text{ cm}", "5"), ("x=5", "5"), ("5.0000001", "5"), ("5.000001", "5"),
        ("\\infty", "\\infty"), ("1e400", "1e400"), ("π", "\\pi"), ("3,4", "3,4"), ("3, 4", "(3,4)")]
LETTERS = "ABCDE"


def _judge_replies(gold: str, choices: dict, response: str, rng: random.Random) -> str:
    """One scripted judge reply: right, wrong, formatted or unreadable, drawn per record."""
    if choices:
        pool = [gold, gold.lower(), f"({gold})", f"The answer is {gold}.", rng.choice(list(choices)),
                str(choices.get(gold, "")), "", "Z", "none of these", "A", f"{gold}. {choices.get(gold, '')}"]
    else:
        number = next((w for w in reversed(response.replace("$", " ").split()) if w[:1].isdigit()), "7")
        pool = [gold, gold.strip(), f" {gold}\n", f"{gold}.", f"{gold}.0", "A", "a", "", "1,000", "\\frac{1}{2}",
                "0.5", f"Extracted answer: {gold}", number, "None", f"{gold} cm", rng.choice(EDGE)[0]]
    return rng.choice(pool)


def _mathv_records() -> list[dict]:
    """The corpus's MATH-Vision replies (their questions, options and golds, the subject as category),
    then EDGE as free-form items; a judge reply drawn per record (seed 1616) — the same for records that
    make the same prompt (a judge cache is keyed by the prompt, as it should be)."""
    rng = random.Random(1616)
    out, scripted = [], {}
    with CORPUS.open(encoding="utf-8") as f:
        for r in map(json.loads, f):
            if r["benchmark"] != "MATH-Vision":
                continue
            choices = r["choices"] or {}
            reply = _judge_replies(r["answer"], choices, r["response"], rng)
            key = (r["question"], str(list(choices.values())), r["response"])
            out.append({"id": r["id"], "question_type": "multiple-choice" if choices else "open",
                        "question": r["question"], "choices": choices, "response": r["response"],
                        "answer": r["answer"], "meta": {"category": r["meta"]["subject"]},
                        "judge_replies": [scripted.setdefault(key, reply)]})
    for i, (response, gold) in enumerate(EDGE):
        for j, reply in enumerate([response, rng.choice(EDGE)[0]]):
            out.append({"id": f"edge/{i}/{j}", "question_type": "open", "question": f"Edge {i}?",
                        "choices": {}, "response": response if j == 0 else f"So: {response}", "answer": gold,
                        "meta": {"category": "edge"}, "judge_replies": [reply]})
    return out




def test_vlmevalkit_mathvision_prefetch_settles_what_the_original_settles(tmp_path):
    rows = _mathv_records()
    labels = fidelity_labels("mathv")["records"]
    assert set(labels) == {r["id"] for r in rows}
    decisions, _ = eval_decisions("vlmevalkit-mathvision", write_rows(tmp_path / "mathv.jsonl", rows), tmp_path / "out")
    prefetched = {i for i, label in labels.items() if label["log"] == "Prefetch succeed"}
    assert {i for i, d in decisions.items() if d["outcome"] != "unresolved"} == prefetched
    assert {i: decisions[i]["correct"] for i in prefetched} == {i: labels[i]["hit"] for i in prefetched}
    assert 500 < len(prefetched) < len(rows) - 500


def test_vlmevalkit_mathvision_judge_pipeline_scores_as_the_original(tmp_path):
    rows = _mathv_records()
    labels = fidelity_labels("mathv")
    data = write_rows(tmp_path / "mathv.jsonl", rows)
    prompts = replay_scripted("vlmevalkit-mathvision+judge", rows, tmp_path / "judge.sqlite")
    # the judge is asked about the same records, with the same prompt byte for byte
    assert {i: hashlib.sha256(p.encode("utf-8")).hexdigest() for i, p in prompts.items()} == \
        {i: label["prompt_sha256"] for i, label in labels["records"].items() if label["prompt_sha256"]}
    decisions, metrics = eval_decisions("vlmevalkit-mathvision+judge", data, tmp_path / "out",
                                        *replayed(tmp_path / "judge.sqlite"))
    assert {i: d["correct"] is True for i, d in decisions.items()} == \
        {i: label["hit"] for i, label in labels["records"].items()}
    assert {i for i, d in decisions.items() if d["outcome"] in ("judge", "abstain")} == set(prompts)
    # MATH_V_acc: per subject and Overall, tot / prefetch / hit / acc (percent)
    by = metrics["by_category"]
    for subject, (tot, prefetch, hit, acc) in labels["table"].items():
        ids = [r["id"] for r in rows if subject == "Overall" or r["meta"]["category"] == subject]
        mine = {"n": len(decisions), "accuracy": metrics["accuracy"]} if subject == "Overall" else by[subject]
        assert (mine["n"], 100 * mine["accuracy"]) == (tot, pytest.approx(acc, rel=1e-12, abs=1e-9)), subject
        assert prefetch == sum(1 for i in ids if i not in prompts), subject
        assert hit == sum(1 for i in ids if decisions[i]["correct"] is True), subject


@pytest.mark.parametrize("pred,gold,equal", [
    ("\\frac{1}{2}", "0.5", True), ("1,000", "1000", True), ("a", "\\frac{1}{2}", True), ("b", "5", False),
    ("2\\sqrt{3}", "3.4641016", False), ("x", "x", False), ("\\frac{3}{2}", "1.4999999", True)])
def test_arithmetic_reads_latex2sympy_printed_values(pred, gold, equal):
    """mathv.py:41-48: eval(str(latex2sympy(.))) of both within 1e-6, `a` being the gold's value; a printed
    call (sqrt) or symbol is not read."""
    from rulekit.language.math import Arithmetic

    compare = Arithmetic.model_validate({"arithmetic": {"within": 1e-6, "read": "latex2sympy", "difference": "abs",
                                                        "names": {"a": "gold"}}}).compile()
    assert compare.verdict(pred, Record("x", "open", pred, gold, None)) == (equal, float(equal), None)


def test_abs_difference_reads_no_strings_and_takes_complex_moduli():
    """is_equal's `abs(a - b) < 1e-6` on the eval()'d values: "'5'" is a string (unequal), 1+0j equals 1."""
    from rulekit.language.math import Arithmetic

    def equal(pred, gold, difference):
        compare = Arithmetic.model_validate({"arithmetic": {"within": 1e-6, "difference": difference}}).compile()
        return compare.verdict(pred, Record("x", "open", pred, gold, None))[0]

    assert equal("'5'", "5", "float") and not equal("'5'", "5", "abs")
    assert equal("1+0j", "1", "abs") and not equal("1+0j", "1", "float")


def test_or_judge_sends_what_its_compare_does_not_accept_to_the_judge():
    ruleset = load_ruleset("vlmevalkit-mathvision")
    from rulekit import Evaluator

    ev = Evaluator(ruleset)
    assert ev.decide(Record("x", "open", "0.5", "\\frac{1}{2}", None)).correct is True
    undecided = ev.decide(Record("y", "open", "It is 0.5", "\\frac{1}{2}", None))
    assert undecided.outcome == "unresolved" and "or-judge" in str(undecided.message)
