"""Sizes checked before any work (issue #25, item 4; ``models.bilm.training_sizes``): the sampled softmax's negatives
against int32 indices, memory and the vocabulary, and data-parallel devices against the batch and a sane count,
in ``train``, in ``train_bilm`` and in ``configure_cpu_devices``; each error names the setting and the value."""

import pytest

from elmo_keras.cli import main
from elmo_keras.models.bilm import training, training_sizes
from elmo_keras.models.bilm.distribution import configure_cpu_devices
from elmo_keras.models.bilm.training import train_bilm
from elmo_keras.text.vocabulary import Vocabulary

CORPUS = ["the bank was closed", "we sat by the river bank", "the river rose", "a bank of the river"]
GIB = 2**30


@pytest.fixture
def small_memory(monkeypatch):
    """8 GiB available, whatever this machine has."""
    monkeypatch.setattr(training_sizes, "available_memory_bytes", lambda: 8 * GIB)


@pytest.fixture
def no_training(monkeypatch):
    """The refusal must come before any work: training (or reading a corpus) here fails the test."""
    from elmo_keras.models.bilm import distribution as distribution_module
    from elmo_keras.models.bilm import training as training_module  # the command imports train_bilm when it runs

    def fail(*args, **kwargs):
        raise AssertionError("the work started although a size was bad")

    monkeypatch.setattr(training_module, "train_bilm", fail)
    monkeypatch.setattr(distribution_module, "configure_cpu_devices", fail)
    monkeypatch.setattr(training, "prepare_training_data", fail)
    monkeypatch.setattr(training, "build_bilm_lm", fail)


@pytest.mark.parametrize("argv, message", [
    (["--negative-samples", "100000000"], "--negative-samples 100,000,000 needs at least 429.2 GiB per training step "
                                          "(the sampled logits and softmax rows of 32 sentences, width 256), but 8.0 "
                                          "GiB is available; use far fewer (bilm-tf drew 8,192 of 793,471 words), or "
                                          "none for the full softmax"),
    (["--negative-samples", str(10**12)], "--negative-samples 1,000,000,000,000 is more than the 2,147,483,646 "
                                          "negatives int32 indices can hold"),
    (["--strategy", "mirrored", "--devices", "10000"], "--devices 10,000 is more logical CPU devices than useful "
                                                       "(at most "),
    (["--strategy", "data-parallel", "--devices", "48"], "--devices 48: more devices than sentences per batch "
                                                         "(batch size 32 (the toy size's)): the global batch is "
                                                         "split evenly, so each device needs at least one sentence"),
    (["--strategy", "mirrored", "--devices", "8", "--batch-size", "4"], "--devices 8: more devices than sentences "
                                                                        "per batch (--batch-size 4)"),
    (["--strategy", "mirrored", "--devices", "3"], "--devices 3: batch size 32 (the toy size's) is not divisible "
                                                   "by the 3 devices"),
])
def test_train_refuses_sizes_before_any_work(tmp_path, capsys, small_memory, no_training, argv, message):
    """``--negative-samples 100000000`` ran 74 s to an out-of-memory traceback, ``10**12`` overflowed a 32-bit shape
    naming no option, ``--devices 10000`` failed after 90-140 s about a batch size the user never gave."""
    with pytest.raises(SystemExit) as info:
        main(["train", str(tmp_path / "m"), "--size", "toy", *argv])
    err = capsys.readouterr().err
    assert info.value.code == 2 and message in err, err
    assert not (tmp_path / "m").exists()


def test_train_bilm_refuses_more_negatives_than_words(no_training):
    vocabulary = Vocabulary.from_corpus([sentence.split() for sentence in CORPUS])
    words = len(vocabulary) - 1  # every id but padding
    with pytest.raises(ValueError, match=rf"^n_negative_samples {words} is not below the {words} words the sampler "
                                         rf"draws from \(a vocabulary of {words + 1} with padding\): the sampled "
                                         r"softmax would score more words per position than the full softmax"):
        train_bilm(CORPUS, size="tiny", vocabulary=vocabulary, n_negative_samples=words)  # before the corpus


def test_train_bilm_checks_negatives_against_the_built_vocabulary_before_building_a_model(monkeypatch):
    def build_bilm_lm(*args, **kwargs):
        raise AssertionError("a model was built although n_negative_samples was bad")

    monkeypatch.setattr(training, "build_bilm_lm", build_bilm_lm)
    words = len(Vocabulary.from_corpus([sentence.split() for sentence in CORPUS])) - 1
    with pytest.raises(ValueError, match=rf"n_negative_samples {words + 5} is not below the {words} words"):
        train_bilm(CORPUS, size="tiny", n_negative_samples=words + 5)


def test_train_bilm_refuses_absurd_negatives_before_reading_the_corpus(no_training, small_memory):
    with pytest.raises(ValueError, match=r"^n_negative_samples 1,000,000,000,000 is more than the 2,147,483,646"):
        train_bilm(CORPUS, size="tiny", n_negative_samples=10**12)
    with pytest.raises(ValueError, match=r"^n_negative_samples 100,000,000 needs at least .* GiB per training step"):
        train_bilm(CORPUS, size="toy", n_negative_samples=10**8)


def test_train_bilm_checks_the_replicas_against_the_batch_before_any_work(monkeypatch, no_training):
    monkeypatch.setattr(training, "replica_count", lambda strategy: 3)
    with pytest.raises(ValueError, match=r"^the 3 replicas of strategy='mirrored': batch_size 32 \(the size's\) is "
                                         r"not divisible by the 3 devices"):
        train_bilm(CORPUS, size="toy", strategy="mirrored")
    with pytest.raises(ValueError, match=r"^the 3 replicas of strategy='mirrored': more devices than sentences per "
                                         r"batch \(batch_size 2\)"):
        train_bilm(CORPUS, size="toy", batch_size=2, strategy="mirrored")


def test_a_batch_capped_at_the_corpus_size_is_checked_against_the_replicas_before_a_model_is_built(monkeypatch):
    def build_bilm_lm(*args, **kwargs):
        raise AssertionError("a model was built although the replicas cannot split the batch")

    monkeypatch.setattr(training, "build_bilm_lm", build_bilm_lm)
    monkeypatch.setattr(training, "replica_count", lambda strategy: 8)
    with pytest.raises(ValueError, match=r"more devices than sentences per batch \(batch_size 4 \(capped at the "
                                         r"corpus size\)\)"):
        train_bilm(CORPUS, size="toy", batch_size=8, strategy="mirrored")


def test_configure_cpu_devices_refuses_an_absurd_count_before_touching_the_backend():
    with pytest.raises(ValueError, match=r"^count 10,000 is more logical CPU devices than useful \(at most \d"):
        configure_cpu_devices(10_000)


def test_sizes_that_fit_pass():
    training_sizes.check_negative_samples(None, 256, 32, 10)
    training_sizes.check_negative_samples(8192, 512, 128, 793_471 + 4)
    training_sizes.check_replicas(4, 32, "--devices 4")
    training_sizes.check_cpu_device_count(training_sizes.max_cpu_devices())
