"""Tagging: the multi-task POS + frame tagger and TagLM's BIOES CRF on a typed sentence, and the experiments."""

from __future__ import annotations

import streamlit as st

from elmo_keras.explorer.app.page_common import first_use_handle, first_use_loaded, require_frame
from elmo_keras.explorer.probing.service import missing_results_message
from elmo_keras.explorer.provenance import provenance_caption
from elmo_keras.explorer.tagging import charts as tagging_charts
from elmo_keras.explorer.tagging.service import (
    DEFAULT_TOP_K,
    EXPERIMENT_SCORES,
    TAGGER_MODELS,
    example_sentences,
    experiment_display_table,
    experiment_findings,
    experiment_tables,
    experiments_caption,
    score_decimals,
    shipped_experiments,
)
from elmo_keras.explorer.tagging.store import computed_tagging_view, stored_tagging_view
from elmo_keras.explorer.tagging.treebank_curve import (
    HEAD_TITLES,
    INPUT_TITLES,
    PUBLISHED_CAVEAT,
    TAGGING_FILE,
    published_context,
    tagging_results,
    treebank_curve_view,
)

require_frame()

EXAMPLE_KEY, TEXT_KEY, TOP_K_KEY = "tagging_example", "tagging_text", "tagging_top_k"
INVALID_ROW, INVALID_MARK = "invalid step", "✕"


@st.cache_data(show_spinner="Tagging…", max_entries=64)
def computed_view(_multitask, _taglm, refs, text, top_k):
    return computed_tagging_view(_multitask, _taglm, refs, text, top_k)


def view(refs, text, top_k):
    """The view kept on disk (the example sentences need no tagger loaded), else computed."""
    stored = stored_tagging_view(refs, text, top_k)
    if stored is not None:
        return stored
    multitask, taglm = first_use_loaded(TAGGER_MODELS, refs)
    return computed_view(multitask, taglm, refs, text, top_k)


def highlight_invalid(table):
    """Red cells where the per-token argmax takes a step the BIOES scheme forbids."""
    styles = table.copy().astype(object)
    styles.loc[:, :] = ""
    styles.loc[:, table.loc[INVALID_ROW] == INVALID_MARK] = "background-color: #f8d0d0; color: #a00000"
    styles.loc["viterbi", :] = ""
    return styles


def show_experiments():
    """The shipped experiments: what their numbers say, then each chart beside its mean ± std table."""
    st.subheader("Experiments")
    results = shipped_experiments()
    if results is None:
        st.info("No experiment results are shipped with this installation; run "
                "`python tools/run_tagging_experiments.py`.")
    else:
        tables = experiment_tables(results)
        for paragraph in experiment_findings(results):
            st.markdown(paragraph)
        st.caption(experiments_caption(results))
        charts = [("multitask", "Frames: with vs without the POS task", "frame label F1"),
                  ("taglm", f"NER, {results['taglm'][0]['labelled_sentences']} labelled sentences",
                   "span F1 (strict BIOES)"),
                  ("crf", "NER: invalid BIOES outputs", "held-out sentences")]
        for name, title, axis in charts:
            scores = EXPERIMENT_SCORES[name]  # the chart plots the first, the table lists it first
            chart, table = st.columns(2, vertical_alignment="center")
            with chart:
                st.plotly_chart(tagging_charts.experiment_bars(tables[name], scores[0], title, axis,
                                                               decimals=score_decimals(scores[0])),
                                width="stretch", key=f"tagging_experiment_{name}")
            with table:
                st.dataframe(experiment_display_table(tables[name], scores), hide_index=True, width="stretch")
        st.caption(provenance_caption(results))


