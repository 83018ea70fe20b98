"""PCA per layer: one word's occurrences projected to 2-D (or 3-D), fitted separately in every layer."""

from __future__ import annotations

import streamlit as st

from elmo_keras.explorer import state
from elmo_keras.explorer.app.page_common import active_vocabulary, stored_or_computed, word_choices_for
from elmo_keras.explorer.projection import charts
from elmo_keras.explorer.projection.store import computed_pca_view, stored_pca_view

WORD_KEY, THREE_D_KEY = "pca_word", "pca_three_d"


@st.cache_data(show_spinner="Embedding and projecting…", max_entries=64)
def computed_projection(_model, ref, corpus_key, _corpus, word, typed, n_components):
    return computed_pca_view(_model, ref, _corpus, word, typed, n_components)


ref, corpus, vocabulary = active_vocabulary()
choices = word_choices_for(WORD_KEY, corpus, vocabulary)

st.title("PCA per layer")
st.caption("Every occurrence of one word, projected onto the two (or three) directions of largest variance of "
           "*that layer's* vectors. Sentences typed on the similarity page appear as black diamonds.")
left, right = st.columns([2, 1])
with left:
    word = st.selectbox("Word", choices, key=WORD_KEY)
with right:
    three_d = st.toggle("3-D", key=THREE_D_KEY, help="Three principal components instead of two.")
st.session_state[state.WORD] = word

try:
    view = stored_or_computed(stored_pca_view, computed_projection, word, st.session_state[state.TYPED_SENTENCES],
                              3 if three_d else 2)
except ValueError as error:
    st.error(str(error))
    st.stop()

if view.unknown_note:
    st.warning(view.unknown_note)
st.caption("Colour = sense, hover = the sentence. Subplot titles give the share of the layer's variance each "
           "component explains; if senses form separate clouds, the layer's vectors encode the sense.")
st.plotly_chart(charts.pca_scatter(view, three_d=three_d), width="stretch", key="pca_scatter")
for layer in view.collapsed_layers:
    st.info(f"Layer {layer}: all {len(view.points) // view.num_layers} occurrences share one vector (a word-level "
            "token embedding ignores the context), so PCA has nothing to spread: every point sits at the origin.")
st.subheader("Explained variance")
st.caption("Fraction of each layer's variance captured by each principal component (PCA is refitted per layer).")
st.dataframe(view.variance.style.format({c: "{:.1%}" for c in view.variance.columns if c != "layer"}),
             hide_index=True, width="content")  # one decimal, as in the subplot titles
