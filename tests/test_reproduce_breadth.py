"""Issue 30, class 4 (breadth): benchmark families added to the registry, each checked against its ORIGINAL
scorer run unchanged in scratch (tests/fidelity/vlmevalkit/harness/*, the fixtures' READMEs say how), on
real work dirs where public ones exist and on generated predictions that stress the scorer otherwise."""
from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main
from rulekit.core.records import Record
from rulekit.engine.compiler import load_ruleset
from rulekit.language.compares import vqa_accuracy
from rulekit.language.prepare import compile_prepare, digit_article
from rulekit.language.schema import PREPARE_MODELS
from rulekit.run.evaluate import evaluate

FIXTURES = Path(__file__).parent / "fixtures" / "reproduce"


def _reproduce(path: Path) -> tuple[int, list[dict]]:
    result = CliRunner().invoke(main, ["reproduce", "--format", "json", str(path)])
    return result.exit_code, json.loads(result.stdout)["results"]


def _row_scores(ruleset: str, sheet: Path) -> dict[str, float]:
    """{record id: its score} of a prediction sheet under a ruleset (the score a report averages)."""
    try:  # the reproduce package (issue 30's split), else the one module before it
        from rulekit.report.reproduce.files import kept_records
    except ImportError:
        from rulekit.report.reproduce import kept_records

    [res] = evaluate([load_ruleset(ruleset)], kept_records(sheet), keep=True)
    return {r.id: (d.score if d.score is not None else float(d.correct is True)) for r, d in zip(res.records, res.decisions)}


# ---------------------------------------------------------------- VQA score and OCRVQA
VQA_SCORE = FIXTURES / "vlmevalkit-vqa-score"
VQA_REAL = FIXTURES / "vlmevalkit-vqa-real"


def test_textvqa_and_ocrvqa_reports_of_both_generations_are_given_back_with_the_generation_named():
    """The same predictions scored by VLMEvalKit @ e8e78f05 and by its July 2024 code: every number comes
    back, the TextVQA reports with the generation that wrote them (they differ on "3." after a digit)."""
    code, rows = _reproduce(VQA_SCORE)
    assert code == 0, [r for r in rows if not r["matched"]]
    named = {(r["model"], r["benchmark"]): r["ruleset"] for r in rows}
    assert named == {("vqa-head", "TextVQA_VAL"): "vlmevalkit-vqa", ("vqa-2024", "TextVQA_VAL"): "vlmevalkit-vqa@v3",
                     ("vqa-head", "OCRVQA_TESTCORE"): "vlmevalkit-ocrvqa",
                     ("vqa-2024", "OCRVQA_TESTCORE"): "vlmevalkit-ocrvqa"}
    assert len(rows) == 16
    overall = {r["model"]: r["reported"] for r in rows if r["benchmark"] == "TextVQA_VAL"}
    assert overall == {"vqa-head": "30.024999999999995", "vqa-2024": "32.125"}  # the generations differ here


@pytest.mark.parametrize("work,dataset,ruleset", [
    ("vqa-head", "TextVQA_VAL", "vlmevalkit-vqa"), ("vqa-2024", "TextVQA_VAL", "vlmevalkit-vqa@v3"),
    ("vqa-head", "OCRVQA_TESTCORE", "vlmevalkit-ocrvqa"), ("vqa-2024", "OCRVQA_TESTCORE", "vlmevalkit-ocrvqa")])
def test_vqa_score_rulesets_score_every_generated_row_as_the_original(work, dataset, ruleset):
    with gzip.open(VQA_SCORE / "hits.json.gz", "rt", encoding="utf-8") as f:
        hits = json.load(f)[f"{work}_{dataset}"]
    ours = _row_scores(ruleset, VQA_SCORE / work / f"{work}_{dataset}.xlsx")
    assert ours.keys() == hits.keys()
    assert [i for i in hits if abs(ours[i] - hits[i]) > 1e-12] == []


