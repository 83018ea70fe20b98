"""LSTM vs transformer: the two default biLMs' layers side by side on the corpus's sense-labelled target words."""

from __future__ import annotations

import streamlit as st

from elmo_keras.explorer.app.page_common import first_use_handle, first_use_loaded, require_frame
from elmo_keras.explorer.contextualizers import charts
from elmo_keras.explorer.contextualizers.models import DEFAULT_BILMS, LABELS
from elmo_keras.explorer.corpus import builtin_corpus

COLUMNS = {"within_sense": ("mean within sense", "%.3f"), "across_senses": ("mean across senses", "%.3f"),
           "gap": ("within − across", "%+.3f"), "heldout_accuracy": ("held-out sense separation", "percent"),
           "resplit_mean": ("re-drawn splits: mean", "percent"), "resplit_low": ("lowest", "percent"),
           "resplit_high": ("highest", "percent")}


@st.cache_data(show_spinner="Embedding the target words' occurrences with both biLMs…", max_entries=4)
def comparison(refs, _models):
    # here: the computation imports Keras, which the frame leaves to the pages that need it
    from elmo_keras.explorer.contextualizers.service import compare_contextualizers

    return compare_contextualizers(_models, builtin_corpus())


require_frame()
st.title("LSTM vs transformer")
st.caption("The explorer's two default biLMs, trained on the same built-in polysemy corpus with seed 0: the LSTM "
           "`toy` (Peters et al. 2018a) and the `transformer-toy`, pre-LN transformer blocks with masked "
           "self-attention (Peters et al. 2018b). Both have two contextual layers per direction above the word "
           "vectors of layer 0. Per layer: how well each separates the senses of *bank*, *play* and *right* on the "
           "corpus's held-out sentences.")
handles = {kind: first_use_handle(spec) for kind, spec in DEFAULT_BILMS.items()}
models = {LABELS[kind]: first_use_loaded(spec, handles[kind]) for kind, spec in DEFAULT_BILMS.items()}
view = comparison(tuple(handles.values()), models)

st.subheader("What the numbers show")
for finding in view.findings:
    st.markdown(f"- {finding}")
st.caption("Left: each held-out occurrence classified by its nearest sense centroid (centroids from the training "
           f"split), the three words' mean; the bars span the lowest and highest over {view.resplits} re-drawn "
           "held-out splits. Right: mean cosine similarity of two occurrences of one sense minus two of different "
           "senses.")
st.plotly_chart(charts.side_by_side(view.summary), width="stretch", key="contextualizers_side_by_side")
st.dataframe(view.summary, hide_index=True, width="stretch",
             column_config={name: st.column_config.NumberColumn(label, format=shown)
                            for name, (label, shown) in COLUMNS.items()})
with st.expander("Per word"):
    st.dataframe(view.by_word, hide_index=True, width="stretch")
st.caption("Peters et al. (2018a) found the top biLSTM layer better than the first for word sense disambiguation; "
           "Peters et al. (2018b) found LSTM, transformer and CNN biLMs trained on a billion words all learning "
           "representations that move from local syntax in lower layers to semantics in higher ones. These toy "
           "models are trained on 516 sentences: their numbers say what these two models do on this corpus.")
