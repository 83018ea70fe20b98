"""The Kneser–Ney baseline (elmo_keras/real_text/kneser_ney.py): distributions that sum to 1, numbers worked out by
hand, the held-out ordering against an add-one unigram, and the errors."""

import math
from collections import Counter

import pytest

from elmo_keras.data.treebank import treebank_sentences
from elmo_keras.real_text.kneser_ney import (
    FALLBACK_DISCOUNTS,
    KneserNeyLM,
    kneser_ney_perplexities,
    modified_discounts,
)
from elmo_keras.text.vocabulary import BOS_ID, EOS_ID, PAD_ID, UNK_ID, Vocabulary

# ids: <pad> 0, <unk> 1, <S> 2, </S> 3, a 4, b 5
TINY_VOCABULARY = Vocabulary(["a", "b"])
TINY_CORPUS = [["a", "b"], ["a", "a"]]
A, B = 4, 5


@pytest.fixture(scope="module")
def dev_slices():
    """UD English EWT dev (1 s to read), cut into 1,600 training and 401 held-out sentences, and a lowercase
    vocabulary of the training part's words seen twice or more (as real_text.bilms builds the biLMs')."""
    sentences = treebank_sentences("dev")
    train, held_out = sentences[:1600], sentences[1600:]
    vocabulary = Vocabulary.from_counts(Counter(t for s in train for t in s), min_count=2, lowercase=True)
    return train, held_out, vocabulary


def add_one_unigram_perplexity(train, held_out, vocabulary):
    """``models.bilm.evaluation.unigram_perplexity``, written again: importing it would import Keras, which the
    tests of this folder must not."""
    counts = Counter(i for s in train for i in vocabulary.encode(s) + [EOS_ID])
    total = sum(counts.values()) + len(vocabulary)
    log_probabilities = [math.log((counts[i] + 1) / total) for s in held_out for i in vocabulary.encode(s) + [EOS_ID]]
    return math.exp(-sum(log_probabilities) / len(log_probabilities))


@pytest.mark.parametrize("backward", [False, True])
@pytest.mark.parametrize("discount", [None, 0.75])
def test_probabilities_sum_to_one_over_the_predicted_ids(dev_slices, backward, discount):
    train, _, vocabulary = dev_slices
    lm = KneserNeyLM.from_sentences(train, vocabulary, order=3, discount=discount, backward=backward)
    start = EOS_ID if backward else BOS_ID
    assert lm.predicted_ids == tuple(i for i in range(len(vocabulary)) if i not in (PAD_ID, start))
    assert any(s[i:i + 2] == ["of", "the"] for s in train for i in range(len(s)))
    of, the = vocabulary.encode(["of", "the"])
    contexts = {
        "sentence start": [],
        "seen trigram context": [the, of] if backward else [of, the],  # "of the", read in the model's direction
        "seen bigram, unseen trigram": [BOS_ID, the] if backward else [EOS_ID, the],  # the end never precedes
        "unseen word": [the, UNK_ID + 10_000_000],
        "nothing seen": [10_000_001, 10_000_002],
        "longer than the order": [the, the, the, of],
    }
    for name, context in contexts.items():
        total = math.fsum(lm.probability(context, i) for i in lm.predicted_ids)
        assert abs(total - 1) < 1e-9, name


