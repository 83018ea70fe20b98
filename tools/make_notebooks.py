"""Write ``notebooks/*.ipynb`` from the cells below (outputs stripped; ``tests/test_notebooks.py`` runs them).

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
Runs on 2 CPU cores in about a minute (`ELMO_KERAS_NOTEBOOK_PRESET=tiny` makes it a few seconds: the test suite
runs it that way)."""),
    ("code", """import os

import numpy as np

import elmo_keras

PRESET = os.environ.get("ELMO_KERAS_NOTEBOOK_PRESET", "toy")
model = elmo_keras.train_bilm(preset=PRESET, seed=0)  # the built-in corpus, its held-out split for perplexity
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

`options.json` + `weights.hdf5` load into the same layers and give AllenNLP's numbers. Point `ELMO_OPTIONS` and
`ELMO_WEIGHTS` at a model (the repository's tests use a tiny one from `../shared/fixtures`)."""),
    ("code", """options = os.environ.get("ELMO_OPTIONS", "../../shared/fixtures/elmo_bilm_tf/options.json")
weights = os.environ.get("ELMO_WEIGHTS", "../../shared/fixtures/elmo_bilm_tf/lm_weights.hdf5")
if os.path.exists(options) and os.path.exists(weights):
    embedder = elmo_keras.ElmoEmbedder(options, weights)  # stateless: the same vectors in any batch
    layers = embedder.embed_sentence(["The", "bank", "approved", "the", "loan", "."])
    print("original ELMo:", layers.shape, "(layers, tokens, dim)")
else:
    print("no original ELMo files found; set ELMO_OPTIONS and ELMO_WEIGHTS to try one")"""),
    ("markdown", """## Greedy vs. beam search

The seed notes' example: greedy takes the most probable first word (A, 0.5) and ends with P(A B) = 0.20; beam
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


NOTEBOOKS = {"quickstart.ipynb": QUICKSTART_CELLS}


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
