"""Text classification: a filter sliding down "I like this movie very much !", then three trained classifiers."""

from __future__ import annotations

import streamlit as st

from elmo_keras.explorer.app.page_common import first_use_models, require_frame
from elmo_keras.explorer.classification import charts
from elmo_keras.explorer.classification.service import (
    CLASSIFIER_MODELS,
    EXAMPLE_SENTENCES,
    MODEL_TITLES,
    classify,
    trained_sliding_step,
)
from elmo_keras.explorer.classification.views import (
    experiment_findings,
    experiment_table,
    heights_view,
    shipped_experiments,
    sliding_step,
)
from elmo_keras.explorer.provenance import provenance_caption

require_frame()

POSITION_KEY, EXAMPLE_KEY, TEXT_KEY = "classification_position", "classification_example", "classification_text"
HEIGHT_KEY, FILTER_KEY, TRAINED_POSITION_KEY = ("classification_trained_height", "classification_trained_filter",
                                                "classification_trained_position")
WINDOW_STYLE = "background-color: #ffe0b2"


@st.cache_data(show_spinner="Classifying…", max_entries=64)
def classified(_models, refs, text):
    return classify(_models, text)


def highlight_window(matrix, rows):
    """The rows under the filter, highlighted."""
    return matrix.style.format("{:.2f}").apply(
        lambda row: [WINDOW_STYLE if matrix.index.get_loc(row.name) in rows else ""] * len(row), axis=1)


def show_worked_example():
    st.subheader("1 · A filter sliding down the sentence")
    st.caption("A classic lecture example: 7 words × 5 dimensions, and a 2 × 5 filter (height 2: a bigram; width 5: "
               "the whole embedding, so it only slides down). At each position: multiply element-wise, sum. The "
               "numbers are made up, chosen so that “like this” gives 0.53 as in the original example.")
    first = sliding_step(0)
    count = len(first.feature_map)
    position = st.slider("Filter position (window)", 1, count, 1, key=POSITION_KEY) - 1
    step = sliding_step(position)
    left, right = st.columns([3, 2])
    with left:
        st.markdown("**Sentence matrix** (the window under the filter highlighted)")
        st.dataframe(highlight_window(step.matrix, step.window_rows), width="stretch")
    with right:
        st.markdown("**Filter** (2 × 5)")
        st.dataframe(step.filter.style.format("{:.2f}"), width="stretch")
        st.markdown("**Window ⊙ filter** (element-wise product)")
        st.dataframe(step.product.style.format("{:.2f}"), width="stretch")
        st.markdown(f"**Sum** = {step.value:.2f}")
    st.markdown(f"Feature map length = words − filter height + 1 = **{step.formula}**")
    st.plotly_chart(charts.feature_map_bars(step.feature_map, step.position, step.pooled), width="stretch",
                    key="classification_feature_map")
    if step.pooled is None:
        st.caption(f"{position + 1} of {count} values computed; slide to the end to max-pool.")
    else:
        value, where = step.pooled
        st.success(f"Max pooling keeps one number: **{value:.2f}**, from window {where + 1} "
                   f"(“{step.feature_map['window'][where]}”) — however long the sentence, one number per filter.")
    st.markdown("**Several heights** (2, 3, 4 rows: bigrams, trigrams, 4-grams) give 6, 5 and 4 values; each keeps "
                "its max, and the maxima concatenated are the sentence vector.")
    st.plotly_chart(charts.heights_bars(heights_view()), width="stretch", key="classification_heights")


def show_experiments():
    st.subheader("3 · Experiments")
    results = shipped_experiments()
    if results is None:
        st.info("No experiment results are shipped with this installation; run "
                "`python tools/run_classifier_experiments.py`.")
        return
    for paragraph in experiment_findings(results):
        st.markdown(paragraph)
    st.caption(f"Held-out accuracy, mean ± std over {len(results['seeds'])} seeds, trained on the whole "
               f"training split or on {results['small_train']} of its sentences. “negated”: "
               "accuracy on “not good” / “not very bad” sentences; “contrast”: on “good , not bad” / “bad , not good”, "
               "where only word order tells the labels apart — the bag of words cannot see it. Reproduce with "
               "`python tools/run_classifier_experiments.py` "
               f"({results['seconds']} s on {results['machine']}).")
    st.dataframe(experiment_table(results).round(3), hide_index=True, width="stretch")
    st.caption(provenance_caption(results))


def show_classifiers():
    st.subheader("2 · Trained classifiers")
    st.caption("Trained on a synthetic sentiment corpus where word order matters (“not good”, “good , not bad”): "
               "a CNN (filters of heights 2, 3, 4, max over time), a BiLSTM whose sentence vector is each "
               "direction's last state, and a BiLSTM max-pooled over all its states.")
    refs, models = first_use_models(CLASSIFIER_MODELS)  # the worked example above is already shown
    left, right = st.columns([1, 2])
    choice = left.selectbox("Example", EXAMPLE_SENTENCES, key=EXAMPLE_KEY)
    text = right.text_input("…or type a sentence", value=choice,
                            key=f"{TEXT_KEY}_{EXAMPLE_SENTENCES.index(choice)}")
    try:
        view = classified(models, refs, text)
    except ValueError as error:
        st.error(str(error))
        return
    if view.unknown:
        st.caption("Never seen in training (read as `<unk>`): " + ", ".join(f"`{t}`" for t in view.unknown))
    st.plotly_chart(charts.probability_bars(view.probabilities, MODEL_TITLES), width="stretch",
                    key="classification_probabilities")
    st.dataframe(view.predictions.assign(model=view.predictions["model"].map(MODEL_TITLES)), hide_index=True,
                 width="stretch")
    st.markdown("**The CNN's strongest filters** and the n-gram each fired on (the window that won its max pool)")
    st.plotly_chart(charts.filter_bars(view.top_filters), width="stretch", key="classification_filters")
    with st.expander("Slide one of the trained CNN's filters down this sentence"):
        show_trained_sliding(models["cnn"], text, view.tokens)


def show_trained_sliding(cnn, text, tokens):
    """The worked example's steps with the sentence's real embeddings and one real filter."""
    columns = st.columns(3)
    height = columns[0].selectbox("Filter height", cnn.filter_heights, key=HEIGHT_KEY)
    index = columns[1].number_input("Filter number", 0, cnn.filters_per_height - 1, 0, key=FILTER_KEY)
    if len(tokens) < height:
        st.info(f"The sentence has {len(tokens)} tokens, fewer than the filter's {height} rows: the classifier "
                "zero-pads it to one window.")
        return
    count = len(tokens) - height + 1
    position = columns[2].slider("Window", 1, count, 1, key=f"{TRAINED_POSITION_KEY}_{count}") - 1
    step = trained_sliding_step(cnn, text, height, int(index), position)
    st.markdown(f"{step.matrix.shape[1]}-dimensional embeddings; feature map length = **{step.formula}**; "
                f"this window: sum + bias = **{step.value:.2f}**, after ReLU **{max(step.value, 0.0):.2f}**.")
    st.dataframe(step.product.style.format("{:.2f}"), width="stretch")


st.title("Text classification")
st.caption("CNN (Kim 2014) and RNN (Ravuri & Stolcke 2015) classifiers share one pipeline: sentence → matrix (one "
           "embedding per row) → features at each position (CNN or RNN) → one fixed-length sentence vector → "
           "softmax. They differ only in the middle step.")
show_worked_example()
classifiers_section = st.container()  # filled after the experiments are drawn, shown above them
show_experiments()
with classifiers_section:
    show_classifiers()
