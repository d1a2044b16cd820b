"""The `after-phrase` find (lmms-eval's extract_mcq_answer phrase rule): each answer's first occurrence after
the first occurrence of each phrase in the lowercased text; `pick: last` keeps the latest."""
from __future__ import annotations

from rulekit.language.finds import AfterPhraseFind, AfterPhraseFinder

PHRASES = ["the answer is", "answer is"]


def _found(text: str, phrases=PHRASES, answers=("A", "B", "C", "D")) -> list[tuple[str, int]]:
    finder = AfterPhraseFinder(AfterPhraseFind.model_validate(
        {"after-phrase": {"phrases": list(phrases), "answers": list(answers)}}).after_phrase)
    return [(c.answer, c.start) for c in finder.find(text, None, False)]  # no options needed


def _original(text: str, phrases=PHRASES, answers=("A", "B", "C", "D")) -> list[tuple[str, int]]:
    """The loop of extract_mcq_answer (lmms_eval/tasks/_task_utils/mcq_extract.py @ 75571cfe), as a reference."""
    out, lower = [], text.lower()
    for phrase in phrases:
        idx = lower.find(phrase)
        if idx != -1:
            for ch in answers:
                pos = text.find(ch, idx + len(phrase))
                if pos != -1:
                    out.append((ch, pos))
    return out


def test_each_letter_first_after_each_phrase_found():
    text = " The answer is B, not A, Because "
    assert _found(text) == _original(text) == [("A", 22), ("B", 15), ("A", 22), ("B", 15)]
    assert max(_found(text), key=lambda c: c[1])[0] == "A"  # `pick: last`: A's first occurrence is later


def test_no_phrase_no_candidate_and_case_of_letters_counts():
    assert _found("I pick b") == [] and _found("the answer is b") == []


def test_offsets_follow_the_lowercased_text_where_lowercasing_lengthens_it():
    text = "İİ the answer is B"  # "İ".lower() is two characters: the phrase's offset comes from the lowered text
    assert _found(text) == _original(text)
