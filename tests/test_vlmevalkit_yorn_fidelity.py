"""Issue 16: `vlmevalkit-yorn` extracts as VLMEvalKit's ORIGINAL YOrN_Extraction does, on the corpus's
HallusionBench replies and on generated edge cases (tests/fidelity/vlmevalkit/README.md)."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from conftest import CORPUS
from rulekit import Evaluator, load_ruleset
from rulekit.core.records import Record

pytestmark = pytest.mark.slow  # a fidelity sweep against the original scorer's labels

HERE = Path(__file__).parent / "fidelity" / "vlmevalkit"
TSV_GOLD = {"yes": "Yes", "no": "No"}  # VLMEvalKit's TSVs write the golds capitalized


def _gz(name: str) -> list[dict]:
    with gzip.open(HERE / f"{name}.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def _record(r: dict) -> Record:
    return Record(r["id"], "open", r["response"], r["answer"], None, r.get("benchmark"), r.get("model"))


def _corpus_hallusion() -> dict:
    out = {}
    with CORPUS.open(encoding="utf-8") as f:
        for r in map(json.loads, f):
            if r["benchmark"] == "HallusionBench":
                out[r["id"]] = {**r, "answer": TSV_GOLD.get(str(r["answer"]).strip().lower(), r["answer"])}
    return out


@pytest.mark.parametrize("labels, records", [("labels.yorn.hallusion", None), ("labels.yorn.edge", "edge_yn_cap"),
                                             ("labels.yorn.punct", "edge_punct")])
def test_vlmevalkit_yorn_extracts_as_the_original(labels, records):
    raw = _corpus_hallusion() if records is None else {r["id"]: r for r in _gz(records)}
    evaluator = Evaluator(load_ruleset("vlmevalkit-yorn"), 0)
    wrong = []
    rows = _gz(labels)
    for label in rows:
        d = evaluator.decide(_record(raw[label["id"]]))
        if d.pred != label["preds"][0] or bool(d.correct) != label["correct"][0]:
            wrong.append((label["id"], label["preds"][0], d.pred, d.step))
    assert len(rows) >= 254
    assert wrong == [], f"{len(wrong)} of {len(rows)} differ: {wrong[:5]}"


def _pope_records() -> list[dict]:
    """The HallusionBench replies and the capitalised edge cases as POPE rows: a category drawn per
    record (seed 29, file order; some comma-separated, some missing), as when the rating was made."""
    import random

    rng = random.Random(29)
    rows = list(_corpus_hallusion().values()) + _gz("edge_yn_cap")
    out = []
    for r in rows:
        category = rng.choice(["adversarial", "popular", "random", "adversarial,popular", None])
        out.append({"id": r["id"], "question_type": "open", "response": r["response"], "answer": r["answer"],
                    "meta": {"category": category} if category else {}})
    return out


def test_vlmevalkit_pope_reports_pope_rating(tmp_path):
    """`vlmevalkit-pope`'s binary figures equal VLMEvalKit's ORIGINAL POPE_rating (F1 as "Overall",
    acc, precision, recall; per category after exploding "a,b") on the same rows
    (tests/fidelity/vlmevalkit/harness/rate_pope.py wrote pope_rating.json)."""
    from click.testing import CliRunner

    from rulekit.cli import main

    data = tmp_path / "pope.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _pope_records()), encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit-pope", str(data), "--format", "json"])
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)["results"][0]["metrics"]
    want = json.loads((HERE / "pope_rating.json").read_text(encoding="utf-8"))
    ours = {"Overall": metrics["binary"], **metrics["binary_by_category"]}
    assert set(want) <= set(ours)
    for split, figures in want.items():
        got = ours[split]
        for theirs, mine in (("Overall", "f1"), ("acc", "accuracy"), ("precision", "precision"), ("recall", "recall")):
            assert abs(figures[theirs] - 100 * got[mine]) < 1e-9, (split, theirs, figures[theirs], got[mine])


def _hallusion_records() -> list[dict]:
    """The HallusionBench replies (their ids' parts as VLMEvalKit's index: category_subcategory_note_set_
    figure_question) and the capitalised edge cases (index parts drawn, seed 31, few values so
    figures and questions repeat), as when the rating was made."""
    import random

    rng = random.Random(31)
    out = []
    for r in _corpus_hallusion().values():
        cat, sub, *rest = r["id"].rsplit("/", 1)[-1].split("_")
        index = "_".join([cat, sub, "x", *rest])
        out.append({"id": index, "question_type": "open", "response": r["response"], "answer": r["answer"],
                    "meta": {"category": cat, "l2-category": sub}})
    for r in _gz("edge_yn_cap"):
        cat, sub = rng.choice(["VD", "VS"]), rng.choice(["chart", "map", "illusion"])
        index = f"{cat}_{sub}_e{r['id'].rsplit('/', 1)[-1]}_{rng.randint(0, 30)}_{rng.randint(0, 2)}_{rng.randint(0, 2)}"
        out.append({"id": index, "question_type": "open", "response": r["response"], "answer": r["answer"],
                    "meta": {"category": cat, "l2-category": sub}})
    return out


def test_vlmevalkit_hallusionbench_reports_hallusion_rating(tmp_path):
    """`vlmevalkit-hallusionbench`'s aAcc / fAcc / qAcc equal VLMEvalKit's ORIGINAL Hallusion_rating,
    overall and per category and l2-category (harness/rate_hallusion.py wrote hallusion_rating.json)."""
    from click.testing import CliRunner

    from rulekit.cli import main

    data = tmp_path / "hallusion.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _hallusion_records()), encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit-hallusionbench", str(data), "--format", "json"])
    assert result.exit_code == 0, result.output
    m = json.loads(result.stdout)["results"][0]["metrics"]
    groups = m["all_correct"]
    ours = {"Overall": {"aAcc": m["accuracy"], "fAcc": groups["fAcc"]["overall"], "qAcc": groups["qAcc"]["overall"]}}
    for field in ("category", "l2-category"):
        for value, figures in m[f"by_{field}"].items():
            ours[value] = {"aAcc": figures["accuracy"], "fAcc": groups["fAcc"][f"by_{field}"][value],
                           "qAcc": groups["qAcc"][f"by_{field}"][value]}
    want = json.loads((HERE / "hallusion_rating.json").read_text(encoding="utf-8"))
    assert set(want) == set(ours) and len(want) > 5
    for split, figures in want.items():
        for name, value in figures.items():
            assert abs(value - 100 * ours[split][name]) < 1e-9, (split, name, value, ours[split][name])


MME_CATEGORIES = ["OCR", "artwork", "celebrity", "color", "count", "existence", "landmark", "position", "posters",
                  "scene", "code_reasoning", "commonsense_reasoning", "numerical_calculation", "text_translation"]


def _mme_records() -> list[dict]:
    """The HallusionBench replies and the capitalised edge cases as MME rows: two questions per image,
    images dealt to the 14 categories in turn, as when the rating was made."""
    rows = list(_corpus_hallusion().values()) + _gz("edge_yn_cap")
    out = []
    for i, r in enumerate(rows[: len(rows) // 2 * 2]):
        image = i // 2
        category = MME_CATEGORIES[image % len(MME_CATEGORIES)]
        out.append({"id": f"mme/{i}", "question_type": "open", "response": r["response"], "answer": r["answer"],
                    "meta": {"category": category, "image_path": f"{category}/{image}.png"}})
    return out


def test_vlmevalkit_mme_reports_mme_rating(tmp_path):
    """`vlmevalkit-mme`'s per-category acc + acc+ and the perception / reasoning sums equal VLMEvalKit's
    ORIGINAL MME_rating (harness/rate_mme.py wrote mme_rating.json)."""
    from click.testing import CliRunner

    from rulekit.cli import main

    data = tmp_path / "mme.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _mme_records()), encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit-mme", str(data), "--format", "json"])
    assert result.exit_code == 0, result.output
    score = json.loads(result.stdout)["results"][0]["metrics"]["totals"]["score"]
    ours = {"perception": score["perception"], "reasoning": score["reasoning"], **score["by_category"]}
    want = json.loads((HERE / "mme_rating.json").read_text(encoding="utf-8"))
    assert set(want) == set(ours) and len(want) == 16
    for name, value in want.items():
        assert abs(value - ours[name]) < 1e-9, (name, value, ours[name])


OCR_CATEGORIES = ["Regular Text Recognition", "Irregular Text Recognition", "Artistic Text Recognition",
                  "Handwriting Recognition", "Digit String Recognition", "Non-Semantic Text Recognition",
                  "Scene Text-centric VQA", "Doc-oriented VQA", "Key Information Extraction",
                  "Handwritten Mathematical Expression Recognition"]


def _ocrbench_records(corpus_path=CORPUS) -> list[dict]:
    """Every open corpus reply as an OCRBench row: its gold(s) as a list literal (as the TSV stores
    them), a category drawn per record (seed 37, file order), as when the rating was made."""
    import random

    rng = random.Random(37)
    out = []
    with corpus_path.open(encoding="utf-8") as f:
        for r in map(json.loads, f):
            if r["question_type"] != "open":
                continue
            gold = r["answer"] if isinstance(r["answer"], list) else [r["answer"]]
            out.append({"id": r["id"], "question_type": "open", "response": r["response"],
                        "answer": repr([str(g) for g in gold]), "meta": {"category": rng.choice(OCR_CATEGORIES)}})
    return out


def test_vlmevalkit_ocrbench_reports_the_original_scores(tmp_path):
    """`vlmevalkit-ocrbench`'s group counts, Final Score and Final Score Norm equal VLMEvalKit's ORIGINAL
    OCRBench.evaluate on 5,906 open corpus replies (harness/rate_ocrbench.py wrote ocrbench_score.json)."""
    from click.testing import CliRunner

    from rulekit.cli import main

    data = tmp_path / "ocrbench.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _ocrbench_records()), encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit-ocrbench", str(data), "--format", "json"])
    assert result.exit_code == 0, result.output
    totals = json.loads(result.stdout)["results"][0]["metrics"]["totals"]["OCRBench"]
    ours = {k: v for k, v in totals.items() if not k.startswith("by_") and k != "missing"}
    ours["Final Score Norm"] = ours["Final Score"] / 10
    want = json.loads((HERE / "ocrbench_score.json").read_text(encoding="utf-8"))
    assert set(want) == set(ours) and want["Final Score"] > 0
    for name, value in want.items():
        assert abs(value - ours[name]) < 1e-9, (name, value, ours[name])


def _work_dir(tmp_path: Path, dataset: str, rows: list[dict]) -> Path:
    """A VLMEvalKit work dir: `<model>/<model>_<dataset>.tsv` (index, question, answer, prediction and the
    rows' meta fields as columns, as VLMEvalKit writes its prediction sheet)."""
    import csv

    model = tmp_path / "demo_model"
    model.mkdir(exist_ok=True)
    extra = sorted({k for r in rows for k in r.get("meta", {})})
    with (model / f"demo_model_{dataset}.tsv").open("w", encoding="utf-8", newline="") as f:
        out = csv.writer(f, delimiter="\t")
        out.writerow(["index", "question", "answer", "prediction", *extra])
        for r in rows:
            out.writerow([r["id"], "q", r["answer"], r["response"], *(r.get("meta", {}).get(k) or "" for k in extra)])
    return model


def _score_csv(path: Path, table: dict, split: bool = True) -> None:
    """A rating table as VLMEvalKit's dump writes it (pandas to_csv: floats as repr, no index)."""
    import csv

    with path.open("w", encoding="utf-8", newline="") as f:
        out = csv.writer(f)
        if split:
            names = list(next(iter(table.values())))
            out.writerow(["split", *names])
            for name, figures in table.items():
                out.writerow([name, *(repr(figures[k]) for k in names)])
        else:
            out.writerow(list(table))
            out.writerow([repr(v) for v in table.values()])


@pytest.mark.parametrize("dataset", ["POPE", "HallusionBench", "MME", "OCRBench"])
def test_reproduce_gives_back_the_score_files_of_the_original_ratings(tmp_path, dataset):
    """`rulekit reproduce` on a work dir whose score file holds what VLMEvalKit's ORIGINAL rating wrote for
    these rows (POPE_rating, Hallusion_rating, MME_rating: `_score.csv`; OCRBench.evaluate: `_score.json`):
    every number given back, by the registry's `score-file:` mapping."""
    from click.testing import CliRunner

    from rulekit.cli import main

    build, rating = {"POPE": (_pope_records, "pope_rating"), "HallusionBench": (_hallusion_records, "hallusion_rating"),
                     "MME": (_mme_records, "mme_rating"), "OCRBench": (_ocrbench_records, "ocrbench_score")}[dataset]
    model = _work_dir(tmp_path, dataset, build())
    table = json.loads((HERE / f"{rating}.json").read_text(encoding="utf-8"))
    if dataset == "OCRBench":
        (model / f"demo_model_{dataset}_score.json").write_text(json.dumps(table, indent=4), encoding="utf-8")
        count = len(table)
    else:
        _score_csv(model / f"demo_model_{dataset}_score.csv", table, split=dataset != "MME")
        count = len(table) if dataset == "MME" else sum(len(v) for v in table.values())
    result = CliRunner().invoke(main, ["reproduce", str(tmp_path), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["results"]
    assert len(rows) == count and all(r["matched"] for r in rows)
    assert {r["ruleset"] for r in rows} == {f"vlmevalkit-{dataset.lower()}"} and rows[0]["benchmark"] == dataset


def test_a_score_file_number_off_by_a_little_is_not_reproduced_and_unknown_score_files_are_named(tmp_path):
    from click.testing import CliRunner

    from rulekit.cli import main

    model = _work_dir(tmp_path, "POPE", _pope_records())
    table = json.loads((HERE / "pope_rating.json").read_text(encoding="utf-8"))
    table["popular"]["recall"] += 0.001
    _score_csv(model / "demo_model_POPE_score.csv", table)
    # a score file of a family without a `score-file:` entry in the registry (MMVet's has one since issue 16)
    (model / "demo_model_SEEDBench2.tsv").write_text("index\tanswer\tprediction\n1\t2\t2\n", encoding="utf-8")
    (model / "demo_model_SEEDBench2_score.csv").write_text("Category,tot,acc\nOverall,1,50.0\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["reproduce", str(tmp_path), "--format", "json"])
    assert result.exit_code == 1, result.output
    out = json.loads(result.stdout)
    assert [(r["split"], r["metric"]) for r in out["results"] if not r["matched"]] == [("popular", "recall")]
    assert any("does not recompute VLMEvalKit's `SEEDBench2` score file" in n for n in out["notes"])
