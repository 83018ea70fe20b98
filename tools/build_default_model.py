"""Build the explorer's default biLM, shipped in ``elmo_keras/data/default_model`` so a first launch needs no
training: the ``toy`` preset, seed 0, trained in float32 (``training_precision="auto"`` could pick bfloat16
elsewhere; pinned so that a rebuild on this machine class gives the same weights), saved without the optimizer's
state (a third of the size; nothing resumes training from it).

    python tools/build_default_model.py [--output elmo_keras/data/default_model]

``tests/test_default_model.py`` loads the shipped model with the current code and checks its perplexity and its
sense separation on the held-out sentences; the Corpus & training page still trains a model live in one click.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from elmo_keras.analysis import sense_separation, word_occurrences  # noqa: E402
from elmo_keras.data import TARGET_WORDS, load_polysemy  # noqa: E402
from elmo_keras.models import build_bilm_lm, get_preset, save_model_dir, train_bilm  # noqa: E402

DEFAULT_OUTPUT = pathlib.Path(__file__).resolve().parents[1] / "elmo_keras" / "data" / "default_model"
SEED = 0


def build(output: pathlib.Path) -> None:
    config = get_preset("toy").replace(training_precision="float32")
    trained = train_bilm(preset=config, seed=SEED, verbose=0)
    shipped = build_bilm_lm(config, len(trained.vocabulary))  # the same model, never compiled: no optimizer state
    shipped.build(shipped.bilm.input_ids_shape)
    shipped.set_weights(trained.get_weights())
    shipped.vocabulary, shipped.config = trained.vocabulary, trained.config
    shipped.training_summary = {**trained.training_summary, "preset": "toy", "corpus": "built-in polysemy corpus",
                                "built_by": "tools/build_default_model.py"}
    save_model_dir(shipped, output)
    summary = shipped.training_summary
    print(f"saved {output} ({sum(f.stat().st_size for f in output.iterdir()) / 2**20:.1f} MiB)")
    print(f"held-out perplexity: forward {summary['heldout']['forward_perplexity']:.2f}, "
          f"backward {summary['heldout']['backward_perplexity']:.2f}")
    corpus = load_polysemy()
    for word in TARGET_WORDS:
        separation = sense_separation(word_occurrences(shipped, word, corpus[corpus.word == word]))
        print(f"held-out sense separation of {word!r} by layer: {[round(float(a), 2) for a in separation]}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", type=pathlib.Path, default=DEFAULT_OUTPUT)
    build(parser.parse_args().output)