def test_interpolated_kneser_ney_by_hand():
    """Bigrams, D = 0.75 for every count, trained on "a b" and "a a".

    Padded: <S> a b </S>, <S> a a </S>; predicted ids {<unk>, </S>, a, b}: uniform 1/4.
    Bigram counts (raw): (<S> a) 2, (a b) 1, (a a) 1, (a </S>) 1, (b </S>) 1.
    Unigram continuation counts (distinct left neighbours): a {<S>, a} 2, b {a} 1, </S> {a, b} 2; Σ 5,
    γ = 3 × 0.75 = 2.25.
      P1(a) = (2 − 0.75 + 2.25/4) / 5 = 0.3625     P1(b) = (1 − 0.75 + 0.5625) / 5 = 0.1625
      P1(</S>) = 0.3625                            P1(<unk>) = 0.5625 / 5 = 0.1125      (Σ = 1)
    Context <S>: Σ 2, γ 0.75.  P(a | <S>) = (2 − 0.75 + 0.75 × 0.3625) / 2 = 0.7609375
                               P(b | <S>) = 0.75 × 0.1625 / 2 = 0.0609375
    Context a: Σ 3, γ 2.25.    P(</S> | a) = (1 − 0.75 + 2.25 × 0.3625) / 3 = 0.35520833…
                               P(b | a) = (0.25 + 2.25 × 0.1625) / 3 = 0.20520833…
    Context b: Σ 1, γ 0.75.    P(<unk> | b) = 0.75 × 0.1125 = 0.084375
                               P(</S> | b) = 0.25 + 0.75 × 0.3625 = 0.521875
    Context <unk> (unseen): the unigram, P(a | <unk>) = 0.3625.
    """
    lm = KneserNeyLM.from_sentences(TINY_CORPUS, TINY_VOCABULARY, order=2, discount=0.75)
    expected = {((), A): 0.7609375, ((), B): 0.0609375, ((A,), EOS_ID): 1.065625 / 3, ((A,), B): 0.615625 / 3,
                ((B,), UNK_ID): 0.084375, ((B,), EOS_ID): 0.521875, ((UNK_ID,), A): 0.3625}
    for (context, word), probability in expected.items():
        assert lm.probability(context, word) == pytest.approx(probability, rel=1e-12), (context, word)
    # "a b": P(a | <S>) P(b | a) P(</S> | b)
    assert lm.perplexity([["a", "b"]]) == pytest.approx((0.7609375 * 0.615625 / 3 * 0.521875) ** (-1 / 3))


def test_trigram_by_hand():
    """The same corpus, trigrams, D = 0.75: <S> <S> a b </S>, <S> <S> a a </S>.

    Trigram counts (raw): (<S> <S> a) 2, (<S> a b) 1, (<S> a a) 1, (a b </S>) 1, (a a </S>) 1.
    Bigram counts: continuations, (a b) 1, (a a) 1, (b </S>) 1, (a </S>) 1, but (<S> a) keeps its raw count 2 (its
    only left neighbour is the pad); the unigrams are those above: the bigram model above is the lower order.
    Context <S> <S>: Σ 2, γ 0.75.  P(a | <S> <S>) = (1.25 + 0.75 × 0.7609375) / 2 = 0.9103515625
                                   P(b | <S> <S>) = 0.75 × 0.0609375 / 2 = 0.0228515625
    Context <S> a: Σ 2, γ 1.5.     P(</S> | <S> a) = 1.5 × 0.35520833… / 2 = 0.26640625
    Context b a (unseen): the bigram, P(b | a) = 0.20520833…
    """
    lm = KneserNeyLM.from_sentences(TINY_CORPUS, TINY_VOCABULARY, order=3, discount=0.75)
    assert lm.probability([], A) == pytest.approx(0.9103515625, rel=1e-12)
    assert lm.probability([BOS_ID, BOS_ID], B) == pytest.approx(0.0228515625, rel=1e-12)
    assert lm.probability([A], EOS_ID) == pytest.approx(0.26640625, rel=1e-12)
    assert lm.probability([B, A], B) == pytest.approx(0.615625 / 3, rel=1e-12)


def test_backward_by_hand():
    """The same corpus read right to left: </S> b a <S>, </S> a a <S>; predicted ids {<unk>, <S>, a, b}.

    Bigram counts: (</S> b) 1, (</S> a) 1, (b a) 1, (a a) 1, (a <S>) 2.
    Unigram continuation counts: b {</S>} 1, a {</S>, b, a} 3, <S> {a} 1; Σ 5, γ 2.25.
      P1(b) = (0.25 + 0.5625) / 5 = 0.1625   P1(a) = (2.25 + 0.5625) / 5 = 0.5625   P1(<S>) = 0.1625
    P(b | </S>) = (0.25 + 1.5 × 0.1625) / 2 = 0.246875      (context </S>: Σ 2, γ 1.5)
    P(a | b)    = 0.25 + 0.75 × 0.5625 = 0.671875           (context b: Σ 1, γ 0.75)
    P(<S> | a)  = (1.25 + 1.5 × 0.1625) / 3 = 0.49791666…   (context a: Σ 3, γ 1.5)
    """
    lm = KneserNeyLM.from_sentences(TINY_CORPUS, TINY_VOCABULARY, order=2, discount=0.75, backward=True)
    assert lm.predicted_ids == (UNK_ID, BOS_ID, A, B)
    assert lm.probability([], B) == pytest.approx(0.246875)
    assert lm.probability([B], A) == pytest.approx(0.671875)
    assert lm.probability([A], BOS_ID) == pytest.approx(1.49375 / 3)
    assert lm.perplexity([["a", "b"]]) == pytest.approx((0.246875 * 0.671875 * 1.49375 / 3) ** (-1 / 3))


