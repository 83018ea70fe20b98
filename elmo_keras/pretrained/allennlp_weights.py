"""AllenNLP's transformer-ELMo state-dict keys, and the conversion of its tensors to our layers' weights.

State-dict layout (module paths of AllenNLP's ``LanguageModel``; ``C`` = ``_text_field_embedder.token_embedder_
<token name>``, ``T`` = ``_contextualizer._{forward,backward}_transformer``)::

    C._embedding._module.weight                          (num_embeddings, char_dim)
    C._encoder._module.char_conv_{i}.weight, .bias       (count, char_dim, width), (count,)
    C._encoder._module._highways._layers.{k}.weight      (2 * highway_dim, highway_dim)    [transform; gate] rows
    C._encoder._module._highways._layers.{k}.bias        (2 * highway_dim,)
    C._encoder._module._projection.weight, .bias         (projection_dim, num_filters), (projection_dim,)
    C._encoder._module._layer_norm.gamma, .beta          (projection_dim,)                 (do_layer_norm only)
    T.layers.{k}.self_attn.linears.{0,1,2,3}.weight/bias (dim, dim), (dim,)                query, key, value, output
    T.layers.{k}.feed_forward.w_1.weight/bias            (hidden_dim, dim), (hidden_dim,)
    T.layers.{k}.feed_forward.w_2.weight/bias            (dim, hidden_dim), (dim,)
    T.layers.{k}.sublayer.{0,1}.norm.gamma/beta          (dim,)                            before attention, FF
    T.norm.gamma/beta                                    (dim,)                            the last layer's norm
    _contextualizer._position.positional_encoding        (1, 5000, dim)
    _softmax_loss.*, _last_average_loss                  (not embedding weights)

A ``torch.nn.Linear`` holds ``weight`` as `(out, in)` and computes ``x · weightᵀ``; a ``Conv1d`` holds `(out, in,
width)`. Each difference from our layers is one small named function below, tested on its own.
"""

from __future__ import annotations

import numpy as np

SOFTMAX_PREFIX = "_softmax_loss."  # the LM's softmax: read only when asked
NOT_EMBEDDING_KEYS = ("_last_average_loss",)  # a training statistic buffer
CONTEXTUALIZER_PREFIX = "_contextualizer."
POSITIONAL_ENCODING = "_contextualizer._position.positional_encoding"
DIRECTION_MODULES = {"forward": "_forward_transformer", "backward": "_backward_transformer"}
ATTENTION_LINEARS = ("query", "key", "value", "output")  # self_attn.linears.{0,1,2,3}
POSITION_TABLE_TOLERANCE = 1e-3  # |stored − formula|: ~2e-4 where a float32 exp rounds the other way (another
# formula differs by ~1); the stored table is what the loaded model adds


def is_embedding_key(key: str) -> bool:
    """Whether ``key`` is a weight of the embedder (char CNN, contextualizer): not the softmax nor a statistic."""
    return not key.startswith(SOFTMAX_PREFIX) and key not in NOT_EMBEDDING_KEYS


def is_softmax_key(key: str) -> bool:
    """Whether ``key`` belongs to the LM's softmax (``_softmax_loss.softmax_w``, ``.softmax_b``, …)."""
    return key.startswith(SOFTMAX_PREFIX)


# -- key names --------------------------------------------------------------------------------------------------


def char_cnn_prefix(token_name: str) -> str:
    """The character encoder's key prefix for the embedder named ``token_name`` in ``config.json``."""
    return f"_text_field_embedder.token_embedder_{token_name}."


def char_embedding_key(token_name: str) -> str:
    return f"{char_cnn_prefix(token_name)}_embedding._module.weight"


def char_conv_keys(token_name: str, index: int) -> tuple[str, str]:
    """``(weight, bias)`` of convolution ``index`` (``char_conv_{index}``, the old ELMo name AllenNLP keeps)."""
    prefix = f"{char_cnn_prefix(token_name)}_encoder._module.char_conv_{index}"
    return f"{prefix}.weight", f"{prefix}.bias"


def highway_keys(token_name: str, index: int) -> tuple[str, str]:
    """``(weight, bias)`` of highway layer ``index``: one ``Linear(dim, 2 * dim)`` per layer."""
    prefix = f"{char_cnn_prefix(token_name)}_encoder._module._highways._layers.{index}"
    return f"{prefix}.weight", f"{prefix}.bias"


def projection_keys(token_name: str) -> tuple[str, str]:
    prefix = f"{char_cnn_prefix(token_name)}_encoder._module._projection"
    return f"{prefix}.weight", f"{prefix}.bias"


def char_layer_norm_keys(token_name: str) -> tuple[str, str]:
    prefix = f"{char_cnn_prefix(token_name)}_encoder._module._layer_norm"
    return f"{prefix}.gamma", f"{prefix}.beta"


