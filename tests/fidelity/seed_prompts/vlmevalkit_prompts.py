"""Expected prompts for tests/test_seed_prompts.py: VLMEvalKit's ORIGINAL prompt builders (commit e8e78f05)
on the tiny TSVs of tests/fixtures/seed_suite/rows.json (`*-tsv`: a multiple-choice, a yes/no and a VQA
dataset, base64 images, one image shared by index).

Taken unchanged from the files of VLMEVALKIT_SRC (a checkout, or `git show e8e78f05:<file>` of
vlmeval/dataset/image_base.py, image_mcq.py, image_yorn.py, image_vqa.py and vlmeval/smp/misc.py,
vlm.py) with `ast`, nothing else of VLMEvalKit imported: ImageBaseDataset.__init__ (its TSV preparation:
rows without an image dropped, an image given as another row's index, lists of images), dump_image,
build_prompt, and the build_prompt of ImageMCQDataset / ImageYORNDataset / ImageVQADataset, in classes of
those names; the helpers they call (toliststr, istype, decode_base64_to_image(_file), read_ok). The only
thing replaced is where the TSV comes from: `load_data` reads the tiny file as vlmeval's `load` reads a
.tsv (`pd.read_csv(f, sep='\\t')`), and the image root is a temporary folder.

    VLMEVALKIT_SRC=/path/to/VLMEvalKit .venv/bin/python tests/fidelity/seed_prompts/vlmevalkit_prompts.py
"""
import ast
import base64
import io
import json
import os
import os.path as osp
import string
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent.parent
sys.path.insert(0, str(TESTS))
import seed_suite_support as S  # noqa: E402

SRC = Path(os.environ.get("VLMEVALKIT_SRC", HERE / "src"))
CASES = {  # rows.json entry -> (class, dataset name, the prompt style rulekit reproduces it with)
    "vlmevalkit-mcq-tsv": ("ImageMCQDataset", "MMStar", "vlmevalkit-mcq"),
    "vlmevalkit-yorn-tsv": ("ImageYORNDataset", "POPE", "vlmevalkit-yorn"),
    "vlmevalkit-vqa-tsv": ("ImageVQADataset", "DocVQA_VAL", "vlmevalkit-vqa"),
}




def function_defs(path, names):
    """The module-level functions `names` of `path`, unchanged."""
    body = ast.parse((SRC / path).read_text(encoding="utf-8")).body
    return [n for n in body if isinstance(n, ast.FunctionDef) and n.name in names]


def methods(path, cls, names):
    """The methods `names` of class `cls` in `path`, unchanged."""
    body = ast.parse((SRC / path).read_text(encoding="utf-8")).body
    klass = next(n for n in body if isinstance(n, ast.ClassDef) and n.name == cls)
    return [n for n in klass.body if isinstance(n, ast.FunctionDef) and n.name in names]


def build_namespace(img_root):
    ns = {"os": os, "osp": osp, "pd": pd, "np": np, "string": string, "base64": base64, "io": io, "Image": Image,
          "LMUDataRoot": lambda: img_root, "img_root_map": lambda dataset: dataset}
    fns = (function_defs("vlmeval/smp/misc.py", {"toliststr", "istype"})
           + function_defs("vlmeval/smp/vlm.py", {"decode_base64_to_image", "decode_base64_to_image_file", "read_ok"}))
    exec(compile(ast.Module(body=fns, type_ignores=[]), "vlmeval-helpers", "exec"), ns)

    def klass(name, base, path, names):
        node = ast.ClassDef(name=name, bases=[ast.Name(id=base, ctx=ast.Load())] if base else [], keywords=[],
                            body=methods(path, name, names), decorator_list=[], type_params=[])
        exec(compile(ast.fix_missing_locations(ast.Module(body=[node], type_ignores=[])), path, "exec"), ns)
    klass("ImageBaseDataset", None, "vlmeval/dataset/image_base.py", {"__init__", "dump_image", "post_build", "build_prompt"})
    klass("ImageMCQDataset", "ImageBaseDataset", "vlmeval/dataset/image_mcq.py", {"build_prompt"})
    klass("ImageYORNDataset", "ImageBaseDataset", "vlmeval/dataset/image_yorn.py", {"build_prompt"})
    klass("ImageVQADataset", "ImageBaseDataset", "vlmeval/dataset/image_vqa.py", {"build_prompt"})
    return ns


def main():
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        ns = build_namespace(osp.join(tmp, "LMUData"))
        for case, (cls, name, style) in CASES.items():
            tsv = S.build(case, Path(tmp) / case)

            class Tiny(ns[cls]):
                def load_data(self, dataset, tsv=tsv):
                    return pd.read_csv(tsv, sep="\t")   # vlmeval/smp/file.py load() of a .tsv

            ds = Tiny(dataset=name)
            messages = []
            for i in range(len(ds.data)):
                msgs = ds.build_prompt(ds.data.iloc[i])
                messages.append([{"image": S.identity(m["value"])} if m["type"] == "image" else {"text": m["value"]}
                                 for m in msgs])
            out[case] = {"class": cls, "dataset": name, "prompt": style, "messages": messages}
            print(case, len(messages))
    path = TESTS / "fixtures" / "seed_suite" / "prompts.vlmevalkit.json"
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
