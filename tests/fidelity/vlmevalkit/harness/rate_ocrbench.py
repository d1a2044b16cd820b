"""VLMEvalKit's ORIGINAL OCRBench.evaluate (vlmeval/dataset/image_vqa.py @ e8e78f05, unchanged; the
package imports it needs at load time stubbed, `load` taking the DataFrame itself, `dump` keeping the
score dict) on records given as prediction / answer (a list literal) / category. Writes the score
dict as JSON:  python rate_ocrbench.py records.jsonl out.json   (image_vqa.py beside it)"""
import importlib.abc, importlib.util, json, sys, types

import pandas as pd


class _Stubs(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Any other vlmeval.* module the file imports while loading (class bodies import helpers): an
    empty package whose every name is None."""

    def find_spec(self, name, path, target=None):
        return importlib.util.spec_from_loader(name, self, is_package=True) if name.startswith("vlmeval.") else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__getattr__ = lambda attr: None


def stub(name, **attrs):
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    mod.__path__ = []
    sys.modules[name] = mod
    return mod


kept = {}
names = ("LMUDataRoot d2df decode_base64_to_image_file download_file encode_image_to_base64 file_size "
         "get_file_extension listinstr md5 read_ok toliststr").split()
stub("vlmeval")
stub("vlmeval.smp", **{n: None for n in names}, load=lambda frame: frame, dump=lambda data, path: kept.update(data),
     get_intermediate_file_path=lambda *a, **k: "unused")
stub("vlmeval.utils", track_progress_rich=None)
stub("vlmeval.dataset")
stub("vlmeval.dataset.image_base", ImageBaseDataset=object)
stub("vlmeval.dataset.utils", DEBUG_MESSAGE="", build_judge=None)
stub("vlmeval.dataset.utils.vqa_eval", istype=None)
stub("tabulate", tabulate=None)
sys.meta_path.append(_Stubs())
spec = importlib.util.spec_from_file_location("vlmeval.dataset.image_vqa", "image_vqa.py")
module = importlib.util.module_from_spec(spec)
sys.modules["vlmeval.dataset.image_vqa"] = module
spec.loader.exec_module(module)

rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
frame = pd.DataFrame({"prediction": [r["response"] for r in rows], "answer": [r["answer"] for r in rows],
                      "category": [r["meta"]["category"] for r in rows]})
result = module.OCRBench.evaluate(frame)
json.dump({k: float(v) for k, v in result.items()}, open(sys.argv[2], "w"), indent=1, sort_keys=True)
