"""``precision=`` of inference: bfloat16 vectors against float32 ones (per-token cosine ≥ 0.9998) on both original
test models and a mid-size random model, what ``"auto"`` picks, and the argument on the embedder, the analysis
helpers and the CLI."""

import argparse

import numpy as np
import pytest

from elmo_keras._backend import precision as backend_precision
from elmo_keras._quiet import keras
from elmo_keras.analysis.embeddings import sentence_activations
from elmo_keras.cli.embed import add_embed_arguments
from elmo_keras.embedding import precision as inference_precision
from elmo_keras.embedding.embedder import ElmoEmbedder
from elmo_keras.embedding.precision import BFLOAT16_MIN_MACS_PER_TOKEN, inference_matmul_dtype, macs_per_token
from elmo_keras.layers import BiLM, CharCNN, matmul_dtype
from elmo_keras.models import build_bilm_lm, get_size
from elmo_keras.text.batching import WordIds
from elmo_keras.text.vocabulary import Vocabulary
from tests.support.backend_support import BACKEND

MIN_COSINE = 0.9998  # per token, every layer (elmo_skip gave 0.99990 here on one 2-core EPYC, 0.99989746 on another)
# the largest |bfloat16 − float32| of a sentence as a fraction of its largest |float32| (bfloat16 keeps 8 significant
# bits, so the error scales with the vectors): measured 0.0053 on elmo_bilm_tf (|vectors| ≤ 1.7, difference 8.8e-3)
# and 0.0046 on elmo_skip (|vectors| ≤ 7.1, difference 3.3e-2); this bound leaves a margin
MAX_RELATIVE_DIFFERENCE = 1e-2
# kept bfloat16 copies against the per-call cast: the same bfloat16 numbers in another layout (transposed), so only
# the matmuls' accumulation order may differ; measured 0.0 on the bilm-tf test model on all three backends
KEPT_COPY_TOLERANCE = 1e-5
WORDS = ["the", "river", "bank", "a", "by"]
ORIGINAL_FILTERS = ((1, 32), (2, 32), (3, 64), (4, 128), (5, 256), (6, 512), (7, 1024))


def _per_token_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = a.astype(np.float64), b.astype(np.float64)
    return (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))


def _compare(float32_vectors, bfloat16_vectors) -> float:
    """Check every sentence's bfloat16 vectors against float32's; return the largest relative difference."""
    largest = 0.0
    for a, b in zip(float32_vectors, bfloat16_vectors):
        assert a.shape == b.shape and b.dtype == np.float32
        assert _per_token_cosines(a, b).min() >= MIN_COSINE
        largest = max(largest, float(np.abs(a - b).max() / np.abs(a).max()))
    assert largest <= MAX_RELATIVE_DIFFERENCE
    return largest


def _sentences(sentences):
    return [sentence for group in sentences for sentence in group[:4]]  # 12 sentences of the bilm-tf test lists


@pytest.mark.fixtures
@pytest.mark.parametrize("model", ["elmo_bilm_tf", "elmo_skip"])
def test_bfloat16_matches_float32_on_the_original_test_models(shared_fixtures, sentences, model):
    files = (shared_fixtures / model / "options.json", shared_fixtures / model / "lm_weights.hdf5")
    float32 = ElmoEmbedder(*files, precision="float32")
    bfloat16 = ElmoEmbedder(bilm=float32.bilm, precision="bfloat16")
    assert bfloat16.matmul_dtype == "bfloat16" and float32.matmul_dtype is None
    batch = _sentences(sentences)
    _compare(float32.embed_batch(batch), bfloat16.embed_batch(batch))


