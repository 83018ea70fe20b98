"""Write ``notebooks/*.ipynb`` from the cells below (outputs stripped; ``tests/explorer/test_notebooks.py`` runs them).

Usage: ``python tools/make_notebooks.py``. Edit the cells here, not the ``.ipynb``, so the notebook stays
reviewable as Python and has no stored outputs.
"""

from __future__ import annotations

import pathlib

import nbformat

REPO = pathlib.Path(__file__).resolve().parents[1]

QUICKSTART_CELLS = [
    ("markdown", """# elmo_keras quickstart

Train a small biLM on the built-in polysemy corpus, watch *bank* split into its two senses layer by layer, mix the
layers with ELMo's `ScalarMix`, load an original ELMo model, and decode with greedy and beam search.
Runs on 2 CPU cores in about a minute (`ELMO_KERAS_NOTEBOOK_SIZE=tiny` makes it a few seconds: the test suite
runs it that way)."""),
    ("code", """import os

import numpy as np

import elmo_keras

SIZE = os.environ.get("ELMO_KERAS_NOTEBOOK_SIZE", "toy")  # the training size
model = elmo_keras.train_bilm(size=SIZE, seed=0)    # the built-in corpus, its held-out split for perplexity
summary = model.training_summary
heldout, unigram = summary["heldout"]["forward_perplexity"], summary["heldout_unigram_perplexity"]
print(f"{summary['num_sentences']} sentences, {summary['train_seconds']:.0f} s; "
      f"held-out perplexity {heldout:.1f} (forward) vs unigram {unigram:.1f}")"""),
    ("markdown", """## *bank* by layer

Layer 0 is the context-free token vector: both *bank*s are the same vector there (cosine 1). The LSTM layers
see the context, and the two senses move apart."""),
    ("code", """sentences = [elmo_keras.tokenize(s) for s in ["I paid the cash into my account at the bank .",
                                              "We sat on the grass by the river bank ."]]
positions = [s.index("bank") for s in sentences]
vectors = elmo_keras.layer_embeddings(model, sentences, positions=positions)  # (layers, 2 sentences, dim)
for layer, similarity in enumerate(elmo_keras.cosine_similarity_matrices(vectors)[:, 0, 1]):
    print(f"layer {layer}: cosine(bank_money, bank_river) = {similarity:.3f}")"""),
    ("markdown", """## ELMo's weighted sum of the layers

`ScalarMix` computes `γ · Σ_j softmax(s)_j h_j`; a task learns the `s_j` and `γ` (here they are fixed by hand)."""),
    ("code", """mix = elmo_keras.ScalarMix(vectors.shape[0], initial_scalar_parameters=[0.0, 1.0, 2.0], trainable=False)
elmo_vectors = mix([vectors[j] for j in range(vectors.shape[0])])  # (2 sentences, dim)
print("layer weights", np.round(mix.normalized_weights(), 3), "-> ELMo vectors", tuple(elmo_vectors.shape))"""),
    ("markdown", """## An original ELMo model

`options.json` + `weights.hdf5` load into the same layers and give AllenNLP's numbers, with the one load verb
`from_preset`, which also takes a released name (`"elmo_small_en"`, `"elmo_transformer_en"`), a URL, a model
directory or an AllenNLP archive. Point `ELMO_OPTIONS` and `ELMO_WEIGHTS` at a model (the repository's tests use a
tiny one from `../shared/fixtures`)."""),
    ("code", """options = os.environ.get("ELMO_OPTIONS", "../../shared/fixtures/elmo_bilm_tf/options.json")
weights = os.environ.get("ELMO_WEIGHTS", "../../shared/fixtures/elmo_bilm_tf/lm_weights.hdf5")
if os.path.exists(options) and os.path.exists(weights):
    embedder = elmo_keras.ElmoEmbedder.from_preset((options, weights))  # stateless: the same vectors in any batch
    layers = embedder.embed_sentence(["The", "bank", "approved", "the", "loan", "."])
    print("original ELMo:", layers.shape, "(layers, tokens, dim)")
else:
    print("no original ELMo files found; set ELMO_OPTIONS and ELMO_WEIGHTS to try one")"""),
    ("markdown", """## Strings in: ELMo inside a Keras model

`ElmoCharacterIds` makes the character ids inside the model, so the model takes token strings (`""` pads short
sentences). On TensorFlow that model trains with `fit`, saves to `.keras` and exports a SavedModel that answers
text (`model.export(path)`, then `tf.saved_model.load(path).serve(tokens)`; see `docs/keras_models.md`). JAX and
PyTorch have no string tensors: there, call the layers on a batch instead, `elmo(ElmoCharacterIds()(batch))`."""),
    ("code", """if os.path.exists(options) and os.path.exists(weights):
    import keras

    elmo = elmo_keras.Elmo.from_preset((options, weights), num_output_representations=1, dropout=0.0)
    tokens = keras.Input(shape=(None,), dtype="string")
    text_model = keras.Model(tokens, elmo(elmo_keras.ElmoCharacterIds()(tokens))["elmo_representations"][0])
    batch = [["The", "bank", "closed"], ["Hello", "world", ""]]
    vectors = keras.ops.convert_to_numpy(text_model(np.array(batch)))  # (sentences, tokens, dim)
    from_ids = elmo(elmo_keras.batch_to_ids([["The", "bank", "closed"], ["Hello", "world"]]))
    same = np.allclose(vectors, keras.ops.convert_to_numpy(from_ids["elmo_representations"][0]), atol=1e-6)
    print(f"strings in: {vectors.shape} vectors, the same as from batch_to_ids: {same}")"""),
    ("markdown", """## Greedy vs. beam search

A classic lecture example: greedy takes the most probable first word (A, 0.5) and ends with P(A B) = 0.20; beam
search with k = 2 finds B C, P = 0.36."""),
    ("code", """from elmo_keras import beam_search, greedy
from elmo_keras.decoding.worked_examples import greedy_trap

example = greedy_trap()
args = dict(bos_id=example.bos_id, eos_id=example.eos_id, max_len=example.max_len)
best_greedy = greedy(example.next_log_probs, **args)
best_beam = beam_search(example.next_log_probs, beam_size=2, **args)[0]
for name, hypothesis in (("greedy", best_greedy), ("beam k=2", best_beam)):
    print(f"{name:9} {' '.join(example.words(hypothesis.tokens))}  P = {np.exp(hypothesis.log_prob):.2f}")"""),
]


