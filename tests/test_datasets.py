"""Benchmarks through real Hugging Face `datasets`, offline: tiny local copies in the MMMU, MMEvalPro and
ScienceQA layouts (save_to_disk, parquet files, a data folder), mapped to items; prompt styles rendered
exactly like the originals; the resumable outputs file. No vLLM needed."""
from __future__ import annotations

import json
import os
import re

import pytest

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")  # read when `datasets` is imported: no hub look-ups
os.environ.setdefault("HF_HUB_OFFLINE", "1")
datasets = pytest.importorskip("datasets", reason="the `datasets` package is part of the test extra")
from PIL import Image  # noqa: E402

from rulekit.generate.benchmarks import detect_layout, load_items  # noqa: E402
from rulekit.generate.output import OutputFile  # noqa: E402
from rulekit.llm.prompts import builtin_prompts, load_prompt, substitute  # noqa: E402
from rulekit.generate.run import _data_url, _request, chat_messages  # noqa: E402


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def img(color):
    return Image.new("RGB", (8, 8), color)


def mmmu_rows():
    return {
        "id": ["validation_Art_1", "validation_Math_2", "validation_Physics_3"],
        "question": ["<image 1> Who painted this?", "Compute x in <image 1> and <image 2>.", "Speed? <image 2>"],
        "options": ["['Leonardo', 'Michelangelo', 'Raphael']", "[]", "['1 m/s', '<image 1>']"],
        "explanation": ["", "", ""],
        "image_1": [img("red"), img("green"), img("blue")],
        "image_2": [None, img("white"), img("black")],
        "img_type": ["['Paintings']", "['Diagrams']", "['Plots']"],
        "answer": ["B", "['24/7', '3.429']", "A"],
        "topic_difficulty": ["Easy", "Hard", "Medium"],
        "question_type": ["multiple-choice", "open", "multiple-choice"],
        "subfield": ["Renaissance", "Algebra", "Mechanics"],
    }


def mmmu_features():
    f = datasets.Features({k: datasets.Value("string") for k in mmmu_rows() if not k.startswith("image_")})
    f["image_1"] = datasets.Image()
    f["image_2"] = datasets.Image()
    return f


def test_mmmu_from_save_to_disk_with_splits(tmp_path):
    ds = datasets.Dataset.from_dict(mmmu_rows(), features=mmmu_features())
    datasets.DatasetDict({"validation": ds, "dev": ds.select([0])}).save_to_disk(str(tmp_path / "MMMU"))
    items = list(load_items(str(tmp_path / "MMMU"), split="validation"))
    assert [i.id for i in items] == ["validation_Art_1", "validation_Math_2", "validation_Physics_3"]
    art, math, phys = items
    assert art.question_type == "multiple-choice" and art.choices == {"A": "Leonardo", "B": "Michelangelo", "C": "Raphael"}
    assert art.answer == "B" and art.benchmark == "MMMU" and len(art.images) == 1
    assert art.meta == {"subfield": "Renaissance", "topic_difficulty": "Easy", "img_type": "['Paintings']", "subject": "Art"}
    assert math.question_type == "open" and math.choices is None and math.answer == ["24/7", "3.429"]
    assert len(math.images) == 2
    # images are the ones the question and options mention, in image-number order
    assert len(phys.images) == 2 and phys.images[0].getpixel((0, 0)) == (0, 0, 255)
    with pytest.raises(Exception, match="choose one with --split"):
        list(load_items(str(tmp_path / "MMMU")))


def test_mmevalpro_from_a_parquet_file(tmp_path):
    rows = {"index": [1, 2, 3], "triplet_id": [1, 1, 1], "eval_type": ["Origin", "Perception", "Knowledge"],
            "source": ["MMMU"] * 3, "question_category": ["x"] * 3,
            "question": ["Is Dark Orchid the maximum?", "How many colors?", "How to find the maximum?"],
            "choices": [["A. Yes", "B. No"], ["5", "6", "7", "8"], ["(A) biggest area", "(B) darkest", "(C) lightest"]],
            "answer": ["B", "C", "A"], "image": [img("purple"), img("purple"), img("purple")]}
    features = datasets.Features({"index": datasets.Value("int64"), "triplet_id": datasets.Value("int64"),
                                  "eval_type": datasets.Value("string"), "source": datasets.Value("string"),
                                  "question_category": datasets.Value("string"), "question": datasets.Value("string"),
                                  "choices": datasets.Sequence(datasets.Value("string")),
                                  "answer": datasets.Value("string"), "image": datasets.Image()})
    path = tmp_path / "mmevalpro.parquet"
    datasets.Dataset.from_dict(rows, features=features).to_parquet(str(path))
    items = list(load_items(str(path)))
    assert [i.id for i in items] == ["1", "2", "3"] and {i.benchmark for i in items} == {"MMEvalPro"}
    assert items[0].choices == {"A": "Yes", "B": "No"}                  # "A. " labels removed
    assert items[1].choices == {"A": "5", "B": "6", "C": "7", "D": "8"}
    assert items[2].choices == {"A": "biggest area", "B": "darkest", "C": "lightest"}
    assert items[0].meta == {"triplet_id": 1, "eval_type": "Origin", "source": "MMMU", "question_category": "x"}
    assert all(len(i.images) == 1 for i in items)


