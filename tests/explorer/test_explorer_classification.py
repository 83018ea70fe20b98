"""The Classification page's service: training and saving the three classifiers, a typed sentence's view, the
worked example's steps (also on the trained CNN's real filters) and the experiment table."""

import shutil

import numpy as np
import pandas as pd
import pytest

from elmo_keras.explorer.classification.service import (
    DEFAULT_TOP_FILTERS,
    ClassifierTraining,
    classifier_refs,
    classifiers_directory,
    classify,
    discard_classifiers,
    load_classifier_model,
    trained_sliding_step,
    typed_sentence_tokens,
)
from elmo_keras.explorer.classification.views import (
    MODEL_TITLES,
    experiment_findings,
    experiment_table,
    heights_view,
    shipped_experiments,
    sliding_step,
)
from elmo_keras.models.classifiers import KINDS, encode_sentences

# the page's plumbing, not its accuracy: one epoch each, small sizes, one-way GRUs (built faster than BiLSTMs)
TINY_RNN = {"epochs": 1, "batch_size": 64, "units": 4, "embedding_dim": 8, "cell": "gru", "bidirectional": False}
TINY_SETTINGS = {"cnn": {"epochs": 1, "batch_size": 64, "filters_per_height": 4, "embedding_dim": 8},
                 "rnn-last": TINY_RNN, "rnn-pooled": TINY_RNN}
TRAINING_TIMEOUT = 300


@pytest.fixture(scope="session")
def classification_models_dir(tiny_models_dir):
    """``tiny_models_dir`` with the page's three classifiers (trained once per session, by the page's job)."""
    if classifier_refs(tiny_models_dir) is None:
        job = ClassifierTraining(tiny_models_dir, settings=TINY_SETTINGS)
        assert job.wait(TRAINING_TIMEOUT) and job.error is None, job.error
        assert job.fraction == 1.0
    return tiny_models_dir


@pytest.fixture(scope="module")
def models(classification_models_dir):
    return {kind: load_classifier_model(ref) for kind, ref in classifier_refs(classification_models_dir).items()}


def test_the_three_classifiers_are_saved_together(classification_models_dir, tmp_path):
    refs = classifier_refs(classification_models_dir)
    assert list(refs) == list(KINDS)
    assert {ref.directory for ref in refs.values()} == {str(classifiers_directory(classification_models_dir))}
    assert classifier_refs(tmp_path) is None
    assert not [p.name for p in classification_models_dir.iterdir() if ".saving-" in p.name]  # no staging left


def test_a_sentence_gets_probabilities_from_each_model_and_the_cnns_strongest_ngrams(models):
    view = classify(models, "I like this zebra very much !")
    assert view.unknown == ["zebra"]
    assert list(view.predictions["model"]) == list(KINDS)
    sums = view.probabilities.groupby("model")["probability"].sum()
    np.testing.assert_allclose(sums.to_numpy(), 1.0, atol=1e-5)
    filters = view.top_filters
    assert len(filters) == DEFAULT_TOP_FILTERS and filters["activation"].is_monotonic_decreasing
    for _, row in filters.iterrows():  # each n-gram is the window where the filter's max is
        assert row["ngram"] == " ".join(view.tokens[row["position"] : row["position"] + row["height"]])
    responses = models["cnn"].filter_responses(encode_sentences([view.tokens], models["cnn"].vocabulary))
    assert filters["activation"].iloc[0] == pytest.approx(float(responses.pooled.max()), abs=1e-6)


def test_the_worked_example_slides_the_same_way_on_the_trained_cnn(models):
    cnn, text = models["cnn"], "this movie is good , not bad ."
    responses = cnn.filter_responses(encode_sentences([text.split()], cnn.vocabulary))
    for height in cnn.filter_heights:
        maps = responses.feature_maps[cnn.filter_heights.index(height)][0]  # (T, filters), after ReLU
        for position in (0, 8 - height):
            step = trained_sliding_step(cnn, text, height, 1, position)
            assert step.formula == f"8 − {height} + 1 = {9 - height}"
            assert max(step.value, 0.0) == pytest.approx(maps[position, 1], abs=1e-5)
    with pytest.raises(ValueError, match="heights"):
        trained_sliding_step(cnn, text, 7, 0, 0)


