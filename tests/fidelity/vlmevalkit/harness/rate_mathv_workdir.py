"""A VLMEvalKit MathVision work dir written by the ORIGINAL `MathVision.evaluate_heuristic` (its source taken
unchanged from vlmeval/dataset/image_vqa.py @ e8e78f05 with `ast`) with the unchanged mathv.py and can_infer
(mathv_original.py) and a scripted judge: the predictions are written as VLMEvalKit's dump_xlsx writes them
(pandas, xlsxwriter) to OUT/<MODEL>_MathVision.xlsx; the method asks the judge (`build_judge` gives a model
whose generate(prompt) returns the record's scripted reply, found by its prompt), keeps the answers in the
.pkl `track_progress_rich` saves (run here as a plain loop), writes OUT/<MODEL>_MathVision_<JUDGE>.xlsx
(res, log) and OUT/<MODEL>_MathVision_<JUDGE>_score.csv (MATH_V_acc, QUOTE_ALL). The .pkl is removed.
    python rate_mathv_workdir.py MODEL JUDGE records.jsonl OUT   (image_vqa.py, mathv.py and
    matching_util.py beside it; needs pandas, xlsxwriter, openpyxl and what mathv_original.py needs)
A record: id (its `index`), question, choices, response (prediction), answer, meta.category, judge_replies."""
import ast, csv, json, os, os.path as osp, pickle, sys, types
from pathlib import Path

import pandas as pd

from mathv_original import mathv


def load(f):
    if f.endswith(".pkl"):
        with open(f, "rb") as fh:
            return pickle.load(fh)
    return pd.read_excel(f)


def dump(data, f):
    if f.endswith(".csv"):
        data.to_csv(f, index=False, encoding="utf-8", quoting=csv.QUOTE_ALL)
    else:  # smp/file.py dump_xlsx
        with pd.ExcelWriter(f, engine="xlsxwriter", engine_kwargs={"options": {"strings_to_formulas": False}}) as w:
            data.to_excel(w, index=False)


def track_progress_rich(func, tasks, nproc, chunksize, keys, save):
    results = [func(*task) for task in tasks]
    with open(save, "wb") as fh:
        pickle.dump(dict(zip(keys, results)), fh)
    return results


model_name, judge_name, records, out = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
out.mkdir(parents=True, exist_ok=True)
rows = [json.loads(line) for line in open(records, encoding="utf-8")]
frame = pd.DataFrame({"index": [r["id"] for r in rows], "question": [r["question"] for r in rows],
                      "answer": [r["answer"] for r in rows], "category": [r["meta"]["category"] for r in rows],
                      "choices": [str(list((r.get("choices") or {}).values())) for r in rows],
                      "prediction": [r["response"] for r in rows]})
eval_file = str(out / f"{model_name}_MathVision.xlsx")
dump(frame, eval_file)
# the judge's reply to each prompt: the prompt of each row as the method will build it (from the sheet read back)
back = load(eval_file)
replies = {mathv.build_mathv_gpt4_prompt(back.iloc[i]): r["judge_replies"][0] for i, r in enumerate(rows)}


class Judge:
    def working(self):
        return True

    def generate(self, prompt, temperature=0):
        return replies[prompt]


mathv.load = load
for name in ("vlmeval", "vlmeval.dataset", "vlmeval.dataset.utils"):
    pkg = sys.modules.get(name) or types.ModuleType(name); pkg.__path__ = []; sys.modules[name] = pkg
sys.modules["vlmeval.dataset.utils.mathv"] = mathv
source = open("image_vqa.py", encoding="utf-8").read()
cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "MathVision")
method = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "evaluate_heuristic")
namespace = {"__name__": "vlmeval.dataset.image_vqa", "__package__": "vlmeval.dataset", "os": os, "osp": osp,
             "load": load, "dump": dump, "track_progress_rich": track_progress_rich, "DEBUG_MESSAGE": "",
             "build_judge": lambda **kwargs: Judge(),
             # smp/file.py: no format given → the prediction format (xlsx)
             "get_intermediate_file_path": lambda f, suffix, fmt=None: f.replace(".xlsx", f"{suffix}.{fmt or 'xlsx'}")}
exec(compile(ast.get_source_segment(source, method), "image_vqa.py", "exec"), namespace)
namespace["evaluate_heuristic"](types.SimpleNamespace(), eval_file, model=judge_name, nproc=4)
os.remove(str(out / f"{model_name}_MathVision_{judge_name}.pkl"))
