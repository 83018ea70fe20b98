"""ElmoEmbedder: deterministic stateless vectors, the original stateful numbers, AllenNLP's HDF5 file layout,
clear input-file errors, and model directories trained by elmo_keras."""

import gzip
import json
import re

import h5py
import numpy as np
import pytest
from keras import ops

from elmo_keras.embedding.embedder import ElmoEmbedder
from elmo_keras.embedding.embedder_files import (
    SENTENCE_TO_INDEX,
    check_input_file,
    check_output_file,
    read_sentence_file,
)
from elmo_keras.layers.bilm import BiLM
from elmo_keras.text.batching import WordIds, char_ids_with_boundaries
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, Vocabulary

TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def embedder(model_dir):
    return ElmoEmbedder(model_dir / "options.json", model_dir / "lm_weights.hdf5")


SHORT = [["The", "cat", "sat", "."], ["A", "much", "longer", "sentence", "about", "the", "river", "bank", "."], ["Hi"]]


@pytest.mark.fixtures
def test_embed_sentence_shape_and_original_numbers(embedder, sentences, expected):
    vectors = embedder.embed_sentence(sentences[1][0])
    assert vectors.shape == (3, len(sentences[1][0]), 32) and vectors.dtype == np.float32
    assert np.abs(vectors[2] - expected[1][0]).max() <= TOLERANCE
    np.testing.assert_array_equal(vectors[0][:, :16], vectors[0][:, 16:])  # layer 0 = [x; x]


@pytest.mark.fixtures
def test_stateless_batch_0_of_every_list(embedder, sentences, expected):
    batch = [sentences[k][0] for k in range(3)]
    for k, vectors in enumerate(embedder.embed_batch(batch)):
        assert np.abs(vectors[2] - expected[k][0]).max() <= TOLERANCE


@pytest.mark.fixtures
def test_alone_padded_reordered_and_repeated_give_the_same_vectors(embedder):
    alone = [embedder.embed_sentence(s) for s in SHORT]
    batched = embedder.embed_batch(SHORT)
    reordered = embedder.embed_batch(SHORT[::-1])[::-1]
    with_others = embedder.embed_batch(SHORT + [["x"] * 30, ["y", "z"]])[:3]
    for single, *others in zip(alone, batched, reordered, with_others):
        for other in others:
            assert other.shape == single.shape
            assert np.abs(other - single).max() <= TOLERANCE
    again = embedder.embed_batch(SHORT)
    for first, second in zip(batched, again):
        np.testing.assert_array_equal(first, second)  # bit-identical


@pytest.mark.fixtures
@pytest.mark.parametrize("execution", ["eager", "xla"])
def test_execution_modes_agree(model_dir, embedder, execution):
    other = ElmoEmbedder(model_dir / "options.json", model_dir / "lm_weights.hdf5", execution=execution)
    for ours, theirs in zip(embedder.embed_batch(SHORT), other.embed_batch(SHORT)):
        assert np.abs(ours - theirs).max() <= TOLERANCE


@pytest.mark.fixtures
def test_stateful_reproduces_the_original_batches_and_resets(model_dir, sentences, expected):
    embedder = ElmoEmbedder(model_dir / "options.json", model_dir / "lm_weights.hdf5", stateful=True)
    for i in range(3):  # all 10 batches are checked in test_pretrained_loader
        for k, vectors in enumerate(embedder.embed_batch([sentences[k][i] for k in range(3)])):
            assert np.abs(vectors[2] - expected[k][i]).max() <= TOLERANCE
    embedder.reset_states()
    vectors = embedder.embed_batch([sentences[k][0] for k in range(3)])
    assert np.abs(vectors[0][2] - expected[0][0]).max() <= TOLERANCE
    with pytest.raises(ValueError, match="sentence 1 is empty; stateful mode"):
        embedder.embed_batch([["a"], []])


@pytest.mark.fixtures
def test_embed_sentences_keeps_order_and_is_lazy(embedder):
    many = [SHORT[i % 3][: 1 + i % 4] for i in range(11)]
    generator = embedder.embed_sentences(iter(many), batch_size=4)
    assert not isinstance(generator, list)
    results = list(generator)
    assert [r.shape[1] for r in results] == [len(s) for s in many]
    for got, sentence in zip(results, many):
        assert np.abs(got - embedder.embed_sentence(sentence)).max() <= TOLERANCE
    with pytest.raises(ValueError, match="batch_size must be a positive int, received 0"):
        embedder.embed_sentences(many, batch_size=0)


