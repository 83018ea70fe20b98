"""The one job runner (``embedding.jobs``): how each execution mode runs a batch and pads it, the sorted windows,
that ``"auto"`` is the graph for every job (XLA only when asked), that the ``"xla"`` opt-in gives the graph's
vectors (1e-5) compiling once per bucket, and that ``ElmoEmbedder`` and ``layer_embeddings`` run the same jobs."""

import h5py
import numpy as np
import pytest

from elmo_keras._backend import backend_name, compiles_per_shape
from elmo_keras.analysis import layer_embeddings
from elmo_keras.analysis.embeddings import sentence_activations
from elmo_keras.embedding.choices import check_execution
from elmo_keras.embedding.embedder import ElmoEmbedder
from elmo_keras.embedding.inference import _activations
from elmo_keras.embedding.jobs import BatchRun, batch_run, window_batches
from elmo_keras.embedding.precision import macs_per_token, macs_per_token_parts
from elmo_keras.layers import CharCNN
from elmo_keras.layers.bilm import BiLM
from elmo_keras.models.bilm.compiled import _COMPILED
from elmo_keras.text.batching import WordIds
from tests.support.embed_strategy_worker import tiny_bilm

TOLERANCE = 1e-5
WORDS = "the cat sat on a mat by river bank money".split()


def sentences(count: int, seed: int = 0) -> list[list[str]]:
    """``count`` sentences of 1–12 words: steps 3–14 with the boundaries, so both sides of bucket 8 and 16."""
    rng = np.random.default_rng(seed)
    return [list(rng.choice(WORDS, size=rng.integers(1, 13))) for _ in range(count)]


@pytest.fixture(scope="module")
def bilm():
    return tiny_bilm()


def test_how_each_mode_runs_a_batch():
    assert batch_run("xla", 16, rows=4) == BatchRun("xla", 4, 16)  # a job's batches: batch_size rows
    assert batch_run("xla", 16) == BatchRun("xla", None, 16)  # a single call: rows a power of two
    assert batch_run("eager", 16, rows=4) == BatchRun("eager")
    graph = BatchRun("graph", 4, 16) if compiles_per_shape("graph") else BatchRun("graph")  # jax.jit: padded
    assert batch_run("graph", 16, rows=4) == batch_run("auto", 16, rows=4) == graph  # "auto" is the graph
    with pytest.raises(ValueError, match="execution must be one of .*'auto'.*received 'fast'"):
        check_execution("fast")


def test_job_batches_follow_the_sorted_windows():
    assert window_batches([2, 5, 1, 5], 2) == [[1, 3], [0, 2]]  # longest first, ties in order
    assert window_batches([2, 5, 1], 2, sort=False) == [[0, 1], [2]]


def test_macs_per_token_counts_the_cnn_highway_and_lstms():
    encoder = CharCNN(embedding_dim=4, filters=((1, 8), (2, 8)), n_highway=1, projection_dim=8)
    bilm = BiLM(encoder, units=16, num_layers=2, projection_dim=8)
    cnn = 8 * 1 * 4 * 50 + 8 * 2 * 4 * 49 + 16 * 32 + 16 * 8  # kernels at each character position, highway, projection
    lstm = 2 * 2 * ((8 + 8) * 64 + 16 * 8)  # directions × layers × (input and recurrent matrices + projection)
    assert macs_per_token_parts(bilm) == (cnn, lstm) and macs_per_token(bilm) == cnn + lstm


def _assert_same_vectors(got, expected):
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        assert a.shape == b.shape and np.abs(a - b).max() <= TOLERANCE


def _xla_traces(bilm) -> int:
    """How many shapes the biLM's XLA function has compiled (0 if it never ran)."""
    function = _COMPILED.get(bilm, {}).get((_activations, "xla", None))
    return 0 if function is None else function.experimental_get_tracing_count()


def test_auto_never_compiles_and_xla_is_an_opt_in_with_the_graphs_vectors():
    bilm = tiny_bilm()  # its own: counts its compiles from zero
    many = sentences(40)
    expected = list(ElmoEmbedder(bilm=bilm, execution="graph").embed_sentences(many, batch_size=4))
    auto = ElmoEmbedder(bilm=bilm, time_bucket=8)
    _assert_same_vectors(list(auto.embed_sentences(iter(many), batch_size=4)), expected)  # a stream
    _assert_same_vectors(list(auto.embed_sentences(many, batch_size=4)), expected)
    assert _xla_traces(bilm) == 0  # however many sentences: "auto" runs the graph
    xla = ElmoEmbedder(bilm=bilm, execution="xla", time_bucket=8)
    _assert_same_vectors(list(xla.embed_sentences(many, batch_size=4)), expected)
    if backend_name() == "tensorflow":  # compiled once per bucket it used (8 and 16), batches padded to 4 rows
        assert _xla_traces(bilm) == 2


def test_xla_embed_file_and_layer_embeddings(bilm, tmp_path):
    from elmo_keras.models import build_bilm_lm, get_size  # Keras models: only this test needs them
    from elmo_keras.text.vocabulary import Vocabulary

    many = sentences(24, seed=1)
    path = tmp_path / "input.txt"
    path.write_text("\n".join(" ".join(s) for s in many) + "\n", encoding="utf-8")
    for execution in ("graph", "xla"):
        ElmoEmbedder(bilm=bilm, execution=execution, time_bucket=8).embed_file(path, tmp_path / f"{execution}.hdf5",
                                                                              batch_size=4)
    with h5py.File(tmp_path / "graph.hdf5") as graph, h5py.File(tmp_path / "xla.hdf5") as xla:
        keys = [str(i) for i in range(len(many))]
        _assert_same_vectors([xla[key][()] for key in keys], [graph[key][()] for key in keys])
    model = build_bilm_lm(get_size("tiny"), 20)
    model.build((None, None))
    model.vocabulary = Vocabulary(WORDS)
    positions = [len(s) - 1 for s in many]
    np.testing.assert_allclose(layer_embeddings(model, many, positions, batch_size=4, execution="xla"),
                               layer_embeddings(model, many, positions, batch_size=4, execution="graph"),
                               atol=TOLERANCE)


def test_the_embedder_and_the_analysis_helpers_run_one_job_runner():
    from elmo_keras.models import build_bilm_lm, get_size  # Keras models: only this test needs them
    from elmo_keras.text.vocabulary import Vocabulary

    model = build_bilm_lm(get_size("tiny"), 20)
    model.build((None, None))
    model.vocabulary = Vocabulary(WORDS)
    many = sentences(10, seed=3)
    embedder = ElmoEmbedder(bilm=model.bilm, sentence_ids=WordIds(model.vocabulary))
    _assert_same_vectors(sentence_activations(model, many, batch_size=4),
                         list(embedder.embed_sentences(many, batch_size=4)))
    for run in (lambda s: sentence_activations(model, s), lambda s: list(embedder.embed_sentences(s))):
        with pytest.raises(TypeError, match="sentence 11 "):  # one check: the same error, naming it in the job
            run([["the"]] * 11 + ["the bank"])


@pytest.mark.skipif(backend_name() != "tensorflow", reason="a strategy exists on TensorFlow only")
def test_a_strategy_runs_the_graph(bilm):
    assert ElmoEmbedder(bilm=bilm, strategy="mirrored").execution == "graph"
    with pytest.raises(ValueError, match="execution='graph' or 'auto'"):
        ElmoEmbedder(bilm=bilm, execution="xla", strategy="mirrored")
