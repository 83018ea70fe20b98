"""``ElmoCharacterIds``: token strings → ELMo character ids, as a layer, so that a saved model takes text."""

from __future__ import annotations

import numpy as np

from elmo_keras._backend import token_strings, utf8_bytes
from elmo_keras._quiet import keras, ops
from elmo_keras.text.char_ids import (
    BEGIN_OF_SENTENCE_ROW,
    BEGIN_OF_WORD_CHAR,
    BOS_TOKEN,
    END_OF_SENTENCE_ROW,
    END_OF_WORD_CHAR,
    EOS_TOKEN,
    MASK_SHIFT,
    MAX_BYTES_PER_TOKEN,
    MAX_CHARS_PER_TOKEN,
    PADDING_CHAR,
)

# the sentence-boundary tokens as bytes, with the row each one becomes
_BOUNDARY_TOKENS = ((BOS_TOKEN.encode("utf-8"), BEGIN_OF_SENTENCE_ROW),
                    (EOS_TOKEN.encode("utf-8"), END_OF_SENTENCE_ROW))


@keras.saving.register_keras_serializable(package="elmo_keras")
class ElmoCharacterIds(keras.layers.Layer):
    """Token strings → ELMo character ids: the ids ``batch_to_ids`` gives, with ``""`` as padding.

    Each token becomes ``[BEGIN_OF_WORD, byte_1 + 1, ..., byte_n + 1, END_OF_WORD, PADDING_CHAR, ...]`` (50 ids;
    ``elmo_keras.text.char_ids`` has the table): its UTF-8 bytes, cut to ``MAX_BYTES_PER_TOKEN`` (48) bytes — bytes,
    not characters, so a multi-byte character may be cut in two, exactly as ``batch_to_ids`` cuts. A token that is
    literally ``"<S>"`` or ``"</S>"`` gets the sentence-boundary row, as in ``batch_to_ids``. The empty token
    ``""`` is padding: an all-zero row, which the ``Elmo`` layer masks out (``batch_to_ids`` refuses empty tokens
    and pads short sentences with the same zero rows). Every other ``str`` token gets exactly the row
    ``batch_to_ids`` gives it: NUL characters are bytes like any other, lone surrogates are dropped, and a token of
    lone surrogates only, which ``batch_to_ids`` refuses, is refused here too (``ValueError``), not made padding.
    ``bytes`` tokens are taken as their bytes.

    Tokens given as Python or NumPy values are checked, one by one, before the layer runs, so each error is one line
    naming the token's position (``[sentence, token]``) and value. Nested lists keep every token as it is; a NumPy
    ``str`` or ``bytes`` array cannot: NumPy drops a token's trailing NUL characters when the array is made
    (``np.array(["a\\x00"])`` holds ``"a"``; ``"\\x00"`` becomes ``""``, padding), before this layer sees it, so
    pass such tokens as lists or a ``dtype=object`` array.

    Where it runs: on TensorFlow inside the graph (``tf.io.decode_raw``), so a ``keras.Model`` from strings trains
    with ``fit``, saves to ``.keras`` and exports (``model.export``) a SavedModel that takes text. JAX and PyTorch
    have no string tensors: there the layer encodes in Python (NumPy) and works in eager calls only (call it on your
    batches before the model, e.g. ``elmo(char_ids(tokens))``), not inside ``fit`` or a compiled function.

    The layer has no weights and no arguments besides the base layer's (``name``, …).

    Call arguments:
        inputs: token strings `(batch_size, time)`, shorter sentences padded with ``""``; on TensorFlow a string
            tensor or a ``tf.RaggedTensor`` `(batch_size, None)` (padded here), else a NumPy array or nested lists
            of ``str`` (or ``bytes``). Any shape `(...)` works: the ids get one more axis.

    Returns:
        int32 `(batch_size, time, 50)` (`(..., 50)` in general).

    Raises:
        TypeError: the inputs are not strings (e.g. ids already, naming the dtype received), or a token is not a
            ``str``/``bytes`` (``[["a", 3]]``: naming its position and value).
        ValueError: a token of lone surrogates only (naming its position and value), or nested lists of different
            lengths (pad every sentence with ``""``).

    Example:
        >>> tokens = keras.Input(shape=(None,), dtype="string")             # TensorFlow
        >>> elmo = load_pretrained_elmo("options.json", "weights.hdf5", num_output_representations=1)
        >>> vectors = elmo(ElmoCharacterIds()(tokens))["elmo_representations"][0]  # (batch, time, 2 * dim)
        >>> model = keras.Model(tokens, vectors)
        >>> model(np.array([["The", "bank", "closed"], ["Hello", "", ""]]))  # (2, 3, 2 * dim)
        >>> model.predict(tf.constant([["The", "bank", "closed"]]))  # fit / predict: a tf.Tensor or tf.data

    Reference:
        Peters et al., "Deep contextualized word representations", NAACL 2018 (the character ids of
        ``bilm-tf``'s ``UnicodeCharsVocabulary``).
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._convert_input_args = False  # strings: Keras would convert them to (numeric) backend tensors
        self._allow_non_tensor_positional_args = True  # nested lists of str are accepted
        self.built = True  # no weights

    def __call__(self, *args, **kwargs):
        # Python and NumPy tokens are checked and encoded here, before Keras runs ``call``: an error raised inside
        # ``call`` comes back with Keras' lines about the call added, and this one names the token in one line
        if args:
            args = (token_strings(args[0]), *args[1:])
        elif "inputs" in kwargs:
            kwargs["inputs"] = token_strings(kwargs["inputs"])
        return super().__call__(*args, **kwargs)

    def call(self, inputs):
        values, counts = utf8_bytes(inputs, MAX_BYTES_PER_TOKEN)  # (..., 48), (...)
        counts = ops.expand_dims(counts, -1)  # (..., 1)
        edge = ops.zeros_like(values[..., :1])  # (..., 1)
        shifted = ops.concatenate([edge, values + MASK_SHIFT, edge], axis=-1)  # (..., 50): position p holds byte p-1
        positions = ops.arange(MAX_CHARS_PER_TOKEN, dtype="int32")  # (50,)
        ids = ops.where(positions > counts + 1, PADDING_CHAR, END_OF_WORD_CHAR)
        ids = ops.where(positions <= counts, shifted, ids)
        ids = ops.where(positions == 0, BEGIN_OF_WORD_CHAR, ids)  # (..., 50)
        for token, row in _BOUNDARY_TOKENS:
            literal = ops.logical_and(ops.equal(counts[..., 0], len(token)),
                                      ops.all(ops.equal(values[..., : len(token)], np.frombuffer(token, np.uint8)),
                                              axis=-1))  # (...)
            ids = ops.where(ops.expand_dims(literal, -1), row, ids)
        ids = ops.where(counts == 0, 0, ids)  # "" is padding: an all-zero row
        return ops.cast(ids, "int32")

    def compute_output_shape(self, input_shape):
        return tuple(input_shape) + (MAX_CHARS_PER_TOKEN,)

    def compute_output_spec(self, inputs):
        return keras.KerasTensor(self.compute_output_shape(inputs.shape), dtype="int32")