LECTURE_CELLS = [
    ("markdown", """# The rest of the lecture: text classifiers, HRED / VHRED, vanishing gradients

Text classification (a CNN filter sliding down "I like this movie very much !", then CNN and BiLSTM classifiers on a
toy sentiment set; Kim 2014), dialogue (HRED and VHRED on toy dialogues; Serban et al. 2016, 2017) and vanishing
gradients (why clipping cannot fix them; Pascanu et al. 2013). Sources: `docs/lecture.md`.
About a minute on 2 CPU cores."""),
    ("markdown", """## Text classification

A 2 × 5 filter over the 7 × 5 sentence matrix gives 7 − 2 + 1 = 6 values; max pooling keeps one. Then a CNN with
filters of heights 2, 3 and 4 learns the toy sentiment set, where negation makes word order matter."""),
    ("code", """from elmo_keras.analysis.convolution_example import BIGRAM_FILTER, SENTENCE, SENTENCE_MATRIX
from elmo_keras.analysis.convolution_example import convolution_steps, max_pool
from elmo_keras.models.classifiers import class_probabilities, encode_sentences, evaluate_classifier
from elmo_keras.models.classifiers import train_text_classifier

# a 2 × 5 filter sliding down the 7 × 5 matrix of "I like this movie very much !": 7 − 2 + 1 = 6 values
steps = convolution_steps(SENTENCE_MATRIX, BIGRAM_FILTER, SENTENCE)
for step in steps:
    print(step.position, " ".join(step.words), round(step.value, 2))  # window 1, "like this": 0.53
print("max pool (value, position):", max_pool([step.value for step in steps]))

# a CNN with filters of heights 2, 3, 4 (the page's small settings: a few seconds)
cnn = train_text_classifier(kind="cnn", seed=0, epochs=6, batch_size=64, filters_per_height=8)
print("held-out accuracy:", evaluate_classifier(cnn)["accuracy"])
sentences = ["this movie is not good .", "this movie is good , not bad ."]
print(cnn.class_names, class_probabilities(cnn, sentences).round(3))

# which n-gram did each filter fire on? (the window where its max pool is)
tokens = sentences[1].split()
responses = cnn.filter_responses(encode_sentences([tokens], cnn.vocabulary))
for k in responses.pooled[0].argsort()[::-1][:3]:
    start, height = responses.positions[0, k], responses.filter_heights[k]
    ngram = " ".join(tokens[start:start + height])
    print(f"filter {k} (height {height}): {ngram!r} → {responses.pooled[0, k]:.2f}")"""),
    ("markdown", """## HRED and VHRED

`c_t` summarises utterances 1 … t−1; the reply decoder starts from it (VHRED: from `[c; z]`, `z` drawn from the
prior). The toy VHRED's KL collapses, so its `z` samples mostly agree (see the README's experiment)."""),
    ("code", """from elmo_keras.data import dialogue_references, split_turns
from elmo_keras.explorer.shipped_models import shipped_model
from elmo_keras.models.dialogue import beam_responses, encode_history, greedy_response, latent_responses
from elmo_keras.models.dialogue import load_dialogue_model

# the dialogue page's shipped models (40 epochs; train_hred(epochs=40) / train_vhred(epochs=40) retrain them)
shipped = shipped_model("dialogue-toy")
hred = load_dialogue_model(shipped / "hred", kind="hred")
vhred = load_dialogue_model(shipped / "vhred", kind="vhred")
context = "i had sushi for dinner | tell me more | any advice ?"
history, unknown = encode_history(split_turns(context), hred.vocabulary)  # int (turns, words); unknown → <unk>
print("plausible replies (held out):", dialogue_references("heldout")[context])
reply = greedy_response(hred, history).text
print("HRED greedy:", reply, "(plausible)" if reply in dialogue_references("heldout")[context] else "(not one of them)")
print("HRED beam:  ", [r.text for r in beam_responses(hred, history, beam_size=3)])
print("VHRED, 3 z ~ p(z|c):", [r.text for r in latent_responses(vhred, history, num_samples=3, seed=0)])"""),
    ("markdown", """## Clipping vs gating

`‖∂L/∂h_t‖` by distance to the loss: clipping rescales the whole gradient by one factor, so the far/near ratio of a
vanishing gradient stays what it was; the LSTM's forget gate (near 1) keeps the gradient through `c` alive."""),
    ("code", """import numpy as np

from elmo_keras.analysis.gradient_study.flow import (
    clip_by_norm, clipnorm_optimizer_step, far_near_ratio, state_gradients)
from elmo_keras.analysis.gradient_study.models import RecurrentClassifier
from elmo_keras.analysis.gradient_study.results import by_distance
from elmo_keras.analysis.gradient_study.task import remember_first_batch

T = 30
batch = remember_first_batch(64, T, seed=1)  # remember the first of T symbols
rnn = state_gradients(RecurrentClassifier("rnn", 32, recurrent_scale=1.0), batch)
lstm = state_gradients(RecurrentClassifier("lstm", 32, forget_bias=3.0), batch)

theta = 0.01  # below ‖g‖: clipping scales the whole gradient by θ/‖g‖
clipped = clip_by_norm(rnn.hidden, theta)
print(f"vanilla RNN  ‖∂L/∂h‖ far/near: {far_near_ratio(by_distance(rnn.hidden), T - 1):.2e}")
print(f"  clipped at θ={theta}: {far_near_ratio(by_distance(clipped), T - 1):.2e} "
      f"(‖g‖ {np.linalg.norm(rnn.hidden):.3f} → {np.linalg.norm(clipped):.3f})")
print(f"LSTM ‖∂L/∂c‖ far/near: {far_near_ratio(by_distance(lstm.cell), T - 1):.2e} (mean f = {lstm.forget.mean():.2f})")
print("Keras clipnorm step == formula:",
      np.allclose(clipnorm_optimizer_step(rnn.hidden, theta), clipped, rtol=1e-5, atol=1e-9))"""),
]

