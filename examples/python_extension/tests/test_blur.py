import numpy as np

import pp_blur


def reference(image, passes):
    out = image.copy()
    for _ in range(passes):
        inner = sum(out[1 + di : out.shape[0] - 1 + di, 1 + dj : out.shape[1] - 1 + dj]
                    for di in (-1, 0, 1) for dj in (-1, 0, 1)) / 9.0
        out[1:-1, 1:-1] = inner
    return out


def test_blur_matches_numpy():
    image = np.random.default_rng(3).random((61, 47))
    result = pp_blur.blur(image, passes=4)
    np.testing.assert_allclose(result, reference(image, 4), rtol=1e-12, atol=1e-14)
    assert result is not image and not np.shares_memory(result, image)


def test_blur_takes_lists_and_leaves_small_images_alone():
    assert pp_blur.blur([[1.0, 2.0], [3.0, 4.0]], passes=3).tolist() == [[1.0, 2.0], [3.0, 4.0]]
