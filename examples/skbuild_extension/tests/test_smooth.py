import numpy as np

import pp_smooth


def reference(signal, passes):
    out = signal.copy()
    for _ in range(passes):
        out[1:-1] = 0.25 * out[:-2] + 0.5 * out[1:-1] + 0.25 * out[2:]
    return out


def test_smooth_matches_numpy():
    signal = np.random.default_rng(5).random(1001)
    result = pp_smooth.smooth(signal, passes=7)
    np.testing.assert_allclose(result, reference(signal, 7), rtol=1e-12, atol=1e-14)
    assert not np.shares_memory(result, signal)


def test_smooth_keeps_the_ends():
    result = pp_smooth.smooth([4.0, 0.0, 0.0, 8.0], passes=2)
    assert result[0] == 4.0 and result[-1] == 8.0
