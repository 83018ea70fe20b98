"""Text classifiers (docs/lecture.md): shapes, masks and padding, the CNN's max pool against NumPy, the RNN's last
states, saving, bad arguments, and short trainings."""

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.models.classifiers import (
    ClassifierConfig,
    CNNTextClassifier,
    NgramFilters,
    RNNTextClassifier,
    class_probabilities,
    encode_labels,
    evaluate_classifier,
    load_classifier,
    save_classifier,
    train_text_classifier,
)
from tests.support.backend_support import to_numpy

VOCAB, CLASSES, DIM = 20, 3, 4
# 3 tokens padded to 6, batched with a 6-token sentence and a 1-token one (shorter than every CNN filter); few
# distinct shapes, each compiled once on JAX
BATCH = np.array([[5, 6, 7, 0, 0, 0], [8, 9, 10, 11, 12, 13], [4, 0, 0, 0, 0, 0]], dtype=np.int32)
SHORTER = np.array([[5, 6, 7], [4, 0, 0], [9, 8, 0]], dtype=np.int32)  # rows 0 and 2 of BATCH, padded less
ATOL = 1e-6
RNN_VARIANTS = [("lstm", "last", True), ("gru", "max", True), ("gru", "mean", False)]


def cnn(seed=0, **kwargs):
    keras.utils.set_random_seed(seed)
    kwargs = {"embedding_dim": DIM, "filter_heights": (2, 3), "filters_per_height": 3, **kwargs}
    return CNNTextClassifier(VOCAB, CLASSES, **kwargs)


def rnn(cell="lstm", pooling="last", bidirectional=True, seed=0):
    keras.utils.set_random_seed(seed)
    return RNNTextClassifier(VOCAB, CLASSES, embedding_dim=DIM, units=5, cell=cell, pooling=pooling,
                             bidirectional=bidirectional)


def all_models():
    return [cnn()] + [rnn(*variant) for variant in RNN_VARIANTS]


# -- shapes and masks -----------------------------------------------------------------------------------------
# (few calls per RNN: on JAX every eager call of a recurrent layer compiles its loop again)
def test_one_distribution_per_sentence_unchanged_by_padding_or_by_longer_sentences_in_the_batch():
    """Also: mean and max pooling read the real tokens' states only."""
    for model in all_models():
        batch = to_numpy(model(BATCH))
        assert batch.shape == (3, CLASSES)
        np.testing.assert_allclose(batch.sum(axis=1), 1.0, atol=1e-5)
        shorter = to_numpy(model(SHORTER))  # without padding, beside other sentences
        np.testing.assert_allclose(batch[[0, 2]], shorter[:2], atol=ATOL, err_msg=type(model).__name__)
        pooling = getattr(model, "pooling", "last")
        if pooling != "last":  # mean / max over the real tokens' states only
            states = to_numpy(model.rnn(model.embedding(SHORTER), mask=SHORTER != 0))[1, :1]  # sentence [4]
            reduce = np.mean if pooling == "mean" else np.max
            np.testing.assert_allclose(to_numpy(model.sentence_vectors(BATCH))[2], reduce(states, axis=0), atol=ATOL)


def test_last_pooling_reads_the_forward_state_at_the_last_token_and_the_backward_state_at_the_first():
    model = rnn("lstm", "last")
    vectors = to_numpy(model.sentence_vectors(BATCH))
    for row, length in ((1, 6), (0, 3)):  # unpadded, and padded against its unpadded self
        x = model.embedding(BATCH[row : row + 1, :length])
        forward = to_numpy(model.rnn.forward_layer(x))[0, -1]  # after reading the last token
        backward = to_numpy(model.rnn.backward_layer(x))[0, -1]  # go_backwards: after reading the first token
        np.testing.assert_allclose(vectors[row], np.concatenate([forward, backward]), atol=ATOL)


