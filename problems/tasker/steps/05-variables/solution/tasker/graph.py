"""Checking the dependency graph and ordering the selected tasks."""

import heapq

from tasker.model import TaskError


def check_dependencies(tasks):
    for task in tasks.values():
        for dep in task.deps:
            if dep not in tasks:
                raise TaskError(f"unknown task '{dep}' (needed by '{task.name}')")


def find_cycle(tasks):
    """One cycle as a list of names (first name repeated at the end), or None."""
    state = {}  # name -> "open" while on the DFS stack, "done" after
    stack = []

    def visit(name):
        state[name] = "open"
        stack.append(name)
        for dep in sorted(set(tasks[name].deps)):
            if state.get(dep) == "open":
                return stack[stack.index(dep) :]
            if dep not in state:
                found = visit(dep)
                if found:
                    return found
        stack.pop()
        state[name] = "done"
        return None

    for name in sorted(tasks):
        if name not in state:
            cycle = visit(name)
            if cycle:
                start = cycle.index(min(cycle))
                cycle = cycle[start:] + cycle[:start]
                return cycle + [cycle[0]]
    return None


def check_graph(tasks):
    check_dependencies(tasks)
    cycle = find_cycle(tasks)
    if cycle:
        raise TaskError("cycle: " + " -> ".join(cycle))


def select(tasks, targets):
    """The targets and everything they depend on; every task without targets."""
    if not targets:
        return set(tasks)
    selected = set()
    pending = list(targets)
    for target in targets:
        if target not in tasks:
            raise TaskError(f"unknown task '{target}'")
    while pending:
        name = pending.pop()
        if name not in selected:
            selected.add(name)
            pending.extend(tasks[name].deps)
    return selected


def order(tasks, selected):
    """The selected tasks, dependencies first, the smallest ready name first."""
    waiting = {name: set(tasks[name].deps) for name in selected}
    dependents = {name: [] for name in selected}
    for name in selected:
        for dep in waiting[name]:
            dependents[dep].append(name)
    ready = [name for name, deps in waiting.items() if not deps]
    heapq.heapify(ready)
    result = []
    while ready:
        name = heapq.heappop(ready)
        result.append(name)
        for dependent in dependents[name]:
            waiting[dependent].discard(name)
            if not waiting[dependent]:
                heapq.heappush(ready, dependent)
    return result