@pytest.mark.fixtures
def test_empty_sentence_and_bad_input(embedder):
    empty, one = embedder.embed_batch([[], ["word"]])
    assert empty.shape == (3, 0, 32) and one.shape == (3, 1, 32)
    with pytest.raises(TypeError, match="sentence 0 must be a list of tokens, received str"):
        embedder.embed_batch(["not tokenized"])


@pytest.mark.fixtures
@pytest.mark.parametrize("output_format", ["all", "top", "average"])
def test_embed_file_layout_matches_embed_sentence(embedder, tmp_path, output_format):
    lines = ["The cat sat .", "  Hello   world  ", "The cat sat ."]  # a duplicate and extra spaces
    source = tmp_path / "input.txt"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    calls = []
    count = embedder.embed_file(source, tmp_path / "out.hdf5", output_format=output_format, batch_size=2,
                                progress=lambda done, total: calls.append((done, total)))
    assert count == 3 and calls[-1] == (3, 3) and calls[0] == (2, 3)
    with h5py.File(tmp_path / "out.hdf5", "r") as handle:
        assert sorted(handle) == ["0", "1", "2", SENTENCE_TO_INDEX]
        index = json.loads(handle[SENTENCE_TO_INDEX][0])
        assert index == {"The cat sat .": "2", "Hello   world": "1"}  # stripped line text, as AllenNLP
        for key, line in enumerate(lines):
            vectors = embedder.embed_sentence(line.split())
            expected = {"all": vectors, "top": vectors[-1], "average": vectors.mean(axis=0)}[output_format]
            stored = handle[str(key)][...]
            assert stored.shape == expected.shape
            assert np.abs(stored - expected).max() <= TOLERANCE
    assert not (tmp_path / "out.hdf5.partial").exists()


@pytest.mark.fixtures
def test_embed_file_errors(embedder, tmp_path):
    blank = tmp_path / "blank.txt"
    blank.write_text("one line\ntwo line\n   \nfour\n", encoding="utf-8")
    with pytest.raises(ValueError, match=f"{re.escape(str(blank))}, line 3 is blank"):
        embedder.embed_file(blank, tmp_path / "out.hdf5")
    assert not (tmp_path / "out.hdf5").exists()
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("first line\ncaf\u00e9 au lait\n".encode("latin-1"))
    not_utf8 = f"{re.escape(str(latin1))}, line 2: not UTF-8 \\(invalid continuation byte at byte 3 of the line"
    with pytest.raises(ValueError, match=not_utf8):
        embedder.embed_file(latin1, tmp_path / "out.hdf5")
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        embedder.embed_file(tmp_path / "missing.txt", tmp_path / "out.hdf5")
    with pytest.raises(ValueError, match="output_format must be one of"):
        embedder.embed_file(blank, tmp_path / "out.hdf5", output_format="mean")


@pytest.mark.fixtures
def test_embed_file_checks_the_output_before_embedding(embedder, tmp_path):
    texts = tmp_path / "in.txt"
    texts.write_text("one line\n", encoding="utf-8")
    calls = []
    (tmp_path / "out_dir").mkdir()
    with pytest.raises(IsADirectoryError, match="is a directory; give the HDF5 file to write"):
        embedder.embed_file(texts, tmp_path / "out_dir", progress=lambda done, total: calls.append(done))
    with pytest.raises(FileNotFoundError, match=f"output directory {re.escape(str(tmp_path / 'missing'))} does not"):
        embedder.embed_file(texts, tmp_path / "missing" / "o.hdf5", progress=lambda done, total: calls.append(done))
    assert calls == [] and list((tmp_path / "out_dir").iterdir()) == []
    with pytest.raises(IsADirectoryError, match=f"input {re.escape(str(tmp_path))} is a directory"):
        embedder.embed_file(tmp_path, tmp_path / "o.hdf5")


def test_check_input_and_output_files(tmp_path):
    text = tmp_path / "in.txt"
    text.write_text("a\n", encoding="utf-8")
    assert check_input_file(text) == str(text) and check_output_file(tmp_path / "o.hdf5") == str(tmp_path / "o.hdf5")
    assert check_output_file(text) == str(text)  # an existing file is replaced
    with pytest.raises(FileNotFoundError, match="input file not found"):
        check_input_file(tmp_path / "missing.txt")
    with pytest.raises(IsADirectoryError, match="is a directory; pass a text file with one sentence per line"):
        read_sentence_file(tmp_path)
    with pytest.raises(IsADirectoryError, match="is a directory; give the HDF5 file to write"):
        check_output_file(tmp_path)
    with pytest.raises(FileNotFoundError, match="output directory .* does not exist; create it"):
        check_output_file(tmp_path / "missing" / "o.hdf5")
    with pytest.raises(NotADirectoryError, match="is a file, not a directory"):
        check_output_file(text / "o.hdf5")


