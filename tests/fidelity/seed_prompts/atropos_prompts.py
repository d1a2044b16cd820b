"""Expected prompts for tests/test_seed_prompts.py: Atropos' ORIGINAL vision-eval environments (commit
655faa77, copied unchanged into ATROPOS_SRC, loaded by ../atropos/harness/load.py with only the framework
imports stubbed) build their messages for the tiny rows of tests/fixtures/seed_suite/rows.json.

Each environment's own `setup_data` runs, with `load_dataset` answering for the release it names from the
tiny local copy (tests/seed_suite_support.py writes it with the layout's Features, so the rows are what
`datasets` gives: decoded images, lists, structs), then `build_messages` on every item it made. What is
kept per item: the message's content parts in order, a text part as its text, an image part as the
decoded data URL's size and (0, 0) pixel.

    ATROPOS_SRC=/path/to/655faa77/vision_evals .venv/bin/python tests/fidelity/seed_prompts/atropos_prompts.py
"""
import base64
import io
import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent.parent
sys.path[:0] = [str(HERE.parent / "atropos" / "harness"), str(TESTS)]
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import load  # noqa: E402  (the Atropos harness's module loader)
import seed_suite_support as S  # noqa: E402

# layout -> (environment file, attributes the run sets; Atropos' defaults unless noted)
ENVS = {
    "mmmu": ("mmmu", {"split": "validation", "subset": "Accounting"}),
    "mmmu-pro": ("mmmu_pro", {"split": "test", "variant": "standard"}),
    "mmbench": ("mmbench", {"split": "dev", "lang": "en"}),
    "mmstar": ("mmstar", {"split": "val"}),
    "mmvet": ("mmvet", {"split": "test"}),
    "mmvp": ("mmvp", {"split": "train"}),
    "ai2d": ("ai2d", {"split": "test"}),
    "blink": ("blink", {"split": "val", "task": "Counting"}),
    "chartqa": ("chartqa", {"subset": "all"}),           # every row (the default keeps type == human)
    "charxiv-descriptive": ("charxiv", {"mode": "descriptive", "split": "validation"}),
    "charxiv-reasoning": ("charxiv", {"mode": "reasoning", "split": "validation"}),
    "countbench": ("countbench", {"split": "train"}),
    "docvqa": ("docvqa", {"split": "validation"}),
    "dynamath": ("dynamath", {"split": "sample_variant1"}),
    "hallusionbench": ("hallusionbench", {"split": "image"}),
    "infovqa": ("infovqa", {"split": "validation"}),
    "logicvista": ("logicvista", {"split": "test"}),
    "mathverse": ("mathverse", {"config": "testmini"}),
    "mathvision": ("mathvision", {"split": "testmini"}),
    "mathvista": ("mathvista", {"split": "testmini"}),
    "mmt-bench": ("mmt_bench", {"split": "train"}),
    "ocrbench": ("ocrbench", {"split": "test"}),
    "pope": ("pope", {"split": "test"}),
    "realworldqa": ("realworldqa", {"split": "test"}),
    "seedbench2": ("seedbench2_plus", {"split": "test"}),
    "visulogic": ("visulogic", {}),                       # data_path: the tiny copy's folder
    "vlmblind": ("vlmblind", {"split": "valid"}),
    "wemath": ("wemath", {"split": "testmini"}),
}


def fake_load_dataset(layout, folder):
    """`load_dataset` for the environment: the tiny copy for the release the layout names, else an error
    (so an environment's fallbacks to other hub names fail as they would offline)."""
    import datasets

    from rulekit.generate.layouts import load_layout

    source = load_layout(layout).source
    local = datasets.load_from_disk(str(folder / layout))

    def load_dataset(name, *args, split=None, streaming=False, **kw):
        config = args[0] if args else kw.get("name")
        if name != source.dataset or (config is not None and source.config is not None and config != source.config):
            raise FileNotFoundError(f"offline: {name} {config}")
        ds = local[split] if split in local else None
        if ds is None:
            raise ValueError(f"no split {split}")
        return ds.to_iterable_dataset() if streaming else ds
    return load_dataset


def part(p):
    if p["type"] == "text":
        return {"text": p["text"]}
    url = p["image_url"]["url"]
    return {"image": S.identity(base64.b64decode(url.split(",", 1)[1]))}


def main():
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for layout, (env_name, attrs) in ENVS.items():
            folder = Path(tmp) / layout
            S.build(layout, folder)
            module = load.env(env_name)
            if S.rows_spec()[layout].get("format") != "jsonl":
                module.load_dataset = fake_load_dataset(layout, folder)
            inst = load.instance(module)
            for k, v in attrs.items():
                setattr(inst, k, v)
            if env_name == "visulogic":
                inst.data_path = str(folder)
            items = inst.setup_data()
            out[layout] = [[part(p) for p in inst.build_messages(item)[-1]["content"]] for item in items]
            print(layout, len(items))
    path = TESTS / "fixtures" / "seed_suite" / "prompts.atropos.json"
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
