"""EMMA (VLMEvalKit's EMMADataset, scored by ImageShortQADataset.evaluate): multiple-choice rows by can_infer and
the answer-matching judge, open rows graded yes/no by ShortQA's judge — given back from the evaluate's
`_judge.xlsx` (fixture: tests/fixtures/reproduce/vlmevalkit-emma, written by the original; its README)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main
from rulekit.report.reproduce.sheets import judge_sheet_replies

EMMA = Path(__file__).parent / "fixtures" / "reproduce" / "vlmevalkit-emma"
SPEC = {"reply": "hit", "log": "log", "match-log": True,
        "values": {"1": "[Begin Correctness]yes[End Correctness]", "0": "[Begin Correctness]no[End Correctness]"}}


@pytest.mark.slow  # scores two judged work dirs (seconds)
@pytest.mark.parametrize("model, ruleset, overall, judged", [
    ("emma-model", "vlmevalkit-emma+judge", "0.51", 268),
    ("emma-2025", "vlmevalkit-emma@v1+judge", "0.49333333333333335", 252),
])
def test_emma_is_given_back_from_its_judge_sheet_by_the_generation_of_its_era(model, ruleset, overall, judged):
    """Every number of report_acc's `_acc.csv` (Overall, each subject and category), by the generation whose
    can_infer wrote it; the rows left to a judge are exactly those the sheet's `log` says were asked."""
    result = CliRunner().invoke(main, ["reproduce", "--format", "json", str(EMMA / model)])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["results"]
    assert len(rows) == 44 and all(r["matched"] for r in rows), [r for r in rows if not r["matched"]]
    assert {r["ruleset"] for r in rows} == {ruleset}
    assert {r["split"]: r["reported"] for r in rows if r["metric"] == "Overall"} == {"none": overall}
    assert f"its rules leave the same {judged} rows unmatched as {model}_EMMA_judge.xlsx shows" in rows[0]["notes"]


def test_the_judge_sheet_replays_match_logs_and_verdicts():
    """A multiple-choice row's `Match Log: X. ` is the judge's reply X where X is not the row's own prediction
    (else the rules settled it); an open row's `hit` stands for the verdict that gives it."""
    replies, guessed, asked = judge_sheet_replies(EMMA / "emma-model" / "emma-model_EMMA_judge.xlsx", SPEC)
    assert not guessed and asked == set(replies) and len(replies) == 268
    verdicts = [v for v in replies.values() if v.startswith("[Begin Correctness]")]
    assert len(verdicts) == 150  # every open row was asked
    letters = [v for v in replies.values() if not v.startswith("[Begin Correctness]")]
    assert letters and all(len(v) <= 3 for v in letters)  # "B", "Z", "(C)": the extraction judge's replies
