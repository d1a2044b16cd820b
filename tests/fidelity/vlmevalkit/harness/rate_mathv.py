"""VLMEvalKit's ORIGINAL mathv.py (vlmeval/dataset/utils/mathv.py @ e8e78f05, unchanged) with its can_infer
(vlmeval/utils/matching_util.py @ e8e78f05, unchanged), loaded by mathv_original.py; only `vlmeval.smp` is
stubbed (`load` takes the DataFrame itself, `get_logger` is logging's). MATH_V_auxeval runs on each record with a `model` whose
generate(prompt, temperature) returns the record's (first) scripted judge reply and notes the prompt; then
MATH_V_acc on the rows with their `res` and `log`, as MathVision.evaluate_heuristic does. Writes JSON: per
record the log, the res, whether post_check(prefetch=False) counts it, the sha256 of the judge prompt
(UTF-8; null when the prefetch settled it); and MATH_V_acc's table.
    python rate_mathv.py records.jsonl out.json   (mathv.py and matching_util.py beside it; needs pandas,
    timeout-decorator and latex2sympy2_extended 1.11.0 with antlr4-python3-runtime 4.11.1)"""
import hashlib, json, sys

import pandas as pd

from mathv_original import mathv


class Scripted:
    """The judge: the record's scripted reply, noting each prompt and temperature."""

    def __init__(self, reply):
        self.reply, self.prompts, self.temperatures = reply, [], []

    def generate(self, prompt, temperature=0):
        self.prompts.append(prompt)
        self.temperatures.append(temperature)
        return self.reply


rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
out, frame = {}, []
for r in rows:
    judge = Scripted(r["judge_replies"][0])
    line = {"question": r["question"], "answer": r["answer"], "prediction": r["response"],
            "choices": str(list((r.get("choices") or {}).values())), "category": r["meta"]["category"]}
    res = mathv.MATH_V_auxeval(judge, line)
    assert judge.temperatures in ([], [0]), judge.temperatures
    line.update(res=res["res"], log=res["log"])
    frame.append(line)
    out[r["id"]] = {"log": res["log"], "res": res["res"] if isinstance(res["res"], str) else repr(res["res"]),
                    "hit": bool(mathv.post_check(line, prefetch=False)),
                    "prompt_sha256": judge.prompts and hashlib.sha256(judge.prompts[0].encode("utf-8")).hexdigest()
                    or None}
table = mathv.MATH_V_acc(pd.DataFrame(frame))
json.dump({"records": out,
           "table": {row["Subject"]: [int(row["tot"]), int(row["prefetch"]), int(row["hit"]), float(row["acc"])]
                     for row in table.to_dict("records")}},
          open(sys.argv[2], "w"), indent=None, sort_keys=True)
