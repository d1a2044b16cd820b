"""The ORIGINAL scoring functions of the framework rulesets, loaded UNCHANGED from the files of
$FRAMEWORKS_SRC (written by `fetch_originals.sh`, `git show COMMIT:PATH` of each upstream repository),
with only the imports the frameworks make at load time stubbed (package names, loggers, the
VerificationPipeline lmms-eval's MMMU module imports for its reasoning variant, ...). Nothing of an
original's code is changed; a stub never stands in for a function the labels depend on."""
from __future__ import annotations

import importlib.util
import logging
import os
import sys
import types
from pathlib import Path

SRC = Path(os.environ.get("FRAMEWORKS_SRC", "."))


def _load(name: str, file: str):
    """`file` of $FRAMEWORKS_SRC executed as module `name` (registered in sys.modules)."""
    spec = importlib.util.spec_from_file_location(name, SRC / file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _package(*names: str) -> None:
    for name in names:
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = []
            sys.modules[name] = package


def _module(name: str, **attrs) -> types.ModuleType:
    module = sys.modules.get(name) or types.ModuleType(name)
    for key, value in attrs.items():
        setattr(module, key, value)
    sys.modules[name] = module
    return module


# ---- stubs of what the originals import at load time (never a function the labels use)
_package("vlmeval", "vlmeval.smp", "vlmeval.utils", "vlmeval.dataset", "vlmeval.dataset.utils")
_module("vlmeval.smp.log", get_logger=logging.getLogger)
_module("loguru", logger=logging.getLogger("loguru"))
_module("sty", fg=None)
try:
    import huggingface_hub.utils._cache_manager  # noqa: F401
except ImportError:
    _module("huggingface_hub.utils._cache_manager", _scan_cached_repo=None)
_module("timeout_decorator", timeout=lambda *a, **k: (lambda f: f))  # only a time limit: no label depends on it
_module("dotenv", load_dotenv=lambda *a, **k: None)


def can_infer(generation: str):
    """VLMEvalKit's `can_infer` of matching_util.py at generation `v3` (e8e78f05), `v2` (c3371551), `v1`
    (c026693a), `v0c` (bc4b28be), `v0b` (39cebe2f), `v0a` (9ac258c1), or the DCVLR fork's (`fork`,
    YosubShin/VLMEvalKit 6f61d704). v3 imports get_logger from vlmeval.smp.log; the others `from ..smp
    import *` (a package of their own here, holding get_logger); v0a `from vlmeval.smp import *` (the
    stub package: it uses nothing from it but `double_log`, only under VERBOSE)."""
    file = {"v3": "matching_util@e8e78f05.py", "v2": "matching_util@c3371551.py",
            "v1": "matching_util@c026693a.py", "fork": "fork_matching_util.py",
            "v0c": "matching_util@bc4b28be.py", "v0b": "matching_util@39cebe2f.py",
            "v0a": "matching_util@9ac258c1.py"}[generation]
    if generation == "v3":
        return _load("vlmeval_matching_v3", file).can_infer
    package = f"vlmeval_{generation}"
    _package(package, f"{package}.utils")
    _module(f"{package}.smp", get_logger=logging.getLogger)
    return _load(f"{package}.utils.matching_util", file).can_infer


def misc():
    """vlmeval/smp/misc.py @ e8e78f05."""
    return sys.modules.get("vlmeval_misc") or _load("vlmeval_misc", "misc.py")


def lmms_mcq():
    """lmms-eval 75571cfe lmms_eval/tasks/_task_utils/mmmu_mcq_utils.py."""
    _package("lmms_eval", "lmms_eval.tasks", "lmms_eval.tasks._task_utils")
    return _load("lmms_eval.tasks._task_utils.mmmu_mcq_utils", "lmms_mmmu_mcq_utils.py")


def lmms_mmmu():
    """lmms-eval 75571cfe lmms_eval/tasks/mmmu/utils.py (it reads `_default_template_yaml` beside it at
    import: an empty one is written there when missing; the reasoning pipeline's imports are stubbed)."""
    lmms_mcq()
    _module("lmms_eval.tasks._task_utils.file_utils", generate_submission_file=None)
    _package("lmms_eval.verifiers")
    _module("lmms_eval.verifiers", VerificationPipeline=object)
    _module("lmms_eval.verifiers.openai", OpenAIVerifier=object)
    template = SRC / "_default_template_yaml"
    if not template.exists():
        template.write_text("{}\n")
    return _load("lmms_eval_mmmu_utils", "lmms_mmmu_utils.py")


def mmmu():
    """MMMU-Benchmark/MMMU bb0b95a9 mmmu/utils/eval_utils.py."""
    return _load("mmmu_eval_utils", "mmmu_eval_utils.py")


def vmcbench():
    """VLMEvalKit e8e78f05 vlmeval/dataset/utils/vmcbench.py."""
    return _load("vlmeval_vmcbench", "vmcbench.py")


def lmms_mme():
    """lmms-eval c7eaef37 lmms_eval/tasks/mme/utils.py."""
    return _load("lmms_eval_mme_utils", "lmms_mme_utils.py")


def lmms_scienceqa(commit: str):
    """lmms-eval's ScienceQA utils.py at 8ada8050, f06f8e67 or 7e9719d7 (scienceqa_img/utils.py there)."""
    return _load(f"lmms_eval_sqa_{commit}", f"lmms_sqa_utils@{commit}.py")


def lmms_livexiv():
    """lmms-eval 75571cfe lmms_eval/tasks/livexiv_vqa/utils.py."""
    return _load("lmms_eval_livexiv", "lmms_livexiv_utils.py")


def vqa_eval():
    """VLMEvalKit e8e78f05 vlmeval/dataset/utils/vqa_eval.py with the misc.py helpers it imports."""
    m = misc()
    _module("vlmeval.smp", istype=m.istype, listinstr=m.listinstr, process_punctuation=m.process_punctuation)
    return _load("vlmeval.dataset.utils.vqa_eval", "vqa_eval.py")


def omni3dbench():
    """VLMEvalKit e8e78f05 vlmeval/dataset/utils/omni3dbench.py."""
    return _load("vlmeval.dataset.utils.omni3dbench", "omni3dbench.py")


def mathvista():
    """VLMEvalKit e8e78f05 vlmeval/dataset/utils/mathvista.py, its can_infer the v3 one."""
    _module("vlmeval.utils", can_infer=can_infer("v3"))
    _module("vlmeval.smp.file", load=None)
    return _load("vlmeval.dataset.utils.mathvista", "mathvista.py")


def yorn():
    """VLMEvalKit e8e78f05 vlmeval/dataset/utils/yorn.py with misc.py's process_punctuation."""
    m = misc()
    _module("vlmeval.smp", d2df=m.d2df, load=lambda frame: frame, process_punctuation=m.process_punctuation)
    return _load("vlmeval.dataset.utils.yorn", "yorn.py")


def mmevalpro():
    """chenllliang/MMEvalPro c6fb5418 auto_score.py (it parses sys.argv at import: run with none)."""
    argv, sys.argv = sys.argv, sys.argv[:1]
    try:
        return _load("mmevalpro_auto_score", "mmevalpro_auto_score.py")
    finally:
        sys.argv = argv


def dataset_class(file: str, name: str, **names):
    """A VLMEvalKit dataset class (`name` in vlmeval/dataset/`file` @ e8e78f05), its source taken unchanged
    from the file with `ast` and executed with the names it uses given (`load` takes the frame itself,
    `dump` keeps nothing, the base classes are `object`), as tests/fidelity/vlmevalkit/harness/rate_by_rows.py."""
    import ast

    import pandas as pd

    source = (SRC / file).read_text(encoding="utf-8")
    node = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == name)
    m = misc()
    namespace = {"pd": pd, "load": lambda frame: frame, "dump": lambda data, f: None, "d2df": m.d2df,
                 "get_intermediate_file_path": lambda f, suffix, ext=None: "unused", "tqdm": lambda xs, **k: xs,
                 "ImageVQADataset": object, "ImageMCQDataset": object, "ImageBaseDataset": object, **names}
    exec(compile(ast.get_source_segment(source, node), str(SRC / file), "exec"), namespace)
    return namespace[name]


