"""forked.run: a value, an exception, a crash and a timeout of the work in a forked process."""

import os
import signal
import time

import islpy as isl
import pytest

from polypragma import forked


def test_the_value_comes_back():
    relation = isl.UnionMap("[n] -> { S[i] -> A[i + 1] : 0 <= i < n }")
    text = forked.run(lambda: str(relation.reverse()))
    assert isl.UnionMap(text).is_equal(relation.reverse())
    assert forked.run(lambda: os.getpid()) != os.getpid()


def test_an_exception_is_raised_here():
    def fail():
        raise ValueError("an exception ends the work, not the process")

    with pytest.raises(ValueError, match="ends the work"):
        forked.run(fail)
    with pytest.raises(isl.Error, match="maximal number of operations exceeded"):
        forked.run(lambda: (_ for _ in ()).throw(isl.Error("maximal number of operations exceeded")))


def test_a_crash_is_told_from_an_exception():
    with pytest.raises(forked.Crashed, match="without an answer"):
        forked.run(lambda: os.kill(os.getpid(), signal.SIGSEGV))


def test_a_timeout_kills_the_work():
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        forked.run(lambda: time.sleep(60), timeout=0.5)
    assert time.monotonic() - start < 30