def test_read_sentence_file_drops_bom_and_line_endings(tmp_path):
    path = tmp_path / "in.txt"
    path.write_bytes("\ufeffOne two\r\nthree\n".encode("utf-8"))
    assert read_sentence_file(path) == ["One two", "three"]
    zipped = tmp_path / "in.txt.gz"  # the rules of every sentence file (text.sentence_files): gzip, a lone \r
    zipped.write_bytes(gzip.compress(b"four\rfive\n"))
    assert read_sentence_file(zipped) == ["four", "five"]


def test_encoders_add_boundaries_and_pad():
    chars = char_ids_with_boundaries([["a", "b"], ["c"]], 6)
    assert chars.shape == (2, 6, 50)
    assert (chars[0, :4] > 0).any(axis=-1).all() and (chars[0, 4:] == 0).all() and (chars[1, 3:] == 0).all()
    vocabulary = Vocabulary(["a", "b"])
    words = WordIds(vocabulary)([["a", "b"], ["zzz"]], 5)
    np.testing.assert_array_equal(words, [[BOS_ID, 4, 5, EOS_ID, 0], [BOS_ID, 1, EOS_ID, 0, 0]])


def _word_model_dir(tmp_path):
    from elmo_keras.models import build_bilm_lm, get_size, save_model_dir

    vocabulary = Vocabulary(["the", "river", "bank", "money"], lowercase=True)
    model = build_bilm_lm(get_size("tiny"), len(vocabulary))
    model.build((None, None))
    model.vocabulary = vocabulary
    save_model_dir(model, tmp_path / "model")
    return tmp_path / "model", model


def test_from_model_dir_word_level(tmp_path):
    directory, model = _word_model_dir(tmp_path)
    embedder = ElmoEmbedder.from_model_dir(directory)
    vectors = embedder.embed_sentence(["The", "river", "bank", "unknownword"])
    ids = np.array([[BOS_ID, 4, 5, 6, 1, EOS_ID]], np.int32)  # lowercased; unknown → <unk> = 1
    direct = [ops.convert_to_numpy(a) for a in model.bilm(ids)["activations"]]
    assert vectors.shape == (3, 4, model.bilm.output_dim)
    np.testing.assert_allclose(vectors, np.stack(direct)[:, 0, 1:5], atol=TOLERANCE)

    stateful = ElmoEmbedder.from_model_dir(directory, stateful=True)  # a stateful copy, same weights
    assert stateful.bilm.stateful and stateful.bilm is not model.bilm
    np.testing.assert_allclose(stateful.embed_sentence(["The", "river", "bank", "unknownword"]), vectors,
                               atol=TOLERANCE)
    assert np.abs(stateful.embed_sentence(["The", "river", "bank", "unknownword"]) - vectors).max() > 1e-6


def test_constructor_errors():
    from elmo_keras.layers.word_embedding import WordEmbedding

    with pytest.raises(ValueError, match="pass options_file and weight_file, or bilm="):
        ElmoEmbedder()
    with pytest.raises(ValueError, match=r"bilm must be a biLM layer \(BiLM or TransformerBiLM\)"):
        ElmoEmbedder(bilm="weights.hdf5")
    bilm = BiLM(WordEmbedding(10, 4), units=4, num_layers=1)
    with pytest.raises(ValueError, match=r"a WordEmbedding biLM needs sentence_ids=WordIds\(vocabulary\)"):
        ElmoEmbedder(bilm=bilm)
    with pytest.raises(ValueError, match="execution must be one of"):
        ElmoEmbedder(bilm=bilm, sentence_ids=WordIds(Vocabulary()), execution="fast")


def test_a_never_called_bilm_embeds_sentences_of_several_lengths():
    """The docstring's example: the untrained ``BiLM`` is built on its first call, outside any compiled trace (on
    JAX, weights created inside ``jax.jit`` were tracers, and the second shape failed)."""
    from elmo_keras.layers import BiLM, CharCNN

    char_cnn = CharCNN(embedding_dim=4, filters=((1, 8), (2, 8)), projection_dim=8)
    embedder = ElmoEmbedder(bilm=BiLM(char_cnn, units=16, projection_dim=8))
    short, longer = embedder.embed_sentence(["the", "bank"]), embedder.embed_sentence("I sat by the river bank".split())
    assert short.shape == (3, 2, 16) and longer.shape == (3, 6, 16)
    np.testing.assert_allclose(embedder.embed_batch([["the", "bank"], "I sat by the river bank".split()])[0], short,
                               atol=1e-6)
