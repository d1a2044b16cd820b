"""Older and odd report formats (issue 30, class 2): each is read and its numbers given back from the prediction and
judge sheets beside it; every fixture was written by the ORIGINAL writer of its era run unchanged in scratch (the
README beside it names the commit and the command). A malformed file is a located note in `missed`, never a crash."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "reproduce"
TABLES = FIXTURES / "vlmevalkit-2023-tables"


def _reproduce(*paths):
    result = CliRunner().invoke(main, ["reproduce", *map(str, paths), "--format", "json"])
    return result, (json.loads(result.stdout) if result.stdout.startswith("{") else None)


@pytest.mark.parametrize("folder, writer, overall_acc, n", [
    ("prefetch-7057afc9", "vlmevalkit-prefetch@v1", "49.10941475826972", 45),  # hit / match
    ("prefetch-e9eeb1df", "vlmevalkit-prefetch@v2", "48.25", 40),  # hit / tot
])
def test_a_prefetch_table_is_given_back_with_its_writers_generation(folder, writer, overall_acc, n):
    """Every number of `_prefetch.xlsx` (Category, tot, match, hit, match_rate, acc; a row per category and
    Overall) comes back, and the writer generation that divides `hit` the way the file did is named with its
    dates; the can_infer chosen is one whose dates meet the writer's."""
    result, out = _reproduce(TABLES / folder)
    assert result.exit_code == 0, result.output
    rows = out["results"]
    assert len(rows) == n and all(r["matched"] for r in rows) and out["missed"] == []
    assert {r["metric"] for r in rows} == {"tot", "match", "hit", "match_rate", "acc"}
    assert {r["writer"]["name"] for r in rows} == {writer}
    assert {r["reported"] for r in rows if r["split"] == "Overall" and r["metric"] == "acc"} == {overall_acc}
    by = {(r["split"], r["metric"]): r["reported"] for r in rows}
    assert (by[("Overall", "tot")], by[("Overall", "match")], by[("Overall", "hit")]) == ("400", "393", "193")
    chosen = {r["generation"]["name"] for r in rows}
    assert len(chosen) == 1 and chosen <= {"vlmevalkit@v0a", "vlmevalkit@v0b", "vlmevalkit@v0c", "vlmevalkit@v1"}
    g, w = rows[0]["generation"], rows[0]["writer"]
    assert g["from"] <= (w["until"] or "9999") and w["from"] <= (g["until"] or "9999")


def test_the_two_writer_generations_differ_where_rows_went_unmatched():
    """7 rows can_infer cannot read: the two eras' tables differ on `acc` of Overall and of the categories with
    unmatched rows (so one writer generation cannot give both back). In the 7057afc9 fixture three of those rows
    were given a category of their own, which the writer then reports with match 0 and acc 0 (not a division
    by zero: `per-zero`)."""
    one = {(r["split"], r["metric"]): r["reported"] for r in _reproduce(TABLES / "prefetch-7057afc9")[1]["results"]}
    two = {(r["split"], r["metric"]): r["reported"] for r in _reproduce(TABLES / "prefetch-e9eeb1df")[1]["results"]}
    assert {k for k in one.keys() & two.keys() if one[k] != two[k]} >= {("Overall", "acc"), ("sketch_reasoning", "acc")}
    assert [one[("unmatched_only", m)] for m in ("tot", "match", "hit", "match_rate", "acc")] == ["3", "0", "0", "0", "0"]


def test_the_first_weeks_score_xlsx_is_the_same_table(tmp_path):
    """prefetch_acc of the first commit (9ac258c1, 2023-11-25) wrote the same table as `_score.xlsx` (its own
    import, vlmeval.mllm.llm_fastroll_0630, is missing from that commit, so it cannot be run here: the
    1711b013 table is renamed for the test)."""
    run = tmp_path / "vila_13b"
    run.mkdir()
    shutil.copy(TABLES / "prefetch-7057afc9/vila_13b/vila_13b_CCBench.xlsx", run)
    shutil.copy(TABLES / "prefetch-7057afc9/vila_13b/vila_13b_CCBench_prefetch.xlsx", run / "vila_13b_CCBench_score.xlsx")
    result, out = _reproduce(run)
    assert result.exit_code == 0, result.output
    assert len(out["results"]) == 45 and all(r["matched"] for r in out["results"])
    assert {r["report"] for r in out["results"]} == {"vila_13b_CCBench_score.xlsx"}


