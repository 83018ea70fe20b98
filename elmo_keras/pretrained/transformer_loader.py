"""Build AllenNLP's transformer ELMo from its ``model.tar.gz`` as our layers, with its weights.

``transformer_elmo_from_archive`` = ``read_allennlp_archive`` (``config.json`` and the embedding tensors of
``weights.th``, the softmax left unread unless asked for) → ``TransformerElmoConfig.from_dict`` →
``transformer_elmo_from_config`` (architecture only, no I/O) → ``set_transformer_elmo_weights`` (converts each
tensor with the named functions of ``allennlp_weights``, checks every shape against the config field it comes from,
and refuses a file with embedding tensors the config leaves unused).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from elmo_keras.layers.bidirectional_transformer import BidirectionalTransformer
from elmo_keras.layers.char_cnn import CharCNN
from elmo_keras.layers.sinusoidal_position_encoding import MAX_POSITIONS, sinusoidal_table
from elmo_keras.layers.transformer_bilm import TransformerBiLM
from elmo_keras.pretrained.allennlp_archive import read_allennlp_archive
from elmo_keras.pretrained.allennlp_config import ArchiveError, TransformerElmoConfig
from elmo_keras.pretrained.allennlp_weights import (
    POSITION_TABLE_TOLERANCE,
    POSITIONAL_ENCODING,
    char_conv_keys,
    char_embedding_key,
    char_layer_norm_keys,
    conv1d_weight_to_kernel,
    convert_allennlp_highway,
    final_norm_keys,
    highway_keys,
    is_embedding_key,
    is_softmax_key,
    linear_weight_to_kernel,
    positional_encoding_table,
    projection_keys,
    transformer_block_keys,
)
from elmo_keras.pretrained.loader import random_initialisation_skipped
from elmo_keras.text.char_ids import MAX_CHARS_PER_TOKEN

MAX_LISTED_TENSORS = 8  # in the "unused tensors" error
ENCODER_FIELD = "model.text_field_embedder.token_embedders.{}.encoder"
CONTEXTUALIZER_FIELD = "model.contextualizer"


@dataclass
class TransformerElmo:
    """A loaded transformer ELMo: ``bilm``, a built ``TransformerBiLM`` with the archive's weights (usable wherever a
    ``BiLM`` is: ``Elmo(bilm, ...)``, ``ScalarMix`` over its activations, ``BiLanguageModel``); ``config``;
    ``softmax``, the ``_softmax_loss.*`` tensors as stored (None unless asked for); ``archive``. ``char_cnn`` (char
    ids `(batch, time, 50)` → `(batch, time, dim)`) and ``contextualizer`` (→ ``num_layers`` ×
    `(batch, time, 2 * dim)`) are the biLM's two parts."""

    config: TransformerElmoConfig
    bilm: TransformerBiLM
    softmax: dict[str, np.ndarray] | None
    archive: str

    @property
    def char_cnn(self) -> CharCNN:
        return self.bilm.token_encoder

    @property
    def contextualizer(self) -> BidirectionalTransformer:
        return self.bilm.contextualizer


def transformer_elmo_from_config(config: TransformerElmoConfig, name: str = "transformer_elmo") -> TransformerBiLM:
    """The unbuilt, randomly initialised ``TransformerBiLM`` of ``config`` (no I/O): its ``token_encoder`` the
    ``CharCNN``, its ``contextualizer`` the ``BidirectionalTransformer``."""
    cnn, transformer = config.char_cnn, config.contextualizer
    char_cnn = CharCNN(embedding_dim=cnn.embedding_dim, filters=cnn.filters, n_highway=cnn.num_highway,
                       activation=cnn.activation, n_characters=cnn.num_embeddings,
                       max_characters_per_token=MAX_CHARS_PER_TOKEN, projection_dim=cnn.projection_dim,
                       projection_location=cnn.projection_location, layer_norm=cnn.do_layer_norm, name="char_cnn")
    return TransformerBiLM(char_cnn, hidden_dim=transformer.hidden_dim, num_layers=transformer.num_layers,
                           num_heads=transformer.num_heads, dropout=transformer.dropout,
                           input_dropout=transformer.input_dropout, max_length=MAX_POSITIONS, name=name)


