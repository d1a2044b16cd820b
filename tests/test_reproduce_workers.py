"""`rulekit reproduce --workers N`: files read and scored in forked workers give the same output, byte for
byte, as one process (rows, notes, `missed`, the generation each file's run votes for), and a file that
fails in a worker is a located note while the others are kept."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main
from rulekit.report.reproduce import pool

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "reproduce"


def _run(*args):
    return CliRunner().invoke(main, ["reproduce", *map(str, args)])


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    """Several frameworks' files at once (VLMEvalKit with a judge sheet and repeated indexes, lmms-eval, MMEvalPro)
    and a folder of broken files: a report whose number is not one (a missed file) and a prediction file that
    is not a workbook (its worker's read fails)."""
    for name in ("vlmevalkit-index-join", "vlmevalkit-vqa", "vlmevalkit-cvbench", "lmms-eval", "mmevalpro-v1"):
        shutil.copytree(FIXTURES / name, tmp_path / name)
    shutil.copytree(FIXTURES / "vlmevalkit-vila" / "vila_8b", tmp_path / "vila" / "vila_8b")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "m_MMStar_acc.csv").write_text("split,Overall\nnone,abc\n")
    (bad / "m_MMStar.tsv").write_text("index\tquestion\tA\tB\tanswer\tprediction\n1\tq\tx\ty\tA\tA\n")
    (bad / "m_ScienceQA_TEST_acc.csv").write_text("split,Overall\nnone,1.0\n")
    (bad / "m_ScienceQA_TEST.xlsx").write_bytes(b"PK\x03\x04 not really a workbook")
    (bad / "m_AI2D_TEST_acc.csv").write_text("split,Overall\nnone,0.5\n")
    (bad / "m_AI2D_TEST.tsv").write_text("index\tquestion\tA\tB\tanswer\tprediction\n1\tq\tx\ty\tA\tA\n"
                                         "2\tq\tx\ty\tB\tA\n")
    return tmp_path


def _spy(monkeypatch) -> list[int]:
    """Counts the runs that forked workers (how many each)."""
    forked: list[int] = []
    real = pool._in_workers

    def counting(artifacts, loaded, n):
        forked.append(n)
        return real(artifacts, loaded, n)

    monkeypatch.setattr(pool, "_in_workers", counting)
    return forked


@pytest.mark.slow  # the same work dir reproduced six times (seconds)
def test_any_number_of_workers_gives_the_one_process_output_byte_for_byte(work, monkeypatch):
    forked = _spy(monkeypatch)
    dirs = sorted(p for p in work.iterdir() if p.is_dir())
    outputs = {}
    for workers in (1, 2, 3):
        for fmt in ("json", "markdown"):
            result = _run(*dirs, "--format", fmt, "--workers", workers)
            assert "Traceback" not in result.output, result.output
            outputs[workers, fmt] = (result.exit_code, result.stdout)
    assert forked == [2, 2, 3, 3]  # --workers 1 never forks; 2 and 3 did
    for workers in (2, 3):
        for fmt in ("json", "markdown"):
            assert outputs[workers, fmt] == outputs[1, fmt], (workers, fmt)
    code, text = outputs[2, "json"]
    out = json.loads(text)
    assert code == 1  # the broken folder
    # the broken folder's report, and the lmms-eval fixture's run whose samples log is not there
    assert [Path(m["file"]).name for m in out["missed"]] == ["m_MMStar_acc.csv", "20260218_234435_results.json"]
    rows = {(Path(r["file"]).name, r["metric"]): r for r in out["results"]}
    assert rows["m_AI2D_TEST.tsv", "Overall"]["reproduced"] == 0.5  # kept beside the broken ones
    sqa = rows["m_ScienceQA_TEST.xlsx", "Overall"]  # read in a worker, failed there: a note, nothing reproduced
    assert sqa["reproduced"] is None and any("error[E301]" in n and n.endswith("; not reproduced")
                                             for n in sqa["notes"]), sqa["notes"]
    frameworks = {r["framework"] for r in out["results"]}
    assert frameworks == {"vlmevalkit", "lmms-eval", "mmevalpro"}
    assert sum(r["matched"] for r in out["results"]) > 20


