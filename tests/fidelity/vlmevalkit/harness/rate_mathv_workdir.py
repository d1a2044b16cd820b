"""A VLMEvalKit MathVision work dir written by the ORIGINAL `MathVision.evaluate_heuristic` (its source taken
unchanged from vlmeval/dataset/image_vqa.py @ e8e78f05 with `ast`) with the unchanged mathv.py and can_infer
(mathv_original.py) and a scripted judge (workdir_original.py): the predictions are written as VLMEvalKit's
dump_xlsx writes them to OUT/<MODEL>_MathVision.xlsx; the method asks the judge (each record's scripted reply,
found by its prompt), keeps the answers in the .pkl `track_progress_rich` saves, writes
OUT/<MODEL>_MathVision_<JUDGE>.xlsx (res, log) and OUT/<MODEL>_MathVision_<JUDGE>_score.csv (MATH_V_acc). The
.pkl is removed.
    python rate_mathv_workdir.py MODEL JUDGE records.jsonl OUT   (image_vqa.py, mathv.py and
    matching_util.py beside it; needs pandas, xlsxwriter, openpyxl and what mathv_original.py needs)
A record: id (its `index`), question, choices, response (prediction), answer, meta.category, judge_replies."""
import json, os, sys
from pathlib import Path

import pandas as pd

from mathv_original import mathv
from modules import stub_packages
from workdir_original import ScriptedJudge, dump, load, run_method

model_name, judge_name, records, out = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
out.mkdir(parents=True, exist_ok=True)
rows = [json.loads(line) for line in open(records, encoding="utf-8")]
frame = pd.DataFrame({"index": [r["id"] for r in rows], "question": [r["question"] for r in rows],
                      "answer": [r["answer"] for r in rows], "category": [r["meta"]["category"] for r in rows],
                      "choices": [str(list((r.get("choices") or {}).values())) for r in rows],
                      "prediction": [r["response"] for r in rows]})
eval_file = str(out / f"{model_name}_MathVision.xlsx")
dump(frame, eval_file)
back = load(eval_file)  # the prompt of each row as the method builds it, from the sheet read back
judge = ScriptedJudge({mathv.build_mathv_gpt4_prompt(back.iloc[i]): r["judge_replies"][0] for i, r in enumerate(rows)})
mathv.load = load
stub_packages("vlmeval.dataset", "vlmeval.dataset.utils")
sys.modules["vlmeval.dataset.utils.mathv"] = mathv
run_method("image_vqa.py", "MathVision", "evaluate_heuristic", eval_file, judge=judge, model=judge_name, nproc=4)
os.remove(str(out / f"{model_name}_MathVision_{judge_name}.pkl"))