def transformer_elmo_from_archive(path: str | os.PathLike, include_softmax: bool = False) -> TransformerElmo:
    """AllenNLP's transformer ELMo (``model.tar.gz`` or its extracted folder) as built layers with its weights.

    Args:
        path: the archive or folder (``config.json`` + ``weights.th`` in torch's zip or legacy format).
        include_softmax: bool, also read the ``_softmax_loss.*`` tensors (the released model's are 1.6 GB).
            Defaults to False (skipped unread).

    Raises:
        FileNotFoundError: no such archive.
        ArchiveError: an unsafe or damaged archive member, an invalid ``config.json`` field, a missing, extra or
            mis-shaped tensor (named, with the config field its shape comes from).
        TorchFileError: ``weights.th`` holds anything but tensors (refused unread), or is damaged.
    """
    path = os.fspath(path)
    keep = (lambda key: is_embedding_key(key) or is_softmax_key(key)) if include_softmax else is_embedding_key
    raw_config, tensors, weights_name = read_allennlp_archive(path, keep=keep)
    config = TransformerElmoConfig.from_dict(raw_config, source=f"{path}:config.json")
    softmax = {key: tensors.pop(key) for key in list(tensors) if is_softmax_key(key)} if include_softmax else None
    bilm = transformer_elmo_from_config(config)
    # every weight is overwritten next: no random initialisation for the sublayers that exist before build (the
    # char CNN's, the feed-forwards' first halves; the rest are made in build and still drawn)
    with random_initialisation_skipped(bilm):
        bilm.build(bilm.input_ids_shape)
    set_transformer_elmo_weights(bilm.token_encoder, bilm.contextualizer, config, tensors, weights_name)
    return TransformerElmo(config, bilm, softmax, path)


def set_transformer_elmo_weights(char_cnn: CharCNN, contextualizer: BidirectionalTransformer,
                                 config: TransformerElmoConfig, tensors: dict[str, np.ndarray], path: str) -> None:
    """Convert ``tensors`` (an AllenNLP state dict without its softmax) and assign them to the built layers.

    Raises:
        ArchiveError: a tensor is missing, has a shape the config does not imply (naming the field), is not
            numeric or not finite, or is left unused by the config.
    """
    taken: set[str] = set()

    def take(key: str, shape: tuple, because: str) -> np.ndarray:
        taken.add(key)
        return take_tensor(tensors, key, shape, path, f"{because} in {config.source}")

    _set_char_cnn(char_cnn, config, take, path)
    _set_contextualizer(contextualizer, config, take, path)
    unused = sorted(key for key in tensors if key not in taken and is_embedding_key(key))
    if unused:
        shown = ", ".join(repr(key) for key in unused[:MAX_LISTED_TENSORS])
        more = f" and {len(unused) - MAX_LISTED_TENSORS} more" if len(unused) > MAX_LISTED_TENSORS else ""
        raise ArchiveError(path, None, f"has {len(unused)} tensor(s) that {config.source} does not use: {shown}{more}; "
                                       "the config and weights belong to different models")


def _set_char_cnn(char_cnn: CharCNN, config: TransformerElmoConfig, take, path: str) -> None:
    cnn, name = config.char_cnn, config.token_name
    field = ENCODER_FIELD.format(name)
    key = char_embedding_key(name)
    weight = take(key, (cnn.num_embeddings, cnn.embedding_dim), f"{field}.embedding_dim")  # the ids need no shift
    assign(char_cnn.char_embedding.embeddings, weight, key, path)
    for i, ((width, count), conv) in enumerate(zip(cnn.filters, char_cnn.convolutions)):
        weight_key, bias_key = char_conv_keys(name, i)
        because = f"{field}.filters[{i}] = [{width}, {count}] and {field}.embedding_dim"
        assign(conv.kernel, conv1d_weight_to_kernel(take(weight_key, (count, cnn.embedding_dim, width), because)),
               weight_key, path)
        assign(conv.bias, take(bias_key, (count,), because), bias_key, path)
    dim = cnn.highway_dim
    for i in range(cnn.num_highway):
        weight_key, bias_key = highway_keys(name, i)
        because = f"{field}.projection_location = {cnn.projection_location!r} (width {dim})"
        converted = convert_allennlp_highway(take(weight_key, (2 * dim, dim), because),
                                             take(bias_key, (2 * dim,), because))
        highway = char_cnn.highway
        for variable, part in ((highway.transform_kernels[i], "transform_kernel"),
                               (highway.transform_biases[i], "transform_bias"),
                               (highway.gate_kernels[i], "gate_kernel"), (highway.gate_biases[i], "gate_bias")):
            assign(variable, converted[part], weight_key if part.endswith("kernel") else bias_key, path)
    weight_key, bias_key = projection_keys(name)
    because = f"{field}.filters ({cnn.num_filters} in all) and {field}.projection_dim"
    assign(char_cnn.projection.kernel,
           linear_weight_to_kernel(take(weight_key, (cnn.projection_dim, cnn.num_filters), because)), weight_key, path)
    assign(char_cnn.projection.bias, take(bias_key, (cnn.projection_dim,), because), bias_key, path)
    if cnn.do_layer_norm:
        _set_layer_norm(char_cnn.output_norm, char_layer_norm_keys(name), cnn.projection_dim,
                        f"{field}.do_layer_norm and {field}.projection_dim", take, path)


