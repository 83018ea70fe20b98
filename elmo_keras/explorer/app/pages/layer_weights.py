"""Layer weights: what ELMo's task-specific mix γ · Σ softmax(s)_j h_j learns for a syntactic and a semantic task."""

from __future__ import annotations

import numpy as np
import streamlit as st

from elmo_keras.explorer.app.page_common import active_model
from elmo_keras.explorer.corpus import fingerprint
from elmo_keras.explorer.layer_weights import charts
from elmo_keras.explorer.layer_weights.real_english import real_english_mixes
from elmo_keras.explorer.layer_weights.service import rescore, softmax
from elmo_keras.explorer.layer_weights.store import stored_layer_weight_report
from elmo_keras.explorer.probing.service import missing_results_message, probe_results

SEED_KEY, SLIDERS_FOR_KEY = "layer_weights_seed", "layer_weights_sliders_for"


@st.cache_data(show_spinner="Running the biLM over the corpus once, then training the mix and the probes…",
               max_entries=16)
def report_for(_model, ref, corpus_key, _corpus, seed):
    return stored_layer_weight_report(_model, ref, _corpus, seed)


def slider_key(task, name):
    return f"layer_weights_{task}_{name}"


def reset_sliders(report) -> None:
    """Put every slider back at the learned values (a callback: runs before the sliders are drawn)."""
    for task in report.reports:
        for j, value in enumerate(task.head.scalar_parameters):
            st.session_state[slider_key(task.name, f"s{j}")] = float(np.round(value, 2))
        st.session_state[slider_key(task.name, "gamma")] = float(np.round(task.head.gamma, 2))


@st.fragment
def slider_panel(task) -> None:
    """s₀…s_L and γ sliders that re-score the trained head on the held-out features (no retraining)."""
    limit = float(max(5.0, np.ceil(np.abs(task.head.scalar_parameters).max() + 1)))
    s = [st.slider(f"s{j}", -limit, limit, step=0.01, key=slider_key(task.name, f"s{j}"))
         for j in range(task.num_layers)]
    gamma = st.slider("γ", 0.0, float(max(4.0, np.ceil(2 * task.head.gamma))), step=0.01,
                      key=slider_key(task.name, "gamma"))
    accuracy = rescore(task, s, gamma)
    change = accuracy - task.heldout_accuracy
    st.metric("held-out accuracy with these numbers", f"{accuracy:.1%}",
              delta=f"{change:+.1%} vs learned" if abs(change) >= 5e-4 else None)
    st.plotly_chart(charts.mix_weights(softmax(s), gamma, "slider mix", reference=task.head.weights), width="stretch",
                    key=f"slider_weights_{task.name}")


def real_english_section(toy_reports, toy_name, seed) -> None:
    """The mixes learned on the treebank biLMs (the Probing page's runs), beside this page's toy run."""
    st.divider()
    st.header("On real English (UD English EWT)")
    st.caption("The same mix and linear head, learned for each task on the two biLMs trained on the treebank "
               "(`treebank-lstm`: layers 0–2, `treebank-transformer`: layers 0–4; layer 0 is the char-CNN vector) "
               "over several seeds — the runs of the Probing page: UPOS, Penn XPOS and dependency relations on the "
               "treebank, word sense on the toy corpus. The toy run above is one seed on the toy corpus's tasks.")
    results = probe_results()
    if results is None:
        st.info(missing_results_message())
        return
    mixes = real_english_mixes(results, toy_reports, toy_name, seed)
    st.plotly_chart(charts.mix_weights_by_task(mixes.weights), width="stretch", key="real_english_weights")
    st.dataframe(mixes.table, hide_index=True, width="stretch")
    st.caption("Weighted mean layer: Σⱼ j · softmax(s)ⱼ, where each task's mix sits. A difference counts as "
               "beyond the seed spread only if it exceeds twice the larger of the two standard deviations and every "
               "seed puts it on the same side.")
    for line in mixes.findings:
        st.markdown(f"- {line}")
    st.caption(mixes.provenance)


ref, corpus, model = active_model()

st.title("Layer weights")
st.markdown("ELMo gives a downstream task the mix **ELMo = γ · Σⱼ softmax(s)ⱼ hⱼ** of the frozen biLM's "
            "layers. "
            "Here two toy tasks each train only that mix — s₀ … s_L and γ: *this task learned L + 2 numbers* "
            f"({model.bilm.num_layers + 2} for this biLM's {model.bilm.num_layers} contextual layers) — plus a "
            "linear softmax head, on activations computed once per model. Beside them, a linear probe on each "
            "single layer shows what each layer alone knows.")
seed = st.number_input("Seed", 0, 10_000, 0, key=SEED_KEY,
                       help="Initialisation and batch order of the mix, head and probes.")
report = report_for(model, ref, fingerprint(corpus), corpus, int(seed))
for reason in report.skipped:
    st.warning(f"Skipped: {reason}.")
if not report.reports:
    real_english_section([], ref.name, int(seed))  # the treebank's results do not depend on this corpus
    st.stop()
marker = (ref, fingerprint(corpus), int(seed))
if st.session_state.get(SLIDERS_FOR_KEY) != marker:
    reset_sliders(report)
    st.session_state[SLIDERS_FOR_KEY] = marker

st.subheader("What this run shows")
for line in report.findings:
    st.markdown(f"- {line}")

for column, task in zip(st.columns(len(report.reports)), report.reports):
    with column:
        st.subheader(f"{task.title} ({task.kind})")
        st.caption(f"{task.num_train:,} training and {task.num_test:,} held-out examples, {task.num_classes} classes. "
                   "The bars are the learned softmax(s); γ scales the mix.")
        st.plotly_chart(charts.mix_weights(task.head.weights, task.head.gamma, "learned"), width="stretch",
                        key=f"learned_weights_{task.name}")
        st.caption("Held-out accuracy of a probe on each single layer, of the learned mix, and of always guessing "
                   "the most frequent label (dotted).")
        st.plotly_chart(charts.task_accuracies(task.probe_accuracies, task.heldout_accuracy, task.majority_accuracy,
                                               task.title), width="stretch", key=f"accuracies_{task.name}")
        st.caption(f"The head: a {task.head.kernel.shape[0]} × {task.head.kernel.shape[1]} weight matrix and "
                   f"{task.head.bias.shape[0]} biases on top of the {task.num_layers + 1} numbers.")
        with st.container(border=True):
            st.markdown("**Try other weights** — the trained head is kept; only the mix changes.")
            slider_panel(task)

st.button("Reset sliders to the learned values", on_click=reset_sliders, args=(report,))
real_english_section(report.reports, ref.name, int(seed))