def test_scienceqa_from_a_data_folder_with_split_files(tmp_path):
    rows = {"image": [img("yellow"), None], "question": ["Which is a mammal?", "Which word is a noun?"],
            "choices": [["frog", "whale", "shark"], ["run", "table"]], "answer": [1, 1],
            "hint": ["Look at the picture.", ""], "task": ["closed choice"] * 2, "grade": ["grade4"] * 2,
            "subject": ["natural science", "language science"], "topic": ["biology", "grammar"],
            "category": ["Classify", "Parts of speech"], "skill": ["s1", "s2"], "lecture": ["", ""], "solution": ["", ""]}
    features = datasets.Features({**{k: datasets.Value("string") for k in rows if k not in ("image", "choices", "answer")},
                                  "image": datasets.Image(), "choices": datasets.Sequence(datasets.Value("string")),
                                  "answer": datasets.Value("int64")})
    folder = tmp_path / "ScienceQA" / "data"
    folder.mkdir(parents=True)
    datasets.Dataset.from_dict(rows, features=features).to_parquet(str(folder / "validation-00000-of-00001.parquet"))
    items = list(load_items(str(tmp_path / "ScienceQA"), split="validation"))
    assert [i.id for i in items] == ["scienceqa/validation/0", "scienceqa/validation/1"]
    assert items[0].answer == "B" and items[0].choices == {"A": "frog", "B": "whale", "C": "shark"}
    assert items[0].hint == "Look at the picture." and len(items[0].images) == 1
    assert items[1].hint is None and items[1].images == [] and items[1].meta["topic"] == "grammar"
    text = load_prompt("vlmevalkit-mcq").render("multiple-choice", items[0].question, items[0].choices, items[0].hint).text
    assert text == ("Hint: Look at the picture.\nQuestion: Which is a mammal?\nOptions:\nA. frog\nB. whale\nC. shark\n"
                    "Please select the correct answer from the options above. \n")


def test_our_records_file_and_layout_detection(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"id": "a", "question": "Q?", "choices": {"A": "x", "B": "y"}, "answer": "A",
                                "images": ["pic.png"], "source": "here"}) + "\n", encoding="utf-8")
    [item] = load_items(str(path))
    assert item.choices == {"A": "x", "B": "y"} and item.images == [str(tmp_path / "pic.png")]
    assert item.meta == {"source": "here"} and item.question_type == "multiple-choice"
    assert detect_layout({"triplet_id": 1, "eval_type": "Origin"}) == "mmevalpro"
    assert detect_layout({"id": "x", "question": "q"}) == "records"


def test_a_missing_dataset_offline_is_a_clear_error(tmp_path):
    with pytest.raises(Exception) as info:
        list(load_items("no-such-org/no-such-dataset", split="test"))
    assert "cannot load dataset" in str(info.value) and "offline" in str(info.value)


