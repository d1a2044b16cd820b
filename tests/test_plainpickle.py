"""rulekit/readers/plainpickle.py: a pickle read as plain data, never run (issue 30, class 6).

VLMEvalKit keeps judge verdicts and API replies only in pickles (`*_openai_result.pkl`, `*_supp.pkl`); a
work dir is untrusted, so these files are read by an interpreter of the data opcodes only. Each hostile
pickle here must be refused (E303), or stopped at a bound (E302) or as damaged (E301), with nothing run
and nothing large allocated."""
from __future__ import annotations

import os
import pickle
import struct

import pytest

from rulekit.core.errors import RulekitError
from rulekit.readers.plainpickle import MAX_DEPTH, loads_plain, read_plain_pickle

PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_plain_data_reads_back_equal_in_every_protocol(protocol):
    shared = ["a shared list", 2]
    data = {"none": None, "bools": [True, False], "ints": [0, -1, 255, 65535, 2**31, -2**63, 2**100],
            "floats": [0.5, -1e300, float("inf")], "text": ["", "é ü 中文 \n\\", "x" * 300],
            "bytes": [b"", b"\x00\xff", b"y" * 300], "tuple": (1, ("nested", ()), []),
            7: "int key", (1, "t"): "tuple key", "twice": [shared, shared]}
    got = loads_plain(pickle.dumps(data, protocol=protocol))
    assert got == data
    assert got["twice"][0] is got["twice"][1]  # the memo keeps one object referred to twice


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_vlmevalkit_judge_result_pickle_reads_with_numpy_keys_as_numbers(protocol):
    """What VLMEvalKit writes (`dump(result, '<model>_<dataset>_openai_result.pkl')`): {index: {'hit', 'log'}}
    with the index taken from a DataFrame row, i.e. a numpy scalar pickled as a call to numpy's `scalar`."""
    np = pytest.importorskip("numpy")
    data = {np.int64(12): {"hit": np.int64(1), "log": "Succeed", "score": np.float64(0.25), "ok": np.bool_(True)},
            np.int32(-3): {"hit": 0, "log": "Failed to match"}}
    got = loads_plain(pickle.dumps(data, protocol=protocol))
    assert got == {12: {"hit": 1, "log": "Succeed", "score": 0.25, "ok": True}, -3: {"hit": 0, "log": "Failed to match"}}
    assert {type(k) for k in got} == {int} and type(got[12]["score"]) is float and type(got[12]["ok"]) is bool


