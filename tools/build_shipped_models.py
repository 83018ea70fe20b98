"""Build the models the explorer ships in ``elmo_keras/data/shipped_models`` so that no page trains first:

- ``toy``: the ``toy`` preset on the built-in polysemy corpus, seed 0, trained in float32
  (``training_precision="auto"`` could pick bfloat16 elsewhere; pinned so that a rebuild gives the same model)
  and saved without the optimizer's state (a third of the size; nothing resumes training from it);
- ``seq2seq-toy``: the decoding page's GRU encoder-decoder (``explorer.decoding.train_default_seq2seq``, seed 0);
- ``tagger-toy`` and ``taglm-toy``: the tagging page's taggers (``explorer.tagging.train_default_taggers``, seed 0);
- ``results``: what the layer-weights page computes from ``toy`` on the built-in corpus with seed 0
  (``explorer.result_cache``'s layout), so that page opens at once too.

    python tools/build_shipped_models.py [--output elmo_keras/data/shipped_models]

About 1.5 minutes on 2 CPU cores. ``tests/test_shipped_models.py`` loads every shipped model with the current code
and checks what the pages rely on; the Corpus & training page still trains a biLM live in one click.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from elmo_keras.analysis import sense_separation, word_occurrences  # noqa: E402
from elmo_keras.data import TARGET_WORDS, load_polysemy  # noqa: E402
from elmo_keras.explorer.corpus import builtin_corpus  # noqa: E402
from elmo_keras.explorer.decoding import train_default_seq2seq  # noqa: E402
from elmo_keras.explorer.layer_weights_store import stored_layer_weight_report  # noqa: E402
from elmo_keras.explorer.model_store import SEQ2SEQ_DIR_NAME, TAGGER_DIR_NAME, TAGLM_DIR_NAME, find_model, load_model  # noqa: E402  # noqa: E402
from elmo_keras.explorer.result_cache import RESULTS_DIR_NAME  # noqa: E402
from elmo_keras.explorer.shipped_models import SHIPPED_RESULTS  # noqa: E402
from elmo_keras.explorer.tagging import train_default_taggers  # noqa: E402
from elmo_keras.models import build_bilm_lm, get_preset, save_model_dir, train_bilm  # noqa: E402
from elmo_keras.safe_files import replace_directory, staging_directory  # noqa: E402

DEFAULT_OUTPUT = pathlib.Path(__file__).resolve().parents[1] / "elmo_keras" / "data" / "shipped_models"
SEED = 0


def build_toy_bilm(output: pathlib.Path) -> None:
    config = get_preset("toy").replace(training_precision="float32")
    trained = train_bilm(preset=config, seed=SEED, verbose=0)
    shipped = build_bilm_lm(config, len(trained.vocabulary))  # the same model, never compiled: no optimizer state
    shipped.build(shipped.bilm.input_ids_shape)
    shipped.set_weights(trained.get_weights())
    shipped.vocabulary, shipped.config = trained.vocabulary, trained.config
    shipped.training_summary = {**trained.training_summary, "preset": "toy", "corpus": "built-in polysemy corpus",
                                "built_by": "tools/build_shipped_models.py"}
    save_model_dir(shipped, output)
    summary = shipped.training_summary
    print(f"toy: held-out perplexity forward {summary['heldout']['forward_perplexity']:.2f}, "
          f"backward {summary['heldout']['backward_perplexity']:.2f}")
    corpus = load_polysemy()
    for word in TARGET_WORDS:
        separation = sense_separation(word_occurrences(shipped, word, corpus[corpus.word == word]))
        print(f"toy: held-out sense separation of {word!r} by layer: {[round(float(a), 2) for a in separation]}")


def build(output: pathlib.Path) -> None:
    output.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        scratch = pathlib.Path(scratch)
        build_toy_bilm(scratch / "toy")
        train_default_seq2seq(scratch, seed=SEED)
        train_default_taggers(scratch, seed=SEED)
        toy = find_model(scratch, "toy")
        report = stored_layer_weight_report(load_model(toy.ref), toy.ref, builtin_corpus(), seed=0)
        print(f"toy: layer-weights report on the built-in corpus, {len(report.reports)} tasks, stored")
        shutil.rmtree(output / SHIPPED_RESULTS, ignore_errors=True)
        shutil.copytree(scratch / RESULTS_DIR_NAME, output / SHIPPED_RESULTS)
        for name in ("toy", SEQ2SEQ_DIR_NAME, TAGGER_DIR_NAME, TAGLM_DIR_NAME):
            staging = staging_directory(output / name)
            shutil.rmtree(staging)
            shutil.copytree(scratch / name, staging)
            replace_directory(staging, output / name)
            size = sum(path.stat().st_size for path in (output / name).iterdir()) / 2**20
            print(f"saved {output / name} ({size:.1f} MiB)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", type=pathlib.Path, default=DEFAULT_OUTPUT)
    build(parser.parse_args().output)
