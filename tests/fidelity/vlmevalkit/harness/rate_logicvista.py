"""VLMEvalKit's ORIGINAL logicvista.py (vlmeval/dataset/utils/logicvista.py @ e8e78f05, unchanged; only
`vlmeval.smp.file.load` stubbed to take the DataFrame itself) on records with scripted judge replies:
LogicVista_auxeval runs with a `model` whose generate(prompt, temperature) returns the record's next
scripted reply and notes the prompt and temperature; then evaluate_logicvista on the rows with their
`hit`, as LogicVista.evaluate does. Writes JSON: per record the sha256 of the prompt (UTF-8), the
temperatures of the tries made, res and hit; and evaluate_logicvista's table (NaN written as null).
    python rate_logicvista.py records.jsonl out.json   (logicvista.py beside it; needs pandas;
    scripted.py beside this file)"""
import contextlib, io, json, math, sys

import pandas as pd

from scripted import Scripted, load_original, sha256

logicvista = load_original("logicvista.py")


rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
out, frame = {}, []
for r in rows:
    judge = Scripted(r["judge_replies"])
    line = {"question": r["question"], "answer": r["answer"], "prediction": r["response"]}
    with contextlib.redirect_stdout(io.StringIO()):  # LogicVista_auxeval prints every prompt
        res = logicvista.LogicVista_auxeval(judge, line)
    assert len(set(judge.prompts)) == 1
    out[r["id"]] = {"prompt_sha256": sha256(judge.prompts[0]),
                    "temperatures": judge.temperatures, "res": res["res"], "hit": res["hit"]}
    frame.append({"skill": r["meta"]["skill"], "hit": res["hit"]})
table = logicvista.evaluate_logicvista(pd.DataFrame(frame))
json.dump({"records": out,
           "table": {row["Task&Skill"]: [int(row["tot"]), int(row["hit"]),
                                         None if math.isnan(row["acc"]) else float(row["acc"])]
                     for row in table.to_dict("records")}},
          open(sys.argv[2], "w"), indent=None, sort_keys=True)