# ---------------------------------------------------------------- prompt styles
def test_every_builtin_prompt_style_loads_and_renders():
    assert {"lmms-eval-mmmu", "lmms-eval-mmmu-qwen3-vl", "vlmevalkit-mcq", "mmevalpro-lmm", "mmevalpro-llm",
            "vlmevalkit-judge"} <= set(builtin_prompts())
    for name in builtin_prompts():
        p = load_prompt(name)
        assert len(p.fingerprint) == 12
        if "{gold}" in str(p.style.open):  # a grading / scoring judge's prompt: a prediction and a gold
            text = p.render("open", "Q", None, prediction="PRED-7", gold="GOLD-7").text
            assert "PRED-7" in text and "GOLD-7" in text, name
            assert not re.search(r"\{(question|options|prediction|hint|gold|meta\.[A-Za-z0-9_]+)\}", text), name
            continue
        # every `{meta.NAME}` the style reads, given; a judge's prompt may leave out the question (VLMEvalKit's
        # DynaMath and MathVerse prompts show only the reply; CharXiv's is the record's own grading query)
        meta = {name: f"META-{name}" for name in re.findall(r"\{meta\.([A-Za-z0-9_]+)\}", str(p.style))}
        meta.setdefault("answer_type", "multiple choice")  # DynaMath's `equals:` parts
        text = p.render("multiple-choice", "Q", {"A": "x", "B": "y"}, prediction="r-PRED", meta=meta).text
        # (Atropos' MathVista asks the row's own `query` instead of the question)
        assert "Q" in text or "r-PRED" in text or "META-grading_query" in text or "META-query" in text, name
        # (a `{meta.NAME}` inside a part written only without another variable, `unless:`, may stay unused)
        fallback = {n for part in (p.style.multiple_choice or []) + (p.style.open or [])
                    if getattr(part, "unless", None) for n in re.findall(r"\{meta\.([A-Za-z0-9_]+)\}", part.text)}
        assert all(f"META-{key}" in text for key in meta if key != "answer_type" and key not in fallback), name
        assert not re.search(r"\{(question|options|prediction|hint|gold|meta\.[A-Za-z0-9_]+)\}", text), name


def test_lmms_eval_mmmu_prompts_are_the_originals():
    choices = {"A": "Leonardo", "B": "Michelangelo"}
    p = load_prompt("lmms-eval-mmmu")
    # construct_prompt: f"{question}\n{parsed_options}\n\n{mc_prompt}" with "A. text" lines
    assert p.render("multiple-choice", "<image 1> Who?", choices).text == \
        "<image 1> Who?\nA. Leonardo\nB. Michelangelo\n\nAnswer with the option's letter from the given choices directly."
    assert p.render("open", "x?", None).text == "x?\n\nAnswer the question using a single word or phrase."
    q = load_prompt("lmms-eval-mmmu-qwen3-vl").render("open", "x?", None)
    assert q.system == "You are a helpful assistant."
    assert q.text == "Question: x?\nOptions:\n\nPlease select the correct answer from the options above."


def test_mmevalpro_llm_prompt_carries_the_papers_demonstration():
    text = load_prompt("mmevalpro-llm").render("multiple-choice", "How many?", {"A": "5", "B": "6"}).text
    assert "Options: (A) $6 (B) $7 (C) $8 (D) $9 Output: A. Just answer" in text
    assert text.endswith("Question: How many? Options: (A) 5 (B) 6")
    assert load_prompt("mmevalpro-llm").style.images == "none"


def test_substitution_is_not_format_and_unknown_names_fail(tmp_path):
    assert substitute("{question.__class__} {{x}} {question}", {"question": "Q"}) == "{question.__class__} {x} Q"
    bad = tmp_path / "bad.yaml"
    bad.write_text("prompt: bad\nmultiple-choice: ['{question} {answer}']\n", encoding="utf-8")
    with pytest.raises(Exception, match="unknown variable `{answer}`"):
        load_prompt(str(bad))


def test_images_go_before_the_text_and_as_data_urls(tmp_path):
    from rulekit.generate.benchmarks import Item

    item = Item("x", "multiple-choice", "Q", {"A": "a", "B": "b"}, "A", images=[img("red")])
    req = _request(load_prompt("vlmevalkit-mcq"), item)
    assert len(req.images) == 1
    msgs = chat_messages(req.message, req.images, _data_url)
    content = msgs[-1]["content"]
    assert [c["type"] for c in content] == ["image_url", "text"]
    assert content[0]["image_url"]["url"].startswith("data:image/png;base64,")
    assert _request(load_prompt("mmevalpro-llm"), item).images == []      # a text-only style drops images
    assert chat_messages(req.message, [], _data_url) == [{"role": "user", "content": req.message.text}]


# ---------------------------------------------------------------- outputs file
def test_outputs_file_appends_whole_lines_and_resumes_after_a_torn_line(tmp_path):
    path = tmp_path / "out.jsonl"
    with OutputFile(path) as out:
        out.append([{"id": "a", "response": "x"}, {"id": "b", "response": "y"}])
    with pytest.raises(Exception, match="already exists"):
        OutputFile(path)
    with open(path, "ab") as f:
        f.write(b'{"id": "c", "resp')
    with OutputFile(path, resume=True) as out:
        assert out.done == {"a", "b"} and out.repaired == len(b'{"id": "c", "resp')
        out.append([{"id": "c", "response": "z"}])
    assert [json.loads(line)["id"] for line in path.read_text().splitlines()] == ["a", "b", "c"]
    with OutputFile(path, overwrite=True) as out:
        assert out.done == set()
    assert os.path.getsize(path) == 0
