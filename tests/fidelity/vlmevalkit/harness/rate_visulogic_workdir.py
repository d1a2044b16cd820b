"""A VLMEvalKit VisuLogic work dir written by the ORIGINAL `VisuLogic.evaluate` (its source taken unchanged
from vlmeval/dataset/image_mcq.py @ e8e78f05 with `ast`) and the unchanged vlmeval/dataset/utils/visulogic.py:
the predictions are written as VLMEvalKit's dump_xlsx writes them (pandas, xlsxwriter) to
OUT/<MODEL>_VisuLogic.xlsx and read back by `load` (pd.read_excel); with no judge named (run.py's default
for VisuLogic: `exact_matching`) the method writes OUT/<MODEL>_VisuLogic_exact_matching_acc.csv, as
dump_csv does (QUOTE_ALL).
    python rate_visulogic_workdir.py MODEL records.jsonl OUT   (image_mcq.py and visulogic.py beside it;
    needs pandas, tqdm, xlsxwriter, openpyxl)
A record: id (its `index`), question, response (prediction), answer, meta.category."""
import ast, csv, importlib.util, json, os.path as osp, sys, types
from pathlib import Path

import pandas as pd


def dump(data, f):
    data.to_csv(f, index=False, encoding="utf-8", quoting=csv.QUOTE_ALL)


for name in ("vlmeval", "vlmeval.dataset", "vlmeval.dataset.utils"):
    pkg = types.ModuleType(name); pkg.__path__ = []; sys.modules[name] = pkg
sys.modules["vlmeval.smp"] = types.SimpleNamespace(load=pd.read_excel)
spec = importlib.util.spec_from_file_location("vlmeval.dataset.utils.visulogic", "visulogic.py")
visulogic = importlib.util.module_from_spec(spec); sys.modules[spec.name] = visulogic; spec.loader.exec_module(visulogic)

model, records, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
out.mkdir(parents=True, exist_ok=True)
rows = [json.loads(line) for line in open(records, encoding="utf-8")]
frame = pd.DataFrame({"index": [r["id"] for r in rows], "question": [r["question"] for r in rows],
                      "answer": [r["answer"] for r in rows], "category": [r["meta"]["category"] for r in rows],
                      "prediction": [r["response"] for r in rows]})
eval_file = str(out / f"{model}_VisuLogic.xlsx")
with pd.ExcelWriter(eval_file, engine="xlsxwriter", engine_kwargs={"options": {"strings_to_formulas": False}}) as w:
    frame.to_excel(w, index=False)

source = open("image_mcq.py", encoding="utf-8").read()
cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "VisuLogic")
method = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "evaluate")
namespace = {"__name__": "vlmeval.dataset.image_mcq", "__package__": "vlmeval.dataset", "osp": osp, "pd": pd,
             "dump": dump, "build_judge": None, "warnings": None, "DEBUG_MESSAGE": "",
             # smp/file.py: `_acc` takes the eval format (csv), anything else the prediction format (xlsx)
             "get_intermediate_file_path": lambda f, suffix, fmt=None: f.replace(
                 ".xlsx", f"{suffix}.{fmt or ('csv' if suffix.endswith('_acc') else 'xlsx')}")}
exec(compile(ast.get_source_segment(source, method), "image_mcq.py", "exec"), namespace)
namespace["evaluate"](types.SimpleNamespace(), eval_file)
