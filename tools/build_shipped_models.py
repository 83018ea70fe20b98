"""Build the models the explorer ships in ``elmo_keras/data/shipped_models`` so that no page trains first:

- ``toy``: the ``toy`` preset on the built-in polysemy corpus, seed 0, trained in float32
  (``training_precision="auto"`` could pick bfloat16 elsewhere; pinned so that a rebuild gives the same model)
  and saved without the optimizer's state (a third of the size; nothing resumes training from it);
- ``transformer-toy``: the ``transformer-toy`` size (pre-LN transformer blocks) on the same corpus, seed 0, float32,
  ``TRANSFORMER_EPOCHS`` epochs instead of the size's 10 (which separate the senses less), saved as ``toy`` is; its
  ``training.json`` records the LSTM toy's held-out perplexity beside its own and the commit it was built from
  (``models.provenance.experiment_provenance``: build from a clean checkout);
- ``seq2seq-toy``: the decoding page's GRU encoder-decoder (``explorer.decoding.train_default_seq2seq``, seed 0);
- ``tagger-toy`` and ``taglm-toy``: the tagging page's taggers (``explorer.tagging.train_default_taggers``, seed 0);
- ``classifiers-toy``: the classification page's CNN and two BiLSTMs (``explorer.classification``, seed 0);
- ``gradients-toy``: the gradients page's vanilla RNN and LSTM (``explorer.gradients``; the page measures their
  gradients on its first visit and keeps them in the user's models directory, not shipped: about 27 MB of JSON);
- ``dialogue-toy``: the dialogue page's HRED, HRED reading only the last utterance and VHRED
  (``explorer.dialogue.train_default_dialogue_models``, seed 0) with the experiment's settings
  (``SHIPPED_DIALOGUE_TRAINING``; VHRED with ``SHIPPED_VHRED``: KL annealing, word dropout and the bag-of-words
  loss), which use the dialogue's topic; the page's own first-use training is shorter and they often do not;
- ``results``: what the layer-weights page computes from ``toy`` on the built-in corpus with seed 0, and the
  context-similarity and PCA pages' default views of each target word and the tagging page's views of its example
  sentences (``explorer.result_cache``'s layout), so that those pages open at once too: the first page without
  loading Keras at all, the tagging page without loading its taggers.

    python tools/build_shipped_models.py [--output DIR] [--results-only | --lecture-pages-only | --dialogue-only |
                                          --transformer-only]

- ``treebank-lstm`` and ``treebank-transformer``: character-level biLMs of those sizes trained on the 12,544
  training sentences of the shipped treebank, UD English EWT (``real_text.bilms``, seed 0, float32), held-out
  perplexity on its dev sentences; built only with ``--treebank-only`` (about 25 minutes for both), not by the
  default build.

``--results-only`` recomputes the results from the models already in the output directory (after a change to
what the pages compute, not to the models); ``--lecture-pages-only`` rebuilds only ``classifiers-toy``,
``dialogue-toy`` and ``gradients-toy``; ``--dialogue-only`` only ``dialogue-toy``; ``--transformer-only``
only ``transformer-toy`` (about a minute). ``--output`` defaults to ``elmo_keras/data/shipped_models``.

About 4 minutes on 2 CPU cores (2.5 of them the three lecture pages' models). ``tests/project/test_shipped_models.py``
loads every shipped model with the current code and checks what the pages rely on; the Corpus & training page
still trains a biLM live in one click.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from elmo_keras.analysis import sense_separation, word_occurrences  # noqa: E402
from elmo_keras.data import TARGET_WORDS, load_polysemy  # noqa: E402
from elmo_keras.data.treebank import TREEBANK_ATTRIBUTION, TREEBANK_VERSION  # noqa: E402
from elmo_keras.explorer.classification.service import train_default_classifiers  # noqa: E402
from elmo_keras.explorer.contextualizers.models import TRANSFORMER_EPOCHS, TRANSFORMER_SIZE  # noqa: E402
from elmo_keras.explorer.corpus import builtin_corpus  # noqa: E402
from elmo_keras.explorer.decoding.service import train_default_seq2seq  # noqa: E402
from elmo_keras.explorer.dialogue.service import (  # noqa: E402
    SHIPPED_DIALOGUE_TRAINING,
    SHIPPED_VHRED,
    train_default_dialogue_models,
)
from elmo_keras.explorer.gradients.service import train_gradient_models  # noqa: E402
from elmo_keras.explorer.layer_weights.store import stored_layer_weight_report  # noqa: E402
from elmo_keras.explorer.model_store import (  # noqa: E402
    CLASSIFIERS_DIR_NAME,
    DIALOGUE_DIR_NAME,
    GRADIENTS_DIR_NAME,
    SEQ2SEQ_DIR_NAME,
    TAGGER_DIR_NAME,
    TAGLM_DIR_NAME,
    TRANSFORMER_MODEL_NAME,
    find_model,
    load_model,
)
from elmo_keras.explorer.projection.store import computed_pca_view  # noqa: E402
from elmo_keras.explorer.result_cache import RESULTS_DIR_NAME  # noqa: E402
from elmo_keras.explorer.shipped_models import SHIPPED_RESULTS  # noqa: E402
from elmo_keras.explorer.similarity.store import computed_context_similarity  # noqa: E402
from elmo_keras.explorer.similarity.view import DEFAULT_PER_SENSE  # noqa: E402
from elmo_keras.explorer.tagging.service import (  # noqa: E402
    DEFAULT_TOP_K,
    example_sentences,
    load_tagger_model,
    tagger_refs,
    train_default_taggers,
)
from elmo_keras.explorer.tagging.store import computed_tagging_view  # noqa: E402
from elmo_keras.models import build_bilm_lm, get_size, save_model_dir, train_bilm  # noqa: E402
from elmo_keras.models.provenance import experiment_provenance  # noqa: E402
from elmo_keras.real_text.bilms import TREEBANK_BILMS, VOCABULARY_MIN_COUNT, train_treebank_bilm  # noqa: E402
from elmo_keras.safe_files import replace_directory, staging_directory  # noqa: E402

DEFAULT_OUTPUT = pathlib.Path(__file__).resolve().parents[1] / "elmo_keras" / "data" / "shipped_models"
SEED = 0
LECTURE_PAGE_MODELS = (CLASSIFIERS_DIR_NAME, DIALOGUE_DIR_NAME, GRADIENTS_DIR_NAME)


def build_toy_bilm(output: pathlib.Path) -> None:
    config = get_size("toy").replace(training_precision="float32")
    trained = train_bilm(size=config, seed=SEED, verbose=0)
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


def build_transformer_bilm(output: pathlib.Path, lstm_toy: pathlib.Path) -> None:
    """Train the ``transformer-toy`` biLM and save it (without optimizer state) as ``output``; ``lstm_toy`` is the
    LSTM ``toy`` model directory whose held-out perplexity is recorded beside the transformer's."""
    config = get_size(TRANSFORMER_SIZE).replace(training_precision="float32", epochs=TRANSFORMER_EPOCHS)
    started = time.perf_counter()
    trained = train_bilm(size=config, seed=SEED, verbose=0)
    seconds = time.perf_counter() - started
    shipped = build_bilm_lm(config, len(trained.vocabulary))  # the same model, never compiled: no optimizer state
    shipped.build(shipped.bilm.input_ids_shape)
    shipped.set_weights(trained.get_weights())
    shipped.vocabulary, shipped.config = trained.vocabulary, trained.config
    lstm = json.loads((lstm_toy / "training.json").read_text(encoding="utf-8"))
    shipped.training_summary = {
        **trained.training_summary, "preset": TRANSFORMER_SIZE, "corpus": "built-in polysemy corpus",
        "built_by": "tools/build_shipped_models.py", "build_seconds": round(seconds, 1),
        "lstm_toy_heldout": lstm["heldout"], "provenance": experiment_provenance()}
    save_model_dir(shipped, output)
    summary = shipped.training_summary
    print(f"{TRANSFORMER_SIZE}: {seconds:.0f} s, held-out perplexity forward "
          f"{summary['heldout']['forward_perplexity']:.2f}, backward {summary['heldout']['backward_perplexity']:.2f} "
          f"(the LSTM toy: {lstm['heldout']['forward_perplexity']:.2f}, {lstm['heldout']['backward_perplexity']:.2f})")
    corpus = load_polysemy()
    for word in TARGET_WORDS:
        separation = sense_separation(word_occurrences(shipped, word, corpus[corpus.word == word]))
        print(f"{TRANSFORMER_SIZE}: held-out sense separation of {word!r} by layer: "
              f"{[round(float(a), 2) for a in separation]}")


