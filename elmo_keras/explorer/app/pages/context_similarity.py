"""Context similarity: one word's occurrences compared in every layer of the biLM."""

from __future__ import annotations

import streamlit as st

from elmo_keras.explorer import state
from elmo_keras.explorer.app.page_common import active_vocabulary, stored_or_computed, word_choices_for
from elmo_keras.explorer.similarity import charts
from elmo_keras.explorer.similarity.store import computed_context_similarity, stored_context_similarity
from elmo_keras.explorer.similarity.view import DEFAULT_PER_SENSE

WORD_KEY, TYPED_KEY, PER_SENSE_KEY = "similarity_word", "similarity_typed", "similarity_per_sense"


@st.cache_data(show_spinner="Embedding every occurrence…", max_entries=64)
def similarity_view(_model, ref, corpus_key, _corpus, word, typed, per_sense):
    return computed_context_similarity(_model, ref, _corpus, word, typed, per_sense)


ref, corpus, vocabulary = active_vocabulary()
choices = word_choices_for(WORD_KEY, corpus, vocabulary)
st.session_state.setdefault(TYPED_KEY, st.session_state[state.TYPED_SENTENCES])

st.title("Context similarity")
st.caption("ELMo computes a vector per word *per sentence*. Here every occurrence of one word is compared with "
           "every other, layer by layer: layer 0 is the context-free token vector, the layers above it the biLM's "
           "contextual states (forward and backward joined).")
left, right = st.columns([1, 2])
with left:
    word = st.selectbox("Word", choices, key=WORD_KEY,
                        help="The three ambiguous target words first, then any corpus word the model knows.")
    per_sense = st.slider("Occurrences shown per sense", 4, 36, DEFAULT_PER_SENSE, key=PER_SENSE_KEY,
                          help="The summary table always uses every occurrence.")
with right:
    typed = st.text_area("Your sentences (one per line, each containing the word)", key=TYPED_KEY, height=100,
                         placeholder="We had a picnic on the bank of the river.\nThe bank raised its interest rates.")
st.session_state[state.WORD] = word
st.session_state[state.TYPED_SENTENCES] = typed

try:
    view = stored_or_computed(stored_context_similarity, similarity_view, word, typed, per_sense)
except ValueError as error:
    st.error(str(error))
    st.stop()
if view.rejected_typed:
    st.warning("Left out (they do not contain '" + view.word + "'): " + " | ".join(view.rejected_typed))

st.subheader(f"Cosine similarity between occurrences of '{view.word}'")
typed_note = ", typed sentences labelled 'typed'" if view.typed_shown else ""
st.caption(f"Each cell compares two occurrences (rows and columns ordered by sense; white boxes frame one sense; "
           f"{len(view.labels)} of {view.total} shown{typed_note}). "
           "Hover for the full sentences. "
           "Bright = similar: a word-level model gives one vector per word in layer 0, so it is uniformly 1; in "
           f"layers 1–{view.num_layers - 1} the context moves the vectors and same-sense blocks stand out.")
st.plotly_chart(charts.similarity_heatmaps(view), width="stretch", key="similarity_heatmaps")

st.subheader("Within a sense vs across senses")
if view.summary_note:
    st.info(view.summary_note)
if view.has_summary:
    st.caption("Left: mean similarity of two occurrences with the same sense vs different senses (every labelled "
               "occurrence). Right: held-out occurrences classified by their nearest sense centroid (centroids from "
               "the training split); a tie, as in a context-free layer, counts as wrong.")
    st.plotly_chart(charts.similarity_summary(view.summary), width="stretch", key="similarity_summary")
    st.dataframe(
        view.computed_summary, hide_index=True, width="stretch",
        column_config={
            "layer": st.column_config.NumberColumn("layer"),
            "within_sense": st.column_config.NumberColumn("mean within sense", format="%.3f"),
            "across_senses": st.column_config.NumberColumn("mean across senses", format="%.3f"),
            "gap": st.column_config.NumberColumn("within − across", format="%+.3f"),
            "heldout_accuracy": st.column_config.NumberColumn("held-out sense separation", format="percent"),
        },
    )

for finding in view.findings:
    st.markdown(f"- {finding}")