def test_the_other_generation_disagrees_on_some_rows():
    """The fixture tells the two TextVQA generations apart (else the test above could not fail for a wrong pick)."""
    sheet = VQA_SCORE / "vqa-head" / "vqa-head_TextVQA_VAL.xlsx"
    now, before = _row_scores("vlmevalkit-vqa", sheet), _row_scores("vlmevalkit-vqa@v3", sheet)
    assert sum(abs(now[i] - before[i]) > 1e-12 for i in now) >= 5


def test_a_real_2024_textvqa_and_ocrvqa_work_dir_is_given_back_row_by_row():
    """SYuan03/VLMEvalKit's GPT4o_MINI (2024-08): both reports whole, and every row as the fork's own code
    scores it (a reply "None" is pandas' NaN, "nan", not the number word "none" = "0")."""
    code, rows = _reproduce(VQA_REAL)
    assert code == 0, [r for r in rows if not r["matched"]]
    assert len(rows) == 34 and {r["ruleset"] for r in rows} == {"vlmevalkit-vqa@v3", "vlmevalkit-ocrvqa"}
    with gzip.open(VQA_REAL / "hits.json.gz", "rt", encoding="utf-8") as f:
        hits = json.load(f)
    for dataset, ruleset in (("TextVQA_VAL", "vlmevalkit-vqa@v3"), ("OCRVQA_TESTCORE", "vlmevalkit-ocrvqa")):
        ours = _row_scores(ruleset, VQA_REAL / "GPT4o_MINI" / f"GPT4o_MINI_{dataset}.xlsx")
        assert ours.keys() == hits[dataset].keys()
        assert [i for i in ours if abs(ours[i] - hits[dataset][i]) > 1e-12] == []
    textvqa = _row_scores("vlmevalkit-vqa@v3", VQA_REAL / "GPT4o_MINI" / "GPT4o_MINI_TextVQA_VAL.xlsx")
    assert textvqa["36368"] == 0.0 == hits["TextVQA_VAL"]["36368"]


def _vqa_reference(pred: str, golds: list[str], by_value: bool) -> float:
    """The VQA accuracy written as the two originals write it (VLMEvalKit: others by index; the VQA API:
    `item != gtAnsDatum`)."""
    accs = []
    for i, gt in enumerate(golds):
        others = [g for g in golds if g != gt] if by_value else [g for j, g in enumerate(golds) if j != i]
        accs.append(min(1, float(len([g for g in others if g == pred])) / 3))
    return sum(accs) / len(accs)


def test_vqa_accuracy_agrees_with_both_originals_loops():
    rng = random.Random(30)
    for _ in range(2000):
        golds = [rng.choice("abc") for _ in range(rng.randint(1, 10))]
        pred = rng.choice("abcd")
        assert vqa_accuracy(pred, golds, "by-index") == pytest.approx(_vqa_reference(pred, golds, False), abs=1e-15)
        assert vqa_accuracy(pred, golds, "by-value") == pytest.approx(_vqa_reference(pred, golds, True), abs=1e-15)


def test_digit_article_and_the_two_period_rules():
    assert digit_article("The  Two dogs DONT a") == "2 dogs don't"
    assert digit_article("none of an ten") == "0 of 10"
    op = PREPARE_MODELS["punctuation"]
    now = compile_prepare([op.model_validate({"punctuation": {}})], lambda i: None)
    before = compile_prepare([op.model_validate({"punctuation": {"keep-periods": "before-digit"}})], lambda i: None)
    assert (now("3. 3.5 x. .5"), before("3. 3.5 x. .5")) == ("3. 3.5 x .5", "3 3.5 x .5")
    runs = compile_prepare([op.model_validate({"punctuation": {"digit-comma": "run"}})], lambda i: None)
    one = compile_prepare([op.model_validate({"punctuation": {}})], lambda i: None)
    assert (runs("1,,2 a-b"), one("1,,2 a-b")) == ("12 ab", "1  2 a b")


