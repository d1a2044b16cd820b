"""Issue 16: `vlmevalkit-mmmu-pro-cot` decides as VLMEvalKit's ORIGINAL MMMU-Pro CoT scoring
(MMMUProDataset.cot_postproc, the .xlsx written and read back, can_infer — all @ e8e78f05, run by
tests/fidelity/vlmevalkit/harness/rate_mmmu_pro_cot.py; see tests/fidelity/vlmevalkit/README.md) on every
real multiple-choice reply of the corpus (its 2,800 MMMU-Pro CoT replies among them) and on generated
edge cases: the same prediction reaches the matcher, and the matcher's letter is the same."""
from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import CORPUS
from rulekit.cli import main

pytestmark = pytest.mark.slow  # a fidelity sweep against the original scorer's labels

HERE = Path(__file__).parent / "fidelity" / "vlmevalkit"
TEN = {c: f"option {c.lower()}" for c in "ABCDEFGHIJ"}
# the last "Answer:" line and its capital letters, line stripping (\x1c, \r, NBSP), echoed templates, the
# .xlsx round trip (NA strings, empty tails), option texts the matcher finds instead
EDGE = [
    "Answer: B", "Answer:B", "answer: B", "ANSWER: B", " Answer: C ", "\tAnswer: D\r", "\x1cAnswer: E\x1f",
    "\u00a0Answer: F", "x Answer: G", "Answer: $B", "Answer: $LETTER", "Answer: (C)", "Answer: **D**",
    "Answer: B, C", "Answer: B or B", "Answer: BB", "Answer: None", "Answer: none", "Answer: nan", "Answer:",
    "Answer:   ", "Answer:None", "Answer:NA", "Answer:null", "Answer:N/A", "Answer: NA", "Answer: Ｂ", "Answer: ß",
    "Answer: İ", "Answer: b", "Answer: option b", "Answer: the answer is C", "Answer: A\nAnswer: B",
    "Answer: B\nAnswer: C, D", "Answer: C, D\nAnswer: B", "Answer: B\n\nSo that is it.", "Step 1 ...\nAnswer: J",
    "Thinking...\n  Answer: I  \n", "Answer: A\r\nAnswer: E\r\n", "Final Answer: B", "**Answer:** B",
    "Answer: B\nAnswer:", "Answer:\nB", "The answer is B.", "B", "", "None", "null", "NA", "Answer: 1",
    "Answer: B.\nExplanation: A is wrong", "Answer: A is wrong, B", "Answer: Z", "Answer: K",
    "Answer: option a", "Answer: Option text", "Answer\u2028: B", "Answer: B\u2028Answer: C",
]


def _records() -> list[dict]:
    """Every corpus multiple-choice reply with its options and gold, then every edge reply under ten
    options (A-J, texts "option a" ...) against each of three golds."""
    out = []
    with CORPUS.open(encoding="utf-8") as f:
        for r in map(json.loads, f):
            if r["question_type"] == "multiple-choice":
                out.append({"id": r["id"], "question_type": "multiple-choice", "response": r["response"],
                            "choices": r["choices"] or {}, "answer": r["answer"]})
    for i, text in enumerate(EDGE):
        for gold in "BCJ":
            out.append({"id": f"edge/{i}/{gold}", "question_type": "multiple-choice", "response": text,
                        "choices": TEN, "answer": gold})
    return out


def _eval(tmp_path: Path, ruleset: str, rows: list[dict]) -> dict:
    data = tmp_path / f"{ruleset}.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "-r", ruleset, str(data), "--output-dir", str(tmp_path / ruleset),
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    return {d["id"]: d for d in map(json.loads, (tmp_path / ruleset / f"{ruleset}.decisions.jsonl").open())}


def test_mmmu_pro_cot_decides_as_the_original(tmp_path):
    rows = _records()
    with gzip.open(HERE / "mmmu_pro_cot.json.gz", "rt", encoding="utf-8") as f:
        labels = json.load(f)
    assert hashlib.sha256("\n".join(r["id"] for r in rows).encode("utf-8")).hexdigest() == labels["ids_sha256"]
    ours = _eval(tmp_path, "vlmevalkit-mmmu-pro-cot", rows)
    # the letter the ORIGINAL can_infer gave on the prediction cot_postproc and the .xlsx left
    wrong = [(r["id"], r["response"][-60:], labels["inferred"][r["id"]], ours[r["id"]]["pred"])
             for r in rows if ours[r["id"]]["pred"] != labels["inferred"][r["id"]]]
    assert not wrong, wrong[:10]
    assert sum(1 for r in rows if r["id"].startswith("mmmu_pro/") and r["id"] in labels["changed"]) > 1900
    # the same prediction reaches the matcher: `vlmevalkit` on the original's changed predictions decides alike
    changed = [dict(r, response=labels["changed"][r["id"]]) for r in rows if r["id"] in labels["changed"]]
    plain = _eval(tmp_path, "vlmevalkit", changed)
    for r in changed:
        assert (plain[r["id"]]["pred"], plain[r["id"]]["step"]) == (ours[r["id"]]["pred"], ours[r["id"]]["step"]), r["id"]