# -- the CNN against NumPy ----------------------------------------------------------------------------------
def numpy_cnn_features(embeddings, kernels, biases, ids, pad_id=0):
    """Max over valid windows of relu(Σ window ⊙ filter + b) per filter; a sentence shorter than a filter's height
    is zero-padded to it (one window)."""
    rows = []
    for sentence in ids:
        tokens = sentence[sentence != pad_id]
        x = embeddings[tokens]  # (L, E)
        features = []
        for kernel, bias in zip(kernels, biases):  # kernel (h, E, F)
            height = kernel.shape[0]
            if len(x) < height:
                x_padded = np.vstack([x, np.zeros((height - len(x), x.shape[1]))])
            else:
                x_padded = x
            windows = [x_padded[t : t + height] for t in range(len(x_padded) - height + 1)]
            values = np.array([np.maximum(np.einsum("he,hef->f", w, kernel) + bias, 0.0) for w in windows])
            features.append(values.max(axis=0))
        rows.append(np.concatenate(features))
    return np.array(rows)


def test_cnn_max_pool_matches_a_numpy_rederivation():
    model = cnn()
    model(BATCH)
    embeddings = to_numpy(model.embedding.embeddings).astype(np.float64)
    kernels = [to_numpy(layer.kernel).astype(np.float64) for layer in model.ngram_filters]
    biases = [np.linspace(-0.2, 0.2, 3)] * 2  # non-zero biases, so that ReLU cuts some windows
    for layer, bias in zip(model.ngram_filters, biases):
        layer.bias.assign(bias.astype("float32"))
    expected = numpy_cnn_features(embeddings, kernels, biases, BATCH)
    np.testing.assert_allclose(to_numpy(model.sentence_vectors(BATCH)), expected, atol=1e-5)


def test_filter_responses_give_each_filters_map_and_the_window_that_won():
    model = cnn()
    responses = model.filter_responses(BATCH)
    assert list(responses.filter_heights) == [2, 2, 2, 3, 3, 3]
    assert [m.shape for m in responses.feature_maps] == [(3, 6, 3), (3, 6, 3)]
    bigrams = responses.feature_maps[0]
    assert np.isnan(bigrams[0, 2:]).all() and not np.isnan(bigrams[0, :2]).any()  # 3 tokens: 2 bigrams
    assert not np.isnan(bigrams[2, 0]).any() and np.isnan(bigrams[2, 1:]).all()  # 1 token: one zero-padded window
    for k in range(6):  # the max sits at the reported window
        maps = responses.feature_maps[k // 3][:, :, k % 3]
        np.testing.assert_allclose(maps[np.arange(3), responses.positions[:, k]], responses.pooled[:, k], atol=1e-6)
        np.testing.assert_allclose(np.nanmax(maps, axis=1), responses.pooled[:, k], atol=1e-6)
    np.testing.assert_allclose(responses.pooled, to_numpy(model.sentence_vectors(BATCH)), atol=1e-6)


def test_ngram_filters_alone_keep_their_shapes():
    layer = NgramFilters(3, 2)
    out = layer(np.ones((2, 5, DIM), "float32"), mask=np.array([[1, 1, 1, 1, 0], [1, 0, 0, 0, 0]], bool))
    assert tuple(out["feature_maps"].shape) == (2, 5, 2) and tuple(out["pooled"].shape) == (2, 2)
    assert to_numpy(out["window_mask"]).tolist() == [[True, True, False, False, False],
                                                     [True, False, False, False, False]]


# -- saving -------------------------------------------------------------------------------------------------
def test_keras_files_round_trip_with_identical_predictions(tmp_path):
    for index, model in enumerate([cnn(class_names=("a", "b", "c")), rnn("gru", "max")]):
        expected = to_numpy(model(BATCH))
        path = tmp_path / f"model{index}.keras"
        model.save(path)
        loaded = keras.saving.load_model(path)
        assert type(loaded) is type(model) and loaded.get_config() == model.get_config()
        np.testing.assert_allclose(to_numpy(loaded(BATCH)), expected, atol=1e-6)


def test_layer_config_round_trip():
    layer = NgramFilters(2, 4, activation=None)
    assert NgramFilters.from_config(layer.get_config()).get_config() == layer.get_config()


# -- bad arguments ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make, message", [
    (lambda: RNNTextClassifier(VOCAB, 2, pooling="first"), "pooling must be one of"),
    (lambda: RNNTextClassifier(VOCAB, 2, cell="rnn"), "cell must be one of"),
    (lambda: RNNTextClassifier(VOCAB, 2, bidirectional="yes"), "bidirectional must be True or False"),
    (lambda: CNNTextClassifier(VOCAB, 2, filter_heights=()), "filter_heights must be a non-empty sequence"),
    (lambda: CNNTextClassifier(VOCAB, 2, filter_heights=(2, 0)), "each of filter_heights must be a positive int"),
    (lambda: CNNTextClassifier(VOCAB, 2, filter_heights=(2, 2)), "must not repeat a height"),
    (lambda: CNNTextClassifier(VOCAB, 1), "num_classes must be at least 2"),
    (lambda: CNNTextClassifier(VOCAB, 2, class_names=("a",)), "class_names must be 2 distinct strings"),
    (lambda: CNNTextClassifier(VOCAB, 2, pad_id=VOCAB), "pad_id must be an int in"),
    (lambda: CNNTextClassifier(VOCAB, 2, dropout=1.0), "dropout must be in"),
    (lambda: ClassifierConfig(kind="transformer"), "kind must be one of"),
    (lambda: encode_labels(["good"], ("negative", "positive")), "labels\\[0\\] = 'good' is not one of"),
    (lambda: train_text_classifier(["a b"], ["x", "y"], kind="cnn"), "one label per sentence"),
])
def test_bad_arguments_are_explained(make, message):
    with pytest.raises(ValueError, match=message):
        make()


