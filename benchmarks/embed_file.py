"""Throughput of ``ElmoEmbedder.embed_file`` on the tiny original ELMo model, per execution mode.

Writes N sentences (the 30 fixture sentences, cycled) to a temporary file and embeds them with batch size
64 in each mode; the reference measured in the same run is ``execution="eager"``. "cold" is the first
``embed_file`` of a fresh embedder (it includes tracing / XLA compilation, what a one-off CLI run pays),
"warm" the second.

    python benchmarks/embed_file.py [--sentences 2000] [--batch-size 64] [--modes graph,xla,eager]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import tempfile
import time

from elmo_keras.embedding.choices import EXECUTION_MODES
from elmo_keras.embedding.embedder import ElmoEmbedder

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "elmo_bilm_tf"


def write_corpus(path: pathlib.Path, count: int) -> None:
    with open(FIXTURES / "lm_embeddings_sentences.json", encoding="utf-8") as handle:
        sentences = [text for texts in json.load(handle) for text in texts]
    path.write_text("\n".join(sentences[i % len(sentences)] for i in range(count)) + "\n", encoding="utf-8")


def measure(mode: str, corpus: pathlib.Path, output: pathlib.Path, batch_size: int) -> tuple[float, float]:
    embedder = ElmoEmbedder(FIXTURES / "options.json", FIXTURES / "lm_weights.hdf5", execution=mode)
    timings = []
    for _ in range(2):
        started = time.perf_counter()
        count = embedder.embed_file(corpus, output, output_format="all", batch_size=batch_size)
        timings.append(count / (time.perf_counter() - started))
    return timings[0], timings[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=2000)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--modes", default=",".join(EXECUTION_MODES))
    args = parser.parse_args()
    if not (FIXTURES / "lm_weights.hdf5").exists():
        raise SystemExit(f"fixtures not found at {FIXTURES}")
    modes = args.modes.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        corpus, output = pathlib.Path(tmp) / "corpus.txt", pathlib.Path(tmp) / "out.hdf5"
        write_corpus(corpus, args.sentences)
        results = {mode: measure(mode, corpus, output, args.batch_size) for mode in modes}
    reference = results.get("eager")
    print(f"embed_file, {args.sentences} sentences, batch {args.batch_size} (sentences/s)")
    for mode, (cold, warm) in results.items():
        ratio = f"  ({cold / reference[0]:.1f}x / {warm / reference[1]:.1f}x eager)" if reference else ""
        print(f"  {mode:6s} cold {cold:8.0f}   warm {warm:8.0f}{ratio}")


if __name__ == "__main__":
    main()
