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


@pytest.mark.parametrize("folder, writer, overall_acc", [
    ("prefetch-7057afc9", "vlmevalkit-prefetch@v1", "49.10941475826972"),  # hit / match
    ("prefetch-e9eeb1df", "vlmevalkit-prefetch@v2", "48.25"),  # hit / tot
])
def test_a_prefetch_table_is_given_back_with_its_writers_generation(folder, writer, overall_acc):
    """Every number of `_prefetch.xlsx` (Category, tot, match, hit, match_rate, acc; 8 rows) comes back, and the
    writer generation that divides `hit` the way the file did is named with its dates; the can_infer chosen is
    one whose dates meet the writer's."""
    result, out = _reproduce(TABLES / folder)
    assert result.exit_code == 0, result.output
    rows = out["results"]
    assert len(rows) == 40 and all(r["matched"] for r in rows) and out["missed"] == []
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
    """7 rows can_infer cannot read: the two eras' tables of the same predictions differ on `acc` of Overall and
    of the three categories with unmatched rows only (so one writer generation cannot give both back)."""
    one = _reproduce(TABLES / "prefetch-7057afc9")[1]["results"]
    two = _reproduce(TABLES / "prefetch-e9eeb1df")[1]["results"]
    differ = {(a["split"], a["metric"]) for a, b in zip(one, two) if a["reported"] != b["reported"]}
    assert differ == {("Overall", "acc"), ("traditional_show", "acc"), ("calligraphy_painting", "acc"),
                      ("sketch_reasoning", "acc")}


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
    assert len(out["results"]) == 40 and all(r["matched"] for r in out["results"])
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