REAL_ENGLISH_CELLS = [
    ("markdown", """# Real English: a treebank, a biLM, per-layer probes and a tagger

The package ships Universal Dependencies English Web Treebank v2.15 (Silveira et al. 2014; CC BY-SA 4.0): real
web English hand-annotated with UPOS, Penn XPOS, lemmas and dependency relations. This notebook loads it in one
line, trains a small biLM on its training text, probes what each layer knows, and tags UPOS with and without the
biLM's vectors. About two minutes on 2 CPU cores (`ELMO_KERAS_NOTEBOOK_SIZE=tiny`, as the test suite runs it:
well under a minute, on smaller slices). The full experiments, on the shipped `treebank-lstm` and
`treebank-transformer`, are `tools/run_real_text_experiments.py`; the explorer's Probing page shows them."""),
    ("code", """import os

import elmo_keras
from elmo_keras.data import TREEBANK_ATTRIBUTION, treebank_sentences, ud_english_ewt

SIZE = os.environ.get("ELMO_KERAS_NOTEBOOK_SIZE", "char-toy")  # "tiny" in the tests
SLICE = 150 if SIZE == "tiny" else 2000  # training sentences for the biLM
DEV = 150 if SIZE == "tiny" else 300  # dev and test sentences scored
train, dev = ud_english_ewt("train"), ud_english_ewt("dev")
print(f"train: {len(train):,} sentences, {sum(len(s.tokens) for s in train):,} words; "
      f"dev: {len(dev):,} sentences")
sentence = next(s for s in train if "n't" in s.tokens)  # a multi-word token ("don't") is split into its words
print(sentence.metadata["text"])
at = sentence.tokens.index("n't")
print(list(zip(sentence.tokens, sentence.tags["upos"]))[at - 2 : at + 2])
print(TREEBANK_ATTRIBUTION)"""),
    ("markdown", """## A biLM on real text, against a count-based baseline

An interpolated Kneser–Ney trigram (Chen & Goodman 1998) on the same vocabulary and sentences is the baseline a
neural language model must beat; on a slice this small and a few epochs it may not."""),
    ("code", """from elmo_keras.real_text import kneser_ney_perplexities

model = elmo_keras.train_bilm(treebank_sentences("train", SLICE), size=SIZE, epochs=2, seed=0, min_count=2,
                              heldout=treebank_sentences("dev", DEV))
baseline = kneser_ney_perplexities(treebank_sentences("train", SLICE), treebank_sentences("dev", DEV),
                                   model.vocabulary)
print(f"dev perplexity, forward: biLM {model.training_summary['heldout']['forward_perplexity']:.1f}, "
      f"Kneser-Ney trigram {baseline['forward_perplexity']:.1f}")"""),
    ("markdown", """## What each layer knows: linear probes

A linear softmax probe per layer on the frozen vectors, and ELMo's learned mix of the layers (Peters et al. 2018a,
§5.3), for UPOS and dependency relations; layer 0 is the context-free token vector."""),
    ("code", """from elmo_keras.real_text import probe_runs, probe_summary

runs = probe_runs(model, "notebook biLM", seeds=(0,), tasks=["upos", "deprel"], pool=2 * DEV, sample=DEV,
                  dev_limit=DEV)
table = probe_summary(runs)[["task", "layer", "mean", "weight_mean", "majority_accuracy"]]
print(table.round(3).to_string(index=False))"""),
    ("markdown", """## Tagging UPOS with and without the biLM's vectors

The project's `TagLM` tagger trained on 1 % of the training sentences (125), with and without the frozen biLM's
ELMo vectors, scored on the first test sentences (the full learning curve is on the Tagging page)."""),
    ("code", """from elmo_keras.data import treebank_examples
from elmo_keras.real_text.tagging_curve import curve_run

test = treebank_examples("test", "upos", DEV)
for name, bilm in (("words only", None), ("+ biLM vectors", model)):
    row = curve_run(bilm, name, "softmax", 0.01, seed=0, test=test, epochs=5 if SIZE == "tiny" else 20)
    print(f"{name}: {row['sentences']} training sentences, test accuracy {row['accuracy']:.3f}")"""),
]

NOTEBOOKS = {"quickstart.ipynb": QUICKSTART_CELLS, "lecture_models.ipynb": LECTURE_CELLS,
             "real_english.ipynb": REAL_ENGLISH_CELLS}


def build(name: str = "quickstart.ipynb") -> nbformat.NotebookNode:
    """The notebook ``notebooks/<name>`` as it should be stored (no outputs, stable cell ids)."""
    notebook = nbformat.v4.new_notebook()
    notebook.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                         "language_info": {"name": "python"}}
    makers = {"markdown": nbformat.v4.new_markdown_cell, "code": nbformat.v4.new_code_cell}
    notebook.cells = [makers[kind](source) for kind, source in NOTEBOOKS[name]]
    for index, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{index}"  # stable ids: regenerating gives the same file
    return notebook


def main() -> None:
    for name in NOTEBOOKS:
        path = REPO / "notebooks" / name
        path.parent.mkdir(exist_ok=True)
        nbformat.write(build(name), path)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