def test_mmvets_2023_gpt4_score_xlsx_is_given_back_from_its_judge_sheet():
    """MMVet_acc @ ca3c9b52 (2023-12-06) wrote `<judge sheet>_score.xlsx` (Category, tot, acc; each capability
    counted once): given back by `vlmevalkit-mmvet@v1+judge` with the sheet's scores replayed."""
    result, out = _reproduce(TABLES / "mmvet-ca3c9b52")
    assert result.exit_code == 0, result.output
    rows = out["results"]
    assert len(rows) == 14 and all(r["matched"] for r in rows)
    assert {r["ruleset"] for r in rows} == {"vlmevalkit-mmvet@v1+judge"}
    assert {(r["split"], r["metric"]): r["reported"] for r in rows}[("rec", "tot")] == "135"


def test_a_malformed_prefetch_table_is_a_located_note_and_the_other_files_go_on(tmp_path):
    """A table whose `tot` is text: that file is named in `missed` with the row, the good one next to it is
    given back, exit 1."""
    import openpyxl

    bad = tmp_path / "bad"
    bad.mkdir()
    shutil.copy(TABLES / "prefetch-7057afc9/vila_13b/vila_13b_CCBench.xlsx", bad)
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Category", "tot", "match", "hit", "match_rate", "acc"])
    sheet.append(["Overall", "four hundred", 393, 193, 98.25, 49.1])
    book.save(bad / "vila_13b_CCBench_prefetch.xlsx")
    result, out = _reproduce(bad, TABLES / "prefetch-e9eeb1df")
    assert result.exit_code == 1, result.output
    assert len(out["results"]) == 40 and all(r["matched"] for r in out["results"])
    (missed,) = out["missed"]
    assert missed["file"].endswith("bad/vila_13b_CCBench_prefetch.xlsx") and ":2" in missed["where"]
    assert "`tot` is not a number" in missed["why"]


def test_a_report_whose_key_column_is_text_is_read_as_row_keys(tmp_path):
    """VGRPBench's `_score.csv` ("category","Perception Score","Answer Score", a row per puzzle) has no `split`
    column: its first column, text throughout, names the rows (once E300 "`category` is not a number" for the
    whole file); a first column of numbers is still read as numbers."""
    from rulekit.report.reproduce.published import read_report

    report = tmp_path / "m_VGRPBench_score.csv"
    report.write_text('"category","Perception Score","Answer Score"\n"nonogram_5x5","50.0","12.5"\n'
                      '"sudoku_4x4","100.0","0.0"\n')
    assert [(n.split, n.metric, n.text) for n in read_report(report)] == [
        ("nonogram_5x5", "Perception Score", "50.0"), ("nonogram_5x5", "Answer Score", "12.5"),
        ("sudoku_4x4", "Perception Score", "100.0"), ("sudoku_4x4", "Answer Score", "0.0")]
    numbers = tmp_path / "m_MTVQA_TEST_acc.csv"
    numbers.write_text('"AR","DE"\n"10.5","20.0"\n')
    assert [(n.split, n.metric) for n in read_report(numbers)] == [("none", "AR"), ("none", "DE")]
    mixed = tmp_path / "m_X_acc.csv"
    mixed.write_text('"category","acc"\n"a","1.0"\n"2","x"\n')
    with pytest.raises(Exception, match="`category` is not a number"):
        read_report(mixed)


TDBENCH = FIXTURES / "vlmevalkit-tdbench"


def test_tdbenchs_rotational_consistency_table_is_given_back_from_the_four_rotations():
    """`<model>_tdbench_REresult.csv` (no rotation in its stem) is computed over the four `_rotN` sheets: every
    one of its 28 numbers comes back from the per-rotation decisions (the family's rollup, data), and so do the
    16 numbers of the four per-rotation `_acc.csv`; no rotation sheet is said to be alone."""
    result, out = _reproduce(TDBENCH)
    assert result.exit_code == 0, result.output
    rows = [r for r in out["results"] if r["report"] == "tdbench-model_tdbench_REresult.csv"]
    assert len(rows) == 28 and all(r["matched"] for r in rows)
    assert len(out["results"]) == 44 and all(r["matched"] for r in out["results"]) and out["missed"] == []
    by = {(r["split"], r["metric"]): r for r in rows}
    assert by[("Average", "total_questions")]["reported"] == "40"  # the mean 40.0 of 30, 43, 47, cast to int
    assert by[("Average", "hit_all")]["reported"] == "0.022"  # rounded to 3 by the writer
    assert by[("counting", "hit_all")]["reproduced"] == pytest.approx(1 / 43)
    assert not any("no published number next to it" in n for n in out["notes"])


