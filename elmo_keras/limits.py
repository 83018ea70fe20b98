"""Sizes refused before any work starts: absurd batch sizes and models that cannot fit in memory.

Unchecked, a batch of a million sentences or an ``lstm.dim`` of a billion would run a long time and end in an
out-of-memory error deep in TensorFlow; these checks turn them into one clear error naming the setting.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from elmo_keras.argument_checks import check_int

# Far above any useful biLM batch (bilm-tf trained with 128 per device), far below what exhausts a machine.
MAX_POSITIONS = 5000  # PositionalEncoding(max_len=5000) in AllenNLP's bidirectional_language_model_transformer.py
MAX_BATCH_SIZE = 65_536
FLOAT32_BYTES = 4
# Far more processes than one file usefully splits into (a shard is whole windows of batch_size × 16 lines), far below
# where the count stops fitting an HDF5 attribute or a merge's bookkeeping (``embed --shard K/N``, ``merge-shards``).
MAX_SHARDS = 100_000
# The memory one transformer embedding call adds, in float32 attention score tensors (batch × heads × T²): peak RSS
# over one layer's scores was 3.9 (1 × 2,000 tokens) and 4.1 (8 × 2,000) for the release-shaped model on the graph
# (benchmarks/transformer_memory.py); it falls with the length toward the T² term alone, ~1.9 (a layer's scores and
# probabilities live together), so 4 bounds the whole call from ~2,000 tokens on, where the check matters.
ATTENTION_LIVE_SCORES = 4


def check_batch_size(value, name: str = "batch_size") -> int:
    """``value`` if it is an int in ``[1, MAX_BATCH_SIZE]``.

    Raises:
        ValueError: naming ``name`` and the value received.
    """
    value = check_int(value, name)
    if value > MAX_BATCH_SIZE:
        raise ValueError(f"{name} = {value:,} is far more sentences per batch than is useful (at most "
                         f"{MAX_BATCH_SIZE:,}); a batch is capped at the corpus size anyway: use e.g. 32–128")
    return value


def check_length(what: str, length: int, limit: int, unit: str = "tokens", fix: str = "split or shorten it") -> None:
    """Refuse an input over its documented maximum, before any work on it: one line naming it, its length and the
    limit, e.g. ``"sentences[3] has 50,000 tokens, more than the limit of 512: split or shorten it"``.

    Args:
        what: names the input and its index (``"sentences[3]"``, ``"dialogue 2 history turn 0"``).
        length: int, its size in ``unit``.
        limit: int, the largest size allowed.
        unit: what ``length`` counts. Defaults to ``"tokens"``.
        fix: how to get under the limit. Defaults to ``"split or shorten it"``.

    Raises:
        ValueError: ``length > limit``.
    """
    if length > limit:
        raise ValueError(f"{what} has {length:,} {unit}, more than the limit of {limit:,}: {fix}")


def available_memory_bytes() -> int | None:
    """Memory the system can give a new allocation now (``MemAvailable``), else physical memory; None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def memory_shortfall(parameters: int, copies: int) -> str | None:
    """None if ``copies`` float32 copies of ``parameters`` fit in available memory, else a sentence saying why not.

    Args:
        parameters: int, the model's parameter count.
        copies: int, how many arrays of the model's size the work holds at once (2 to load weights: the file's
            arrays and the variables; 4 to train with Adam: weights, gradients, two moments).
    """
    needed = parameters * FLOAT32_BYTES * copies
    available = available_memory_bytes()
    if available is None or needed <= available:
        return None
    return (f"the model would have {parameters:,} parameters, needing about {_gigabytes(needed)} of memory, but "
            f"{_gigabytes(available)} is available")


def check_fits_in_memory(parameters: int, count: Callable[..., int], sizes: dict[str, int], copies: int,
                         refuse: Callable[[str, str], Exception]) -> None:
    """Refuse a model whose work (``copies`` float32 arrays of ``parameters``) cannot fit in available memory: the one
    memory check of every model description (``BiLMConfig`` to train, ``ElmoOptions`` and AllenNLP's transformer
    config to load).

    Args:
        parameters: int, the model's parameter count.
        count: ``fn(**sizes) -> int``, the count with some ``sizes`` replaced (for ``largest_factor``).
        sizes: ``{field name: value}``, the fields that set the count.
        copies: int, as ``memory_shortfall``.
        refuse: ``refuse(field, shortfall)``, the error to raise: ``field`` names the size that makes the model
            large (``largest_factor``), ``shortfall`` is ``memory_shortfall``'s sentence.

    Raises:
        What ``refuse`` returns, when the model does not fit.
    """
    shortfall = memory_shortfall(parameters, copies)
    if shortfall is not None:
        raise refuse(largest_factor(count, sizes), shortfall)


