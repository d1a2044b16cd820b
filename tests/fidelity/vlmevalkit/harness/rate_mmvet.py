"""VLMEvalKit's ORIGINAL mmvet.py (vlmeval/dataset/utils/mmvet.py @ e8e78f05, unchanged; `vlmeval.smp.load`
stubbed to take the DataFrame itself) on records with scripted judge replies: MMVet_auxeval runs with a
`model` whose generate(prompt, temperature) returns the record's next scripted reply and notes the prompt
and temperature; then MMVet_acc on the scored rows. Writes JSON: per record the sha256 of the prompt
(UTF-8), the temperatures of the tries made, the score; and both MMVet_acc tables.
    python rate_mmvet.py records.jsonl out.json   (mmvet.py beside it)"""
import hashlib, importlib.util, json, sys, types

import pandas as pd

sys.modules["vlmeval"] = types.ModuleType("vlmeval")
sys.modules["vlmeval.smp"] = types.SimpleNamespace(load=lambda frame: frame)
spec = importlib.util.spec_from_file_location("vlmeval_mmvet", "mmvet.py")
mmvet = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mmvet)


class Scripted:
    """The judge: the record's scripted replies, one per call, noting each prompt and temperature."""

    def __init__(self, replies):
        self.replies, self.prompts, self.temperatures = list(replies), [], []

    def generate(self, prompt, temperature=0):
        self.prompts.append(prompt)
        self.temperatures.append(temperature)
        return self.replies[len(self.prompts) - 1]


rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
out, scores = {}, []
for r in rows:
    judge = Scripted(r["judge_replies"])
    line = {"question": r["question"], "answer": r["answer"], "prediction": r["response"]}
    res = mmvet.MMVet_auxeval(judge, line)
    assert len(set(judge.prompts)) == 1
    out[r["id"]] = {"prompt_sha256": hashlib.sha256(judge.prompts[0].encode("utf-8")).hexdigest(),
                    "temperatures": judge.temperatures, "score": res["score"]}
    scores.append(res["score"])
frame = pd.DataFrame({"category": [r["meta"]["category"] for r in rows], "score": scores})
acc, fine = mmvet.MMVet_acc(frame)
json.dump({"records": out,
           "capabilities": {row["Category"]: [int(row["tot"]), float(row["acc"])] for row in acc.to_dict("records")},
           "categories": {row["Category"]: [int(row["tot"]), float(row["acc"])] for row in fine.to_dict("records")}},
          open(sys.argv[2], "w"), indent=None, sort_keys=True)
