"""The seed suite's prompts are the originals', byte for byte: every layout's tiny rows
(tests/fixtures/seed_suite/rows.json, written as the release's schema with `datasets` Features) go
through the layout and the prompt style, and the message — images in their places, then the text — must
equal what the ORIGINAL prompt builders made of the same rows (Atropos' environments: setup_data and
build_messages at 655faa77; VLMEvalKit's ImageMCQDataset / ImageYORNDataset / ImageVQADataset
build_prompt at e8e78f05), stored in prompts.atropos.json / prompts.vlmevalkit.json by
tests/fidelity/seed_prompts/*.py. No model is needed."""
from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
pytest.importorskip("datasets", reason="the `datasets` package is part of the test extra")

import seed_suite_support as S  # noqa: E402
from rulekit.generate.benchmarks import load_items  # noqa: E402
from rulekit.generate.run import _request, load_image  # noqa: E402
from rulekit.generate.suite import load_suite  # noqa: E402
from rulekit.llm.prompts import load_prompt  # noqa: E402

ATROPOS = json.loads((S.FIXTURES / "prompts.atropos.json").read_text(encoding="utf-8"))
VLMEVALKIT = json.loads((S.FIXTURES / "prompts.vlmevalkit.json").read_text(encoding="utf-8"))
PROMPT_OF_LAYOUT = {b.layout: b.prompts["atropos"] for b in load_suite().values()} | {
    "charxiv-reasoning": "atropos-charxiv"}


def content(style: str, item) -> list[dict]:
    """The message's content as the fixtures keep it: image parts (size and first pixel), then the text."""
    req = _request(load_prompt(style), item)
    parts = [{"image": S.identity(load_image(img))} for img in req.images]
    text = {"text": req.message.text}
    return parts + [text] if req.message.images == "before" else [text] + parts


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("seed")
    return lambda name: S.build(name, root / name)


def test_every_suite_benchmark_has_a_layout_rows_and_expected_prompts():
    suite = load_suite()
    assert len(suite) == 27
    for bench in suite.values():
        assert bench.layout in S.rows_spec() and bench.layout in ATROPOS, bench.name


@pytest.mark.parametrize("layout", sorted(ATROPOS))
def test_atropos_prompts_are_the_originals(layout, built):
    items = list(load_items(built(layout), layout=layout))
    got = [content(PROMPT_OF_LAYOUT[layout], item) for item in items]
    assert got == ATROPOS[layout]


@pytest.mark.parametrize("case", sorted(VLMEVALKIT))
def test_vlmevalkit_prompts_are_the_originals(case, built):
    style = VLMEVALKIT[case]["prompt"]
    items = list(load_items(built(case)))
    got = [content(style, item) for item in items]
    assert got == VLMEVALKIT[case]["messages"]