def visulogic():
    """VLMEvalKit e8e78f05 vlmeval/dataset/utils/visulogic.py."""
    _module("vlmeval.smp", load=lambda frame: frame)
    return _load("vlmeval.dataset.utils.visulogic", "visulogic.py")


def mathv():
    """VLMEvalKit e8e78f05 vlmeval/dataset/utils/mathv.py, its can_infer the v3 one (latex2sympy2_extended as
    rulekit installs it). `timeout_decorator` is stubbed: is_equal's 30 s limit is kept by the labeller."""
    _module("vlmeval.utils", can_infer=can_infer("v3"))
    _module("vlmeval.smp", get_logger=logging.getLogger, load=lambda frame: frame)
    return _load("vlmeval.dataset.utils.mathv", "mathv.py")


def physics():
    """VLMEvalKit e8e78f05 vlmeval/dataset/utils/physic.py and physics_eval_utils.py (SymPy's parse_latex on
    antlr4 4.11, as rulekit installs it). Their `timeout_decorator` limits are kept by the labeller."""
    _module("vlmeval.smp", load=lambda frame: frame)
    _load("vlmeval.dataset.utils.physics_eval_utils", "physics_eval_utils.py")
    return _load("vlmeval.dataset.utils.physic", "physic.py")


def olympiadbench():
    """VLMEvalKit e8e78f05 vlmeval/dataset/utils/olympiadbench.py (MathJudger, extract_answer)."""
    return _load("vlmeval.dataset.utils.olympiadbench", "olympiadbench.py")