def test_modified_discounts_by_hand():
    # n1 = 4, n2 = 2, n3 = 1, n4 = 1 (and a count of 7): Y = 4 / (4 + 4) = 0.5,
    # D1 = 1 − 2 × 0.5 × 2/4 = 0.5, D2 = 2 − 3 × 0.5 × 1/2 = 1.25, D3+ = 3 − 4 × 0.5 × 1/1 = 1
    assert modified_discounts([1, 1, 1, 1, 2, 2, 3, 4, 7]) == pytest.approx((0.5, 1.25, 1.0))
    assert modified_discounts([1, 1, 2, 3]) == FALLBACK_DISCOUNTS  # no count of 4
    # D2 = 2 − 3 × (1/3) × 9/1 = −1: outside (0, 2]
    assert modified_discounts([1] + [2] + [3] * 9 + [4]) == FALLBACK_DISCOUNTS


def test_held_out_perplexity_above_training_and_below_unigram(dev_slices):
    train, held_out, vocabulary = dev_slices
    on_train = kneser_ney_perplexities(train, train, vocabulary)
    on_held_out = kneser_ney_perplexities(train, held_out, vocabulary)
    unigram = add_one_unigram_perplexity(train, held_out, vocabulary)
    for direction in ("forward_perplexity", "backward_perplexity"):
        assert on_train[direction] < on_held_out[direction] < unigram, direction
    assert on_held_out["forward_perplexity"] < kneser_ney_perplexities(train, held_out, vocabulary, order=1)[
        "forward_perplexity"]


def test_special_tokens_in_the_text_are_scored_as_unknown():
    lm = KneserNeyLM.from_sentences([["a", "<S>", "b"]], TINY_VOCABULARY, order=2, discount=0.75)
    assert lm.perplexity([["a", "<S>", "b"]]) == lm.perplexity([["a", "zebra", "b"]])


@pytest.mark.parametrize("call, message", [
    (lambda: KneserNeyLM(TINY_VOCABULARY, order=0), "order must be a positive int, received 0"),
    (lambda: KneserNeyLM(TINY_VOCABULARY, discount=1.5), "discount must be a number in (0, 1]"),
    (lambda: kneser_ney_perplexities([], [["a"]], TINY_VOCABULARY), "train_sentences has no sentences"),
    (lambda: kneser_ney_perplexities([["a"]], [], TINY_VOCABULARY), "eval_sentences has no sentences"),
    (lambda: kneser_ney_perplexities([], [], TINY_VOCABULARY, order=0), "order must be a positive int"),
    (lambda: KneserNeyLM.from_sentences([["a"], []], TINY_VOCABULARY), "train_sentences sentence 1 is empty"),
    (lambda: KneserNeyLM.from_sentences(TINY_CORPUS, TINY_VOCABULARY).probability([], BOS_ID),
     "word_id must be one of predicted_ids"),
])
def test_bad_input_is_one_line_naming_the_option(call, message):
    with pytest.raises(ValueError) as error:
        call()
    assert message in str(error.value) and "\n" not in str(error.value)


def test_unfitted_and_wrong_vocabulary():
    with pytest.raises(RuntimeError, match="call fit"):
        KneserNeyLM(TINY_VOCABULARY).probability([], A)
    with pytest.raises(TypeError, match="vocabulary must be an elmo_keras Vocabulary"):
        KneserNeyLM(["a", "b"])
