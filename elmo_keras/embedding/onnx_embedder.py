"""``OnnxEmbedder``: ELMo vectors from an ONNX file written by ``export_onnx``, run by onnxruntime (no Keras needed).

The file maps ids with ``<S>``/``</S>`` to ``activations`` `(batch, num_layers + 1, time, 2 * dim)`; this class adds
the boundaries, pads the batch (``text.batching``) and cuts each sentence's vectors out again, as ``ElmoEmbedder``
does. It imports neither Keras nor an engine, so a server with onnxruntime and NumPy alone can embed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence

import numpy as np

from elmo_keras.text.batching import check_token_lists, sentence_ids
from elmo_keras.text.vocabulary import Vocabulary

ONNX_OUTPUT = "activations"  # float32 (batch, num_layers + 1, time, 2 * dim)
ONNX_INPUTS = {"char": "char_ids", "word": "word_ids"}  # int32 (batch, time, 50) / (batch, time), by token_input
ONNX_AXES = ("batch", "time")  # the names of the free axes, in the input and the output
# what export_onnx writes: the input's rank and element type by token_input, the output's
_INPUT_RANKS = {"char": 3, "word": 2}
_INPUT_TYPE, _OUTPUT_TYPE = "tensor(int32)", "tensor(float)"
_REEXPORT = "re-export the model with export_onnx(embedder, path) (elmo_keras.embedding.onnx_export)"


class OnnxFileError(ValueError):
    """A file ``OnnxEmbedder`` cannot run: not ONNX (empty, truncated, another format), or an ONNX model whose input
    or output is not what ``export_onnx`` writes. The message names the file and says to re-export it."""


class OnnxEmbedder:
    """Embed tokenized sentences with an ``export_onnx`` file; every result is `(num_layers, tokens, dim)` float32.

    The same vectors as ``ElmoEmbedder`` over the exported biLM (to float32 rounding:
    ``tests/embedding/test_onnx_export.py``
    holds them to 1e-5), stateless: a sentence gets the same vectors alone or in any batch.

    Args:
        path: the ``.onnx`` file.
        vocabulary: the ``Vocabulary`` of a word-level biLM (a ``word_ids`` file); None for a character-level one.
            Defaults to None.
        providers: onnxruntime execution providers, in order of preference. Defaults to None
            (``["CPUExecutionProvider"]``).
        session_options: an ``onnxruntime.SessionOptions`` (threads, graph optimizations). Defaults to None
            (onnxruntime's defaults).

    Raises:
        ImportError: onnxruntime is not installed.
        FileNotFoundError, IsADirectoryError, PermissionError: ``path`` is missing, a directory, or unreadable.
        OnnxFileError (a ValueError): the file is not one onnxruntime can load (empty, truncated, not ONNX), or its
            input or output is not one ``export_onnx`` writes (names, ranks, element types).
        ValueError: a word-level file without ``vocabulary``.

        Each is one line naming the file and what to do (re-export it with ``export_onnx``).

    Example:
        >>> embedder = OnnxEmbedder("elmo.onnx")  # doctest: +SKIP
        >>> embedder.embed_sentence(["I", "sat", "by", "the", "bank"]).shape  # doctest: +SKIP
        (3, 5, 1024)
    """

    def __init__(self, path: str | os.PathLike, vocabulary: Vocabulary | None = None,
                 providers: Sequence[str] | None = None, session_options=None):
        import onnxruntime  # optional dependency (the onnx extra), loaded on first use

        path = os.fspath(path)
        _check_readable_file(path)
        providers = list(providers or ["CPUExecutionProvider"])
        try:
            self.session = onnxruntime.InferenceSession(path, session_options, providers=providers)
        except Exception as error:  # onnxruntime's own types (InvalidProtobuf, InvalidArgument, Fail, ...)
            if not type(error).__module__.startswith("onnxruntime"):
                raise
            reason = " ".join(str(error).split())[:300]
            raise OnnxFileError(f"{path} is not an ONNX file onnxruntime can load (empty, truncated or another "
                                f"format: {reason}); {_REEXPORT}") from None
        self.token_input = _check_signature(path, self.session.get_inputs(), self.session.get_outputs())
        self.input_name = ONNX_INPUTS[self.token_input]
        self.sentence_ids = sentence_ids(self.token_input, vocabulary)
        _, self.num_layers, _, self.dim = self.session.get_outputs()[0].shape

    def activations(self, ids: np.ndarray) -> np.ndarray:
        """The file's output for ``ids`` (int `(batch, time, 50)` or `(batch, time)`, boundaries included):
        float32 `(batch, num_layers, time, dim)`, zero at padding."""
        return self.session.run([ONNX_OUTPUT], {self.input_name: np.asarray(ids, dtype=np.int32)})[0]

    def embed_sentence(self, tokens: Sequence[str]) -> np.ndarray:
        """One tokenized sentence → float32 `(num_layers, len(tokens), dim)`."""
        return self.embed_batch([tokens])[0]

    def embed_batch(self, sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Tokenized sentences → one `(num_layers, len(tokens), dim)` array each (an empty sentence → 0 tokens).

        Raises:
            TypeError, ValueError: as ``text.batching.check_token_lists`` (a str instead of a token list, a token that
                is not a str, an empty token), naming the sentence and the token by their 0-based positions in
                ``sentences``.
        """
        check_token_lists(sentences, self.token_input)
        results = [np.zeros((self.num_layers, 0, self.dim), dtype=np.float32) for _ in sentences]
        rows = [i for i, sentence in enumerate(sentences) if len(sentence) > 0]
        if not rows:
            return results
        activations = self.activations(self.sentence_ids([list(sentences[i]) for i in rows], None))
        for row, i in enumerate(rows):
            results[i] = np.ascontiguousarray(activations[row, :, 1 : len(sentences[i]) + 1])
        return results


def _check_readable_file(path: str) -> None:
    """Refuse a missing, directory, special or unreadable ``path`` before onnxruntime reads it."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"no ONNX file {path}: check the path, or write it with export_onnx(embedder, "
                                "path)") from None
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(f"{path} is a directory, not an ONNX file: pass the .onnx file export_onnx wrote")
    if not stat.S_ISREG(mode):
        raise OnnxFileError(f"{path} is not a regular file: pass the .onnx file export_onnx wrote")
    if not os.access(path, os.R_OK):
        raise PermissionError(f"cannot read the ONNX file {path}: permission denied; make it readable (chmod u+r)")


def _check_signature(path: str, inputs, outputs) -> str:
    """The ``token_input`` of an ``export_onnx`` file, from its one input and one output (names, ranks, types)."""
    token_inputs = {name: token_input for token_input, name in ONNX_INPUTS.items()}
    if len(inputs) != 1 or inputs[0].name not in token_inputs or [o.name for o in outputs] != [ONNX_OUTPUT]:
        raise OnnxFileError(f"{path} is not an export_onnx file: it has inputs {[i.name for i in inputs]} and outputs "
                            f"{[o.name for o in outputs]}, expected one of {list(token_inputs)} and [{ONNX_OUTPUT!r}]; "
                            f"{_REEXPORT}")
    token_input = token_inputs[inputs[0].name]
    given, output = inputs[0], outputs[0]
    if len(given.shape) != _INPUT_RANKS[token_input] or given.type != _INPUT_TYPE:
        raise OnnxFileError(f"{path} is not an export_onnx file: its input {given.name!r} is {given.type} of shape "
                            f"{given.shape}, expected {_INPUT_TYPE} of rank {_INPUT_RANKS[token_input]}; {_REEXPORT}")
    sizes = output.shape[1::2] if len(output.shape) == 4 else []
    if output.type != _OUTPUT_TYPE or not all(isinstance(n, int) and n > 0 for n in sizes) or not sizes:
        raise OnnxFileError(f"{path} is not an export_onnx file: its output {output.name!r} is {output.type} of shape "
                            f"{output.shape}, expected {_OUTPUT_TYPE} (batch, layers, time, dim) with fixed layers "
                            f"and dim; {_REEXPORT}")
    return token_input
