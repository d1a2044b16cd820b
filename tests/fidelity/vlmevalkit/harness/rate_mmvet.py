"""VLMEvalKit's ORIGINAL mmvet.py (vlmeval/dataset/utils/mmvet.py @ e8e78f05, unchanged; `vlmeval.smp.load`
stubbed to take the DataFrame itself) on records with scripted judge replies: MMVet_auxeval runs with a
`model` whose generate(prompt, temperature) returns the record's next scripted reply and notes the prompt
and temperature; then MMVet_acc on the scored rows. Writes JSON: per record the sha256 of the prompt
(UTF-8), the temperatures of the tries made, the score; and both MMVet_acc tables.
    python rate_mmvet.py records.jsonl out.json   (mmvet.py beside it; scripted.py beside this file)"""
import json, sys

import pandas as pd

from scripted import Scripted, load_original, sha256

mmvet = load_original("mmvet.py")


rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
out, scores = {}, []
for r in rows:
    judge = Scripted(r["judge_replies"])
    line = {"question": r["question"], "answer": r["answer"], "prediction": r["response"]}
    res = mmvet.MMVet_auxeval(judge, line)
    assert len(set(judge.prompts)) == 1
    out[r["id"]] = {"prompt_sha256": sha256(judge.prompts[0]),
                    "temperatures": judge.temperatures, "score": res["score"]}
    scores.append(res["score"])
frame = pd.DataFrame({"category": [r["meta"]["category"] for r in rows], "score": scores})
acc, fine = mmvet.MMVet_acc(frame)
json.dump({"records": out,
           "capabilities": {row["Category"]: [int(row["tot"]), float(row["acc"])] for row in acc.to_dict("records")},
           "categories": {row["Category"]: [int(row["tot"]), float(row["acc"])] for row in fine.to_dict("records")}},
          open(sys.argv[2], "w"), indent=None, sort_keys=True)
