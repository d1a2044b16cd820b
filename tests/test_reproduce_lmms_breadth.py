"""Issue 30, class 4 (breadth) for lmms-eval: POPE, the built-in exact_match (GQA, AI2D), the built-in ANLS
(DocVQA / InfoVQA val) and ChartQA's relaxed accuracy, each checked on a run written by lmms-eval's ORIGINAL
scorers (tests/fidelity/lmms_eval/harness/write_runs.py; the fixture's README names the commit)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main
from rulekit.core.records import Record
from rulekit.core.trace import Decision
from rulekit.language.schema import BinarySpec
from rulekit.metrics.binary import binary_metrics

RUN = Path(__file__).parent / "fixtures" / "reproduce" / "lmms-eval-breadth" / "run"
STAMP = "20250912_101500"


def _reproduce(path: Path) -> tuple[int, dict]:
    result = CliRunner().invoke(main, ["reproduce", "--format", "json", str(path)])
    return result.exit_code, json.loads(result.stdout)


def test_every_number_and_every_sample_of_the_original_run_is_given_back():
    code, out = _reproduce(RUN)
    rows = out["results"]
    assert code == 0 and not out["missed"], [r for r in rows if not r["matched"]]
    got = {(r["benchmark"], r["metric"]): r["ruleset"] for r in rows}
    assert got == {("pope", f"pope_{m},none"): "lmms-eval-pope"
                   for m in ("accuracy", "precision", "recall", "f1_score", "yes_ratio")} | {
        ("gqa", "exact_match,none"): "lmms-eval-exact-match", ("docvqa_val", "anls,none"): "lmms-eval-anls",
        **{("chartqa", f"relaxed_{m},none"): "lmms-eval-chartqa" for m in ("overall", "human_split", "augmented_split")}}
    for r in rows:  # per-record agreement with the values the original logged, not only the averages
        assert any("per-record scores equal the samples log" in n for n in r["notes"]), r["notes"]
    published = json.loads((RUN / f"{STAMP}_results.json").read_text())["results"]
    assert {r["reported"] for r in rows if r["benchmark"] == "chartqa"} == {
        repr(published["chartqa"][k]) for k in ("relaxed_overall,none", "relaxed_human_split,none",
                                                 "relaxed_augmented_split,none")}
    # the splits are means over different records: they differ from each other and from the overall
    assert len({published["chartqa"][k] for k in published["chartqa"] if k.startswith("relaxed_") and "_stderr" not in k}) == 3


def test_a_changed_reply_is_caught(tmp_path):
    """The test can fail: one POPE reply changed after the run (its logged score and the published numbers
    kept) is a record whose score differs, and the numbers are no longer given back."""
    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    samples = run / f"{STAMP}_samples_pope.jsonl"
    lines = [json.loads(x) for x in samples.read_text().splitlines()]
    first = next(x for x in lines if x["filtered_resps"] == "Yes" and x["target"] == "yes")
    first["filtered_resps"] = "No"
    samples.write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, out = _reproduce(run)
    pope = [r for r in out["results"] if r["benchmark"] == "pope"]
    assert code == 1 and not all(r["matched"] for r in pope)
    assert any("differ from the samples log" in n for n in pope[0]["notes"])


def test_a_task_without_a_ruleset_is_reported_not_supported(tmp_path):
    """A task the registry does not name is never scored with another task's rules."""
    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    report = run / f"{STAMP}_results.json"
    data = json.loads(report.read_text())
    data["results"]["cmmmu_val"] = data["results"].pop("gqa")
    data["configs"]["cmmmu_val"] = data["configs"].pop("gqa")
    report.write_text(json.dumps(data))
    (run / f"{STAMP}_samples_gqa.jsonl").rename(run / f"{STAMP}_samples_cmmmu_val.jsonl")
    code, out = _reproduce(run)
    assert code == 1
    assert not any(r["benchmark"] == "cmmmu_val" for r in out["results"])
    assert any("not supported: lmms-eval task `cmmmu_val` (no ruleset" in str(n) for n in out["notes"]), out["notes"]


def _binary(pairs, negative):
    records = [Record(str(i), "open", p, g) for i, (p, g) in enumerate(pairs)]
    decisions = [Decision(r.id, p, p == g, None, "extracted", "whole-reply") for r, (p, g) in zip(records, pairs)]
    return binary_metrics(BinarySpec(positive="yes", negative=negative), decisions, records)["binary"]


