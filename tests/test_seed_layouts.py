"""The seed suite's layouts: each release's tiny rows (tests/fixtures/seed_suite/rows.json, written with the
layout's `datasets` Features) become the records the benchmark's Atropos and VLMEvalKit rulesets score with
no --field map: ids, question types, options, golds as each ruleset reads them, meta. Also the layout
vocabulary's checks (unknown types and keys, ambiguous detection) and VLMEvalKit's TSV reading."""
from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
datasets = pytest.importorskip("datasets", reason="the `datasets` package is part of the test extra")

import seed_suite_support as S  # noqa: E402
from rulekit.core.errors import RulekitError  # noqa: E402
from rulekit.generate.benchmarks import load_items  # noqa: E402
from rulekit.generate.layouts import builtin_layouts, detect, features, load_layout  # noqa: E402

# layout -> the first item: (id, question type, options, gold), and meta it must carry
FIRST = {
    "mmmu": ("validation_Art_1", "multiple-choice", {"A": "Leonardo", "B": "Michelangelo", "C": "Raphael", "D": "Titian"}, "B",
             {"subject": "Art", "subfield": "Renaissance"}),
    "mmmu-pro": ("test_Physics_7", "multiple-choice", 10, "B", {"subject": "Physics"}),
    "mmbench": ("101", "multiple-choice", {"A": "red", "B": "green", "C": "blue", "D": "yellow"}, "A",
                {"category": "attribute_recognition", "l2-category": "finegrained_perception (instance-level)"}),
    "mmstar": ("0", "multiple-choice", {"A": "red", "B": "green", "C": "blue", "D": "yellow"}, "C",
               {"category": "coarse perception", "l2_category": "image scene and topic", "source": "synthetic"}),
    "mmvet": ("v1_0", "open", None, "purple <OR> violet", {"category": "rec"}),
    "mmvp": ("mmvp/train/0", "multiple-choice", None, None, {}),
    "mmvp-lmms-eval": ("1", "multiple-choice", {"A": "Open", "B": "Closed"}, "A", {}),
    "ai2d": ("ai2d/test/0", "multiple-choice", {"A": "larva", "B": "adult", "C": "pupa", "D": "nymph"}, "A", {}),
    "blink": ("val_Counting_1", "multiple-choice", {"A": "1", "B": "2", "C": "3", "D": "4"}, "A", {"category": "Counting"}),
    "chartqa": ("chartqa/test/0", "open", None, "42", {"type": "human"}),
    "charxiv-descriptive": ("charxiv/2401.00001/1", "open", None, "Loss curves", {"mode": "descriptive", "qid": 1}),
    "charxiv-reasoning": ("charxiv/2401.00001", "open", None, "validation", {"mode": "reasoning", "inst_category": "cs"}),
    "countbench": ("countbench/train/0", "open", None, "3", {"text": "three red apples on a table"}),
    "docvqa": ("q1", "open", None, ["May 4, 1998", "4 May 1998"], {"question_types": ["handwritten"]}),
    "infovqa": ("i1", "open", None, ["62%", "62"], {}),
    "dynamath": ("1", "open", None, "B", {"answer_type": "multiple choice", "subject": "algebra"}),
    "hallusionbench": ("VD_illusion_0_0_0", "open", None, "No", {"category": "VD", "l2-category": "illusion"}),
    "logicvista": ("lv1", "multiple-choice", None, "AC", {"skill": "spatial"}),
    "mathverse": ("1", "open", None, "40", {"problem_version": "Text Dominant", "subject": "Plane Geometry",
                                            "question_for_eval": "As shown in the figure, AB is parallel to CD; find angle x."}),
    "mathvision": ("1", "multiple-choice", {"A": "A", "B": "B", "C": "C", "D": "D", "E": "E"}, "C", {"category": "counting"}),
    "mathvista": ("1", "multiple-choice", {"A": "circle", "B": "square", "C": "triangle"}, "square",
                  {"answer_option": "B", "question_type": "multi_choice", "task": "figure question answering",
                   "skills": ["geometry reasoning"]}),
    "mmt-bench": ("7", "multiple-choice", {"A": "a car", "B": "a cat", "C": "a cup"}, "B", {"l2-category": "visual recognition"}),
    "ocrbench": ("ocrbench/test/0", "open", None, ["HELLO"], {"category": "Regular Text Recognition"}),
    "pope": ("0", "open", None, "Yes", {"category": "adversarial"}),
    "realworldqa": ("realworldqa/test/0", "multiple-choice", {"A": "Left", "B": "Right", "C": "It is straight"}, "A", {}),
    "seedbench2": ("s1", "multiple-choice", {"A": "a kitchen", "B": "a beach", "C": "a forest", "D": "a road"}, "A", {"category": 1}),
    "visulogic": ("00001", "multiple-choice", None, "C", {"category": "Quantitative Reasoning"}),
    "vlmblind": ("vlmblind/valid/0", "open", None, "3", {"task": "Olympic Counting - Circles"}),
    "wemath": ("wemath/testmini/0", "multiple-choice", {"A": "4", "B": "8", "C": "16", "D": "2", "E": "No correct answer"}, "A",
               {"ID": "1", "key": "1steps_1"}),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("layouts")
    return lambda name: S.build(name, root / name)


def test_every_layout_has_rows_and_valid_features():
    for name in builtin_layouts():
        layout = load_layout(name)
        assert isinstance(features(layout), datasets.Features)
        if name not in ("mmevalpro", "scienceqa", "vlmevalkit-tsv"):  # tests/test_datasets.py has those
            assert name in S.rows_spec() and name in FIRST, name


@pytest.mark.parametrize("layout", sorted(FIRST))
def test_first_item_of_each_release(layout, built):
    items = list(load_items(built(layout), layout=layout))
    assert len({i.id for i in items}) == len(items)          # unique ids: generate can resume
    rid, qtype, choices, answer, meta = FIRST[layout]
    first = items[0]
    assert (first.id, first.question_type, first.answer) == (rid, qtype, answer)
    if isinstance(choices, int):
        assert len(first.choices) == choices
    else:
        assert first.choices == choices
    assert {k: first.meta.get(k) for k in meta} == meta
    assert first.benchmark == load_layout(layout).benchmark
    record = first.record()
    assert record["id"] == rid and "response" not in record


def test_images_keep_their_columns_and_the_prompt_chooses(built):
    mmmu = list(load_items(built("mmmu"), layout="mmmu"))
    assert mmmu[0].image_names == ["image_1"] and mmmu[1].image_names == ["image_1", "image_2"]
    seed = list(load_items(built("seedbench2"), layout="seedbench2"))
    assert seed[1].image_names == ["image[0]", "image[1]"]
    from rulekit.llm.prompts import load_prompt

    # lmms-eval sends the <image N> the question names; Atropos every image column; SEED-Bench2 the first
    assert load_prompt("lmms-eval-mmmu").pick_images(mmmu[1].image_names, mmmu[1].question, None) == [1]
    assert load_prompt("atropos-mmmu").pick_images(mmmu[1].image_names, mmmu[1].question, None) == [0, 1]
    assert load_prompt("atropos-seedbench2-plus").pick_images(seed[1].image_names, seed[1].question, None) == [0]


def test_detection_picks_the_closest_layout_and_names_a_tie(built):
    assert [i.id for i in load_items(built("pope"))] == ["0", "1"]            # auto: POPE's columns
    assert next(iter(load_items(built("mmstar")))).choices["C"] == "blue"
    with pytest.raises(RulekitError, match="charxiv-descriptive, charxiv-reasoning equally well"):
        list(load_items(built("charxiv-reasoning")))
    assert detect({"something": 1}) is None


def test_vlmevalkit_tsv_is_read_as_vlmevalkit_reads_it(built, tmp_path):
    items = list(load_items(built("vlmevalkit-mcq-tsv")))
    assert [i.id for i in items] == ["0", "1", "2"]
    assert items[1].choices == {"A": "1", "B": "2", "C": "3"} and items[1].hint == "Count carefully."
    assert items[0].meta == {"category": "coarse perception", "l2_category": "image scene and topic"}
    # row 2's `image` is "0": row 0's image, as ImageBaseDataset.__init__ resolves it
    from rulekit.generate.run import load_image

    assert S.identity(load_image(items[2].images[0])) == S.identity(load_image(items[0].images[0]))
    vqa = list(load_items(built("vlmevalkit-vqa-tsv")))
    assert vqa[0].question_type == "open" and vqa[0].answer == ["May 4, 1998", "4 May 1998"]
    bad = tmp_path / "bad.tsv"
    bad.write_text("index\tquestion\tanswer\timage\n0\tq\tA\t7\n", encoding="utf-8")
    with pytest.raises(RulekitError, match="names no row with an image"):
        list(load_items(str(bad)))


def test_a_layout_file_is_validated_with_its_location(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("layout: bad\nfeatures: {question: text}\nid: index\n", encoding="utf-8")
    with pytest.raises(RulekitError, match="unknown type `text`"):
        load_layout(str(bad))
    bad.write_text("layout: bad\nid: index\noptions: {column: [A, B]}\n", encoding="utf-8")
    with pytest.raises(RulekitError) as info:
        load_layout(str(bad))
    assert info.value.code == "E113" and "bad.yaml" in str(info.value.render())
    with pytest.raises(RulekitError, match="(?s)no layout `mmstr`.*did you mean `mmstar`"):
        load_layout("mmstr")


def test_a_row_that_does_not_fit_is_located(tmp_path):
    rows = {"question": ["q"], "options": [["a", "b"]], "answer": ["nine"], "image": [S.image("red")]}
    path = tmp_path / "ai2d.parquet"
    datasets.Dataset.from_dict(rows, features=features(load_layout("ai2d"))).to_parquet(str(path))
    with pytest.raises(RulekitError, match="row 0 does not fit the `ai2d` layout: answer 'nine' is not an option index"):
        list(load_items(str(path), layout="ai2d"))


@pytest.mark.parametrize("layout", ["mmmu", "mmstar", "blink", "chartqa", "docvqa", "mathvista", "seedbench2", "wemath"])
def test_a_parquet_file_of_the_release_gives_the_same_items(layout, built, tmp_path):
    ds = datasets.load_from_disk(built(layout))
    [split] = list(ds)
    path = tmp_path / f"{split}.parquet"
    ds[split].to_parquet(str(path))
    from_disk = list(load_items(built(layout), layout=layout))
    from_parquet = list(load_items(str(path), layout=layout, split=split))
    assert [(i.id.replace(f"/{split}/", "/x/"), i.question, i.choices, i.answer, i.meta, i.image_names) for i in from_disk] == \
        [(i.id.replace(f"/{split}/", "/x/"), i.question, i.choices, i.answer, i.meta, i.image_names) for i in from_parquet]


def test_a_layout_of_ones_own_is_a_yaml_file(built, tmp_path):
    mine = tmp_path / "pope-as-mcq.yaml"
    mine.write_text(
        "layout: pope-as-mcq\nbenchmark: POPE\nid: {column: question_id, prefix: 'pope-'}\nquestion: question\n"
        "question-type: open\nanswer: {column: answer, upper: true}\nimages: [image]\n"
        "meta: {category: category, set: {value: mine}}\n", encoding="utf-8")
    items = list(load_items(built("pope"), layout=str(mine)))
    assert [(i.id, i.answer, i.meta) for i in items] == [
        ("pope-1", "YES", {"category": "adversarial", "set": "mine"}), ("pope-2", "NO", {"category": "random", "set": "mine"})]