def test_vqa_score_errors_where_the_original_raises():
    rs = load_ruleset("vlmevalkit-vqa")
    [res] = evaluate([rs], [Record("a", "open", "1", "[1, 2]"), Record("b", "open", "1", "[]"),
                            Record("c", "open", "1", "['1', '1', '1', '1']")], keep=True)
    assert [d.outcome for d in res.decisions][:2] == ["error", "error"]
    assert res.decisions[2].score == 1.0


# ---------------------------------------------------------------- CV-Bench-2D: Overall = mean of the sources
CVBENCH = FIXTURES / "vlmevalkit-cvbench"


def test_cvbench_2d_report_is_given_back_with_overall_the_mean_of_its_sources():
    """CVBench.report_accuracy's `_acc.csv` (written by the original): each source's accuracy and Overall, the
    unweighted mean of the sources — not the row mean, which the multiple-choice family would give."""
    code, rows = _reproduce(CVBENCH)
    assert code == 0, [r for r in rows if not r["matched"]]
    got = {r["metric"]: (r["reported"], r["reproduced"], r["ruleset"]) for r in rows}
    assert set(got) == {"ADE20K", "COCO", "Overall"}
    assert {v[2] for v in got.values()} == {"vlmevalkit-cvbench2d"}
    for reported, reproduced, _ in got.values():
        assert reproduced == pytest.approx(float(reported), abs=1e-12)
    sheet = CVBENCH / "cvbench-model" / "cvbench-model_CV-Bench-2D.xlsx"
    scores = _row_scores("vlmevalkit-cvbench2d", sheet)
    row_mean = sum(scores.values()) / len(scores)
    assert abs(row_mean - float(got["Overall"][0])) > 1e-3  # the fixture tells the two apart


def test_cvbench_2d_rows_are_scored_as_the_original_scored_them():
    import pandas as pd

    result = pd.read_excel(CVBENCH / "cvbench-model" / "cvbench-model_CV-Bench-2D_exact_matching_result.xlsx")
    ours = _row_scores("vlmevalkit-cvbench2d", CVBENCH / "cvbench-model" / "cvbench-model_CV-Bench-2D.xlsx")
    theirs = {str(i): float(h) for i, h in zip(result["index"], result["hit"])}
    assert ours.keys() == theirs.keys()
    assert [i for i in ours if ours[i] != theirs[i]] == []


def test_cvbench_3d_stays_in_the_multiple_choice_family():
    from rulekit.report.reproduce import split_name

    assert split_name("m_CV-Bench-3D")[1:] == ("CV-Bench-3D", split_name("m_MMStar")[2])
    assert split_name("m_CV-Bench-2D")[2].name == "cvbench-2d"


# ---------------------------------------------------------------- MTVQA: containment, per language, `_acc.json`
MTVQA = FIXTURES / "vlmevalkit-mtvqa"


def test_mtvqa_acc_json_is_given_back_per_language_and_average():
    """MTVQADataset.evaluate's `_acc.json` (written by the original): all nine languages and Average."""
    code, rows = _reproduce(MTVQA)
    assert code == 0, [r for r in rows if not r["matched"]]
    rows = [r for r in rows if r["model"] == "mtvqa-model"]
    assert {r["metric"] for r in rows} == {"AR", "DE", "FR", "IT", "JA", "KR", "RU", "TH", "VI", "Average"}
    assert {r["ruleset"] for r in rows} == {"vlmevalkit-mtvqa"}
    report = json.loads((MTVQA / "mtvqa-model" / "mtvqa-model_MTVQA_TEST_acc.json").read_text())
    for r in rows:
        assert r["reproduced"] == pytest.approx(report[r["metric"]], abs=1e-9)


