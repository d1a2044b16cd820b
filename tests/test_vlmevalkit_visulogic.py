"""Issue 16: `vlmevalkit-visulogic` decides as VLMEvalKit's ORIGINAL VisuLogic scorer (extract_answer and
VisuLogic_acc of vlmeval/dataset/utils/visulogic.py @ e8e78f05, run unchanged by
tests/fidelity/vlmevalkit/harness/rate_visulogic.py; see tests/fidelity/vlmevalkit/README.md): on every
real reply of the corpus (no VisuLogic replies were found; the extraction reads only the reply) and on
generated edge cases, the same extracted answer per record, the same right/wrong, the same table."""
from __future__ import annotations

import gzip
import hashlib
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import CORPUS
from rulekit.cli import main

pytestmark = pytest.mark.slow  # a fidelity sweep against the original scorer's labels

HERE = Path(__file__).parent / "fidelity" / "vlmevalkit"
CATEGORIES = ["Quantitative Reasoning", "Spatial Reasoning", "Positional Reasoning", "Attribute Reasoning",
              "Stylistic Reasoning", "Other"]
# boxes as the brace scan reads them, the cleanup, the refusals, whitespace the strip removes, the five
# start/end forms for each letter, the phrases one after another, "<|endoftext|>", case and Unicode traps
EDGE = [
    "", "A", "a", "B ", " C", "D\n", "E", "AB", "\x1cA\x1f", "\u00a0B\u2003", "\u200bC",
    "\\boxed{A}", "\\boxed{ B }", "\\boxed{ B}", "\\boxed{C }", "\\boxed{d}", "\\boxed{E}", "\\boxed{$D$}", "\\boxed{$LETTER}",
    "\\boxed{\\text{A}}", "\\boxed{\\textbf{B}}", "\\boxed{\\rm{C}}", "\\boxed{\\mathbf{D}}", "\\boxed{\\mathrm{A}}",
    "\\boxed{{A}}", "\\boxed{A}}", "\\boxed{}}", "\\boxed{}", "\\boxed{", "\\boxed{A", "x}", "\\boxed{\\}A}",
    "\\boxed{\\boxed{B}}", "\\boxed{\\boxed{B}}}", "\\boxed{A} and \\boxed{B}", "\\boxed{A} and \\boxed{B",
    "\\boxed{A} \\boxed{\\frac{1}{2}}", "\\boxed{\\frac{1}{2}}\nAnswer: C", "\\boxed{A or B}", "\\boxed{or}",
    "\\boxed{Letter}", "\\boxed{A}or", "Answer: \\boxed{B}.", "The answer is \\boxed{C}\n\nANSWER: D",
    "\\boxed{A}\\boxed{B}", "\\\\boxed{A}", "\\boxed {A}", "\\boxed{A}\n<|endoftext|>", "\\boxed{A\n}",
    "\\boxed{\nB}", "\\boxed{A\\}", "\\boxed{$}", "\\boxed{}}}A", "\\boxed{\u00a0C}", "\\boxed{\x1cC}",
    "So the answer is A.", "So the answer is (B).", "So it is B.", "So it is (C).", "the pick: D.", "Hence a.",
    "A\nbecause ...", "(B)\nbecause ...", "(C) C\nbecause ...", "(C) D\nbecause ...", "D\nHence A.",
    "(D)\nthe answer is (B).", "A.\nmore", "A \n", "B) text", "Final: A. ", "A.<|endoftext|>",
    "Hence B<|endoftext|>.", "<|endoftext|>C", "C<|endoftext|>", "<|endoftext|> D.", "<|endoftext|>",
    "Answer: A", "answer:B", "ANSWER:   c  \nnext line", "Answer: b.", "Answer: (b)", "Answer: B, C",
    "answer: the answer is d", "answer: a\nthe answer is b", "The final answer is: C", "the final answer is d",
    "The answer is option: A", "The answer is option B", "The answer is: c.", "The correct answer is option: D",
    "The correct answer is: B", "The answer should be: A", "The answer should be C", "The correct answer is d.",
    "Answer: none\nThe answer is C", "The answer is C. Answer: D", "the answer is a. the answer is b.",
    "The answer is\nB", "the answer is\n\nc", "The answer is the shape B", "The answer isB",
    "answer: answer: B", "Answer:", "the answer is", "ANSWER: İ", "Answer: ß", "Answer: ｂ", "answer: \u0430",
    "The answer is \\boxed{C}.", "The answer is \\boxed{E}, i.e. answer: D", "Answer: \\boxed{A or B}. The answer is: C",
]


