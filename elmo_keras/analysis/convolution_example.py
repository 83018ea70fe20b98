"""A classic lecture example of a CNN text classifier (Kim 2014), in NumPy: a filter sliding down "I like this movie
very much !".

The sentence is a `7 × 5` matrix (7 words, 5 dimensions each; ``SENTENCE_MATRIX``) and the filter a `2 × 5`
matrix (``BIGRAM_FILTER``): height 2, so it reads two adjacent words at a time; width 5, the embedding size, so it
can only slide down the sentence. At each position the window (2 rows) and the filter are multiplied element-wise
and the products summed: one number per position, ``7 − 2 + 1 = 6`` numbers in all (the feature map; its length
is computed from the two shapes, ``feature_map_length``). Max pooling keeps the largest and where it is.

The numbers are ours (the example states only one value), with two decimals, chosen so that the second window,
"like this", gives that value, 0.53: ``like · row 1 + this · row 2 = 0.42 + 0.11 = 0.53``. ``FILTERS`` adds a
3-row and a 4-row filter: heights 2, 3 and 4 give 6, 5 and 4 values.

The same functions run on a trained ``CNNTextClassifier``'s real embeddings and filters (the explorer hands them
the NumPy arrays; pass the filter's ``bias``: the trained model then applies its activation, ReLU, to each value).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SENTENCE = ("I", "like", "this", "movie", "very", "much", "!")
SENTENCE_MATRIX = np.array([  # one row per word, 5 dimensions
    [0.60, 0.50, 0.20, -0.10, 0.40],   # I
    [0.80, 0.90, 0.10, 0.50, 0.10],    # like
    [0.40, 0.60, 0.10, -0.10, 0.70],   # this
    [0.20, 0.10, 0.60, 0.30, -0.20],   # movie
    [-0.10, 0.30, 0.80, 0.20, 0.60],   # very
    [0.30, 0.20, 0.10, 0.90, 0.50],    # much
    [0.10, -0.40, 0.70, 0.20, 0.30],   # !
])
BIGRAM_FILTER = np.array([
    [0.20, 0.10, -0.30, 0.40, 0.00],
    [0.10, 0.30, 0.20, -0.10, -0.20],
])
FILTERS = {
    2: BIGRAM_FILTER,
    3: np.array([
        [0.10, 0.20, 0.00, 0.30, -0.10],
        [-0.20, 0.10, 0.40, 0.00, 0.20],
        [0.30, -0.10, 0.10, 0.20, 0.00],
    ]),
    4: np.array([
        [0.00, 0.30, 0.10, -0.20, 0.10],
        [0.20, 0.00, -0.10, 0.30, 0.20],
        [0.10, 0.10, 0.30, 0.00, -0.30],
        [-0.10, 0.20, 0.00, 0.10, 0.40],
    ]),
}


@dataclass(frozen=True)
class ConvolutionStep:
    """The filter at one position.

    Attributes:
        position: int, the window's first row (0-based).
        words: the window's words (empty strings when no words were given).
        window: float `(height, dim)`, the rows under the filter.
        product: float `(height, dim)`, ``window * filter`` element-wise.
        value: float, ``product.sum() + bias``: this position's entry of the feature map.
    """

    position: int
    words: tuple
    window: np.ndarray
    product: np.ndarray
    value: float


def _checked(matrix, filter_matrix) -> tuple[np.ndarray, np.ndarray]:
    matrix, filter_matrix = np.asarray(matrix, dtype=np.float64), np.asarray(filter_matrix, dtype=np.float64)
    if matrix.ndim != 2 or filter_matrix.ndim != 2:
        raise ValueError(f"the sentence and the filter must be matrices, received shapes {matrix.shape} and "
                         f"{filter_matrix.shape}")
    if matrix.shape[1] != filter_matrix.shape[1]:
        raise ValueError(f"the filter is {filter_matrix.shape[1]} wide but the embeddings have {matrix.shape[1]} "
                         "dimensions: a text filter spans the whole embedding width")
    feature_map_length(matrix.shape[0], filter_matrix.shape[0])
    return matrix, filter_matrix


def feature_map_length(num_words: int, filter_height: int) -> int:
    """``num_words − filter_height + 1``: how many positions a filter of that height takes in the sentence.

    Raises:
        ValueError: the filter is taller than the sentence (no position fits; a classifier zero-pads such a
            sentence, see ``NgramFilters``).
    """
    if filter_height < 1 or filter_height > num_words:
        raise ValueError(f"a filter of height {filter_height} does not fit a sentence of {num_words} words")
    return num_words - filter_height + 1


def convolution_steps(matrix, filter_matrix, words=None, bias: float = 0.0) -> list[ConvolutionStep]:
    """The filter at every position, top to bottom (``feature_map_length`` steps).

    Args:
        matrix: float `(num_words, dim)`, one embedding per row.
        filter_matrix: float `(height, dim)`.
        words: the sentence's words, for labelling the windows. Defaults to None.
        bias: float, added to every sum (a trained filter's bias). Defaults to 0.

    Raises:
        ValueError: not matrices, widths that differ, or a filter taller than the sentence.
    """
    matrix, filter_matrix = _checked(matrix, filter_matrix)
    height = filter_matrix.shape[0]
    words = tuple(words) if words is not None else ("",) * matrix.shape[0]
    steps = []
    for position in range(feature_map_length(matrix.shape[0], height)):
        window = matrix[position : position + height]
        product = window * filter_matrix
        steps.append(ConvolutionStep(position, words[position : position + height], window, product,
                                     float(product.sum() + bias)))
    return steps


def feature_map(matrix, filter_matrix, bias: float = 0.0) -> np.ndarray:
    """float `(num_words − height + 1,)`: the value at every position (see ``convolution_steps``)."""
    return np.array([step.value for step in convolution_steps(matrix, filter_matrix, bias=bias)])


def max_pool(values) -> tuple[float, int]:
    """``(largest value, its position)`` of a feature map (ties: the first position)."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"a feature map is a non-empty vector, received shape {values.shape}")
    position = int(np.argmax(values))
    return float(values[position]), position


def feature_maps_by_height(matrix=SENTENCE_MATRIX, filters=None) -> dict[int, np.ndarray]:
    """``{height: feature map}`` for several filters (default ``FILTERS``: heights 2, 3, 4 → 6, 5, 4 values)."""
    filters = FILTERS if filters is None else filters
    return {int(np.asarray(f).shape[0]): feature_map(matrix, f) for f in filters.values()}