def test_binary_negative_leaves_a_reply_that_is_neither_label_out_of_the_confusion():
    """lmms-eval's POPE: gold yes answered "maybe" is no false negative; VLMEvalKit's (no `negative`) counts it."""
    pairs = [("yes", "yes"), ("maybe", "yes"), ("no", "yes"), ("yes", "no"), ("no", "no")]
    lmms, vlm = _binary(pairs, "no"), _binary(pairs, None)
    assert (lmms["recall"], vlm["recall"]) == (0.5, 1 / 3)
    assert lmms["precision"] == vlm["precision"] == 0.5
    assert lmms["n"] == vlm["n"] == 5 and lmms["accuracy"] == vlm["accuracy"] == 0.4
    assert lmms["positive_share"] == vlm["positive_share"] == 0.6


OCRBENCH = {"ocrbench-2025": "lmms-eval-ocrbench@v1", "ocrbench-2026-06": "lmms-eval-ocrbench@v2",
            "ocrbench-2026-09": "lmms-eval-ocrbench"}


def test_each_ocrbench_generation_gives_back_its_own_run_and_is_named():
    """The same 48 replies scored by lmms-eval's OCRBench at three commits (f54dd288^, bbddc790^, 75571cfe):
    the accuracies differ (0.024, 0.026, 0.031: lowercased HME replies, fullwidth letters), and each run is
    given back by the generation of its date, per record too."""
    for folder, ruleset in OCRBENCH.items():
        code, out = _reproduce(RUN.parent / folder)
        [row] = out["results"]
        assert code == 0 and row["matched"] and row["ruleset"] == ruleset, row
        assert any("per-record scores equal the samples log" in n for n in row["notes"])
        assert not any(n.startswith("also reproduced by") for n in row["notes"]), row["notes"]


def test_seedbench_generations_mmstar_and_blink_runs_are_given_back():
    """SEED-Bench scored at three commits (75571cfe, 9a4bc109^, 7388114b^: first character ignoring case,
    first character exactly, the whole reply) on the same replies, SEED-Bench-2-Plus, MMStar's 2024-2026
    exact_match and its 2026 extract_mcq_answer on 180 real replies (means of l2-category means), RealWorldQA's
    2026 scorer (letter golds extracted, open golds compared whole), BLINK's and CV-Bench's leading
    letter on real BLINK replies, MuirBench, V*Bench (percent) on real replies of three models, MMVP (accuracy and pair accuracy), MME-RealWorld at two commits, AI2D through its own
    `flexible-extract` filter (run by the harness; the log's filtered reply is what rulekit scores): every number, each SEED-Bench run by the generation of its date."""
    want = {"letters-2026": {"seedbench": "lmms-eval-seedbench", "seedbench_2_plus": "lmms-eval-seedbench",
                             "blink_art_style": "lmms-eval-letter-start", "blink_counting": "lmms-eval-letter-start",
                             "cv_bench_2d": "lmms-eval-letter-start", "muirbench": "lmms-eval-muirbench",
                             "vstar_bench": "lmms-eval-vstar", "mmvp": "lmms-eval-mmvp",
                             "mmerealworld": "lmms-eval-mme-realworld", "ai2d": "lmms-eval-exact-match"},
            "mmerealworld-2024-10": {"mmerealworld": "lmms-eval-mme-realworld@v1"},
            "seedbench-2024-05": {"seedbench": "lmms-eval-seedbench@v2"},
            "seedbench-2024-02": {"seedbench": "lmms-eval-seedbench@v1"},
            "mmstar-2025": {"mmstar": "lmms-eval-mmstar@v1"},
            "mmstar-2026": {"mmstar": "lmms-eval-mmstar", "realworldqa": "lmms-eval-realworldqa"}}
    counts = {"letters-2026": 16, "mmerealworld-2024-10": 1, "seedbench-2024-05": 3, "seedbench-2024-02": 3, "mmstar-2025": 7, "mmstar-2026": 8}
    seed_values = set()
    for folder, rulesets in want.items():
        code, out = _reproduce(RUN.parent / folder)
        rows = out["results"]
        assert code == 0 and len(rows) == counts[folder] and all(r["matched"] for r in rows), rows
        assert {r["benchmark"]: r["ruleset"] for r in rows} == rulesets
        assert not any(n.startswith("also reproduced by") for r in rows for n in r["notes"])
        seed_values |= {(folder, r["reported"]) for r in rows if r["metric"] == "seed_all,none"}
        for r in rows:
            if r["benchmark"] not in ("seedbench", "seedbench_2_plus", "muirbench", "mmerealworld"):  # no logged verdict
                assert any("per-record scores equal the samples log" in n for n in r["notes"]), r["notes"]
    assert len({v for _, v in seed_values}) == 3  # the generations score these replies differently
    published = [json.loads((RUN.parent / f / f"{stamp}_results.json").read_text())["results"]["mmerealworld"]
                 for f, stamp in (("letters-2026", "20260901_130000"), ("mmerealworld-2024-10", "20241020_090000"))]
    assert len({p["mme_realworld_score,none"] for p in published}) == 2  # "Best answer: C" reads B in 2024


