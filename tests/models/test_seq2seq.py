"""Seq2Seq: equations (NumPy re-derivation), masking, step API, saving, training on the toy corpus, decoding."""

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.data.seq2seq import load_seq2seq_pairs, seq2seq_pairs, seq2seq_references
from elmo_keras.decoding import beam_search, greedy, sample
from elmo_keras.decoding.batched_beam import BatchedBeamSearch
from elmo_keras.models.seq2seq import (
    Seq2Seq,
    Seq2SeqConfig,
    encode_pairs,
    encode_sources,
    evaluate_seq2seq,
    load_seq2seq,
    save_seq2seq,
    train_seq2seq,
)
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID, UNK_ID

SOURCE = np.array([[5, 6, 7, 0, 0], [8, 9, 0, 0, 0]], dtype=np.int32)
TARGET_IN = np.array([[BOS_ID, 10, 11, 12], [BOS_ID, 13, 0, 0]], dtype=np.int32)


def small_model(cell="gru", num_layers=1, seed=0):
    keras.utils.set_random_seed(seed)
    model = Seq2Seq(vocab_size=16, embedding_dim=6, units=8, num_layers=num_layers, cell=cell)
    model((SOURCE, TARGET_IN))
    return model


# -- data -----------------------------------------------------------------------------------------------------
def test_toy_corpus_shape_and_split():
    frame = load_seq2seq_pairs()
    assert frame["source"].nunique() == 123
    assert frame.groupby("source")["target"].count().between(2, 3).all()
    assert frame.groupby("source")["count"].nunique().eq(frame.groupby("source")["count"].count()).all()
    words = {w for tokens in frame["source_tokens"] + frame["target_tokens"] for w in tokens}
    train = frame[frame["split"] == "train"]
    assert len(words) == 42 and words == {w for t in train["source_tokens"] + train["target_tokens"] for w in t}
    assert len(seq2seq_references("heldout")) == 18
    assert len(seq2seq_pairs("train")) == train["count"].sum()
    assert seq2seq_references("all")["turn on the lamp"][0] == ("switch on the lamp", 3)
    with pytest.raises(ValueError, match="split must be 'train', 'heldout' or 'all', received 'test'"):
        seq2seq_pairs("test")


def test_encode_pairs_teacher_forcing_layout():
    from elmo_keras.text import Vocabulary

    vocabulary = Vocabulary(["turn", "on", "it", "switch"])
    inputs, target_out = encode_pairs([(["turn", "on", "it"], ["switch", "it", "on"]), (["it"], ["on"])], vocabulary)
    np.testing.assert_array_equal(inputs["source"], [[4, 5, 6], [6, 0, 0]])
    np.testing.assert_array_equal(inputs["target_in"], [[BOS_ID, 7, 6, 5], [BOS_ID, 5, 0, 0]])
    np.testing.assert_array_equal(target_out, [[7, 6, 5, EOS_ID], [5, EOS_ID, 0, 0]])


def test_strings_are_tokenized_like_word_lists():
    """A string source or target is split into words by ``tokenize`` everywhere: vocabulary, sources, targets."""
    from elmo_keras.text import Vocabulary
    from elmo_keras.text.sentences import as_words

    assert as_words("Open the door.") == ["Open", "the", "door", "."] and as_words(("a", "b")) == ["a", "b"]
    vocabulary = Vocabulary(["turn", "on", "it", "switch"])
    as_lists = encode_pairs([(["turn", "on", "it"], ["switch", "it", "on"])], vocabulary)
    as_strings = encode_pairs([("turn on it", "switch it on")], vocabulary)
    for a, b in zip([as_lists[0]["source"], as_lists[0]["target_in"], as_lists[1]],
                    [as_strings[0]["source"], as_strings[0]["target_in"], as_strings[1]]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(encode_sources(["turn  on it"], vocabulary), [[4, 5, 6]])

    texts = [("turn on the lamp", "switch on the lamp"), ("Open the door.", "open the door !")]
    words = [(["turn", "on", "the", "lamp"], ["switch", "on", "the", "lamp"]),
             (["Open", "the", "door", "."], ["open", "the", "door", "!"])]
    from_texts = train_seq2seq(texts, seed=0, epochs=1, units=8, embedding_dim=4)
    from_words = train_seq2seq(words, seed=0, epochs=1, units=8, embedding_dim=4)
    assert from_texts.vocabulary == from_words.vocabulary
    assert {"turn", "lamp", "door", ".", "!"} <= set(from_texts.vocabulary.tokens)
    assert from_texts.training_summary["history"] == from_words.training_summary["history"]
    source = encode_sources(["turn on the lamp"], from_texts.vocabulary)
    assert UNK_ID not in source[0]


# -- the model ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, message", [
    ({"units": 0}, "units must be a positive int, received 0"),
    ({"cell": "rnn"}, "cell must be one of ('gru', 'lstm'), received 'rnn'"),
    ({"dropout": 1.0}, "dropout must be in [0, 1), received 1.0"),
    ({"eos_id": 16}, "eos_id must be in [0, vocab_size=16), received 16"),
])
def test_argument_errors(kwargs, message):
    with pytest.raises(ValueError) as error:
        Seq2Seq(vocab_size=16, **kwargs)
    assert message in str(error.value)