def test_mtvqa_first_scorer_acc_csv_is_given_back_with_its_generation_named():
    """The pull request's MTVQA_eval.py (2024-07-03) on the same sheet: a column per language, fractions, no
    Average; its numbers differ from today's generation, which must not give them back."""
    code, rows = _reproduce(MTVQA)
    assert code == 0
    old = {r["metric"]: r for r in rows if r["model"] == "mtvqa-2024"}
    assert set(old) == {"AR", "DE", "FR", "IT", "JA", "KR", "RU", "TH", "VI"}
    assert {r["ruleset"] for r in old.values()} == {"vlmevalkit-mtvqa@v1"}
    new = {r["metric"]: r for r in rows if r["model"] == "mtvqa-model"}
    assert sum(abs(old[m]["reproduced"] * 100 - new[m]["reproduced"]) > 1 for m in old) >= 5


def test_mtvqa_fixture_exercises_containment_and_the_period_rule():
    """The fixture has rows that only the original's rules get right (else a plain equality or a rule
    keeping periods could pass the test above)."""
    import pandas as pd

    sheet = pd.read_excel(MTVQA / "mtvqa-model" / "mtvqa-model_MTVQA_TEST.xlsx")
    pairs = [(str(a).strip().lower(), str(p).strip().lower()) for a, p in zip(sheet["answer"], sheet["prediction"])]
    scores = _row_scores("vlmevalkit-mtvqa", MTVQA / "mtvqa-model" / "mtvqa-model_MTVQA_TEST.xlsx")
    by_index = [scores[str(i)] for i in sheet["index"]]
    inside = [s for s, (a, p) in zip(by_index, pairs) if a != p and a in p]
    periods = [s for s, (a, p) in zip(by_index, pairs) if a.replace(".", "") in p.replace(".", "") and a not in p]
    assert len(inside) >= 5 and set(inside) == {1.0}
    assert len(periods) >= 3 and set(periods) == {1.0}


# ---------------------------------------------------------------- multiple-choice names (ImageMCQDataset.evaluate)
@pytest.mark.parametrize("dataset", ["tdbench_rot90", "MUIRBench", "SpatialEval", "MMStar_KO", "CVQA_EN"])
def test_datasets_scored_by_the_plain_multiple_choice_evaluate_are_in_its_family(tmp_path, dataset):
    """Their class adds no `evaluate` (or, TDBench, the same mcq_vanilla_eval + report_acc): the
    multiple-choice rules, report_acc's table."""
    rows = ["index\tquestion\tA\tB\tanswer\tcategory\tprediction", "1\tq\tx\ty\tA\tc1\tA", "2\tq\tx\ty\tB\tc1\tA",
            "3\tq\tx\ty\tB\tc2\t(B) y", "4\tq\tx\ty\tA\tc2\tI cannot tell"]
    (tmp_path / f"m_{dataset}.tsv").write_text("\n".join(rows) + "\n")
    (tmp_path / f"m_{dataset}_acc.csv").write_text("split,Overall,c1,c2\nnone,0.5,0.5,0.5\n")
    code, got = _reproduce(tmp_path)
    assert code == 0, got
    assert {r["ruleset"] for r in got} == {"vlmevalkit"} and len(got) == 3


@pytest.mark.parametrize("dataset,cls", [("LEGO", "LEGO"), ("MMSci_DEV_MCQ", "ImageMCQDataset")])
def test_multiple_choice_datasets_with_their_own_scoring_stay_not_supported(tmp_path, dataset, cls):
    """LEGO matches with can_infer_lego, MMSci reports with report_acc_MMSci: not the family's rules."""
    rows = ["index\tquestion\tA\tB\tanswer\tprediction", "1\tq\tx\ty\tA\tA"]
    (tmp_path / f"m_{dataset}.tsv").write_text("\n".join(rows) + "\n")
    (tmp_path / f"m_{dataset}_acc.csv").write_text("split,Overall\nnone,1.0\n")
    code, got = _reproduce(tmp_path)
    assert code == 1 and got[0]["ruleset"] is None
    assert got[0]["notes"][0].startswith(f"not supported: {dataset} ("), got[0]["notes"]
