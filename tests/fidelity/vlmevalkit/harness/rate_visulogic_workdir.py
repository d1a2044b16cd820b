"""A VLMEvalKit VisuLogic work dir written by the ORIGINAL `VisuLogic.evaluate` (its source taken unchanged
from vlmeval/dataset/image_mcq.py @ e8e78f05 with `ast`) and the unchanged vlmeval/dataset/utils/visulogic.py:
the predictions are written as VLMEvalKit's dump_xlsx writes them (pandas, xlsxwriter) to
OUT/<MODEL>_VisuLogic.xlsx and read back by `load` (pd.read_excel); with no judge named (run.py's default
for VisuLogic: `exact_matching`) the method writes OUT/<MODEL>_VisuLogic_exact_matching_acc.csv, as
dump_csv does (QUOTE_ALL).
    python rate_visulogic_workdir.py MODEL records.jsonl OUT   (image_mcq.py and visulogic.py beside it;
    needs pandas, tqdm, xlsxwriter, openpyxl)
A record: id (its `index`), question, response (prediction), answer, meta.category. I/O: workdir_original.py."""
import json, sys
from pathlib import Path

import pandas as pd

from modules import load_module, stub_packages
from workdir_original import dump, run_method

stub_packages("vlmeval", "vlmeval.dataset", "vlmeval.dataset.utils")
sys.modules["vlmeval.smp"] = type(sys)("vlmeval.smp")
sys.modules["vlmeval.smp"].load = pd.read_excel
visulogic = load_module("vlmeval.dataset.utils.visulogic", "visulogic.py")

model, records, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
out.mkdir(parents=True, exist_ok=True)
rows = [json.loads(line) for line in open(records, encoding="utf-8")]
frame = pd.DataFrame({"index": [r["id"] for r in rows], "question": [r["question"] for r in rows],
                      "answer": [r["answer"] for r in rows], "category": [r["meta"]["category"] for r in rows],
                      "prediction": [r["response"] for r in rows]})
eval_file = str(out / f"{model}_VisuLogic.xlsx")
dump(frame, eval_file)
run_method("image_mcq.py", "VisuLogic", "evaluate", eval_file, names={"warnings": None})
