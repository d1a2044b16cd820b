"""Scorer generations (issue 30, class 3): each older generation of a framework's scorer is a ruleset
`name@vN`, checked row by row and number by number against the ORIGINAL code of its era run unchanged
(fixtures under tests/fixtures/reproduce/, each with a README naming the commit), and `rulekit reproduce`
names the generation that gives a report back."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "reproduce"
CHARTQA = FIXTURES / "vlmevalkit-chartqa-2024"
CHARTQA_MODELS = ["llava_v1.5_7b", "mPLUG-Owl2", "GPT4o_MINI", "sharegpt4v_7b"]


def _run(*args):
    return CliRunner().invoke(main, [*map(str, args)])


@pytest.mark.parametrize("ruleset", ["chartqa@v1", "chartqa"])
@pytest.mark.parametrize("model", CHARTQA_MODELS)
def test_chartqa_generations_score_every_real_row_as_the_original_of_their_era(tmp_path, model, ruleset):
    """Row by row, on a real 2024 work dir: `chartqa@v1` scores each reply as vqa_eval.py @ abaa7e06 (arguments
    swapped), `chartqa` as @ 677e30a5 (PR #1204); the two differ on at least one row of each model."""
    with gzip.open(CHARTQA / "hits.json.gz", "rt", encoding="utf-8") as f:
        hits = json.load(f)[model]
    sheet = CHARTQA / model / f"{model}_ChartQA_TEST.xlsx"
    result = _run("eval", "-r", ruleset, sheet, "--output-dir", tmp_path, "--format", "json")
    assert result.exit_code == 0, result.output
    scores = {d["id"]: d["score"] for d in map(json.loads, (tmp_path / f"{ruleset}.decisions.jsonl").open())}
    assert scores.keys() == hits[ruleset].keys() and len(scores) == 2500
    assert [i for i in scores if scores[i] != hits[ruleset][i]] == []
    assert any(hits["chartqa"][i] != hits["chartqa@v1"][i] for i in scores)


def test_a_2024_chartqa_work_dir_is_given_back_by_the_swapped_generation():
    """Every number of the four published `_acc.csv` comes back, three of them only with `chartqa@v1`."""
    result = _run("reproduce", *sorted(p for p in CHARTQA.iterdir() if p.is_dir()), "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["results"]
    assert len(rows) == 12 and all(r["matched"] for r in rows)
    assert {r["ruleset"] for r in rows} == {"chartqa@v1"}
    llava = {r["metric"]: r["reported"] for r in rows if r["model"] == "llava_v1.5_7b"}
    assert llava == {"test_human": "16.8", "test_augmented": "11.52", "Overall": "14.16"}


MMEVALPRO = FIXTURES / "mmevalpro-generations"


def _auto_score_text(result: dict, first: bool) -> str:
    """The bytes auto_score.py writes for our metrics: the first script's one-element list of the run's
    five scores (9ea8e1f7), or the later dict per source with Macro_Average (the mean of the rounded source
    scores, rounded) and Micro_Average (e9c7d27d): percent rounded to 2, json.dump(indent=4)."""
    def five(m: dict, knowledge: str) -> dict:
        return {"genuine_accuracy_score": round(m["genuine_accuracy"] * 100, 2),
                "average_score": round(m["average_accuracy"] * 100, 2),
                "origin_score": round(m["origin_accuracy"] * 100, 2),
                "perception_score": round(m["perception_accuracy"] * 100, 2),
                knowledge: round(m["knowledge_accuracy"] * 100, 2)}

    if first:
        return json.dumps([five(result, "knowledge")], indent=4)
    data = {s: five(result["by_source"][s], "knowledge_score") for s in ["MMMU", "MathVista", "ScienceQA"]}
    data["Macro_Average"] = {k: round(sum(data[s][k] for s in ["MMMU", "MathVista", "ScienceQA"]) / 3, 2)
                             for k in data["MMMU"]}
    data["Micro_Average"] = five(result, "knowledge_score")
    return json.dumps(data, indent=4)


@pytest.mark.parametrize("folder,output,ruleset,first", [
    ("2024-06-26_9ea8e1f7", "demo_output.json.gz", "mmevalpro@v1", True),
    ("2024-06-29_e9c7d27d", "demo_model_output.json.gz", "mmevalpro@v2", False),
])
def test_mmevalpro_june_2024_generations_write_the_originals_score_file_byte_for_byte(tmp_path, folder, output,
                                                                                     ruleset, first):
    """The score file each June 2024 auto_score.py wrote (run unchanged on the real demo output) is the
    text our generation's metrics give, byte for byte; the current exact-match scorer gives other numbers."""
    published = (MMEVALPRO / folder / "demo_score.json").read_text(encoding="utf-8")
    for name in (ruleset, "mmevalpro"):
        result = _run("eval", "-r", name, MMEVALPRO / folder / output, "--format", "json")
        assert result.exit_code == 0, result.output
        metrics = json.loads(result.stdout)["results"][0]["metrics"]
        assert (_auto_score_text(metrics, first) == published) is (name == ruleset)


def test_reproduce_names_each_mmevalpro_generation_list_shaped_score_included():
    result = _run("reproduce", MMEVALPRO / "2024-06-26_9ea8e1f7", MMEVALPRO / "2024-06-29_e9c7d27d", "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["results"]
    assert len(rows) == 5 + 25 and all(r["matched"] for r in rows)
    by_dir = {Path(r["file"]).parent.name: r["ruleset"] for r in rows}
    assert by_dir == {"2024-06-26_9ea8e1f7": "mmevalpro@v1", "2024-06-29_e9c7d27d": "mmevalpro@v2"}
    first = {r["metric"]: r["reported"] for r in rows if r["ruleset"] == "mmevalpro@v1"}
    assert first == {"genuine_accuracy_score": "36.11", "average_score": "67.51", "origin_score": "23.84",
                     "perception_score": "22.0", "knowledge": "21.67"}


@pytest.mark.parametrize("folder,named", [("T20240805_G0da88ba9", "chartqa@v1"), ("T20251002_G677e30a5", "chartqa"),
                                          ("results", "chartqa")])
def test_a_tie_between_generations_goes_to_the_one_whose_dates_hold_the_runs_date(tmp_path, folder, named):
    """sharegpt4v_7b's numbers come back with both ChartQA generations (8 rows differ, 4 each way): a run
    folder `T<date>_G<hash>` dates the run, and the generation of that date is named; undated, the newest."""
    import shutil

    work = tmp_path / "sharegpt4v_7b" / folder
    shutil.copytree(CHARTQA / "sharegpt4v_7b", work)
    result = _run("reproduce", work, "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["results"]
    assert {r["ruleset"] for r in rows} == {named} and all(r["matched"] for r in rows)
    gen = rows[0]["generation"]
    assert gen["name"] == named and (gen["from"], gen["until"]) == {"chartqa@v1": ("2024-03-27", "2025-09-01"),
                                                                     "chartqa": ("2025-09-01", None)}[named]
    notes = rows[0]["notes"]
    assert any(n.startswith(f"generation `{named}`: VLMEvalKit's scorer ") for n in notes)
    assert any("also reproduced by" in n for n in notes)


def test_the_generation_is_named_with_its_dates_in_table_markdown_and_html():
    table = _run("reproduce", CHARTQA / "llava_v1.5_7b").stdout
    assert "chartqa@v1 (2024-03-27 – 2025-09-01)" in table
    markdown = _run("reproduce", CHARTQA / "llava_v1.5_7b", "--format", "markdown").stdout
    assert "Generations: `chartqa@v1` VLMEvalKit 2024-03-27 – 2025-09-01 (3d800fce)" in markdown
    html = _run("reproduce", CHARTQA / "llava_v1.5_7b", "--format", "html").stdout
    assert "<code>chartqa@v1</code><br><small>2024-03-27 – 2025-09-01</small>" in html


def test_every_dated_generation_is_a_built_in_ruleset_and_its_dates_follow_on():
    """generations.yaml names only built-in rulesets and the report writers' generations a family's
    `score-file: {writers: ...}` lists; within a family of names (`chartqa`, `chartqa@v1`) the older
    generation ends the day the next begins (a writer VLMEvalKit removed, the prefetch table, just ends; a
    generation `succeeded-by:` another family's ends the day that one begins: MMMU's PR scorer)."""
    from rulekit.core.resources import builtin_rulesets
    from rulekit.report.reproduce.registry import generations, registry

    import yaml

    from rulekit.data import data_path

    dated = generations()
    writers = {w for f in registry() for w in ((f.score_file or {}).get("writers") or {})}
    raw = yaml.safe_load(data_path("generations.yaml").read_text(encoding="utf-8"))
    successors = {name: spec["succeeded-by"] for name, spec in raw.items() if spec.get("succeeded-by")}
    assert writers and writers <= set(dated)
    assert set(dated) <= set(builtin_rulesets()) | writers
    for name, g in dated.items():
        assert g.until is None or g.since <= g.until
        base = name.partition("@")[0].removesuffix("+judge")
        newer = [o for o in dated.values()
                 if o.name.partition("@")[0].removesuffix("+judge") == base and o.since > g.since]
        if g.until is not None and (newer or name not in writers):
            after = [dated[n] for n in [successors.get(name)] if n in dated] or newer  # `succeeded-by:` another
            assert after and min(after, key=lambda o: o.since).since == g.until, name
        else:
            assert not newer, name


INDEX_JOIN = FIXTURES / "vlmevalkit-index-join"


def test_a_repeated_index_is_scored_as_vlmevalkit_joins_it_and_the_option_is_named_and_sized():
    """The original mcq_vanilla_eval @8419a76a judged both rows of 8 repeated indexes against the index's last
    answer (README): only the option `index-join` gives its numbers back, and the note sizes it in points."""
    result = _run("reproduce", INDEX_JOIN, "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["results"]
    assert len(rows) == 4 and all(r["matched"] and r["options"] == ["index-join"] for r in rows)
    note = next(n for n in rows[0]["notes"] if "repeated indexes" in n)
    assert note.startswith("8 repeated indexes") and "option `index-join` (8 rows" in note
    assert "Overall 0.531250 with it, 0.562500 without: -3.12 points" in note
    assert "+index-join" in _run("reproduce", INDEX_JOIN).stdout


def test_numbers_scored_row_by_row_keep_the_plain_scoring_and_say_what_the_option_would_do(tmp_path):
    """The same predictions with the numbers each row's own answer gives: no option, and the note says so."""
    import shutil

    shutil.copytree(INDEX_JOIN / "gen_model", tmp_path / "gen_model")
    (tmp_path / "gen_model" / "gen_model_SEEDBench2_acc.csv").write_text(
        '"split","Overall","Instance Identity","Scene Understanding","Text Recognition"\n'
        '"none","0.5625","0.4375","0.5","0.875"\n', encoding="utf-8")
    rows = json.loads(_run("reproduce", tmp_path, "--format", "json").stdout)["results"]
    assert all(r["matched"] and "options" not in r for r in rows)
    assert any("the option `index-join` (8 rows) does not give the numbers back" in n for n in rows[0]["notes"])


def test_index_joined_gives_each_row_of_an_index_its_last_rows_answer_and_options():
    from rulekit.core.records import Record
    from rulekit.report.reproduce.index_join import index_joined

    rows = [Record("1", "multiple-choice", "A", "A", {"A": "x", "B": "y"}, question="first"),
            Record("2", "multiple-choice", "B", "B", {"A": "p", "B": "q"}),
            Record("1", "multiple-choice", "A", "B", {"A": "u", "B": "v"}, question="second")]
    out, changed = index_joined(rows)
    assert changed == 1 and [(r.answer, r.choices["A"], r.question) for r in out] == \
        [("B", "u", "first"), ("B", "p", None), ("B", "u", "second")]
    assert index_joined(rows[:2]) == (rows[:2], 0)


@pytest.mark.slow  # scores a whole MMVet work dir (tens of seconds)
def test_mmvet_of_december_2023_counts_each_capability_once_and_is_named_with_its_dates():
    """`_score.csv` written by the original MMVet_acc @9304eca5 (README): only `vlmevalkit-mmvet@v1+judge` gives
    its capability rows back; the current generation's table (single-tag questions twice) still comes back
    with the current one."""
    rows = json.loads(_run("reproduce", FIXTURES / "vlmevalkit-mmvet-2023", "--format", "json").stdout)["results"]
    assert len(rows) == 14 and all(r["matched"] and r["ruleset"] == "vlmevalkit-mmvet@v1+judge" for r in rows)
    assert {(r["split"], r["metric"]): r["reported"] for r in rows}[("rec", "tot")] == "135"
    assert (rows[0]["generation"]["from"], rows[0]["generation"]["until"]) == ("2023-12-09", "2023-12-11")
    now = json.loads(_run("reproduce", FIXTURES / "vlmevalkit-judged", "--format", "json").stdout)["results"]
    mmvet = [r for r in now if r["benchmark"] == "MMVet"]
    assert mmvet and all(r["matched"] and r["ruleset"] == "vlmevalkit-mmvet+judge" for r in mmvet)
    assert mmvet[0]["generation"]["from"] == "2023-12-11" and mmvet[0]["generation"]["until"] is None


def test_an_lmms_eval_mme_run_from_before_november_2024_is_read_under_its_misspelt_perception_key(tmp_path):
    """Until bb3fd824 (2024-11-05, #397) lmms-eval's MME logged and published `mme_percetion_score`; the
    scorer is the same. The real MME run of tests/fixtures/reproduce/lmms-eval with its categories mapped to
    perception ones and its key spelt as then: the perception sum comes back."""
    src = FIXTURES / "lmms-eval" / "qwen2.5-vl-3b-mme-limit8"
    cats = {"code_reasoning": "OCR", "commonsense_reasoning": "color", "numerical_calculation": "count",
            "text_translation": "scene"}
    lines = []
    for line in (src / "20260923_172512_samples_mme.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        m = d.pop("mme_cognition_score")
        d["mme_percetion_score"] = {**m, "category": cats[m["category"]]}
        lines.append(json.dumps(d))
    (tmp_path / "20240923_172512_samples_mme.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    text = (src / "20260923_172512_results.json").read_text(encoding="utf-8")
    text = text.replace("mme_cognition_score", "mme_percetion_score").replace('"mme_perception_score"',
                                                                              '"mme_cognition_score"')
    (tmp_path / "20240923_172512_results.json").write_text(text, encoding="utf-8")
    result = _run("reproduce", tmp_path, "--format", "json")
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)["results"]
    assert (row["metric"], row["reported"], row["reproduced"], row["matched"]) == \
        ("mme_percetion_score,none", "162.5", 162.5, True)


@pytest.mark.slow  # scores two judged work dirs (seconds)
def test_each_mathvista_era_is_given_back_by_its_own_generation():
    """`_score.csv` written by the original MathVista evaluation @74ada5bb, @c026693a and @0bccf452 (README):
    can_infer v1 prefetches 143 of the 400 rows, v2 75, v3 (the 2026 code) 80, and before c26761b8 a judged 0
    was no hit (151 hits, not 158); only `mathvista@v0+judge`, `@v1+judge`, resp. `@v2+judge` gives every number back, leaves to the judge exactly the rows the sheet's `log`
    says it was asked about, and is named with its dates. The 2026 fixture of the same rows still comes back
    with the current generation."""
    rows = json.loads(_run("reproduce", FIXTURES / "vlmevalkit-mathvista-eras", "--format", "json").stdout)["results"]
    assert all(r["matched"] for r in rows), [r for r in rows if not r["matched"]]
    by_model = {m: [r for r in rows if r["model"] == m] for m in ("mv0-model", "mv1-model", "mv2-model")}
    for model, ruleset, era, overall, judged in (
            ("mv0-model", "mathvista@v0+judge", ("2024-01-01", "2024-04-21"),
             {"tot": "400", "prefetch": "143", "hit": "151", "prefetch_rate": "35.75", "acc": "37.75"}, 257),
            ("mv1-model", "mathvista@v1+judge", ("2024-04-21", "2025-08-04"),
             {"tot": "400", "prefetch": "143", "hit": "158", "prefetch_rate": "35.75", "acc": "39.5"}, 257),
            ("mv2-model", "mathvista@v2+judge", ("2025-08-04", "2026-06-17"),
             {"tot": "400", "prefetch": "75", "hit": "171", "prefetch_rate": "18.75", "acc": "42.75"}, 325)):
        mine = by_model[model]
        assert len(mine) == 65 and {r["ruleset"] for r in mine} == {ruleset}
        assert {r["metric"]: r["reported"] for r in mine if r["split"] == "Overall"} == overall
        assert (mine[0]["generation"]["from"], mine[0]["generation"]["until"]) == era
        judge = "gpt-4-turbo" if model == "mv0-model" else "gpt-4o-mini"
        assert f"its rules leave the same {judged} rows unmatched as {model}_MathVista_MINI_{judge}.xlsx shows" \
            in mine[0]["notes"]
    now = json.loads(_run("reproduce", FIXTURES / "vlmevalkit-mathvista", "--format", "json").stdout)["results"]
    assert now and all(r["matched"] and r["ruleset"] == "mathvista+judge" for r in now)