def test_mmstar_metrics_are_means_of_l2_category_means():
    """MMStar's `average` is not the share right over all records: the l2 categories weigh alike."""
    rows = _reproduce(RUN.parent / "mmstar-2025")[1]["results"]
    samples = [json.loads(x) for x in (RUN.parent / "mmstar-2025" / "20251020_090000_samples_mmstar.jsonl")
               .read_text().splitlines()]
    plain = sum(x["average"]["score"] for x in samples) / len(samples)
    average = next(r for r in rows if r["metric"] == "average,none")
    assert average["matched"] and abs(float(average["reported"]) - plain) > 1e-3


VQA = RUN.parent / "vqa-2025-07"  # lmms-eval v0.3.5's textvqa_val / ok_vqa_val2014 / vizwiz_vqa_val, logs with `doc`
VQA_STAMP = "20250720_093000"


def _vqa_copy(tmp_path, edit) -> Path:
    """A copy of the VQA run whose samples lines went through `edit` (a function of one line)."""
    run = tmp_path / "vqa"
    shutil.copytree(VQA, run)
    for samples in run.glob("*_samples_*.jsonl"):
        lines = [edit(json.loads(x)) for x in samples.read_text().splitlines()]
        samples.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    return run


def test_vqa_tasks_are_given_back_from_a_log_that_carries_the_doc():
    """TextVQA, OK-VQA and VizWiz-VQA scored by lmms-eval v0.3.5's own process_results (real TextVQA replies of
    four models): the published exact_match of each and every record's logged score, from the answers the
    logged doc holds (already processed by the scorer, which edits them in place before the line is written)."""
    code, out = _reproduce(VQA)
    rows = out["results"]
    assert code == 0 and not out["missed"] and all(r["matched"] for r in rows), rows
    assert {r["benchmark"]: r["ruleset"] for r in rows} == {
        t: "lmms-eval-vqa" for t in ("textvqa_val", "ok_vqa_val2014", "vizwiz_vqa_val")}
    for r in rows:
        assert any("per-record scores equal the samples log" in n for n in r["notes"]), r["notes"]
    published = json.loads((VQA / f"{VQA_STAMP}_results.json").read_text())["results"]
    assert 0 < published["textvqa_val"]["exact_match,none"] < 1  # partial credit: neither all right nor all wrong


def test_vqa_golds_are_the_logged_doc_answers_not_the_target(tmp_path):
    """The test can fail: one logged answer list changed (the published numbers and logged scores kept) is
    a record whose score differs; the logged `target` is the text "answer", never the gold."""
    first = json.loads((VQA / f"{VQA_STAMP}_samples_textvqa_val.jsonl").read_text().splitlines()[0])
    assert first["target"] == "answer" and len(first["doc"]["answers"]) == 10

    def edit(line):
        if line["exact_match"] > 0 and line["doc_id"] == next_right:
            line["doc"]["answers"] = ["zzz"] * 10
        return line
    lines = [json.loads(x) for x in (VQA / f"{VQA_STAMP}_samples_textvqa_val.jsonl").read_text().splitlines()]
    next_right = next(x["doc_id"] for x in lines if x["exact_match"] > 0)
    code, out = _reproduce(_vqa_copy(tmp_path, edit))
    textvqa = next(r for r in out["results"] if r["benchmark"] == "textvqa_val")
    assert code == 1 and not textvqa["matched"]
    assert any("differ from the samples log" in n for n in textvqa["notes"])