@pytest.mark.parametrize("overrides, message", [
    ({"epochs": 0}, "epochs must be a positive int, received 0"),
    ({"cell": "GRU"}, "cell must be one of ('gru', 'lstm'), received 'GRU'"),
    ({"learning_rate": 0.0}, "learning_rate must be a finite number > 0, received 0.0"),
])
def test_config_errors(overrides, message):
    with pytest.raises(ValueError) as error:
        train_seq2seq(seq2seq_pairs("train")[:4], **overrides)
    assert message in str(error.value)
    with pytest.raises(ValueError, match="unknown Seq2SeqConfig fields: \\['layers'\\]"):
        Seq2SeqConfig.from_dict({"layers": 2})


def _gru(x, h, kernel, recurrent, bias):
    """Keras GRU (reset_after=True) in NumPy: one step."""
    x_z, x_r, x_h = np.split(x @ kernel + bias[0], 3, axis=-1)
    h_z, h_r, h_h = np.split(h @ recurrent + bias[1], 3, axis=-1)
    z, r = 1 / (1 + np.exp(-(x_z + h_z))), 1 / (1 + np.exp(-(x_r + h_r)))
    return z * h + (1 - z) * np.tanh(x_h + r * h_h)


def test_numpy_rederivation_phi_is_the_decoder_initial_state():
    model = small_model()
    weights = {w.path.split("/", 1)[1]: w.numpy() for w in model.weights}  # without the model's own name

    def gru_weights(name):
        return [weights[f"{name}/gru_cell/{w}"] for w in ("kernel", "recurrent_kernel", "bias")]

    logits = keras.ops.convert_to_numpy(model((SOURCE, TARGET_IN)))
    for row in range(2):
        h = np.zeros(8)
        for token in SOURCE[row][SOURCE[row] != PAD_ID]:  # padding is skipped: φ is the last real token's state
            h = _gru(weights["source_embedding/embeddings"][token], h, *gru_weights("encoder_0"))
        for t, token in enumerate(TARGET_IN[row]):
            if token == PAD_ID:
                break
            h = _gru(weights["target_embedding/embeddings"][token], h, *gru_weights("decoder_0"))
            expected = h @ weights["output/kernel"] + weights["output/bias"]
            np.testing.assert_allclose(logits[row, t], expected, atol=1e-5)


def test_loss_is_the_per_sequence_sum_of_cross_entropies():
    model = small_model()
    target_out = np.array([[10, 11, 12, EOS_ID], [13, EOS_ID, 0, 0]])
    logits = keras.ops.convert_to_numpy(model((SOURCE, TARGET_IN)))
    log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    picked = np.take_along_axis(log_probs, target_out[..., None], axis=-1)[..., 0]
    expected = -(picked * (target_out != PAD_ID)).sum() / 2
    loss = model.compute_loss(y=target_out, y_pred=keras.ops.convert_to_tensor(logits))
    assert float(loss) == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("cell, num_layers", [("gru", 1), ("lstm", 2)])
def test_padding_never_changes_outputs(cell, num_layers):
    model = small_model(cell, num_layers)
    base = keras.ops.convert_to_numpy(model((SOURCE, TARGET_IN)))
    padded = (np.pad(SOURCE, ((0, 0), (0, 3))), np.pad(TARGET_IN, ((0, 0), (0, 2))))  # PAD_ID = 0
    more_padding = keras.ops.convert_to_numpy(model(padded))
    np.testing.assert_allclose(more_padding[0, :4], base[0], atol=1e-6)
    np.testing.assert_allclose(more_padding[1, :2], base[1, :2], atol=1e-6)
    alone = keras.ops.convert_to_numpy(model((SOURCE[1:, :2], TARGET_IN[1:, :2])))
    np.testing.assert_allclose(alone[0], base[1, :2], atol=1e-6)


