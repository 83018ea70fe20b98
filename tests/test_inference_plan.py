"""``execution="auto"`` (``models.bilm.inference_plan``): which padded lengths a job compiles, the shapes it pads them
to, and that every path gives the graph path's vectors (1e-5) on a toy biLM and on the bilm-tf test model."""

import functools

import h5py
import numpy as np
import pytest

from elmo_keras._backend import compiles_per_shape, has_xla_inference
from elmo_keras.analysis import layer_embeddings
from elmo_keras.layers import CharCNN
from elmo_keras.layers.bilm import BiLM
from elmo_keras.models.bilm import inference_plan
from elmo_keras.models.bilm.inference import _COMPILED, _activations
from elmo_keras.models.bilm.inference_plan import (
    BatchRun,
    ExecutionPlan,
    InferenceCost,
    check_execution,
    job_steps,
    macs_per_token,
    macs_per_token_parts,
    single_call_run,
    window_batches,
)
from elmo_keras.pretrained.embedder import ElmoEmbedder
from tests.embed_strategy_worker import tiny_bilm

TOLERANCE = 1e-5
# a batch of (rows, steps) costs rows × steps seconds on the graph, half that on XLA; one compile costs 100
UNIT_COST = InferenceCost(encoder_macs=1.0, recurrence_macs=0.0, encoder_rate=1.0, encoder_xla_speedup=2.0,
                          compile_seconds=100.0)
WORDS = "the cat sat on a mat by river bank money".split()


def sentences(count: int, seed: int = 0) -> list[list[str]]:
    """``count`` sentences of 1–12 words: steps 3–14 with the boundaries, so both sides of bucket 8 and 16."""
    rng = np.random.default_rng(seed)
    return [list(rng.choice(WORDS, size=rng.integers(1, 13))) for _ in range(count)]


@pytest.fixture(scope="module")
def bilm():
    return tiny_bilm()


@pytest.fixture
def compiles_wherever_xla_saves(monkeypatch):
    """Compiling costs nothing and XLA runs 1.6 times the graph's speed: ``"auto"`` compiles every padded length where
    XLA's padded batch is cheaper than the graph's (steps × 1.6 > bucket) and runs the others on the graph, so one job
    runs both paths."""
    monkeypatch.setattr(inference_plan, "InferenceCost", functools.partial(
        InferenceCost, encoder_xla_speedup=1.6, recurrence_xla_speedup=1.6, compile_seconds=0.0))


def test_a_padded_length_compiles_once_its_work_repays_the_compile(bilm):
    plan = ExecutionPlan(bilm, "auto", batch_size=2, time_bucket=8, cost=UNIT_COST)
    plan.add([8] * 12)  # each batch saves 2·8 − 2·8/2 = 8 seconds: 96 < 100
    assert plan.compiled == set() and plan.run_for(8).execution == "graph"
    plan.add([7])  # a stream's next window: 96 + (14 − 8) = 102 > 100
    if has_xla_inference():
        assert plan.compiled == {8}
        assert plan.run_for(7) == plan.run_for(5) == BatchRun("xla", rows=2, time_bucket=8)
        assert plan.run_for(9) == BatchRun("graph")  # bucket 16 has seen no work
    else:  # JAX compiles every path (padded), PyTorch none: nothing to choose
        assert plan.compiled == set()
        assert plan.run_for(7) == BatchRun("graph", *((2, 8) if compiles_per_shape("graph") else (None, 1)))


def test_padding_that_costs_more_than_xla_saves_never_compiles(bilm):
    plan = ExecutionPlan(bilm, "auto", batch_size=2, time_bucket=8, cost=UNIT_COST)
    plan.add([3] * 10_000)  # 2·3 on the graph against 2·8/2 padded on XLA: a loss per batch, however many
    assert plan.compiled == set()