def build_transformer(output: pathlib.Path) -> None:
    """Rebuild only the ``transformer-toy`` biLM in ``output`` (beside the ``toy`` there)."""
    with tempfile.TemporaryDirectory() as scratch:
        build_transformer_bilm(pathlib.Path(scratch) / TRANSFORMER_MODEL_NAME, output / "toy")
        install(pathlib.Path(scratch) / TRANSFORMER_MODEL_NAME, output / TRANSFORMER_MODEL_NAME)


def build_treebank(output: pathlib.Path) -> None:
    """Train and install the two treebank biLMs (``real_text.bilms.TREEBANK_BILMS``) in ``output``."""
    with tempfile.TemporaryDirectory() as scratch:
        for name in TREEBANK_BILMS:
            started = time.perf_counter()
            trained = train_treebank_bilm(name, seed=SEED)
            seconds = time.perf_counter() - started
            shipped = build_bilm_lm(trained.config, len(trained.vocabulary))  # never compiled: no optimizer state
            shipped.build(shipped.bilm.input_ids_shape)
            shipped.set_weights(trained.get_weights())
            shipped.vocabulary, shipped.config = trained.vocabulary, trained.config
            shipped.training_summary = {
                **trained.training_summary, "preset": name, "build_seconds": round(seconds, 1),
                "corpus": f"{TREEBANK_VERSION}, train split (12,544 sentences); held-out: dev (2,001 sentences)",
                "license": TREEBANK_ATTRIBUTION, "built_by": "tools/build_shipped_models.py --treebank-only",
                "vocabulary_min_count": VOCABULARY_MIN_COUNT, "provenance": experiment_provenance()}
            save_model_dir(shipped, pathlib.Path(scratch) / name)
            heldout = shipped.training_summary["heldout"]
            print(f"{name}: {seconds:.0f} s, dev perplexity forward {heldout['forward_perplexity']:.2f}, backward "
                  f"{heldout['backward_perplexity']:.2f}", flush=True)
            install(pathlib.Path(scratch) / name, output / name)