@pytest.mark.parametrize("cell, num_layers", [("gru", 1), ("lstm", 2)])
def test_step_api_matches_the_full_sequence(cell, num_layers):
    model = small_model(cell, num_layers)
    full = keras.ops.convert_to_numpy(model.next_token_log_probs(model((SOURCE[:1], TARGET_IN[:1]))))[0]
    states = model.initial_states(SOURCE[:1])
    assert len(states) == num_layers * (1 if cell == "gru" else 2)
    for t, token in enumerate(TARGET_IN[0]):
        log_probs, states = model.decoder_step(states, np.array([token]))
        np.testing.assert_allclose(keras.ops.convert_to_numpy(log_probs)[0], full[t], atol=1e-5)
    np.testing.assert_allclose(model.step_log_probs(SOURCE[0], TARGET_IN[:1, :3]), full[None, 2], atol=1e-5)


def test_the_shared_step_api_scores_as_the_compiled_path():
    """The decoder step API HRED shares: from the initial states, every prefix re-read or one step per call
    (``PrefixScorer``), the numbers of ``step_log_probs``."""
    model = small_model("lstm", 2)
    prefixes = np.array([[BOS_ID, 10, 11], [BOS_ID, 13, 4]])
    expected = model.step_log_probs(SOURCE[0], prefixes)
    states = model.initial_states(SOURCE[:1])
    np.testing.assert_allclose(keras.ops.convert_to_numpy(model.step_log_probs_from_states(states, prefixes)),
                               expected, atol=1e-5)
    scorer = model.log_prob_fn_from_states(states)
    for t in range(1, prefixes.shape[1] + 1):
        np.testing.assert_allclose(scorer(prefixes[:, :t]), model.step_log_probs(SOURCE[0], prefixes[:, :t]),
                                   atol=1e-5)
    assert scorer.vocab_size == model.vocab_size


def test_decoders_never_emit_pad_or_bos():
    """<pad> and <S> get probability 0, so no strategy can put <pad> in a prefix (which the decoder masks)."""
    model = small_model()
    log_probs = model.step_log_probs(SOURCE[0], np.array([[BOS_ID]]))  # (1, vocab)
    assert np.isneginf(log_probs[:, [PAD_ID, BOS_ID]]).all()
    np.testing.assert_allclose(np.exp(log_probs).sum(axis=-1), 1.0, atol=1e-5)
    stepped, _ = model.decoder_step(model.initial_states(SOURCE[:1]), np.array([BOS_ID]))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(stepped), log_probs, atol=1e-5)
    hot = sample(model.log_prob_fn(SOURCE[0]), BOS_ID, EOS_ID, 12, temperature=5.0, top_p=1.0, seed=0)
    assert PAD_ID not in hot.tokens and BOS_ID not in hot.tokens


def test_batched_beam_equals_function_beam_on_an_untrained_model():
    """Random weights spread the probability over every token, pad and <S> included, before they are banned."""
    model = small_model("lstm", 2, seed=3)
    search = BatchedBeamSearch(model, BOS_ID, EOS_ID, max_len=6, beam_size=4, pad_id=PAD_ID)
    for source, batched in zip(SOURCE, search(SOURCE)):
        generic = beam_search(model.log_prob_fn(source[source != PAD_ID]), BOS_ID, EOS_ID, 6, 4)
        assert [h.tokens for h in batched] == [h.tokens for h in generic]
        assert [h.log_prob for h in batched] == pytest.approx([h.log_prob for h in generic], abs=1e-4)


def test_step_log_probs_checks_shapes():
    model = small_model()
    with pytest.raises(ValueError, match="prefixes must be int \\(n, t\\)"):
        model.step_log_probs(SOURCE[0], np.array([BOS_ID]))
    with pytest.raises(ValueError, match="source must be \\(source_len,\\) or \\(n=1, source_len\\)"):
        model.step_log_probs(SOURCE, np.array([[BOS_ID]]))
    with pytest.raises(ValueError, match="every source needs at least one word"):
        model.step_log_probs(np.zeros(3, np.int32), np.array([[BOS_ID]]))
    with pytest.raises(ValueError, match="no sources given"):
        encode_sources([], None)