def transformer_block_keys(direction: str, layer: int) -> dict[str, str]:
    """``{our part: key}`` of block ``layer`` of the ``"forward"`` or ``"backward"`` stack; parts
    ``{query,key,value,output}.{weight,bias}``, ``w_{1,2}.{weight,bias}``, ``{attention,feed_forward}_norm.{gamma,
    beta}``."""
    prefix = f"{CONTEXTUALIZER_PREFIX}{DIRECTION_MODULES[direction]}.layers.{layer}"
    keys = {}
    for index, part in enumerate(ATTENTION_LINEARS):
        for tensor in ("weight", "bias"):
            keys[f"{part}.{tensor}"] = f"{prefix}.self_attn.linears.{index}.{tensor}"
    for linear in ("w_1", "w_2"):
        for tensor in ("weight", "bias"):
            keys[f"{linear}.{tensor}"] = f"{prefix}.feed_forward.{linear}.{tensor}"
    for index, part in enumerate(("attention_norm", "feed_forward_norm")):
        for tensor in ("gamma", "beta"):
            keys[f"{part}.{tensor}"] = f"{prefix}.sublayer.{index}.norm.{tensor}"
    return keys


def final_norm_keys(direction: str) -> tuple[str, str]:
    """``(gamma, beta)`` of the LayerNorm AllenNLP applies to the last layer of the ``direction`` stack."""
    prefix = f"{CONTEXTUALIZER_PREFIX}{DIRECTION_MODULES[direction]}.norm"
    return f"{prefix}.gamma", f"{prefix}.beta"


# -- conversions ------------------------------------------------------------------------------------------------


def linear_weight_to_kernel(weight: np.ndarray) -> np.ndarray:
    """``torch.nn.Linear.weight`` `(out, in)` → a ``Dense`` kernel `(in, out)`: the transpose (``x · Wᵀ = x · K``).

    Raises:
        ValueError: ``weight`` is not 2-D.
    """
    if weight.ndim != 2:
        raise ValueError(f"expected a (out, in) Linear weight, received shape {weight.shape}")
    return np.ascontiguousarray(weight.T)


def conv1d_weight_to_kernel(weight: np.ndarray) -> np.ndarray:
    """``torch.nn.Conv1d.weight`` `(count, char_dim, width)` → a ``Conv1D`` kernel `(width, char_dim, count)`.

    Both compute a cross-correlation along the characters with "valid" padding; only the axis order differs.

    Raises:
        ValueError: ``weight`` is not 3-D.
    """
    if weight.ndim != 3:
        raise ValueError(f"expected a (count, char_dim, width) Conv1d weight, received shape {weight.shape}")
    return np.ascontiguousarray(weight.transpose(2, 1, 0))


def convert_allennlp_highway(weight: np.ndarray, bias: np.ndarray) -> dict[str, np.ndarray]:
    """One AllenNLP highway layer (``Linear(dim, 2 * dim)``) → our ``Highway`` weights.

    AllenNLP computes ``[A x + a; B x + b] = weight · x + bias``, then ``y = g ⊙ x + (1 − g) ⊙ relu(A x + a)`` with
    ``g = σ(B x + b)``: its gate ``g`` *carries* the input. Our gate ``t`` passes the transform (``y = t ⊙ relu(x W_h
    + b_h) + (1 − t) ⊙ x``), so ``t = 1 − g = σ(−(B x + b))``: the gate weights are negated, and the first half of
    the rows is the transform.

    Args:
        weight: `(2 * dim, dim)`; bias: `(2 * dim,)`.

    Returns:
        ``{"transform_kernel" (dim, dim), "transform_bias" (dim,), "gate_kernel" (dim, dim), "gate_bias" (dim,)}``.

    Raises:
        ValueError: the shapes are not `(2 * dim, dim)` and `(2 * dim,)`.
    """
    dim = weight.shape[-1] if weight.ndim == 2 else -1
    if weight.shape != (2 * dim, dim) or bias.shape != (2 * dim,):
        raise ValueError(f"expected a (2 * dim, dim) highway weight and a (2 * dim,) bias, received {weight.shape} "
                         f"and {bias.shape}")
    transform, gate = weight[:dim], weight[dim:]
    return {"transform_kernel": linear_weight_to_kernel(transform), "transform_bias": bias[:dim].copy(),
            "gate_kernel": linear_weight_to_kernel(-gate), "gate_bias": -bias[dim:]}


def positional_encoding_table(buffer: np.ndarray) -> np.ndarray:
    """AllenNLP's ``positional_encoding`` buffer `(1, max_length, dim)` → our table `(max_length, dim)`.

    Raises:
        ValueError: ``buffer`` is not `(1, max_length, dim)`.
    """
    if buffer.ndim != 3 or buffer.shape[0] != 1:
        raise ValueError(f"expected a (1, max_length, dim) positional encoding, received shape {buffer.shape}")
    return buffer[0]
