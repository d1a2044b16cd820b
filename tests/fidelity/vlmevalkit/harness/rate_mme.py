"""VLMEvalKit's ORIGINAL MME_rating (yorn.py @ e8e78f05, unchanged; its `load` stubbed to take
the DataFrame itself) on records whose `extracted` is the ORIGINAL YOrN_Extraction of each reply and
`score` is `answer == extracted`. Writes {name: score} (perception, reasoning, each category) as JSON:
    python rate_mme.py records.jsonl out.json   (yorn.py and misc.py beside it)"""
import importlib.util, json, sys, types

import pandas as pd

sys.modules.setdefault("sty", types.SimpleNamespace(fg=None))
try:
    import huggingface_hub.utils._cache_manager  # noqa: F401
except ImportError:
    m = types.ModuleType("huggingface_hub.utils._cache_manager"); m._scan_cached_repo = None
    sys.modules["huggingface_hub.utils._cache_manager"] = m


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec); sys.modules[name] = mod; spec.loader.exec_module(mod); return mod


misc = load("vlmeval_misc", "misc.py")
sys.modules["vlmeval"] = types.ModuleType("vlmeval")
sys.modules["vlmeval.smp"] = types.SimpleNamespace(d2df=misc.d2df, load=lambda frame: frame,
                                                   process_punctuation=misc.process_punctuation)
yorn = load("vlmeval_yorn", "yorn.py")

rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
frame = pd.DataFrame({"index": [r["id"] for r in rows], "answer": [r["answer"] for r in rows],
                      "category": [r["meta"]["category"] for r in rows],
                      "image_path": [r["meta"]["image_path"] for r in rows]})
frame["extracted"] = [yorn.YOrN_Extraction(str(r["response"])) for r in rows]
frame["score"] = frame["answer"] == frame["extracted"]
table = yorn.MME_rating(frame)
json.dump({k: float(v) for k, v in table.to_dict("records")[0].items()}, open(sys.argv[2], "w"), indent=1, sort_keys=True)
