"""A Watcher planner that keeps the waves of a vmcap plan.

Watcher's weight planner orders the actions of one type as the solution lists them and runs them
in consecutive chunks of a fixed size (``parallelization``), each chunk after the whole previous
one; vmcap's waves have varying sizes, so that planner can keep them only with chunks of one
(strictly one live migration after another). This planner makes every action of wave k a child of
every action of wave k - 1: the actions of a wave run together, a wave starts when the previous
one has finished, as vmcap's schedule assumes (docs/format.md, "Schedule: waves and durations").
The waves come from the strategy object the solution carries (``vmcap_waves``, one per action);
a solution without them, or with actions of other types, is planned as by the weight planner.
"""

import networkx as nx

from watcher.decision_engine.planner import weight


class WavePlanner(weight.WeightPlanner):
    """Actions of wave k have all actions of wave k - 1 as parents."""

    def schedule(self, context, audit_id, solution):
        self._waves = list(getattr(solution.strategy, "vmcap_waves", None) or [])
        return super().schedule(context, audit_id, solution)

    def compute_action_graph(self, sorted_weighted_actions):
        groups = list(sorted_weighted_actions)
        actions = [a for _, group in groups for a in group]
        if (not actions or len(actions) != len(self._waves)
                or any(a.action_type != "migrate" for a in actions)):
            return super().compute_action_graph(groups)
        graph = nx.DiGraph()
        previous, current, wave = [], [], None
        for action, w in zip(actions, self._waves):
            if w != wave:
                previous, current, wave = current, [], w
            graph.add_node(action)
            for parent in previous:
                graph.add_edge(parent, action)
                action.parents.append(parent.uuid)
            current.append(action)
        return graph
