"""onnxruntime against our default embedding path: one random ELMo-sized model exported with ``export_onnx``, the same
sentences in the same batches, interleaved rounds in one run.

    python benchmarks/onnx_inference.py [--size elmo-small] [--sentences 500] [--rounds 3] [--batch 64] [--threads N]

The model: random weights of ``--size`` (``allennlp_reference.SIZES``: elmo-small = 2x1024 cells, 128 projection,
2048 filters, 1 highway) written as the original files and loaded by ``ElmoEmbedder`` with its defaults (where
``precision="auto"`` picks bfloat16 matmuls, also with ``precision="float32"``, the arithmetic of the file);
``export_onnx`` writes its ``.onnx``, which ``OnnxEmbedder`` runs on onnxruntime's CPU provider. The
corpus: ``elmo_vs_allennlp.write_corpus``'s sentences of 5-40 tokens (seed 0). Both sides embed the same batches:
the sentences sorted by length (as ``embed_sentences`` sorts each window), cut into batches of ``--batch``. Untimed:
writing the files, loading, the export, and one warm-up pass each. Each round times every side, each first in turn;
a ratio is our seconds over onnxruntime's (above 1: onnxruntime is faster). onnxruntime runs ``--threads`` intra-op
threads (default: one per logical CPU, as TensorFlow does by default; 0: onnxruntime's own choice). Needs PyTorch
(the model builder's module imports it) and the ``onnx`` extra.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
import onnxruntime  # noqa: E402
from allennlp_reference import SIZES, random_model_files  # noqa: E402
from elmo_vs_allennlp import corpus_sentences  # noqa: E402
from timing import cpu_name  # noqa: E402

from elmo_keras.embedding.embedder import ElmoEmbedder  # noqa: E402
from elmo_keras.embedding.onnx_embedder import OnnxEmbedder  # noqa: E402
from elmo_keras.embedding.onnx_export import export_onnx  # noqa: E402


def sorted_batches(sentences: list[list[str]], batch: int) -> list[list[list[str]]]:
    """The sentences sorted by length (longest first), in batches of ``batch``."""
    ordered = sorted(sentences, key=len, reverse=True)
    return [ordered[start : start + batch] for start in range(0, len(ordered), batch)]


def embed_all(embedder, batches) -> tuple[float, list[np.ndarray]]:
    """Seconds to embed every batch with ``embedder.embed_batch``, and the vectors."""
    start = time.perf_counter()
    vectors = [v for batch in batches for v in embedder.embed_batch(batch)]
    return time.perf_counter() - start, vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="elmo-small")
    parser.add_argument("--sentences", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="onnxruntime intra-op threads (default: the logical CPUs; 0: its own choice)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        files = random_model_files(tmp, args.size)
        sentences = corpus_sentences(tmp / "corpus.txt", args.sentences)
        batches = sorted_batches(sentences, args.batch)
        ours = ElmoEmbedder(*files)  # the default path: precision "auto" (bfloat16 matmuls on CPUs that have them)
        sides = {f"ours ({ours.matmul_dtype or 'float32'})": ours}
        if ours.matmul_dtype is not None:  # the file computes in float32: the same arithmetic, compared too
            sides["ours (float32)"] = ElmoEmbedder(*files, precision="float32")
        start = time.perf_counter()
        path = export_onnx(ours, tmp / "model.onnx")
        export_seconds = time.perf_counter() - start
        session_options = onnxruntime.SessionOptions()
        session_options.intra_op_num_threads = args.threads
        sides["onnxruntime"] = OnnxEmbedder(path, session_options=session_options)
        print(f"{cpu_name()}; {args.size}, {args.sentences} sentences of 5-40 tokens, batch {args.batch}; "
              f"onnxruntime {onnxruntime.__version__} ({args.threads or 'default'} threads)")
        print(f"  export {export_seconds:.1f} s, {path.stat().st_size / 2**20:.1f} MiB", flush=True)
        for embedder in sides.values():  # warm-up: the graph's trace, onnxruntime's first allocations
            embed_all(embedder, batches)
        names = list(sides)
        for round_index in range(args.rounds):
            order = names[round_index % len(names):] + names[:round_index % len(names)]  # each side first in turn
            results = {name: embed_all(sides[name], batches) for name in order}
            ort_seconds, ort_vectors = results.pop("onnxruntime")
            line = [f"onnxruntime {ort_seconds:6.2f} s"]
            for name, (seconds, vectors) in results.items():
                difference = max(float(np.abs(a - b).max()) for a, b in zip(vectors, ort_vectors))
                line.append(f"{name} {seconds:6.2f} s = {seconds / ort_seconds:4.2f}x (max |diff| {difference:.1e})")
            print(f"  round {round_index + 1}: " + "   ".join(line), flush=True)


if __name__ == "__main__":
    main()