def test_a_slim_vqa_log_is_not_supported_and_says_what_is_missing(tmp_path):
    """lmms-eval 0.4+ logs no `doc`: the ten answers are not in the files, so each task is reported not
    supported, naming what is missing; no number is made up."""
    run = _vqa_copy(tmp_path, lambda line: {k: v for k, v in line.items() if k not in ("doc", "arguments")})
    code, out = _reproduce(run)
    assert code == 1 and out["results"] == []
    whys = [m["why"] for m in out["missed"]]
    for task in ("textvqa_val", "ok_vqa_val2014", "vizwiz_vqa_val"):
        assert any(w.startswith(f"not supported: lmms-eval task `{task}` (its samples log has no `doc`")
                   and "`doc.answers`" in w for w in whys), whys


def test_vqav2_is_given_back_from_a_2024_log_with_its_answer_items():
    """VQAv2 scored by lmms-eval v0.3.0's own vqav2_process_results_val (2024-11; the scorer of 2024-01 ...
    2025-07-16): the golds are the `answer` of each `doc.answers` item (`doc.answers[].answer`), every
    record's logged score and the published mean given back."""
    code, out = _reproduce(RUN.parent / "vqav2-2024-12")
    [row] = out["results"]
    assert code == 0 and row["matched"] and row["ruleset"] == "lmms-eval-vqav2", row
    assert any("per-record scores equal the samples log" in n for n in row["notes"]), row["notes"]


def test_a_field_path_maps_over_the_items_of_a_list():
    """`x[]` in a --field source maps the rest of the path over the list's items; an item without it is
    not found (never a shorter list)."""
    from rulekit.readers.jsonl import lookup

    row = {"doc": {"answers": [{"answer": "2", "answer_id": 1}, {"answer": "two", "answer_id": 2}]}}
    assert lookup(row, "doc.answers[].answer") == (True, ["2", "two"])
    assert lookup(row, "doc.answers[]") == (True, row["doc"]["answers"])
    row["doc"]["answers"].append({"answer_id": 3})
    assert lookup(row, "doc.answers[].answer") == (False, None)
    assert lookup({"doc": {"answers": "2"}}, "doc.answers[].answer") == (False, None)


@pytest.mark.parametrize("folder,task,n,missing", [
    ("mmmupro-2025-07", "mmmu_pro_standard", 64, "`doc.options`"),
    ("qbench-2025-07", "qbench_dev", 60, "`doc.option0`")])
def test_option_parsing_tasks_are_given_back_from_a_log_with_the_options(tmp_path, folder, task, n, missing):
    """MMMU-Pro standard and Q-Bench scored by lmms-eval v0.3.5's own process_results / aggregations (MMMU's
    parse_multi_choice_response over the doc's options: `options`, Q-Bench's `option0`..`option3` up to
    "N/A"; real MMMU replies of LLaVA-1.5-13B and Qwen-VL, four written ones that no rule reads: the letter
    random.choice draws, seeded 0): the published accuracy, and each record's letter equal to the logged
    parsed_pred; a slim log (no doc, so no options) is not supported, naming what is missing."""
    from rulekit.engine.compiler import load_ruleset
    from rulekit.readers import read_records
    from rulekit.run.evaluate import evaluate

    run = RUN.parent / folder
    code, out = _reproduce(run)
    [row] = out["results"]
    assert code == 0 and row["matched"] and row["ruleset"] == "lmms-eval" and row["benchmark"] == task, row
    [samples] = run.glob(f"*_samples_{task}.jsonl")
    [result] = evaluate([load_ruleset("lmms-eval")], list(read_records([str(samples)])), keep=True, count_unreadable=True)
    logged = [r.meta["reference_extraction"] for r in result.records]
    assert [d.pred for d in result.decisions] == logged and len(logged) == n
    assert any(d.outcome == "fallback" for d in result.decisions)  # the seeded random draw is exercised
    slim = tmp_path / "slim"
    shutil.copytree(run, slim)
    [copy] = slim.glob("*_samples_*.jsonl")
    copy.write_text("".join(json.dumps({k: v for k, v in json.loads(x).items() if k != "doc"}) + "\n"
                            for x in copy.read_text().splitlines()))
    code, out = _reproduce(slim)
    assert code == 1 and out["results"] == []
    assert any(f"not supported: lmms-eval task `{task}` (its samples log has no `doc`" in m["why"]
               and missing in m["why"] for m in out["missed"]), out["missed"]
