"""String tokens as bytes: the one step of turning text into ELMo character ids that ``keras.ops`` cannot express.

``token_strings`` checks token strings given as Python or NumPy values and encodes them, one token at a time, so that
every token the layer accepts is the one ``batch_to_ids`` reads; ``utf8_bytes`` gives each token's first UTF-8 bytes
as integers and how many there are. The rest of the encoding (word markers, padding, the sentence-boundary tokens)
is ``keras.ops`` in ``elmo_keras.layers.elmo_character_ids``.

- TensorFlow has string tensors: the bytes come from ``tf.io.decode_raw`` inside the graph, so a model whose
  input is token strings trains with ``fit``, saves, and exports a SavedModel that takes text. A ``tf.RaggedTensor``
  of tokens is padded with ``""`` first.
- JAX and PyTorch have no string tensors: the bytes come from Python (``str.encode``) over a NumPy array of
  tokens, so this runs in eager calls only, never inside a compiled function.
"""

from __future__ import annotations

import numpy as np

from elmo_keras._quiet import keras, ops

# the "strings" a token tensor may hold: TensorFlow's are bytes; NumPy's str (unicode) or bytes (object arrays)
_NUMPY_STRING_KINDS = ("U", "S", "O")
# the Python and NumPy values token_strings encodes (anything else, a tensor, is passed on as it is)
_PYTHON_TOKENS = (list, tuple, np.ndarray, str, bytes, np.generic)


def token_strings(tokens):
    """Token strings given as Python or NumPy values, checked and UTF-8-encoded one by one; tensors as they are.

    Nested lists, tuples, NumPy arrays (``str``, ``bytes`` or ``object``) and single ``str``/``bytes`` become a
    NumPy object array of ``bytes`` (on TensorFlow a ``tf.string`` tensor of them), of the same shape: a ``str``
    token is encoded as UTF-8 as ``batch_to_ids`` encodes it (lone surrogates dropped), a ``bytes`` one kept as it
    is, NUL characters included. Lists are never made into a NumPy ``str`` array, which would drop a token's
    trailing NULs (``"a\\x00"`` → ``"a"``) and turn numbers into text (``3`` → ``"3"``); a NumPy ``str``/``bytes``
    array given here has lost its trailing NULs already, when it was made (NumPy stores ``"a\\x00"`` and ``"a"``
    alike), so pass those tokens as lists or an ``object`` array. Tensors (``tf.Tensor``, ``tf.RaggedTensor``,
    ``keras.KerasTensor``, ...) are returned unchanged: ``utf8_bytes`` reads them.

    Raises:
        TypeError: a token is not a ``str`` or ``bytes`` (naming its position, type and value), or a NumPy array
            whose dtype is not a string's.
        ValueError: a ``str`` token other than ``""`` with no UTF-8-encodable character (only lone surrogates,
            which ``batch_to_ids`` refuses too), or nested lists of different lengths; naming the position.
    """
    if not isinstance(tokens, _PYTHON_TOKENS):
        return tokens
    if isinstance(tokens, np.ndarray):
        _check_string_kind(tokens.dtype, tokens.dtype.kind in _NUMPY_STRING_KINDS)
        array = tokens
    else:
        array = np.asarray(tokens, dtype=object)  # Python objects as they are: no str() of numbers, no NUL lost
    encoded = np.empty(array.shape, dtype=object)
    for index, token in np.ndenumerate(array):
        encoded[index] = _encoded(token, index)
    if keras.backend.backend() == "tensorflow":
        import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

        return tf.convert_to_tensor(encoded, dtype=tf.string)
    return encoded


def _encoded(token, index) -> bytes:
    """One token as its UTF-8 bytes, or the one-line error naming it at ``index`` (its position)."""
    where = f"[{', '.join(str(i) for i in index)}]"
    if isinstance(token, bytes):
        return bytes(token)
    if isinstance(token, str):
        token = str(token)  # a NumPy str_ named as the text it holds
        encoded = token.encode("utf-8", "ignore")
        if token and not encoded:
            raise ValueError(f"the token at {where} ({token!r:.60}) has no UTF-8-encodable character (only lone "
                             "surrogates), which batch_to_ids refuses too: remove it, or pass '' for padding")
        return encoded
    if isinstance(token, (list, tuple)):
        raise ValueError(f"tokens must be rectangular: pad every sentence with '' to the same number of tokens "
                         f"(found a {type(token).__name__} where a token belongs, at {where})")
    raise TypeError(f"tokens must be strings: the token at {where} is {type(token).__name__} ({token!r:.40}); "
                    "convert it first (str(token)), or pass character ids to the Elmo layer directly")


def utf8_bytes(tokens, length: int):
    """The first ``length`` UTF-8 bytes of every token, zero-padded, and how many of them there are.

    Args:
        tokens: string tokens of any shape `(...)`: on TensorFlow a string ``tf.Tensor`` or ``tf.RaggedTensor``
            (padded with ``""``); on every backend what ``token_strings`` takes (encoded by it first).
        length: int, how many bytes to keep per token (the rest is cut, even inside a multi-byte character).

    Returns:
        ``(byte_values, byte_counts)``: int32 tensors `(..., length)` (each byte 0..255, then zeros) and `(...)`
        (``min(len(token in bytes), length)``).

    Raises:
        TypeError, ValueError: as ``token_strings`` (a token that is not a string, naming it; nested lists of
            different lengths).
    """
    tokens = token_strings(tokens)
    if keras.backend.backend() == "tensorflow":  # string tensors: the bytes come from the graph
        return _tensorflow_bytes(tokens, length)
    return _python_bytes(tokens, length)


def _tensorflow_bytes(tokens, length):
    import tensorflow as tf  # here: only the backend in use is imported (others may be absent)

    if isinstance(tokens, tf.RaggedTensor):
        tokens = tokens.to_tensor(default_value="")
    elif not tf.is_tensor(tokens):  # a tensor of another kind (a NumPy-convertible one)
        tokens = token_strings(_as_numpy(tokens))
    _check_string_kind(tokens.dtype, tokens.dtype == tf.string)
    values = tf.cast(tf.io.decode_raw(tokens, tf.uint8, fixed_length=length), tf.int32)  # (..., length)
    counts = tf.minimum(tf.strings.length(tokens, unit="BYTE"), length)  # (...)
    return values, counts


def _python_bytes(tokens, length):
    if not isinstance(tokens, np.ndarray):  # a tensor of another kind (a NumPy-convertible one)
        tokens = token_strings(_as_numpy(tokens))
    values = np.zeros(tokens.shape + (length,), dtype=np.int32)
    counts = np.zeros(tokens.shape, dtype=np.int32)
    for index, token in np.ndenumerate(tokens):  # bytes, from token_strings
        encoded = token[:length]
        values[index][: len(encoded)] = np.frombuffer(encoded, dtype=np.uint8)
        counts[index] = len(encoded)
    return ops.convert_to_tensor(values), ops.convert_to_tensor(counts)


def _as_numpy(tokens) -> np.ndarray:
    try:
        array = np.asarray(tokens)
    except (TypeError, ValueError, RuntimeError):
        raise TypeError(f"tokens must be strings, received {type(tokens).__name__}; pass token strings such as "
                        "[['The', 'bank', '']]") from None
    _check_string_kind(array.dtype, array.dtype.kind in _NUMPY_STRING_KINDS)
    return array


def _check_string_kind(dtype, is_string: bool) -> None:
    if not is_string:
        raise TypeError(f"tokens must be strings, received dtype {dtype}; pass token strings such as "
                        "[['The', 'bank', '']] (character ids go to the Elmo layer directly)")
