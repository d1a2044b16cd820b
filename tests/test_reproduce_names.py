"""Issue 30, class 5 (names): a report's stem `<model>_<dataset>[_<judge>]` — the judge suffix split off first,
then the dataset read as a known name or a fork's variant of one, and the judge's sheet replayed as for the
base dataset (fixture: tests/fixtures/reproduce/vlmevalkit-fork-variant, its README says how it was made)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main
from rulekit.report.reproduce.names import parse_stem, split_judge, vlmevalkit_judges

FORK = Path(__file__).parent / "fixtures" / "reproduce" / "vlmevalkit-fork-variant"


@pytest.mark.parametrize("stem, model, dataset, base, judge", [
    # judge-suffixed reports of known datasets: the judge names VLMEvalKit wrote, in every form
    ("GPT4o_LogicVista_gpt4o-mini", "GPT4o", "LogicVista", "LogicVista", "gpt4o-mini"),
    ("llava_v1.5_7b_MathVista_MINI_gpt-4o-mini", "llava_v1.5_7b", "MathVista_MINI", "MathVista_MINI", "gpt-4o-mini"),
    ("Qwen2-VL-7B_MMVet_gpt-4-turbo", "Qwen2-VL-7B", "MMVet", "MMVet", "gpt-4-turbo"),
    ("m_MMVet_gpt4", "m", "MMVet", "MMVet", "gpt4"),
    ("InternVL2-8B_MMBench_DEV_EN_openai", "InternVL2-8B", "MMBench_DEV_EN", "MMBench_DEV_EN", "openai"),
    ("InternVL2-8B_MMBench_DEV_EN_chatgpt-0125", "InternVL2-8B", "MMBench_DEV_EN", "MMBench_DEV_EN", "chatgpt-0125"),
    ("visulogic-model_VisuLogic_exact_matching", "visulogic-model", "VisuLogic", "VisuLogic", "exact_matching"),
    # a fork's variants, judged: the judge first, then the longest known name the rest starts with
    ("GPT4o_LogicVista_Rationale_gpt4o-mini", "GPT4o", "LogicVista_Rationale", "LogicVista", "gpt4o-mini"),
    ("GPT4o_LogicVista_Rationale_wo_last_gpt4o-mini", "GPT4o", "LogicVista_Rationale_wo_last", "LogicVista",
     "gpt4o-mini"),
    ("Qwen2.5-VL-7B_MathVista_MINI_COT_gpt-4o-mini", "Qwen2.5-VL-7B", "MathVista_MINI_COT", "MathVista_MINI",
     "gpt-4o-mini"),
    ("m_VisuLogic_hard_exact_matching", "m", "VisuLogic_hard", "VisuLogic", "exact_matching"),
    # no judge: known names, VLMEvalKit's own suffixes, and variants
    ("gpt-4.1-2025-04-14_tdbench_rot90", "gpt-4.1-2025-04-14", "tdbench_rot90", "tdbench_rot90", ""),
    ("InternVL-Chat-V1-5_MTVQA_TEST_JA", "InternVL-Chat-V1-5", "MTVQA_TEST_JA", "MTVQA_TEST", ""),
    ("Qwen2-VL-7B_TextVQA_VAL_TextVQA_VAL_[0]", "Qwen2-VL-7B", "TextVQA_VAL_TextVQA_VAL_[0]", "TextVQA_VAL", ""),
    ("llava_v1.5_7b_MMBench_DEV_EN", "llava_v1.5_7b", "MMBench_DEV_EN", "MMBench_DEV_EN", ""),
    ("m_MMT-Bench_VAL_MI", "m", "MMT-Bench_VAL_MI", "MMT-Bench_VAL_MI", ""),
    ("m_ScienceQA_TEST_QCME", "m", "ScienceQA_TEST_QCME", "ScienceQA_TEST", ""),
])
def test_a_stem_names_model_dataset_and_judge(stem, model, dataset, base, judge):
    """The judge suffix (a name VLMEvalKit wrote) is split off before the dataset is read: a fork's variant
    keeps its own name, its base the longest known name it starts with; a stem without a judge is read as
    before (the longest known name that ends it, else a variant)."""
    named = parse_stem(stem)
    assert (named.model, named.dataset.name, named.dataset.base, named.judge) == (model, dataset, base, judge)
    assert named.stem == (stem[: -len(judge) - 1] if judge else stem)


def test_an_unknown_stem_stays_unknown_and_a_judge_alone_names_no_dataset():
    """No known name in the stem: unknown, judge or not (no model made up from the last underscore)."""
    assert parse_stem("my_model_Some_Thing_New").dataset is None
    assert parse_stem("my_model_Some_Thing_New_gpt-4o-mini").dataset is None
    assert parse_stem("my_model_Some_Thing_New_gpt-4o-mini").judge == ""


def test_a_judge_name_vlmevalkit_never_wrote_needs_its_sheet_as_evidence():
    """`--judge NAME` takes any name: without evidence `my-judge` is a variant's suffix, with it (the caller
    has `<stem>.xlsx`, holding the prediction file's columns and more) the judge."""
    assert "my-judge" not in vlmevalkit_judges()
    assert split_judge("m_LogicVista_Rationale_my-judge") == ("m_LogicVista_Rationale_my-judge", "")
    assert parse_stem("m_LogicVista_Rationale_my-judge").dataset.name == "LogicVista_Rationale_my-judge"
    evidence = {"m_LogicVista_Rationale"}.__contains__
    assert split_judge("m_LogicVista_Rationale_my-judge", evidence) == ("m_LogicVista_Rationale", "my-judge")
    named = parse_stem("m_LogicVista_Rationale_my-judge", judged=evidence)
    assert (named.dataset.name, named.dataset.base, named.judge) == ("LogicVista_Rationale", "LogicVista", "my-judge")