def _set_contextualizer(contextualizer: BidirectionalTransformer, config: TransformerElmoConfig, take,
                        path: str) -> None:
    dim, hidden = config.contextualizer.input_dim, config.contextualizer.hidden_dim
    width = f"{CONTEXTUALIZER_FIELD}.input_dim"
    table = positional_encoding_table(take(POSITIONAL_ENCODING, (1, MAX_POSITIONS, dim),
                                           f"{width} and AllenNLP's PositionalEncoding(max_len={MAX_POSITIONS})"))
    difference = float(np.max(np.abs(table - sinusoidal_table(MAX_POSITIONS, dim))))
    if difference > POSITION_TABLE_TOLERANCE:
        raise ArchiveError(path, POSITIONAL_ENCODING, f"differs from the sinusoidal formula by {difference:.3g} (more "
                                                      f"than {POSITION_TABLE_TOLERANCE}): not AllenNLP's positions")
    assign(contextualizer.position_encoding.positional_encoding, table, POSITIONAL_ENCODING, path)
    for direction, blocks, norm in (("forward", contextualizer.forward_blocks, contextualizer.forward_norm),
                                    ("backward", contextualizer.backward_blocks, contextualizer.backward_norm)):
        for layer, block in enumerate(blocks):
            keys = transformer_block_keys(direction, layer)
            because = f"{CONTEXTUALIZER_FIELD}.num_layers, .input_dim and .hidden_dim"
            attention = block.attention
            for part, dense in (("query", attention.query_dense), ("key", attention.key_dense),
                                ("value", attention.value_dense), ("output", attention.output_dense)):
                _set_linear(dense, keys[f"{part}.weight"], keys[f"{part}.bias"], (dim, dim), because, take, path)
            _set_linear(block.feed_forward_inner, keys["w_1.weight"], keys["w_1.bias"], (hidden, dim), because, take,
                        path)
            _set_linear(block.feed_forward_outer, keys["w_2.weight"], keys["w_2.bias"], (dim, hidden), because, take,
                        path)
            for part in ("attention_norm", "feed_forward_norm"):
                _set_layer_norm(getattr(block, part), (keys[f"{part}.gamma"], keys[f"{part}.beta"]), dim, because,
                                take, path)
        _set_layer_norm(norm, final_norm_keys(direction), dim, width, take, path)


def _set_linear(dense, weight_key: str, bias_key: str, shape: tuple, because: str, take, path: str) -> None:
    assign(dense.kernel, linear_weight_to_kernel(take(weight_key, shape, because)), weight_key, path)
    assign(dense.bias, take(bias_key, (shape[0],), because), bias_key, path)


def _set_layer_norm(norm, keys: tuple[str, str], dim: int, because: str, take, path: str) -> None:
    for variable, key in zip((norm.gamma, norm.beta), keys):
        assign(variable, take(key, (dim,), because), key, path)


def take_tensor(tensors: dict[str, np.ndarray], key: str, shape: tuple, path: str, because: str) -> np.ndarray:
    """``tensors[key]`` as float32 after checking that it exists, has ``shape``, holds numbers, all finite.

    Raises:
        ArchiveError: naming ``path`` and ``key``, the expected and received shape and ``because`` (the config
            fields the shape comes from), the non-numeric dtype, or the count of NaN/inf values.
    """
    if key not in tensors:
        raise ArchiveError(path, key, f"is missing: expected a tensor of shape {shape} (from {because})")
    value = tensors[key]
    if tuple(value.shape) != tuple(shape):
        raise ArchiveError(path, key, f"has shape {tuple(value.shape)} but {shape} was expected (from {because}); do "
                                      "config.json and weights.th belong to the same model?")
    if value.dtype.kind not in "iuf":
        raise ArchiveError(path, key, f"holds {value.dtype} values, not real numbers: not a weight tensor")
    value = value.astype(np.float32)
    if not np.isfinite(value).all():
        raise ArchiveError(path, key, f"holds {int((~np.isfinite(value)).sum())} NaN or infinite value(s): the "
                                      "weights are damaged or come from a diverged run")
    return value


def assign(variable, value: np.ndarray, key: str, path: str) -> None:
    """``variable.assign(value)`` after checking the converted shape (names the source tensor otherwise)."""
    if tuple(variable.shape) != tuple(value.shape):
        raise ArchiveError(path, key, f"converts to shape {tuple(value.shape)} but the layer weight {variable.path} "
                                      f"has shape {tuple(variable.shape)}")
    variable.assign(value.astype(variable.dtype, copy=False))  # take_tensor made it float32 already
