"""The strict JSON reader against the standard library's parser, the reference: the same document for
any strict JSON nested up to 64 deep, a refusal (StrictJsonError, never another exception) for deeper
nesting, NaN, infinities and integers past Python's 4,300 digits, in time linear in the text whatever
it holds (an unclosed string of escaped quotes was read in quadratic time: 120 kB held a thread for
minutes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table import strictjson

ROOT = Path(__file__).resolve().parents[2]

finite = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                      | st.text(), lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
                      max_leaves=40)


def depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


@settings(max_examples=300)
@given(finite, st.integers(0, 70))
def test_it_reads_what_the_standard_library_reads_up_to_64_deep(value, wrap):
    document = value
    for _ in range(wrap):
        document = [document]
    text = json.dumps(document)
    if depth(document) <= strictjson.MAX_DEPTH:
        assert strictjson.loads(text) == json.loads(text)
        assert strictjson.loads(text.encode()) == json.loads(text)
    else:
        with pytest.raises(strictjson.StrictJsonError, match="nested more than 64 deep"):
            strictjson.loads(text)


@pytest.mark.parametrize("text, said", [
    ("[" * 100_000 + "]" * 100_000, "nested more than 64 deep"),
    ('{"a":' * 50_000 + "1" + "}" * 50_000, "nested more than 64 deep"),
    ("[" * 100_000, "nested more than 64 deep"),
    ('{"seq": ' + "9" * 5000 + "}", "a whole number too long to read"),
    ("[NaN]", "NaN is not a JSON number"),
    ("[1e400]", "1e400 is too large"),
    ("[-Infinity]", "-Infinity is not a JSON number"),
])
def test_it_refuses_what_is_not_strict_json(text, said):
    with pytest.raises(strictjson.StrictJsonError, match=said):
        strictjson.loads(text)


def test_an_unclosed_string_of_escaped_quotes_is_refused_at_once():
    """In a process of its own, so a hang (the reader holds the interpreter's lock) is seen as one."""
    script = ("from table import strictjson\ntry:\n    strictjson.loads('[' * 65 + '\"' + '\\\\\"' * 60000)\n"
              "except strictjson.StrictJsonError as exc:\n    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=20, cwd=ROOT)
    assert "Unterminated string" in done.stdout, done.stderr