def show_treebank_curve():
    """The UPOS learning curve on UD English EWT: words only vs + each treebank biLM's vectors, per head."""
    st.subheader("ELMo's gain on real UPOS tagging")
    st.caption("TagLM (word embedding → BiLSTM → [h; biLM vectors] → BiLSTM → softmax or CRF) tagging the UD English "
               "Web Treebank's universal POS tags from 1%, 10% and 100% of its training sentences, with words only or "
               "with a frozen treebank biLM's learned mix of layers. Both biLMs read only the treebank's training "
               "text. TagLM's claim (Peters et al. 2017 §5): the language model helps most when labels are scarce.")
    results = tagging_results()
    if results is None:
        st.info(missing_results_message(TAGGING_FILE))
        return
    curve = treebank_curve_view(results)
    st.plotly_chart(tagging_charts.learning_curve(curve.table, INPUT_TITLES, HEAD_TITLES), width="stretch",
                    key="tagging_treebank_curve")
    for line in curve.findings:
        st.markdown(f"- {line}")
    st.dataframe(curve.display, hide_index=True, width="stretch")
    st.caption(curve.caption)
    published = published_context()
    if published is not None:
        st.markdown("**Published context**")
        st.dataframe(published, hide_index=True, width="stretch",
                     column_config={"score": st.column_config.NumberColumn(format="percent")})
        st.caption(PUBLISHED_CAVEAT)
    st.caption(provenance_caption(results))


st.title("Tagging")
st.caption("A multi-task tagger (Tafforeau et al. 2016) whose POS head (1,000+ sentences) and semantic-frame head "
           "(~120 sentences) share their lower layers, and TagLM (Peters et al. 2017) — a BiLSTM-CRF over BIOES "
           "tags that reads a frozen biLM's vectors, the biLM trained on unlabelled text only. Their data is "
           "synthetic and shipped with the package; the last section tags real English (UD English EWT).")
interactive = st.container()  # filled below the experiments' code, shown above them
show_experiments()
show_treebank_curve()

with interactive:
    refs = first_use_handle(TAGGER_MODELS)  # loaded only where no view is kept on disk (``view``)
    examples = example_sentences()
    left, right = st.columns([3, 1])
    with left:
        choice = st.selectbox("Example (held-out sentences: the taggers never saw them)", examples, key=EXAMPLE_KEY)
        text = st.text_input("…or type a sentence", value=choice, key=f"{TEXT_KEY}_{examples.index(choice)}")
    with right:
        top_k = st.slider("Top-k CRF paths", 1, 10, DEFAULT_TOP_K, key=TOP_K_KEY)
    try:
        result = view(refs, text, top_k)
    except ValueError as error:
        st.error(str(error))
        st.stop()

    st.subheader("Multi-task tagger: POS and semantic frames")
    st.caption("One shared embedding + BiLSTM, two heads: a softmax over 15 Universal POS tags and a CRF over the "
               "frame labels. Training alternated batches between the tasks; each batch updated the shared layers "
               "and its own head only. It knows the shop / opening-hours domain; TagLM below knows news sentences.")
    st.dataframe(result.multitask.set_index("token").T, width="stretch")

    st.subheader("TagLM: BIOES named entities")
    st.caption("Viterbi finds the best whole sequence under the CRF, whose disallowed transitions (✕ below) have "
               "probability exactly 0; the per-token argmax of the same emission scores may break the scheme "
               "(red: a step BIOES forbids, e.g. O → E-LOC).")
    comparison = result.ner.assign(argmax_invalid=result.ner["argmax_invalid"].map({True: INVALID_MARK, False: ""}))
    comparison = comparison.set_index("token").T.rename(index={"argmax_invalid": INVALID_ROW})
    st.dataframe(comparison.style.apply(highlight_invalid, axis=None), width="stretch")
    st.markdown(f"**Top {len(result.top_paths)} paths** (probability = exp(score − log Z), from the forward algorithm)")
    st.dataframe(result.top_paths.style.format({"score": "{:.2f}", "probability": "{:.4f}"}), hide_index=True,
                 width="stretch")
    left, right = st.columns(2)
    with left:
        st.markdown("**Marginals** P(tag at token | sentence), forward-backward")
        st.plotly_chart(tagging_charts.marginals_heatmap(result.marginals), width="stretch", key="tagging_marginals")
    with right:
        st.markdown("**Transition scores** [from, to] learned by the CRF (✕ = disallowed by BIOES)")
        st.plotly_chart(tagging_charts.transitions_heatmap(result.transitions, result.allowed), width="stretch",
                        key="tagging_transitions")