@pytest.mark.fixtures
def test_auto_keeps_the_test_models_in_float32(model_dir, sentences, monkeypatch):
    monkeypatch.setattr(inference_precision, "has_native_bfloat16_inference", lambda: True)  # even where it pays
    auto = ElmoEmbedder(model_dir / "options.json", model_dir / "lm_weights.hdf5")
    assert auto.precision == "auto" and auto.matmul_dtype is None
    assert macs_per_token(auto.bilm) < BFLOAT16_MIN_MACS_PER_TOKEN
    float32 = ElmoEmbedder(bilm=auto.bilm, precision="float32")
    batch = _sentences(sentences)
    for a, b in zip(auto.embed_batch(batch), float32.embed_batch(batch)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.fixtures
def test_stateful_and_xla_embedding_honour_bfloat16(model_dir, sentences):
    stateful = ElmoEmbedder(model_dir / "options.json", model_dir / "lm_weights.hdf5", stateful=True,
                            precision="float32")
    batch = [sentences[k][0] for k in range(3)]
    float32 = stateful.embed_batch(batch)
    stateful.reset_states()  # the two embedders share the biLM and its carried state
    _compare(float32, ElmoEmbedder(bilm=stateful.bilm, stateful=True, precision="bfloat16").embed_batch(batch))
    if BACKEND == "tensorflow":  # elsewhere "xla" is the same jit or eager call as "graph"
        graph = ElmoEmbedder(bilm=stateful.bilm, execution="graph", precision="bfloat16").embed_batch(batch)
        xla = ElmoEmbedder(bilm=stateful.bilm, execution="xla", precision="bfloat16").embed_batch(batch)
        _compare(graph, xla)


def test_bfloat16_matches_float32_on_a_mid_size_random_model():
    """ELMo's 2048-filter-wide character CNN cut to 512 filters, LSTM 1024 cells → 128 with clipping and residuals
    (ELMo-small's LSTM), untrained."""
    keras.utils.set_random_seed(0)
    char_cnn = CharCNN(filters=ORIGINAL_FILTERS[:5], n_highway=2, projection_dim=128)
    bilm = BiLM(char_cnn, units=1024, projection_dim=128, cell_clip=3.0, proj_clip=3.0, use_skip_connections=True)
    rng = np.random.default_rng(0)
    words = ["".join(rng.choice(list("abcdefghij"), size=rng.integers(2, 9))) for _ in range(50)]
    batch = [list(rng.choice(words, size=length)) for length in (12, 7, 3, 15)]
    float32 = ElmoEmbedder(bilm=bilm, precision="float32").embed_batch(batch)
    _compare(float32, ElmoEmbedder(bilm=bilm, precision="bfloat16").embed_batch(batch))


def test_auto_chooses_bfloat16_for_published_sizes_only_where_native(monkeypatch):
    small = BiLM(CharCNN(filters=ORIGINAL_FILTERS, n_highway=1, projection_dim=128), units=1024, projection_dim=128)
    toy = BiLM(CharCNN(filters=ORIGINAL_FILTERS[:4], n_highway=1, projection_dim=128), units=256, projection_dim=128)
    assert macs_per_token(toy) < BFLOAT16_MIN_MACS_PER_TOKEN <= macs_per_token(small)  # unbuilt: sizes only
    for native in (True, False):
        monkeypatch.setattr(inference_precision, "has_native_bfloat16_inference", lambda native=native: native)
        assert inference_matmul_dtype(small, "auto") == ("bfloat16" if native else None)
        assert inference_matmul_dtype(toy, "auto") is None
        assert inference_matmul_dtype(small, "float32") is None  # the opt-out
        assert inference_matmul_dtype(toy, "bfloat16") == "bfloat16"  # asked for: any size, any backend


def test_native_bfloat16_inference_needs_tensorflow_on_a_native_cpu(monkeypatch):
    native = backend_precision.has_native_bfloat16()
    assert backend_precision.has_native_bfloat16_inference() is (BACKEND == "tensorflow" and native)
    monkeypatch.setattr(backend_precision, "has_native_bfloat16", lambda: False)  # emulated bfloat16, or not TF
    assert backend_precision.has_native_bfloat16_inference() is False


@pytest.fixture(scope="module")
def tiny_lm():
    """The ``tiny`` preset's word-level language model, untrained, with a vocabulary."""
    keras.utils.set_random_seed(0)
    model = build_bilm_lm(get_size("tiny"), len(WORDS) + 4)
    model.build((None, None))
    model.vocabulary = Vocabulary(WORDS)
    return model


def test_bad_precision_is_named(tiny_lm):
    with pytest.raises(ValueError, match=r"precision must be one of \('auto', 'float32', 'bfloat16'\), received 'fp"):
        ElmoEmbedder(bilm=tiny_lm.bilm, sentence_ids=WordIds(tiny_lm.vocabulary), precision="fp16")
    with pytest.raises(ValueError, match="precision must be one of"):
        sentence_activations(tiny_lm, [["the", "bank"]], precision="half")


def test_analysis_helpers_take_precision(tiny_lm):
    sentences = [["the", "river", "bank"], ["a", "bank", "by", "the", "river"]]
    float32 = sentence_activations(tiny_lm, sentences, precision="float32")
    _compare(float32, sentence_activations(tiny_lm, sentences, precision="bfloat16"))
    for a, b in zip(float32, sentence_activations(tiny_lm, sentences)):  # "auto": a tiny model stays float32
        np.testing.assert_array_equal(a, b)


def test_cli_precision_choices_and_argument():
    parser = argparse.ArgumentParser()
    add_embed_arguments(parser)
    assert parser.parse_args(["in.txt", "out.hdf5", "--model-dir", "m"]).precision == "auto"
    assert parser.parse_args(["in.txt", "out.hdf5", "--model-dir", "m", "--precision", "bfloat16"]).precision \
        == "bfloat16"


@pytest.mark.fixtures
@pytest.mark.parametrize("stateful", [False, True])
def test_an_embedder_that_loads_its_weights_keeps_bfloat16_copies(model_dir, sentences, stateful):
    """An embedder that loaded its biLM keeps transposed bfloat16 copies of the kernels (made once, not cast per call)
    and freezes the biLM; its vectors are those of the per-call cast up to the matmuls' accumulation order."""
    files = (model_dir / "options.json", model_dir / "lm_weights.hdf5")
    kept = ElmoEmbedder(*files, stateful=stateful, precision="bfloat16")
    assert not kept.bilm.trainable
    kernel = kept.bilm.token_encoder.projection.kernel
    copy = matmul_dtype.kernel_for(kernel, "bfloat16", "float32")
    if BACKEND == "jax":  # a jitted function would take the copies as constants: none are kept
        assert not isinstance(copy, matmul_dtype.TransposedKernel)
    else:
        assert isinstance(copy, matmul_dtype.TransposedKernel) and copy.shape == tuple(kernel.shape)
        np.testing.assert_array_equal(keras.ops.convert_to_numpy(keras.ops.cast(matmul_dtype.matrix(copy), "float32")),
                                      keras.ops.convert_to_numpy(keras.ops.cast(kernel.value, "bfloat16"))
                                      .astype(np.float32))
    cast_per_call = ElmoEmbedder(bilm=ElmoEmbedder(*files, precision="float32").bilm, stateful=stateful,
                                 precision="bfloat16")
    assert matmul_dtype.kernel_for(cast_per_call.bilm.token_encoder.projection.kernel, "bfloat16", "float32").shape \
        == tuple(kernel.shape)
    batch = [sentences[k][0] for k in range(3)]
    for a, b in zip(kept.embed_batch(batch), cast_per_call.embed_batch(batch)):
        np.testing.assert_allclose(a, b, atol=KEPT_COPY_TOLERANCE)


def test_kept_copies_hold_half_the_kernels_and_only_the_kernels():
    keras.utils.set_random_seed(0)
    bilm = BiLM(CharCNN(filters=((1, 4), (2, 4)), projection_dim=8), units=16, projection_dim=8)
    bilm.build((None, None, 50))
    kernels = [w for w in bilm.weights if len(w.shape) >= 2]
    kept_bytes = matmul_dtype.keep_narrowed_kernels(bilm, "bfloat16")
    assert kept_bytes == (0 if BACKEND == "jax" else sum(2 * int(np.prod(w.shape)) for w in kernels))
    assert matmul_dtype.keep_narrowed_kernels(bilm, None) == 0
    bias = bilm.token_encoder.projection.bias  # a vector: cast per call, never kept
    assert not isinstance(matmul_dtype.kernel_for(bias, "bfloat16", "float32"), matmul_dtype.TransposedKernel)
    assert keras.backend.standardize_dtype(matmul_dtype.kernel_for(kernels[0], None, "float32").dtype) == "float32"
