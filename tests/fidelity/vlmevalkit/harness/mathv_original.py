"""VLMEvalKit's ORIGINAL mathv.py (vlmeval/dataset/utils/mathv.py @ e8e78f05, unchanged) with its can_infer
(vlmeval/utils/matching_util.py @ e8e78f05, unchanged), loaded from the files beside the harness; only
`vlmeval.smp` is stubbed (`load` takes the DataFrame itself — a harness may set `mathv.load` — and
`get_logger` is logging's). Needs pandas, timeout-decorator and latex2sympy2_extended 1.11.0 with
antlr4-python3-runtime 4.11.1."""
import importlib.util, logging, sys, types

smp = types.ModuleType("vlmeval.smp")
smp.load, smp.get_logger = (lambda frame: frame), logging.getLogger
log = types.ModuleType("vlmeval.smp.log")
log.get_logger = logging.getLogger
sys.modules.update({"vlmeval": types.ModuleType("vlmeval"), "vlmeval.smp": smp, "vlmeval.smp.log": log})


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


matching = _load("vlmeval.utils.matching_util", "matching_util.py")
utils = types.ModuleType("vlmeval.utils")
utils.can_infer = matching.can_infer
sys.modules["vlmeval.utils"] = utils
mathv = _load("vlmeval_mathv", "mathv.py")