def build(output: pathlib.Path) -> None:
    output.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        scratch = pathlib.Path(scratch)
        build_toy_bilm(scratch / "toy")
        build_transformer_bilm(scratch / TRANSFORMER_MODEL_NAME, scratch / "toy")
        train_default_seq2seq(scratch, seed=SEED)
        train_default_taggers(scratch, seed=SEED)
        build_lecture_models(scratch)
        for name in ("toy", TRANSFORMER_MODEL_NAME, SEQ2SEQ_DIR_NAME, TAGGER_DIR_NAME, TAGLM_DIR_NAME,
                     *LECTURE_PAGE_MODELS):
            install(scratch / name, output / name)
    build_results(output)


def install(source: pathlib.Path, target: pathlib.Path) -> None:
    """Copy the model directory ``source`` to ``target`` in one rename (a previous ``target`` is replaced)."""
    staging = staging_directory(target)
    shutil.rmtree(staging)
    shutil.copytree(source, staging)
    replace_directory(staging, target)
    size = sum(path.stat().st_size for path in target.rglob("*") if path.is_file()) / 2**20
    print(f"saved {target} ({size:.1f} MiB)")


def build_lecture_models(directory: pathlib.Path) -> None:
    """Train the classification, dialogue and gradients pages' models into the models directory ``directory``."""
    train_default_classifiers(directory, seed=SEED)
    train_default_dialogue_models(directory, seed=SEED, vhred_settings=SHIPPED_VHRED, **SHIPPED_DIALOGUE_TRAINING)
    train_gradient_models(directory)
    # the measured gradients it keeps (``directory``'s result cache: about 27 MB of JSON, 4.9 MiB of float32 noise
    # that does not compress) are not shipped (only the model directories are installed, and ``build_results``
    # ships its own results): the page measures them again in about 3 s on its first visit and keeps them in the
    # user's models directory (``explorer.gradients.store``)