def _records() -> list[dict]:
    """Every corpus reply as a VisuLogic row (the gold when it is one of A-D, else a letter drawn; a category
    drawn), then every edge reply under each gold A-D (seed 1616)."""
    rng = random.Random(1616)
    out = []
    with CORPUS.open(encoding="utf-8") as f:
        for r in map(json.loads, f):
            gold = r["answer"] if r["answer"] in ("A", "B", "C", "D") else rng.choice("ABCD")
            out.append({"id": r["id"], "question_type": "multiple-choice", "response": r["response"],
                        "choices": {"A": "a", "B": "b", "C": "c", "D": "d"}, "answer": gold,
                        "meta": {"category": rng.choice(CATEGORIES)}})
    for i, text in enumerate(EDGE):
        for gold in "ABCD":
            out.append({"id": f"edge/{i}/{gold}", "question_type": "multiple-choice", "response": text,
                        "choices": {"A": "a", "B": "b", "C": "c", "D": "d"}, "answer": gold,
                        "meta": {"category": CATEGORIES[i % len(CATEGORIES)]}})
    return out


def _labels() -> dict:
    with gzip.open(HERE / "visulogic.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


def test_visulogic_decides_as_the_original(tmp_path):
    rows = _records()
    labels = _labels()
    assert hashlib.sha256("\n".join(r["id"] for r in rows).encode("utf-8")).hexdigest() == labels["ids_sha256"]
    data = tmp_path / "visulogic.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit-visulogic", str(data), "--output-dir",
                                       str(tmp_path / "out"), "--format", "json"])
    assert result.exit_code == 0, result.output
    decisions = {d["id"]: d for d in map(json.loads, (tmp_path / "out" / "vlmevalkit-visulogic.decisions.jsonl").open())}
    got = "".join(decisions[r["id"]]["pred"] or "Z" for r in rows)
    mismatched = [(r["id"], r["response"][:80], want, have)
                  for r, want, have in zip(rows, labels["answers"], got) if want != have]
    assert not mismatched, mismatched[:10]
    assert [decisions[r["id"]]["correct"] is True for r in rows] == [a == r["answer"] for r, a in zip(rows, labels["answers"])]
    # the original's method: "box" for the first two steps, "lang" for the three after, "error" for Z
    method = {"bare-letter": "b", "box": "b", "lang-form": "l", "lang-phrase": "l", "lang-whole": "l", "abstain": "e"}
    assert "".join(method[decisions[r["id"]]["step"]] for r in rows) == labels["methods"]
    summary = json.loads(result.stdout)["results"][0]
    metrics = summary["metrics"]
    tot, hit, acc = labels["table"]["Overall"]
    assert (summary["n"], round(metrics["accuracy"] * summary["n"])) == (tot, hit)
    assert 100 * metrics["accuracy"] == pytest.approx(acc, rel=1e-12)
    by = metrics["by_category"]
    for category in CATEGORIES:
        tot, hit, acc = labels["table"][category]
        assert (by[category]["n"], round(by[category]["accuracy"] * tot)) == (tot, hit)
        assert 100 * by[category]["accuracy"] == pytest.approx(acc, rel=1e-12)


@pytest.mark.parametrize("reply,expect", [
    ("\\boxed{\\text{A}}", "A"),          # `A}` closes the box: \text{A, cleaned
    ("\\boxed{\\frac{1}{2}}\nAnswer: C", "C"),   # the box reads \frac{1: longer than 2, refused
    ("\\boxed{\\boxed{B}}", "Z"),         # the outer box never closes at depth 0
    ("\\boxed{A}}", "A"),
])
def test_visulogic_box_scan(tmp_path, reply, expect):
    row = {"id": "x", "question_type": "multiple-choice", "response": reply, "answer": "A",
           "choices": {"A": "a", "B": "b", "C": "c", "D": "d"}, "meta": {"category": "Other"}}
    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps(row) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit-visulogic", str(data), "--output-dir",
                                       str(tmp_path / "out"), "--format", "json"])
    assert result.exit_code == 0, result.output
    decision = json.loads((tmp_path / "out" / "vlmevalkit-visulogic.decisions.jsonl").read_text())
    assert (decision["pred"] or "Z") == expect
