"""VLMEvalKit's ORIGINAL dynamath.py (vlmeval/dataset/dynamath.py @ e8e78f05, unchanged) run through its own
Dynamath.evaluate on records with scripted judge replies. Stubbed: the vlmeval imports it names — `load`
takes the DataFrame itself (and the intermediate files do not exist), `dump` keeps what it is given,
track_progress_rich runs DynaMath_auxeval row by row, build_judge gives a judge whose generate(prompt)
returns the scripted reply of the record that made that prompt, and d2df is misc.py's one line. Writes
JSON: per record the sha256 of the judge prompt (UTF-8; null when not asked), parse, extracted and
correct; the judge's system prompt; and evaluate's two rows (Average, Worst Case).
    python rate_dynamath.py records.jsonl out.json   (dynamath.py beside it; needs pandas, numpy;
    scripted.py beside this file)"""
import importlib.util, json, math, sys, types

import numpy as np
import pandas as pd

from scripted import sha256

rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
asked, by_prompt, dumped, current = {}, {}, {}, [None]


class Judge:
    """One judge for all rows, as build_judge gives: the scripted reply of the row that made the prompt."""

    model, system_prompt = "scripted-judge", None

    def generate(self, prompt, **kwargs):
        asked[current[0]] = prompt
        return by_prompt[prompt]


def track_progress_rich(func, payloads, nproc=1, save=None, keys=None, **kwargs):
    results = []
    for p in payloads:
        current[0] = p["line"]["index"]
        results.append(func(**p))
    return results


smp = types.ModuleType("vlmeval.smp")
smp.d2df = lambda D: pd.DataFrame({x: [D[x]] for x in D})  # vlmeval/smp/misc.py d2df
smp.dump = lambda data, path: dumped.__setitem__(path, data)
smp.get_intermediate_file_path = lambda path, suffix, ext=None: f"{path}{suffix}.{ext or 'xlsx'}"
smp.load = lambda path: frame if path == "eval.xlsx" else dumped[path]
smp.toliststr = None
utils = types.ModuleType("vlmeval.utils")
utils.track_progress_rich = track_progress_rich
base = types.ModuleType("vlmeval.dataset.image_base")
base.ImageBaseDataset = type("ImageBaseDataset", (), {})
dutils = types.ModuleType("vlmeval.dataset.utils")
judge = Judge()
dutils.build_judge = lambda **kwargs: judge
sys.modules.update({"vlmeval": types.ModuleType("vlmeval"), "vlmeval.smp": smp, "vlmeval.utils": utils,
                    "vlmeval.dataset": types.ModuleType("vlmeval.dataset"), "vlmeval.dataset.image_base": base,
                    "vlmeval.dataset.utils": dutils})
spec = importlib.util.spec_from_file_location("vlmeval.dataset.dynamath", "dynamath.py",
                                              submodule_search_locations=None)
dynamath = importlib.util.module_from_spec(spec)
dynamath.__package__ = "vlmeval.dataset"
spec.loader.exec_module(dynamath)

frame = pd.DataFrame({"index": [r["meta"]["index"] for r in rows], "prediction": [r["response"] for r in rows],
                      "answer": [r["answer"] for r in rows], "answer_type": [r["meta"]["answer_type"] for r in rows],
                      "subject": [r["meta"]["subject"] for r in rows],
                      "knowledge_level": [r["meta"]["knowledge_level"] for r in rows],
                      "qid": [r["meta"]["qid"] for r in rows], "varid": [r["meta"]["varid"] for r in rows]})
for r in rows:  # the prompt each row would make, for the judge to know whose reply to give
    inst = {"multiple choice": "Output the corresponing choice option, such as 'A', 'B', 'C', 'D', in a single line.",
            "float": "Output a three-digit floating-point number in a single line."}.get(
        r["meta"]["answer_type"], "Output a short answer in a single line. Any float numbers in the answer "
                                  "should be formatted as three-digit floating-point numbers.")
    prompt = f"Free-form answer: {dynamath.preprocess(r['response'])}\nInstruction: {inst}"
    assert by_prompt.setdefault(prompt, r["judge_replies"][0]) == r["judge_replies"][0]  # one reply per prompt
score = dynamath.Dynamath.evaluate(types.SimpleNamespace(), "eval.xlsx")
data = dumped["eval.xlsx_gpt-4o-mini.xlsx"]  # storage: the default judge name
out = {}
for r, (_, row) in zip(rows, data.iterrows()):
    prompt = asked.get(r["meta"]["index"])
    out[r["id"]] = {"prompt_sha256": sha256(prompt) if prompt else None, "parse": bool(row["parse"]),
                    "extracted": None if row["extracted"] is None else str(row["extracted"]),
                    "correct": bool(row["correct"])}
table = {row["Setting"]: {k: None if isinstance(v, float) and math.isnan(v) else float(v)
                          for k, v in row.items() if k != "Setting"} for row in score.to_dict("records")}
json.dump({"records": out, "system": judge.system_prompt, "table": table}, open(sys.argv[2], "w"), indent=None,
          sort_keys=True)