def build_lecture_pages(output: pathlib.Path) -> None:
    """Rebuild only the classification, dialogue and gradients pages' models in ``output``."""
    with tempfile.TemporaryDirectory() as scratch:
        scratch = pathlib.Path(scratch)
        build_lecture_models(scratch)
        for name in LECTURE_PAGE_MODELS:
            install(scratch / name, output / name)


def build_dialogue(output: pathlib.Path) -> None:
    """Rebuild only the dialogue page's models in ``output``."""
    with tempfile.TemporaryDirectory() as scratch:
        scratch = pathlib.Path(scratch)
        train_default_dialogue_models(scratch, seed=SEED, vhred_settings=SHIPPED_VHRED, **SHIPPED_DIALOGUE_TRAINING)
        install(scratch / DIALOGUE_DIR_NAME, output / DIALOGUE_DIR_NAME)


def build_results(output: pathlib.Path) -> None:
    """Compute the pages' results from the ``toy`` model in ``output`` and store them in ``output/results``."""
    with tempfile.TemporaryDirectory() as scratch:
        scratch = pathlib.Path(scratch)
        for name in ("toy", TAGGER_DIR_NAME, TAGLM_DIR_NAME):
            shutil.copytree(output / name, scratch / name)
        toy = find_model(scratch, "toy")
        model, corpus = load_model(toy.ref), builtin_corpus()
        report = stored_layer_weight_report(model, toy.ref, corpus, seed=0)
        print(f"toy: layer-weights report on the built-in corpus, {len(report.reports)} tasks, stored")
        for word in TARGET_WORDS:
            view = computed_context_similarity(model, toy.ref, corpus, word, "", DEFAULT_PER_SENSE)
            computed_pca_view(model, toy.ref, corpus, word, "", 2)
            print(f"toy: context-similarity and PCA views of {word!r} ({view.total} occurrences), stored")
        refs = tagger_refs(scratch)
        taggers = [load_tagger_model(ref) for ref in refs]
        for sentence in example_sentences():
            computed_tagging_view(*taggers, refs, sentence, DEFAULT_TOP_K)
        print(f"taggers: the tagging page's views of its {len(example_sentences())} example sentences, stored")
        shutil.rmtree(output / SHIPPED_RESULTS, ignore_errors=True)
        shutil.copytree(scratch / RESULTS_DIR_NAME, output / SHIPPED_RESULTS)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", type=pathlib.Path, default=DEFAULT_OUTPUT)
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--results-only", action="store_true",
                      help="recompute only the results, from the models already in --output")
    only.add_argument("--lecture-pages-only", action="store_true",
                      help="rebuild only the classification, dialogue and gradients pages' models")
    only.add_argument("--dialogue-only", action="store_true", help="rebuild only the dialogue page's models")
    only.add_argument("--transformer-only", action="store_true", help="rebuild only the transformer-toy biLM")
    only.add_argument("--treebank-only", action="store_true",
                      help="train only the treebank-lstm and treebank-transformer biLMs (UD English EWT)")
    arguments = parser.parse_args()
    if arguments.results_only:
        build_results(arguments.output)
    elif arguments.lecture_pages_only:
        build_lecture_pages(arguments.output)
    elif arguments.dialogue_only:
        build_dialogue(arguments.output)
    elif arguments.transformer_only:
        build_transformer(arguments.output)
    elif arguments.treebank_only:
        build_treebank(arguments.output)
    else:
        build(arguments.output)
