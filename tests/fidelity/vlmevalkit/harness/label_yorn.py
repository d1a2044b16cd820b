"""VLMEvalKit's ORIGINAL YOrN_Extraction (yorn.py + smp/misc.py @ e8e78f05, unchanged; sty stubbed) on
records: writes {"id", "pred", "correct"} with the score rule of ImageYORNDataset.evaluate."""
import importlib.util, json, sys, types

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
sys.modules["vlmeval.smp"] = types.SimpleNamespace(d2df=None, load=None, process_punctuation=misc.process_punctuation)
yorn = load("vlmeval_yorn", "yorn.py")

src, out = sys.argv[1], sys.argv[2]
with open(out, "w", encoding="utf-8") as f:
    for line in open(src, encoding="utf-8"):
        r = json.loads(line)
        extracted = yorn.YOrN_Extraction(str(r["response"]))
        f.write(json.dumps({"id": r["id"], "preds": [extracted], "correct": [r["answer"] == extracted]}) + "\n")
