"""``OnnxEmbedder``: ELMo vectors from an ONNX file written by ``export_onnx``, run by onnxruntime (no Keras needed).

The file maps ids with ``<S>``/``</S>`` to ``activations`` `(batch, num_layers + 1, time, 2 * dim)`; this class adds
the boundaries, pads the batch (``text.batching``) and cuts each sentence's vectors out again, as ``ElmoEmbedder``
does. It imports neither Keras nor an engine, so a server with onnxruntime and NumPy alone can embed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from elmo_keras.text.batching import sentence_ids
from elmo_keras.text.vocabulary import Vocabulary

ONNX_OUTPUT = "activations"  # float32 (batch, num_layers + 1, time, 2 * dim)
ONNX_INPUTS = {"char": "char_ids", "word": "word_ids"}  # int32 (batch, time, 50) / (batch, time), by token_input
ONNX_AXES = ("batch", "time")  # the names of the free axes, in the input and the output


class OnnxEmbedder:
    """Embed tokenized sentences with an ``export_onnx`` file; every result is `(num_layers, tokens, dim)` float32.

    The same vectors as ``ElmoEmbedder`` over the exported biLM (to float32 rounding: ``tests/test_onnx_export.py``
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
        ValueError: the file's input or output is not one ``export_onnx`` writes, or a word-level file without
            ``vocabulary``.

    Example:
        >>> embedder = OnnxEmbedder("elmo.onnx")  # doctest: +SKIP
        >>> embedder.embed_sentence(["I", "sat", "by", "the", "bank"]).shape  # doctest: +SKIP
        (3, 5, 1024)
    """

    def __init__(self, path: str | os.PathLike, vocabulary: Vocabulary | None = None,
                 providers: Sequence[str] | None = None, session_options=None):
        import onnxruntime  # optional dependency (the onnx extra), loaded on first use

        providers = list(providers or ["CPUExecutionProvider"])
        self.session = onnxruntime.InferenceSession(os.fspath(path), session_options, providers=providers)
        inputs, outputs = self.session.get_inputs(), self.session.get_outputs()
        token_inputs = {name: token_input for token_input, name in ONNX_INPUTS.items()}
        if len(inputs) != 1 or inputs[0].name not in token_inputs or [o.name for o in outputs] != [ONNX_OUTPUT]:
            raise ValueError(f"{os.fspath(path)} is not an export_onnx file: it has inputs {[i.name for i in inputs]} "
                             f"and outputs {[o.name for o in outputs]}, expected one of {list(token_inputs)} and "
                             f"[{ONNX_OUTPUT!r}]")
        self.input_name = inputs[0].name
        self.sentence_ids = sentence_ids(token_inputs[self.input_name], vocabulary)
        _, self.num_layers, _, self.dim = outputs[0].shape

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
            TypeError, ValueError: as ``text.batching`` (a str instead of a token list, an empty token).
        """
        if isinstance(sentences, str):
            raise TypeError("expected a list of tokenized sentences, received a str; split it first: [text.split()]")
        results = [np.zeros((self.num_layers, 0, self.dim), dtype=np.float32) for _ in sentences]
        rows = [i for i, sentence in enumerate(sentences) if len(sentence) > 0]
        if not rows:
            return results
        activations = self.activations(self.sentence_ids([list(sentences[i]) for i in rows], None))
        for row, i in enumerate(rows):
            results[i] = np.ascontiguousarray(activations[row, :, 1 : len(sentences[i]) + 1])
        return results