def test_the_judge_list_holds_the_names_vlmevalkit_wrote_in_every_era():
    """rulekit/data/vlmevalkit_judges.tsv (tests/fidelity/vlmevalkit/harness/judge_names.py): run.py's judges,
    build_judge's names and the datasets' short names (`name_str_map`)."""
    judges = vlmevalkit_judges()
    for name in ("gpt4o-mini", "gpt-4o-mini", "chatgpt-0125", "chatgpt-0613", "gpt4", "gpt-4-turbo",
                 "exact_matching", "openai", "gpt4omini", "gpt-4o"):
        assert name in judges, name


def _reproduce(path: Path) -> tuple[int, list[dict], list]:
    result = CliRunner().invoke(main, ["reproduce", "--format", "json", str(path)])
    out = json.loads(result.stdout)
    return result.exit_code, out["results"], out.get("missed", [])


@pytest.mark.slow  # scores two judged work dirs (seconds)
def test_a_fork_s_judged_variant_is_given_back_from_the_judge_s_sheet():
    """A fork's `LogicVista_Rationale` (judge `gpt4o-mini`) and `MathVista_MINI_COT` (judge `gpt-4o-mini`):
    every number of both reports, scored with the base's rules, the judge's sheet replayed, the variant said."""
    code, rows, missed = _reproduce(FORK)
    assert code == 0 and not missed
    assert all(r["matched"] for r in rows), [r for r in rows if not r["matched"]]
    by = {}
    for r in rows:
        by.setdefault((r["benchmark"], r["ruleset"]), []).append(r)
    assert {k: len(v) for k, v in by.items()} == {
        ("LogicVista_Rationale", "vlmevalkit-logicvista+judge"): 18, ("MathVista_MINI_COT", "mathvista+judge"): 65}
    logic = by[("LogicVista_Rationale", "vlmevalkit-logicvista+judge")][0]
    assert any("`LogicVista_Rationale` is `LogicVista` with a suffix" in n for n in logic["notes"])
    assert any(n.startswith("judged-model_LogicVista_Rationale_gpt4o-mini.xlsx: 300 rows decided on the judge's")
               for n in logic["notes"])


@pytest.mark.slow  # scores a judged work dir (seconds)
def test_a_judge_named_by_the_user_is_found_by_its_sheet(tmp_path):
    """`--judge my-judge`, a name VLMEvalKit never wrote: the judge's sheet beside the report (the prediction
    file's columns and more) is the evidence, and the numbers are given back as with a listed judge."""
    work = tmp_path / "judged-model"
    work.mkdir()
    for f in (FORK / "judged-model").iterdir():
        shutil.copy(f, work / f.name.replace("gpt4o-mini", "my-judge"))
    code, rows, _ = _reproduce(work)
    assert code == 0 and len(rows) == 18 and all(r["matched"] for r in rows)
    assert {r["benchmark"] for r in rows} == {"LogicVista_Rationale"}
    # without the judge's sheet the name is not split: the report is said, never scored from nothing
    (work / "judged-model_LogicVista_Rationale_my-judge.xlsx").unlink()
    code, rows, _ = _reproduce(work)
    assert code == 1 and not any(r["matched"] for r in rows)


def test_a_judge_named_report_of_a_judge_named_family_needs_no_sheet(tmp_path):
    """VisuLogic names its `_acc.csv` after the judge and writes no judge sheet: a name VLMEvalKit never wrote
    (`--judge my-matcher`) is split off because the family says its reports are so named."""
    src = Path(__file__).parent / "fixtures" / "reproduce" / "vlmevalkit-visulogic" / "visulogic-model"
    work = tmp_path / "visulogic-model"
    work.mkdir()
    for f in src.iterdir():
        shutil.copy(f, work / f.name.replace("exact_matching", "my-matcher"))
    code, rows, _ = _reproduce(work)
    assert rows and all(r["matched"] for r in rows) and {r["benchmark"] for r in rows} == {"VisuLogic"}