def test_step_log_probs_is_one_graph_equal_to_calling_the_model(tmp_path):
    """Scored as one traced function for every number and length of prefixes, with the model's own numbers; a
    model that scored before saves and loads as usual."""
    model = small_model("lstm", 2)
    for prefixes in (np.array([[BOS_ID]]), np.array([[BOS_ID, 5, 6], [BOS_ID, 7, 8]])):
        source = np.broadcast_to(SOURCE[0], (len(prefixes), SOURCE.shape[1]))
        direct = model.next_token_log_probs(model((source, prefixes), training=False)[:, -1])
        np.testing.assert_allclose(model.step_log_probs(SOURCE[0], prefixes), keras.ops.convert_to_numpy(direct),
                                   atol=1e-6)
    if keras.backend.backend() == "tensorflow":
        assert model._compiled_step_log_probs.experimental_get_tracing_count() == 1
    model.save(tmp_path / "scored.keras")
    assert isinstance(keras.saving.load_model(tmp_path / "scored.keras"), Seq2Seq)


def test_keras_file_round_trip(tmp_path):
    model = small_model("lstm", 2)
    model.save(tmp_path / "model.keras")
    loaded = keras.saving.load_model(tmp_path / "model.keras")
    assert isinstance(loaded, Seq2Seq) and loaded.get_config() == model.get_config()
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded((SOURCE, TARGET_IN))),
                               keras.ops.convert_to_numpy(model((SOURCE, TARGET_IN))), atol=1e-6)
    assert keras.saving.get_registered_name(Seq2Seq) == "elmo_keras>Seq2Seq"


def test_training_is_deterministic_for_a_seed():
    pairs = seq2seq_pairs("train")[:64]
    a = train_seq2seq(pairs, seed=3, epochs=1, units=16, embedding_dim=8)
    b = train_seq2seq(pairs, seed=3, epochs=1, units=16, embedding_dim=8)
    for wa, wb in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_array_equal(wa, wb)
    assert a.training_summary["history"]["loss"] == b.training_summary["history"]["loss"]


# -- trained on the toy corpus (the app's default configuration) ----------------------------------------------------
@pytest.fixture(scope="module")
def trained():
    return train_seq2seq(seed=0)


@pytest.mark.slow
def test_learns_the_toy_corpus(trained):
    history = trained.training_summary["history"]["loss"]
    assert history[-1] < 0.3 * history[0]
    scores = evaluate_seq2seq(trained)
    assert scores["num_sources"] == 18
    assert scores["reference_token_accuracy"] >= 0.9  # 0.947 for seed 0
    assert scores["beam_valid"] >= 0.75  # 15/18 held-out sources: the top beam output is a valid paraphrase


@pytest.mark.slow
def test_batched_beam_equals_function_beam_on_the_model(trained):
    texts = list(seq2seq_references("heldout"))[:3] + ["turn on the lamp in the kitchen"]
    sources = encode_sources(texts, trained.vocabulary)
    search = BatchedBeamSearch(trained, BOS_ID, EOS_ID, max_len=12, beam_size=3, length_penalty=0.5, pad_id=PAD_ID)
    for source, batched in zip(sources, search(sources)):
        generic = beam_search(trained.log_prob_fn(source[source != PAD_ID]), BOS_ID, EOS_ID, 12, 3, length_penalty=0.5)
        assert [h.tokens for h in batched] == [h.tokens for h in generic]
        assert [h.log_prob for h in batched] == pytest.approx([h.log_prob for h in generic], abs=1e-4)


@pytest.mark.slow
def test_strategies_differ_on_a_source_with_several_targets(trained):
    vocab = trained.vocabulary
    fn = trained.log_prob_fn(encode_sources(["turn on the lamp"], vocab)[0])
    valid = {target for target, _ in seq2seq_references("all")["turn on the lamp"]}
    assert greedy(fn, BOS_ID, EOS_ID, 10).text(vocab) in valid
    drawn = {h.text(vocab) for h in sample(fn, BOS_ID, EOS_ID, 10, seed=0, num_samples=40)}
    assert len(drawn & valid) >= 2  # sampling reaches the other paraphrases


@pytest.mark.slow
def test_model_directory_round_trip(trained, tmp_path):
    save_seq2seq(trained, tmp_path / "s2s")
    loaded = load_seq2seq(tmp_path / "s2s")
    assert loaded.vocabulary == trained.vocabulary and loaded.config == Seq2SeqConfig()
    prefixes = np.array([[BOS_ID, 5]])
    np.testing.assert_allclose(loaded.step_log_probs(SOURCE[0], prefixes), trained.step_log_probs(SOURCE[0], prefixes),
                               atol=1e-6)
    (tmp_path / "s2s" / "vocabulary.json").unlink()
    with pytest.raises(FileNotFoundError, match="vocabulary.json is missing"):
        load_seq2seq(tmp_path / "s2s")