def test_a_rotational_table_with_a_rotation_missing_is_a_located_note(tmp_path):
    """Without `_rot180.xlsx` the table cannot be recomputed: a missed note naming the part; the rotations that
    are there are still given back."""
    run = tmp_path / "tdbench-model"
    shutil.copytree(TDBENCH / "tdbench-model", run)
    for f in run.glob("tdbench-model_tdbench_rot180*"):
        f.unlink()
    result, out = _reproduce(run)
    assert result.exit_code == 1, result.output
    (missed,) = out["missed"]
    assert missed["file"].endswith("tdbench-model_tdbench_REresult.csv")
    assert "no prediction file tdbench-model_tdbench_rot180.xlsx or .tsv next to it (its part `rot180`)" in missed["why"]
    assert len(out["results"]) == 12 and all(r["matched"] for r in out["results"])


def test_a_malformed_rotational_table_is_a_located_note(tmp_path):
    """A cell that is not a number: the file is named in `missed` with its line, never a crash."""
    run = tmp_path / "tdbench-model"
    shutil.copytree(TDBENCH / "tdbench-model", run)
    table = run / "tdbench-model_tdbench_REresult.csv"
    table.write_text(table.read_text().replace("0.022", "No Data"))
    result, out = _reproduce(run)
    assert result.exit_code == 1, result.output
    (missed,) = out["missed"]
    assert missed["where"].startswith(str(table) + ":5")
    assert "`hit_all` is not a number" in missed["why"]


VGRP = FIXTURES / "vlmevalkit-vgrpbench"


def test_vgrpbench_is_given_back_from_its_replayed_verdicts_and_says_so(tmp_path):
    """A row per puzzle (`category`, text) with Perception and Answer Score: the means of the result sheet's
    `perception_correct` / `answer_correct` per category, ×100; every row names the verdicts as replayed. The
    prediction sheet is not needed (the result sheet repeats it); a flipped verdict is not given back."""
    result, out = _reproduce(VGRP)
    assert result.exit_code == 0, result.output
    rows = out["results"]
    assert len(rows) == 10 and all(r["matched"] for r in rows)
    assert {r["ruleset"] for r in rows} == {"(verdicts replayed)"}
    assert all(any("were replayed, not recomputed" in n for n in r["notes"]) for r in rows)
    assert {(r["split"], r["metric"]): r["reported"] for r in rows}[("kakuro_4x4", "Answer Score")] == "11.8"

    import openpyxl

    run = tmp_path / "vgrp-model"
    shutil.copytree(VGRP / "vgrp-model", run)
    (run / "vgrp-model_VGRPBench.xlsx").unlink()
    result, out = _reproduce(run)
    assert result.exit_code == 0 and len(out["results"]) == 10 and all(r["matched"] for r in out["results"])
    sheet = run / "vgrp-model_VGRPBench_openai_result.xlsx"
    book = openpyxl.load_workbook(sheet)
    cells = book.active
    header = [c.value for c in cells[1]]
    column = header.index("answer_correct") + 1
    cells.cell(row=2, column=column).value = not cells.cell(row=2, column=column).value
    book.save(sheet)
    result, out = _reproduce(run)
    assert result.exit_code == 1
    assert sum(not r["matched"] for r in out["results"]) == 1


def test_a_vgrpbench_score_file_without_verdicts_to_replay_says_so(tmp_path):
    """Only the prediction sheet beside the score file (no `_openai_result.xlsx`): nothing to replay, said on
    every row, exit 1 — never a number made up."""
    run = tmp_path / "vgrp-model"
    shutil.copytree(VGRP / "vgrp-model", run)
    (run / "vgrp-model_VGRPBench_openai_result.xlsx").unlink()
    result, out = _reproduce(run)
    assert result.exit_code == 1, result.output
    assert len(out["results"]) == 10 and not any(r["matched"] for r in out["results"])
    assert all(r["reproduced"] is None for r in out["results"])
    assert "vgrp-model_VGRPBench.xlsx has no `perception_correct` or `answer_correct` verdicts: nothing to replay" \
        in out["results"][0]["notes"]


def test_score_file_words_per_zero_and_int():
    """`per-zero: V` is the writer's figure where `per:` divides by 0 (VLMEvalKit's prefetch table writes 0 for a
    category can_infer matched nothing of; without it, no figure); `int: true` cuts to a whole number as pandas'
    astype(int) (TDBench's Average total_questions: 40.67 → 40)."""
    from rulekit.report.reproduce.numbers import score_file_numbers
    from rulekit.report.reproduce.published import Published

    metrics = {"correct": 0, "outcomes": {}, "mean": {"questions": 40.67}}
    numbers = [Published("x", "acc", "0"), Published("x", "acc_none", "0"), Published("Average", "q", "40")]
    spec = {"numbers": {"*/acc": {"path": "correct", "per": "outcomes.rule", "count": True, "per-zero": 0, "scale": 100},
                        "*/acc_none": {"path": "correct", "per": "n", "scale": 100},
                        "Average/q": {"path": "mean.questions", "int": True}}}
    metrics["n"] = 0
    ours = score_file_numbers(numbers, metrics, spec)
    assert ours == {("x", "acc"): 0.0, ("x", "acc_none"): None, ("Average", "q"): 40.0}


