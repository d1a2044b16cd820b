"""VLMEvalKit's ORIGINAL vlmeval/smp/misc.py @ e8e78f05, loaded unchanged from the file beside the harness
(`git show e8e78f05:vlmeval/smp/misc.py > misc.py`), with only what it imports at load time stubbed:
`sty` and huggingface_hub's cache manager."""
import sys, types

from modules import load_module

sys.modules.setdefault("sty", types.SimpleNamespace(fg=None))
try:
    import huggingface_hub.utils._cache_manager  # noqa: F401
except ImportError:
    m = types.ModuleType("huggingface_hub.utils._cache_manager"); m._scan_cached_repo = None
    sys.modules["huggingface_hub.utils._cache_manager"] = m


misc = load_module("vlmeval_misc", "misc.py")