class _Run:
    """An object whose pickle calls os.system when loaded by pickle.load."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class _Obj:
    def __init__(self):
        self.x = 1


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_call_to_os_system_is_refused_and_nothing_runs(protocol, tmp_path):
    marker = tmp_path / "ran"
    blob = pickle.dumps({"fine": [1, 2], "evil": _Run(marker)}, protocol=protocol)
    with pytest.raises(RulekitError) as info:
        loads_plain(blob, "x_openai_result.pkl")
    assert info.value.code == "E303" and "system" in info.value.message
    assert not marker.exists()
    pickle.loads(blob)  # the same bytes do run under pickle.load: the test can fail
    assert marker.exists()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_any_object_or_set_is_refused(protocol):
    for obj in (_Obj(), {1, 2}, frozenset([1]), complex(1, 2), range(3)):
        with pytest.raises(RulekitError) as info:
            loads_plain(pickle.dumps(obj, protocol=protocol))
        assert info.value.code == "E303", (obj, info.value.message)


@pytest.mark.parametrize("blob, why", [
    (b"cbuiltins\neval\n(S'1'\ntR.", "global"),  # eval by name
    (b"\x80\x04\x8c\x08builtins\x8c\x04exec\x93.", "global"),  # STACK_GLOBAL kept as data
    (b"cnumpy\ndtype\n.", "global kept as data"),  # a name of data, on its own
    (b"cnumpy\ndtype\n(S'O'\nI00\nI01\ntR.", "STRING"),  # protocol 0 text strings are refused
    (b"\x80\x02cnumpy\ndtype\nX\x02\x00\x00\x00O8\x89\x88\x87R.", "REDUCE"),  # an object dtype: not a number
    (b"\x80\x02cnumpy.core.multiarray\nscalar\nX\x01\x00\x00\x00aK\x01\x86R.", "REDUCE"),  # scalar of junk
    (b"\x80\x02}}b.", "BUILD"),  # BUILD on a dict: sets an object's state
    (b"\x80\x02Q.", "persistent id"),
    (b"\x80\x02\x82\x01.", "extension code"),
    (b"(cos\nsystem\nS'id'\no.", "global `os system`"),  # refused at the global, before OBJ
    (b"(ios\nsystem\n.", "INST"),
    (b"(]o.", "OBJ"),
])
def test_hand_made_hostile_pickles_are_refused(blob, why, tmp_path):
    with pytest.raises(RulekitError) as info:
        loads_plain(blob)
    assert info.value.code == "E303" and why in info.value.message, info.value.message


def test_a_memo_bomb_is_stopped_at_the_value_bound_not_expanded():
    """Ten lists each holding ten references to the one before: 10**10 values if expanded."""
    body = bytearray(b"\x80\x04]\x94")  # memo 0: an empty list
    for i in range(10):
        body += b"]\x94("  # a new list, memoized as i + 1
        body += (b"h" + bytes([i])) * 10  # ten references to the list before it
        body += b"e0"  # APPENDS, then POP it off the stack
    body += b"h" + bytes([10]) + b"."
    with pytest.raises(RulekitError) as info:
        loads_plain(bytes(body))
    assert info.value.code == "E302" and "values" in info.value.message


def test_nesting_deeper_than_the_bound_is_stopped():
    deep = b"\x80\x04" + b"]" * (MAX_DEPTH + 5) + b"a" * (MAX_DEPTH + 4) + b"."
    with pytest.raises(RulekitError) as info:
        loads_plain(deep)
    assert info.value.code == "E302" and "deeper" in info.value.message
    ok = b"\x80\x04" + b"]" * 10 + b"a" * 9 + b"."
    assert loads_plain(ok) == [[[[[[[[[[]]]]]]]]]]


@pytest.mark.parametrize("blob, code", [
    (b"\x80\x04\x8d" + struct.pack("<Q", 2**62) + b"abc.", "E301"),  # BINUNICODE8 of 4 EiB: ends early
    (b"\x80\x04\x8e" + struct.pack("<Q", 2**62) + b".", "E301"),  # BINBYTES8 likewise
    (b"\x80\x02\x8b" + struct.pack("<i", 10**9) + b".", "E302"),  # LONG4 of a gigabyte
    (b"I" + b"9" * 10_000 + b"\n.", "E302"),  # a text integer of 10,000 digits
    (b"\x80\x04]\x94(K\x01K\x02", "E301"),  # truncated: no STOP
    (b"\x80\x04K\x01K\x02.", "E301"),  # STOP with two values
    (b"\x80\x04h\x05.", "E301"),  # a memo reference to nothing
    (b"\xff.", "E301"),  # not an opcode
])
def test_huge_lengths_and_damage_are_errors_without_allocating(blob, code):
    with pytest.raises(RulekitError) as info:
        loads_plain(blob)
    assert info.value.code == code, info.value.message


def test_the_refusal_is_located_and_pinned(tmp_path):
    """The E303 message as it renders: the file, the byte, the global it names; what is read instead."""
    path = tmp_path / "m_MMVet_gpt-4-turbo_result.pkl"
    path.write_bytes(b"cos\nsystem\n(S'id'\ntR.")
    with pytest.raises(RulekitError) as info:
        read_plain_pickle(str(path))
    assert info.value.render() == (
        f"{path}: error[E303]: byte 0: refused the global `os system` (a pickle names it to import and call "
        "it): this pickle holds more than plain data, and rulekit never runs one\n"
        "  help: only dict, list, tuple, str, bytes, int, float, bool and None are read from a pickle (and "
        "numbers pandas wrote as numpy scalars)")
    path.write_bytes(pickle.dumps({1: {"hit": 1, "log": "ok"}}, protocol=4))
    assert read_plain_pickle(str(path)) == {1: {"hit": 1, "log": "ok"}}


def test_a_pickle_over_the_report_size_limit_is_not_read(tmp_path, monkeypatch):
    path = tmp_path / "x_supp.pkl"
    path.write_bytes(pickle.dumps(["x" * 5000], protocol=4))
    monkeypatch.setenv("RULEKIT_LIMITS", "report-bytes=1000")
    with pytest.raises(RulekitError) as info:
        read_plain_pickle(str(path))
    assert info.value.code == "E302"