def test_part_rollup_joins_the_parts_by_id_and_key_as_an_inner_merge():
    """A question is counted only where every part holds it (same id and category); `all` / `none` are the shares
    right in every part / in none; `mean` is the unweighted mean over the categories."""
    from types import SimpleNamespace

    from rulekit.report.reproduce.parts import part_rollup

    def recs(*pairs):
        return [SimpleNamespace(id=i, meta={"category": c}) for i, c in pairs]

    a = (recs(("1", "x"), ("2", "x"), ("3", "y"), ("4", "y")), [True, False, True, True])
    b = (recs(("1", "x"), ("2", "x"), ("3", "y"), ("5", "y")), [True, False, False, True])
    got = part_rollup("category", [("rot0", *a), ("rot90", *b)])
    assert got["by"]["x"] == {"questions": 2, "all": 0.5, "none": 0.5, "part": {"rot0": 0.5, "rot90": 0.5}}
    assert got["by"]["y"] == {"questions": 1, "all": 0.0, "none": 0.0, "part": {"rot0": 1.0, "rot90": 0.0}}
    assert got["mean"] == {"questions": 1.5, "all": 0.25, "none": 0.25, "part": {"rot0": 0.75, "rot90": 0.25}}


@pytest.mark.parametrize("cell, value", [(True, 1.0), (False, 0.0), (1, 1.0), (0.5, 0.5), ("True", 1.0),
                                         (" false ", 0.0), ("1", 1.0), (None, None), (float("nan"), None),
                                         ("nan", None), ("yes", None), ([1], None)])
def test_a_replayed_verdict_cell_is_read_as_pandas_mean_reads_it(cell, value):
    from rulekit.report.reproduce.verdicts import verdict

    assert verdict(cell) == value


MMMU = FIXTURES / "vlmevalkit-mmmu-2023"


def test_mmmus_four_sheet_table_of_december_2023_is_given_back():
    """Every number of the four sheets (field with Overall, subfield, difficulty, image_type) comes back with
    `vlmevalkit-mmmu@v1`; the open replies that contain their gold count in the field rows' match and hit but not
    in Overall's."""
    result, out = _reproduce(MMMU)
    assert result.exit_code == 0, result.output
    rows = out["results"]
    assert len(rows) == 125 and all(r["matched"] for r in rows)
    assert {r["ruleset"] for r in rows} == {"vlmevalkit-mmmu@v1"}
    assert {r["split"].split(".", 1)[0] for r in rows} == {"field", "subfield", "difficulty", "image_type"}
    by = {(r["split"], r["metric"]): r["reported"] for r in rows}
    fields = [s for s, m in by if s.startswith("field.") and s != "field.Overall" and m == "match"]
    assert by[("field.Overall", "match")] == "159" and sum(int(by[(s, "match")]) for s in fields) == 165
    assert by[("field.Overall", "tot")] == "240"


def test_an_acc_xlsx_of_another_dataset_is_not_mmmus_2023_table(tmp_path):
    """`of-datasets:` keeps the MMMU family to MMMU: a one-sheet `_acc.xlsx` of AI2D is read as an accuracy table."""
    import openpyxl

    (tmp_path / "m_AI2D_TEST.tsv").write_text("index\tquestion\tA\tB\tanswer\tprediction\n1\tq\tx\ty\tA\tA\n")
    book = openpyxl.Workbook()
    book.active.append(["split", "Overall"])
    book.active.append(["none", 1.0])
    book.save(tmp_path / "m_AI2D_TEST_acc.xlsx")
    result, out = _reproduce(tmp_path)
    assert result.exit_code == 0, result.output
    assert [(r["split"], r["metric"], r["matched"]) for r in out["results"]] == [("none", "Overall", True)]


def test_a_sheet_without_its_name_column_is_a_located_note(tmp_path):
    """A four-sheet table whose `subfield` sheet lost its `subfield` column: E300 located at that sheet."""
    import openpyxl

    run = tmp_path / "mmmu-model"
    shutil.copytree(MMMU / "mmmu-model", run)
    table = run / "mmmu-model_MMMU_DEV_VAL_acc.xlsx"
    book = openpyxl.load_workbook(table)
    book["subfield"].cell(row=1, column=2).value = "renamed"
    book.save(table)
    result, out = _reproduce(run)
    assert result.exit_code == 1, result.output
    (missed,) = out["missed"]
    assert missed["where"].startswith(f"{table}[subfield]:1") and "needs a `subfield` column" in missed["why"]