def test_sliding_step_fills_the_feature_map_and_pools_at_the_end():
    step = sliding_step(2)
    assert step.formula == "7 − 2 + 1 = 6" and step.window_rows == [2, 3]
    assert step.feature_map["value"].notna().tolist() == [True] * 3 + [False] * 3
    assert step.value == pytest.approx(step.product.to_numpy().sum()) and step.pooled is None
    last = sliding_step(5)
    assert last.pooled == (pytest.approx(0.53), 1) and last.feature_map["window"][1] == "like this"
    with pytest.raises(ValueError, match="position must be in"):
        sliding_step(6)
    heights = heights_view()
    assert heights.groupby("height").size().to_dict() == {2: 6, 3: 5, 4: 4}
    assert heights.groupby("height")["is_max"].sum().eq(1).all()


def test_experiment_table_gives_mean_and_std_per_model_and_condition():
    runs = [{"model": model, "condition": "all", "seed": seed, "accuracy": accuracy, "train_seconds": 1.0,
             "by_pattern": {"contrast": accuracy}}
            for model, values in (("rnn-last", (0.5, 0.7)), ("cnn", (1.0, 0.8)))
            for seed, accuracy in enumerate(values)]
    table = experiment_table({"runs": runs})
    assert list(table["model"]) == [MODEL_TITLES["cnn"], MODEL_TITLES["rnn-last"]]  # the page's order and names
    np.testing.assert_allclose(table["accuracy mean"], [0.9, 0.6])
    np.testing.assert_allclose(table["accuracy std"], [np.std([1.0, 0.8], ddof=1)] * 2)
    assert isinstance(table, pd.DataFrame) and (table["seeds"] == 2).all()


def test_the_findings_quote_the_shipped_experiments_numbers():
    results = shipped_experiments()
    text = "\n".join(experiment_findings(results))
    table = experiment_table(results)
    for model, accuracy in zip(table["model"], table["accuracy mean"]):
        assert f"{model} {accuracy:.3f}" in text
    bag = table[(table["model"] == MODEL_TITLES["bag-of-words"]) & (table["condition"] == "all")]
    assert f"the bag of words gets {bag['contrast mean'].iloc[0]:.3f} of the contrast sentences" in text


def test_a_broken_saved_classifier_is_explained_and_can_be_discarded(classification_models_dir, tmp_path):
    copy = tmp_path / "models"
    shutil.copytree(classifiers_directory(classification_models_dir), classifiers_directory(copy))
    model_file = classifiers_directory(copy) / "cnn" / "model.keras"
    model_file.write_bytes(model_file.read_bytes()[:100])
    with pytest.raises(ValueError, match="model.keras is corrupted"):
        load_classifier_model(classifier_refs(copy)["cnn"])
    discard_classifiers(copy)
    assert classifier_refs(copy) is None


def test_typed_sentences_are_checked():
    assert typed_sentence_tokens("not bad!") == ["not", "bad", "!"]
    with pytest.raises(ValueError, match="Type a sentence"):
        typed_sentence_tokens("  ")
    with pytest.raises(ValueError, match="the limit is"):
        typed_sentence_tokens("word " * 41)


def test_a_users_model_under_the_reserved_name_is_neither_replaced_nor_deleted(tmp_path):
    from elmo_keras.explorer.classification.service import (
        classifiers_directory,
        discard_classifiers,
        train_default_classifiers,
    )

    user_model = classifiers_directory(tmp_path)
    user_model.mkdir()
    (user_model / "vocabulary.json").write_text("{}")
    with pytest.raises(ValueError, match="vocabulary.json, which the explorer did not write"):
        train_default_classifiers(tmp_path)
    with pytest.raises(ValueError, match="rename that directory"):
        discard_classifiers(tmp_path)
    assert (user_model / "vocabulary.json").is_file()
