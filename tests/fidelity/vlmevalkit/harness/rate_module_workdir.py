"""A VLMEvalKit CharXiv or DynaMath work dir written by the ORIGINAL `CharXiv.evaluate` / `Dynamath.evaluate`:
vlmeval/dataset/charxiv.py / dynamath.py @ e8e78f05 loaded unchanged as modules, the vlmeval imports they make
given VLMEvalKit's file I/O (workdir_original.py; d2df as vlmeval/smp/misc.py has it) and a scripted judge
(each row's reply found by its prompt, the same at every try). The rows `judged_rows.py` writes become
OUT/<MODEL>_<DATASET>.xlsx (as dump_xlsx writes them); the method writes the judge's sheet and report —
CharXiv: OUT/<MODEL>_<DATASET>_<JUDGE>.xlsx (score, extracted_answer) and get_scores'
OUT/<MODEL>_<DATASET>_<JUDGE>_acc.csv (a column per category and Overall); DynaMath:
OUT/<MODEL>_DynaMath_<JUDGE>.xlsx (parse, extracted, correct) and OUT/<MODEL>_DynaMath_<JUDGE>_score.csv (a row
per Setting, Average and Worst Case). The .pkl is removed.
    python rate_module_workdir.py CharXiv_reasoning_val|CharXiv_descriptive_val|DynaMath MODEL JUDGE rows.jsonl OUT
    (charxiv.py / dynamath.py beside it; needs pandas, numpy, xlsxwriter, openpyxl)"""
import glob, json, os, sys, types
from pathlib import Path

import pandas as pd

from modules import load_module, stub_packages
import workdir_original
from workdir_original import ScriptedJudge, dump, intermediate_path, load

dataset, model_name, judge_name, records, out = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], Path(sys.argv[5])
os.environ.pop("LOCAL_LLM", None)  # CharXiv.evaluate would name the judge after it
stub_packages("vlmeval", "vlmeval.dataset")
smp, smp_file, smp_misc, utils = (types.ModuleType(n) for n in ("vlmeval.smp", "vlmeval.smp.file", "vlmeval.smp.misc",
                                                                 "vlmeval.utils"))
smp_file.load, smp_file.dump, smp_file.get_intermediate_file_path = load, dump, intermediate_path
smp.file, smp.misc = smp_file, smp_misc
smp.load, smp.dump, smp.get_intermediate_file_path, smp.toliststr = load, dump, intermediate_path, None
smp.d2df = lambda D: pd.DataFrame({x: [D[x]] for x in D})  # vlmeval/smp/misc.py d2df
utils.track_progress_rich = workdir_original.track_progress_rich
sys.modules["vlmeval"].utils = utils
base = types.ModuleType("vlmeval.dataset.image_base")
base.ImageBaseDataset = type("ImageBaseDataset", (), {})
judge_utils = types.ModuleType("vlmeval.dataset.utils")
judge_utils.build_judge = lambda **_: judge  # the scripted judge below
sys.modules.update({"vlmeval.smp": smp, "vlmeval.smp.file": smp_file, "vlmeval.smp.misc": smp_misc,
                    "vlmeval.utils": utils, "vlmeval.dataset.image_base": base, "vlmeval.dataset.utils": judge_utils})
if dataset.startswith("CharXiv_"):
    module, class_name = load_module("vlmeval.dataset.charxiv", "charxiv.py"), "CharXiv"
    prompt_of = lambda line: line["grading_query"].replace("{PREDICTION}", line["prediction"])  # noqa: E731 auxeval's
else:
    module, class_name = load_module("vlmeval.dataset.dynamath", "dynamath.py"), "Dynamath"
    prompt_of = None  # DynaMath_auxeval builds it inside; its judge is found by the prompt it sends

out.mkdir(parents=True, exist_ok=True)
rows = [json.loads(line) for line in open(records, encoding="utf-8")]
eval_file = str(out / f"{model_name}_{dataset}.xlsx")
dump(pd.DataFrame({k: [r["columns"][k] for r in rows] for k in rows[0]["columns"]}), eval_file)
back = load(eval_file)


class Judge(ScriptedJudge):
    """build_judge's model, named `model` (CharXiv names its files after it), with a system prompt slot."""

    model, system_prompt = judge_name, None


if prompt_of is not None:
    replies = {}
    for i, r in enumerate(rows):
        replies.setdefault(prompt_of(back.iloc[i]), r["judge_replies"])
else:  # DynaMath: "Free-form answer: {preprocess(prediction)}\nInstruction: {inst}", the instruction by answer type
    inst = {"multiple choice": "Output the corresponing choice option, such as 'A', 'B', 'C', 'D', in a single line.",
            "float": "Output a three-digit floating-point number in a single line."}
    other = ("Output a short answer in a single line. Any float numbers in the answer "
             "should be formatted as three-digit floating-point numbers.")
    replies = {}
    for i, r in enumerate(rows):
        line = back.iloc[i]
        replies.setdefault(f"Free-form answer: {module.preprocess(line['prediction'])}\nInstruction: "
                           f"{inst.get(line['answer_type'], other)}", r["judge_replies"])
judge = Judge(replies)
dataset_object = object.__new__(getattr(module, class_name))
dataset_object.dataset_name = dataset
dataset_object.evaluate(eval_file, model=judge_name, nproc=4)
for pkl in glob.glob(str(out / "*.pkl")):
    os.remove(pkl)
