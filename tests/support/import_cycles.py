"""Cycles in an import graph (``{module: the modules it imports}``), for the tests of the package's import structure."""


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle a depth-first walk of ``graph`` closes, each as the modules along it, its first repeated last."""
    state, cycles = {}, []

    def visit(name, trail):
        state[name] = "open"
        for imported in sorted(graph[name]):
            if state.get(imported) == "open":
                cycles.append(trail[trail.index(imported):] + [imported])
            elif imported not in state:
                visit(imported, trail + [imported])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return cycles