def test_a_worker_that_dies_leaves_its_file_unreproduced_with_a_note_and_the_others_kept(work, monkeypatch):
    """A worker killed on one file (as by the system, out of memory): that file's numbers are rows with nothing
    reproduced and an E510 note; every other file is reproduced as in one process."""
    forked = _spy(monkeypatch)
    real = pool.file_outcome

    def dying(art, loaded):
        if art.benchmark == "ScienceQA_TEST" and os.getpid() != parent:
            os._exit(9)
        return real(art, loaded)

    parent = os.getpid()
    monkeypatch.setattr(pool, "file_outcome", dying)
    bad = work / "bad"
    one = json.loads(_run(bad, "--format", "json", "--workers", 1).stdout)
    out = json.loads(_run(bad, "--format", "json", "--workers", 2).stdout)
    assert forked == [2]
    rows = {(Path(r["file"]).name, r["metric"]): r for r in out["results"]}
    sqa = rows["m_ScienceQA_TEST.xlsx", "Overall"]
    assert sqa["reproduced"] is None and any(n.startswith(f"{bad / 'm_ScienceQA_TEST.xlsx'}: error[E510]: the worker")
                                             for n in sqa["notes"]), sqa["notes"]
    others = [r for r in out["results"] if r["benchmark"] != "ScienceQA_TEST"]
    assert others == [r for r in one["results"] if r["benchmark"] != "ScienceQA_TEST"] and others
    assert out["missed"] == one["missed"]


def test_an_outcome_is_plain_data_and_the_merge_votes_per_framework():
    """What a worker sends back holds only values marshal writes (no object of a file's making), and the merge
    takes each file's rows for the generation most files of its framework give back."""
    import marshal

    from rulekit.report.reproduce import find_artifacts

    arts, _ = find_artifacts([str(FIXTURES / "vlmevalkit-vqa")])
    outs = [pool.file_outcome(art, {}) for art in arts]
    assert [marshal.loads(marshal.dumps(o)) for o in outs] == outs
    fake = [{"framework": "f", "best": ["a", "b"], "tied": ["a", "b"], "rows": {"a": [], "b": []}},
            {"framework": "f", "best": ["b"], "tied": ["b"], "rows": {"b": []}},
            {"framework": "g", "best": ["a"], "tied": ["a"], "rows": {"a": []}}]
    for out, row in zip(fake, outs[0]["rows"][outs[0]["tied"][0] if outs[0]["tied"] else ""][:1] * 3):
        for gen in out["rows"]:
            out["rows"][gen] = [dict(row, ruleset=gen + out["framework"])]
    assert [r.ruleset for r in pool.merged_rows(fake)] == ["bf", "bf", "ag"]  # b: 2 votes in f, a: 1


def test_a_workers_warnings_come_back_and_are_counted_in_the_files_order(tmp_path):
    """W313 (formula cells without a cached value, read as empty) raised while a worker reads a sheet is counted
    in the parent as one process counts it: the same code, count, first cell and location."""
    import openpyxl

    from rulekit.core.errors import WARNINGS

    for model in ("m1", "m2"):
        folder = tmp_path / model
        folder.mkdir()
        wb = openpyxl.Workbook()
        ws = wb.active
        ws.append(["index", "question", "A", "B", "answer", "prediction", "note"])
        ws.append([1, "q", "x", "y", "A", "A", "=1+1"])  # openpyxl writes the formula without a value
        ws.append([2, "q", "x", "y", "B", "A", "=2+2" if model == "m2" else "plain"])
        wb.save(folder / f"{model}_AI2D_TEST.xlsx")
        (folder / f"{model}_AI2D_TEST_acc.csv").write_text("split,Overall\nnone,0.5\n")
    seen = {}
    for workers in (1, 2):
        WARNINGS.clear()
        rows, _ = pool.reproduce([str(tmp_path)], workers=workers)
        seen[workers] = (WARNINGS.lines(), [r.as_dict() for r in rows])
    WARNINGS.clear()
    lines = seen[1][0]
    assert len(lines) == 1 and "warning[W313]: 3 formula cells" in lines[0] and "m1_AI2D_TEST.xlsx" in lines[0], lines
    assert seen[2] == seen[1]
