"""String tokens as bytes: the one step of turning text into ELMo character ids that ``keras.ops`` cannot express.

``utf8_bytes`` gives each token's first UTF-8 bytes as integers and how many there are; the rest of the
encoding (word markers, padding, the sentence-boundary tokens) is ``keras.ops`` in
``elmo_keras.layers.elmo_character_ids``.

- TensorFlow has string tensors: the bytes come from ``tf.io.decode_raw`` inside the graph, so a model whose
  input is token strings trains with ``fit``, saves, and exports a SavedModel that takes text. A ``tf.RaggedTensor``
  of tokens is padded with ``""`` first.
- JAX and PyTorch have no string tensors: the bytes come from Python (``str.encode``) over a NumPy array of
  tokens, so this runs in eager calls only, never inside a compiled function.
"""

from __future__ import annotations

import numpy as np
from keras import ops

from elmo_keras._quiet import keras

# the "strings" a token tensor may hold: TensorFlow's are bytes; NumPy's str (unicode) or bytes (object arrays)
_NUMPY_STRING_KINDS = ("U", "S", "O")


def utf8_bytes(tokens, length: int):
    """The first ``length`` UTF-8 bytes of every token, zero-padded, and how many of them there are.

    Args:
        tokens: string tokens of any shape `(...)`: on TensorFlow a string ``tf.Tensor`` or ``tf.RaggedTensor``
            (padded with ``""``), a NumPy array or nested lists of str; elsewhere a NumPy array or nested lists of
            ``str`` or ``bytes`` (``str`` tokens are encoded as UTF-8, characters that cannot be, such as lone
            surrogates, dropped).
        length: int, how many bytes to keep per token (the rest is cut, even inside a multi-byte character).

    Returns:
        ``(byte_values, byte_counts)``: int32 tensors `(..., length)` (each byte 0..255, then zeros) and `(...)`
        (``min(len(token in bytes), length)``).

    Raises:
        TypeError: ``tokens`` are not strings (naming the dtype received).
        ValueError: nested lists of different lengths (sentences not padded with ``""``).
    """
    if keras.backend.backend() == "tensorflow":  # string tensors: the bytes come from the graph
        return _tensorflow_bytes(tokens, length)
    return _python_bytes(tokens, length)


def _tensorflow_bytes(tokens, length):
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    if isinstance(tokens, tf.RaggedTensor):
        tokens = tokens.to_tensor(default_value="")
    elif not tf.is_tensor(tokens):
        try:
            array = np.asarray(tokens)
        except ValueError as error:  # nested lists of different lengths
            raise ValueError(f"tokens must be rectangular: pad every sentence with '' to the same number of tokens, "
                             f"or pass a tf.RaggedTensor ({error})") from None
        _check_string_kind(array.dtype, array.dtype.kind in _NUMPY_STRING_KINDS)
        tokens = tf.convert_to_tensor(array, dtype=tf.string)
    _check_string_kind(tokens.dtype, tokens.dtype == tf.string)
    values = tf.cast(tf.io.decode_raw(tokens, tf.uint8, fixed_length=length), tf.int32)  # (..., length)
    counts = tf.minimum(tf.strings.length(tokens, unit="BYTE"), length)  # (...)
    return values, counts


def _python_bytes(tokens, length):
    array = np.asarray(tokens, dtype=object) if not isinstance(tokens, np.ndarray) else tokens
    _check_string_kind(array.dtype, array.dtype.kind in _NUMPY_STRING_KINDS)
    values = np.zeros(array.shape + (length,), dtype=np.int32)
    counts = np.zeros(array.shape, dtype=np.int32)
    for index, token in np.ndenumerate(array):
        if isinstance(token, str):
            token = token.encode("utf-8", "ignore")
        elif isinstance(token, (list, tuple)):
            raise ValueError(f"tokens must be rectangular: pad every sentence with '' to the same number of tokens "
                             f"(found a list where a token belongs, at {index})")
        elif not isinstance(token, bytes):
            raise TypeError(f"tokens must be strings, found {type(token).__name__} {token!r:.40} at {index}")
        encoded = token[:length]
        values[index][: len(encoded)] = np.frombuffer(encoded, dtype=np.uint8)
        counts[index] = len(encoded)
    return ops.convert_to_tensor(values), ops.convert_to_tensor(counts)


def _check_string_kind(dtype, is_string: bool) -> None:
    if not is_string:
        raise TypeError(f"tokens must be strings, received dtype {dtype}; pass token strings such as "
                        "[['The', 'bank', '']] (character ids go to the Elmo layer directly)")