def lstm_stack_parameters(input_dim: int, units: int, projection_dim: int | None, num_layers: int) -> int:
    """Parameters of ``num_layers`` LSTM layers in each of two directions (kernels, biases, projections).

    ``input_dim`` is layer 1's input width; later layers read the previous output, ``projection_dim or units``.
    """
    output_dim = projection_dim or units
    first = (input_dim + output_dim) * 4 * units + 4 * units
    later = (output_dim + output_dim) * 4 * units + 4 * units
    projections = units * projection_dim if projection_dim else 0
    return 2 * (first + (num_layers - 1) * later + num_layers * projections)


def transformer_stack_parameters(dim: int, hidden_dim: int, num_layers: int, max_length: int = MAX_POSITIONS) -> int:
    """Parameters of a ``BidirectionalTransformer``: ``num_layers`` pre-LayerNorm blocks in each of two directions
    (query, key, value and output projections ``4 · (dim² + dim)``, the feed-forward ``dim → hidden_dim → dim``, two
    LayerNorms), one final LayerNorm per direction, and the sinusoidal positions' `(max_length, dim)` table (a
    constant weight, shared)."""
    attention = 4 * (dim * dim + dim)
    feed_forward = dim * hidden_dim + hidden_dim + hidden_dim * dim + dim
    block = attention + feed_forward + 2 * 2 * dim
    return 2 * (num_layers * block + 2 * dim) + max_length * dim


def char_cnn_parameters(n_characters: int, embedding_dim: int, filters, n_highway: int, projection_dim: int) -> int:
    """Parameters of a ``CharCNN``: character embedding, convolutions, highway layers and the projection.

    ``filters``: ``((width, count), ...)``; ``projection_dim``: the output width (the projection is counted
    always, as the layer always has one).
    """
    n_filters = sum(count for _, count in filters)
    convolutions = sum(width * embedding_dim * count + count for width, count in filters)
    highway = n_highway * 2 * (n_filters * n_filters + n_filters)
    return n_characters * embedding_dim + convolutions + highway + n_filters * projection_dim + projection_dim


def largest_factor(count, sizes: dict[str, int]) -> str:
    """The name in ``sizes`` whose value drives ``count(**sizes)`` most: the one whose reduction to 1 shrinks the
    count by the largest factor.

    Args:
        count: ``fn(**sizes) -> int``, e.g. ``BiLMConfig.parameter_count`` with the vocabulary bound.
        sizes: ``{field name: value}``.
    """
    total = count(**sizes)
    return max(sizes, key=lambda name: total / max(1, count(**{**sizes, name: 1})))


def attention_bytes(rows: int, positions: int, num_heads: int) -> int:
    """Memory a transformer call on ``rows`` × ``positions`` needs for its attention: ``ATTENTION_LIVE_SCORES``
    float32 score tensors `(rows, num_heads, positions, positions)`."""
    return rows * num_heads * positions**2 * FLOAT32_BYTES * ATTENTION_LIVE_SCORES


def check_attention_fits(rows: int, positions: int, num_heads: int) -> None:
    """Refuse, before the work, a transformer batch whose attention (``attention_bytes``) exceeds available memory:
    one line naming the batch's rows × positions, the estimate and what is available.

    Raises:
        ValueError: the estimate exceeds ``available_memory_bytes()`` (nothing is refused when that is unknown).
    """
    needed = attention_bytes(rows, positions, num_heads)
    available = available_memory_bytes()
    if available is not None and needed > available:
        raise ValueError(f"a batch of {rows:,} sentences × {positions:,} positions needs about {_gigabytes(needed)} "
                         f"for the transformer's attention (rows × {num_heads} heads × positions² × {FLOAT32_BYTES} "
                         f"bytes × {ATTENTION_LIVE_SCORES}), but {_gigabytes(available)} is available: embed fewer "
                         "sentences per batch (batch_size) or split the longest sentences")


def _gigabytes(size: int) -> str:
    return f"{size / 2**30:,.1f} GiB"