# -- training -----------------------------------------------------------------------------------------------
SEPARABLE = [f"{w} {x} {y}" for w in ("good", "bad") for x in ("the", "a") for y in ("film", "show", "plot", "cast")]
SEPARABLE_LABELS = ["pos" if s.startswith("good") else "neg" for s in SEPARABLE]  # 16 sentences, 2 batches


@pytest.fixture(scope="module")
def trained_cnn():
    return train_text_classifier(SEPARABLE, SEPARABLE_LABELS, kind="cnn", seed=0, epochs=15, batch_size=8,
                                 dropout=0.0, embedding_dim=8, filters_per_height=4, learning_rate=0.05)


def test_a_short_training_learns_a_separable_set(trained_cnn):
    assert trained_cnn.class_names == ("neg", "pos")
    assert evaluate_classifier(trained_cnn, SEPARABLE, SEPARABLE_LABELS)["accuracy"] == 1.0
    unseen = class_probabilities(trained_cnn, ["good a movie", "bad the zebra"])  # unknown words → <unk>
    assert list(np.argmax(unseen, axis=1)) == [1, 0]


def test_training_is_deterministic_for_a_seed_and_the_rnn_learns_too(trained_cnn):
    again = train_text_classifier(SEPARABLE, SEPARABLE_LABELS, kind="cnn", seed=0, epochs=15, batch_size=8,
                                  dropout=0.0, embedding_dim=8, filters_per_height=4, learning_rate=0.05)
    for a, b in zip(trained_cnn.weights, again.weights):
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b))
    model = train_text_classifier(SEPARABLE, SEPARABLE_LABELS, kind="rnn-last", seed=0, epochs=15, batch_size=8,
                                  embedding_dim=8, units=8, learning_rate=0.05, dropout=0.0)
    assert evaluate_classifier(model, SEPARABLE, SEPARABLE_LABELS)["accuracy"] == 1.0


def test_the_old_kind_first_order_is_one_line_saying_the_new_one():
    with pytest.raises(TypeError, match=r"^the kind is keyword-only, the data comes first: train_text_classifier\("
                                        r"sentences, labels, kind='cnn'\)"):
        train_text_classifier("cnn", ["a b"])


def test_a_classifier_directory_round_trips_with_its_vocabulary(trained_cnn, tmp_path):
    save_classifier(trained_cnn, tmp_path / "cnn")
    loaded = load_classifier(tmp_path / "cnn")
    assert loaded.vocabulary == trained_cnn.vocabulary and loaded.class_names == ("neg", "pos")
    assert loaded.config == trained_cnn.config
    np.testing.assert_allclose(class_probabilities(loaded, SEPARABLE), class_probabilities(trained_cnn, SEPARABLE),
                               atol=1e-6)