def test_explicit_modes_and_single_calls(bilm):
    assert ExecutionPlan(bilm, "xla", batch_size=4, time_bucket=16).run_for(5) == BatchRun("xla", 4, 16)
    assert ExecutionPlan(bilm, "eager", batch_size=4).run_for(5) == BatchRun("eager")
    assert single_call_run("auto").execution == "graph"  # one call never repays a compile
    assert single_call_run("xla", 16) == BatchRun("xla", None, 16)  # rows: a power of two
    with pytest.raises(ValueError, match="execution must be one of .*'auto'.*received 'fast'"):
        check_execution("fast")


def test_job_batches_follow_the_sorted_windows():
    assert window_batches([2, 5, 1, 5], 2) == [[1, 3], [0, 2]]  # longest first, ties in order
    assert window_batches([2, 5, 1], 2, sort=False) == [[0, 1], [2]]
    # windows of 3 sentences, batches of 2: [5, 1, 2] → (5, 2), (1); [0, 0] → nothing to run
    assert job_steps([5, 1, 2, 0, 0], batch_size=2, window_size=3) == [7, 3]


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


def test_auto_gives_the_graphs_vectors_with_few_compiles(bilm, compiles_wherever_xla_saves):
    many = sentences(40)
    graph = ElmoEmbedder(bilm=bilm, execution="graph")
    expected = list(graph.embed_sentences(many, batch_size=4))
    auto = ElmoEmbedder(bilm=bilm, time_bucket=8)
    _assert_same_vectors(list(auto.embed_sentences(iter(many), batch_size=4)), expected)  # a stream
    _assert_same_vectors(list(auto.embed_sentences(many, batch_size=4)), expected)
    if has_xla_inference():  # XLA ran, compiled once per bucket it used (8 and 16), batches padded to 4 rows
        assert _xla_traces(bilm) == 2


def test_auto_embed_file_and_layer_embeddings(bilm, tmp_path, compiles_wherever_xla_saves):
    from elmo_keras.models import build_bilm_lm, get_preset  # Keras models: only this test needs them
    from elmo_keras.text.vocabulary import Vocabulary

    many = sentences(24, seed=1)
    path = tmp_path / "input.txt"
    path.write_text("\n".join(" ".join(s) for s in many) + "\n", encoding="utf-8")
    for execution in ("graph", "auto"):
        ElmoEmbedder(bilm=bilm, execution=execution, time_bucket=8).embed_file(path, tmp_path / f"{execution}.hdf5",
                                                                              batch_size=4)
    with h5py.File(tmp_path / "graph.hdf5") as graph, h5py.File(tmp_path / "auto.hdf5") as auto:
        keys = [str(i) for i in range(len(many))]
        _assert_same_vectors([auto[key][()] for key in keys], [graph[key][()] for key in keys])
    model = build_bilm_lm(get_preset("tiny"), 20)
    model.build((None, None))
    model.vocabulary = Vocabulary(WORDS)
    positions = [len(s) - 1 for s in many]
    np.testing.assert_allclose(layer_embeddings(model, many, positions, batch_size=4),
                               layer_embeddings(model, many, positions, batch_size=4, execution="graph"),
                               atol=TOLERANCE)


@pytest.mark.fixtures
def test_auto_on_the_bilm_tf_test_model(model_dir, compiles_wherever_xla_saves):
    files = model_dir / "options.json", model_dir / "lm_weights.hdf5"
    many = sentences(12, seed=2)
    expected = list(ElmoEmbedder(*files, execution="graph").embed_sentences(many, batch_size=4))
    auto = ElmoEmbedder(*files, time_bucket=8)
    _assert_same_vectors(list(auto.embed_sentences(many, batch_size=4)), expected)
    if has_xla_inference():
        assert _xla_traces(auto.bilm) >= 1


@pytest.mark.skipif(not has_xla_inference(), reason="a strategy exists on TensorFlow only")
def test_a_strategy_runs_the_graph(bilm):
    assert ElmoEmbedder(bilm=bilm, strategy="mirrored").execution == "graph"
    with pytest.raises(ValueError, match="execution='graph' or 'auto'"):
        ElmoEmbedder(bilm=bilm, execution="xla", strategy="mirrored")
