"""Issue 30, class 4 (breadth) for lmms-eval: POPE, the built-in exact_match (GQA, AI2D), the built-in ANLS
(DocVQA / InfoVQA val) and ChartQA's relaxed accuracy, each checked on a run written by lmms-eval's ORIGINAL
scorers (tests/fidelity/lmms_eval/harness/write_runs.py; the fixture's README names the commit)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

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
    data["results"]["textvqa_val"] = data["results"].pop("gqa")
    data["configs"]["textvqa_val"] = data["configs"].pop("gqa")
    report.write_text(json.dumps(data))
    (run / f"{STAMP}_samples_gqa.jsonl").rename(run / f"{STAMP}_samples_textvqa_val.jsonl")
    code, out = _reproduce(run)
    assert code == 1
    assert not any(r["benchmark"] == "textvqa_val" for r in out["results"])
    assert any("not supported: lmms-eval task `textvqa_val`" in str(n) for n in out["notes"]), out["notes"]


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
