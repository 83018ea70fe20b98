"""The numbers each shipped model gives on a few held-out inputs, on the backend this process runs
(``tests/project/test_shipped_models.py`` compares TensorFlow's with every other installed backend's):

    KERAS_BACKEND=jax python -m tests.support.shipped_models_worker OUTPUT.npz

Each entry is an output the held-out tests of ``tests/project/test_shipped_models.py`` score (layer vectors of the toy
biLM,
the seq2seq model's teacher-forced logits, the taggers' tags, the dialogue models' replies and reconstruction, the
classifiers' probabilities, the gradient models' class probabilities): equal numbers here mean those tests, which
run on TensorFlow, score the same on every backend.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

EXAMPLES = 4  # held-out inputs per model: enough to cover every layer and head, cheap to compile on every backend


def shipped_model_outputs() -> dict[str, np.ndarray]:
    """``{name: array}``: float arrays (compare to 1e-4) and, as unicode arrays, decoded tags and replies (equal)."""
    from elmo_keras._quiet import keras
    from elmo_keras.analysis import layer_embeddings
    from elmo_keras.data import (
        dialogue_examples,
        dialogue_references,
        load_polysemy,
        load_sentiment,
        ner_examples,
        pos_examples,
        seq2seq_references,
        split_turns,
    )
    from elmo_keras.explorer.gradients.service import load_gradient_models
    from elmo_keras.explorer.model_store import (
        CLASSIFIERS_DIR_NAME,
        DEFAULT_MODEL_NAME,
        DIALOGUE_DIR_NAME,
        GRADIENTS_DIR_NAME,
        SEQ2SEQ_DIR_NAME,
        TAGGER_DIR_NAME,
        TAGLM_DIR_NAME,
        TRANSFORMER_MODEL_NAME,
    )
    from elmo_keras.explorer.shipped_models import shipped_model
    from elmo_keras.models import load_bilm, load_seq2seq
    from elmo_keras.models.classifiers import class_probabilities, load_classifier
    from elmo_keras.models.dialogue import encode_history, evaluate_dialogue_model, greedy_response, load_dialogue_model
    from elmo_keras.models.seq2seq.encoding import encode_pairs
    from elmo_keras.tagging import load_tagger

    outputs = {}
    heldout = load_polysemy().query("split == 'heldout'").head(EXAMPLES)
    outputs["toy"] = layer_embeddings(load_bilm(shipped_model(DEFAULT_MODEL_NAME)), list(heldout.tokens),
                                      list(heldout.target_index))
    outputs["transformer-toy"] = layer_embeddings(load_bilm(shipped_model(TRANSFORMER_MODEL_NAME)),
                                                  list(heldout.tokens), list(heldout.target_index))

    seq2seq = load_seq2seq(shipped_model(SEQ2SEQ_DIR_NAME))
    pairs = [(s.split(), refs[0][0].split()) for s, refs in list(seq2seq_references("heldout").items())[:EXAMPLES]]
    inputs, _ = encode_pairs(pairs, seq2seq.vocabulary)
    outputs["seq2seq"] = keras.ops.convert_to_numpy(seq2seq((inputs["source"], inputs["target_in"])))

    for name, task, examples in ((TAGGER_DIR_NAME, "pos", pos_examples), (TAGLM_DIR_NAME, "ner", ner_examples)):
        sentences = [tokens for tokens, _ in examples("heldout")[:EXAMPLES]]
        tags = load_tagger(shipped_model(name)).predict_tags(sentences, tasks=[task])[task]
        outputs[name] = np.array([" ".join(row) for row in tags])

    dialogue = shipped_model(DIALOGUE_DIR_NAME)
    hred = load_dialogue_model(dialogue / "hred", kind="hred")
    replies = [greedy_response(hred, encode_history(split_turns(context), hred.vocabulary)[0])
               for context in list(dialogue_references("heldout"))[:EXAMPLES]]
    outputs["hred"] = np.array([reply.text for reply in replies])
    outputs["hred_log_probs"] = np.array([reply.log_prob for reply in replies])
    vhred = load_dialogue_model(dialogue / "vhred", kind="vhred")
    scores = evaluate_dialogue_model(vhred, dialogue_examples("heldout")[:EXAMPLES])
    outputs["vhred"] = np.array([scores[key] for key in sorted(scores)], "float64")

    sentences, _, _ = load_sentiment("heldout")
    for kind in ("cnn", "rnn-last", "rnn-pooled"):
        classifier = load_classifier(shipped_model(CLASSIFIERS_DIR_NAME) / kind)
        outputs[f"classifier {kind}"] = class_probabilities(classifier, sentences[:EXAMPLES])

    trained = load_gradient_models(shipped_model(GRADIENTS_DIR_NAME).parent)
    for label, model in trained.models.items():
        symbols = model.weights[0].shape[0]  # the one-hot width the recurrent kernel reads
        one_hot = np.eye(symbols, dtype="float32")[np.random.default_rng(0).integers(0, symbols, (EXAMPLES, 20))]
        outputs[f"gradients {label}"] = keras.ops.convert_to_numpy(model(one_hot))
    return outputs


if __name__ == "__main__":
    np.savez(pathlib.Path(sys.argv[1]), **shipped_model_outputs())
