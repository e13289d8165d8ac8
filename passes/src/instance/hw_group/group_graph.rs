//! The groups of Algorithm 2 as a graph: an edge from each group to every group reading its
//! results, with what the merge patterns ask of each group. It is built once from the ops and
//! contracted with every merge, so that a pattern's question costs the groups' edges, not a walk
//! over their ops.

use petgraph::{
    algo::toposort,
    graphmap::DiGraphMap,
    Direction::{Incoming, Outgoing},
};
use std::collections::{BTreeMap, BTreeSet};

/// What the merge patterns ask of a group besides its edges.
#[derive(Debug, Clone, Copy)]
struct Traits {
    /// Whether the group reads a function argument.
    reads_arguments: bool,
    /// Whether the function returns one of the group's results.
    returned: bool,
    /// The smallest root op (one that reads only weights and arguments) of the group and of
    /// every group below it, `usize::MAX` when there is none.
    root_floor: usize,
}

/// A group as [`GroupGraph::new`] takes it.
pub(super) struct GroupNode {
    pub(super) group: usize,
    pub(super) consumers: BTreeSet<usize>,
    pub(super) reads_arguments: bool,
    pub(super) returned: bool,
    pub(super) root: usize,
}

/// The groups of a grouping and the data flow between them.
#[derive(Default)]
pub(super) struct GroupGraph {
    graph: DiGraphMap<usize, ()>,
    traits: BTreeMap<usize, Traits>,
}

impl GroupGraph {
    /// The graph of `groups`: each group (by its first op) with the groups reading its results,
    /// whether it reads a function argument, whether the function returns one of its results,
    /// and its smallest root op (`usize::MAX` when it has none).
    pub(super) fn new(groups: Vec<GroupNode>) -> Self {
        let mut graph = DiGraphMap::new();
        let mut traits = BTreeMap::new();
        for node in groups {
            graph.add_node(node.group);
            for consumer in node.consumers {
                graph.add_edge(node.group, consumer, ());
            }
            traits.insert(
                node.group,
                Traits {
                    reads_arguments: node.reads_arguments,
                    returned: node.returned,
                    root_floor: node.root,
                },
            );
        }
        Self::with_root_floors(graph, traits)
    }

    /// The graph `graph` of groups with `traits`, whose root floors are still each group's own
    /// smallest root op: lowers each to the smallest below the group too.
    fn with_root_floors(graph: DiGraphMap<usize, ()>, mut traits: BTreeMap<usize, Traits>) -> Self {
        let order = toposort(&graph, None).expect("merges keep the group graph acyclic");
        for &group in order.iter().rev() {
            let below = graph
                .neighbors_directed(group, Outgoing)
                .map(|consumer| traits[&consumer].root_floor)
                .min()
                .unwrap_or(usize::MAX);
            let own = traits.get_mut(&group).expect("every group has traits");
            own.root_floor = own.root_floor.min(below);
        }
        Self { graph, traits }
    }

    /// The groups reading `group`'s results.
    pub(super) fn consumers(&self, group: usize) -> impl Iterator<Item = usize> + '_ {
        self.graph.neighbors_directed(group, Outgoing)
    }

    /// The groups whose results `group` reads.
    pub(super) fn producers(&self, group: usize) -> impl Iterator<Item = usize> + '_ {
        self.graph.neighbors_directed(group, Incoming)
    }

    /// Whether `group` reads a function argument.
    pub(super) fn reads_arguments(&self, group: usize) -> bool {
        self.traits[&group].reads_arguments
    }

    /// Whether the function returns one of `group`'s results.
    pub(super) fn returned(&self, group: usize) -> bool {
        self.traits[&group].returned
    }

    /// How many groups read `group`'s results.
    pub(super) fn consumer_count(&self, group: usize) -> usize {
        self.consumers(group).count()
    }

    /// How many groups `group` reads results of.
    pub(super) fn producer_count(&self, group: usize) -> usize {
        self.producers(group).count()
    }

    /// Whether `group` may be inside a diamond: it reads no function argument, the function
    /// returns none of its results, and some group reads them.
    pub(super) fn may_be_interior(&self, group: usize) -> bool {
        let traits = self.traits[&group];
        !traits.reads_arguments && !traits.returned && self.consumer_count(group) > 0
    }

    /// The smallest root op of the groups below `group` (`usize::MAX` when there is none).
    pub(super) fn root_floor_below(&self, group: usize) -> usize {
        self.consumers(group)
            .map(|consumer| self.traits[&consumer].root_floor)
            .min()
            .unwrap_or(usize::MAX)
    }

    /// Contracts the groups `members` into the group they merged into, the one named by the
    /// smallest first op: the edges of the others move to it, those between members vanish and
    /// the traits combine, which leaves the graph [`GroupGraph::new`] would build for the groups
    /// after the merge.
    pub(super) fn contract(&mut self, members: &[usize]) {
        let merged = *members.iter().min().expect("a merge has members");
        let inside: BTreeSet<usize> = members.iter().copied().collect();
        for &member in members.iter().filter(|&&member| member != merged) {
            let consumers: Vec<usize> = self.consumers(member).collect();
            let producers: Vec<usize> = self.producers(member).collect();
            self.graph.remove_node(member);
            for consumer in consumers.into_iter().filter(|g| !inside.contains(g)) {
                self.graph.add_edge(merged, consumer, ());
            }
            for producer in producers.into_iter().filter(|g| !inside.contains(g)) {
                self.graph.add_edge(producer, merged, ());
            }
            let gone = self.traits.remove(&member).expect("every group has traits");
            let kept = self
                .traits
                .get_mut(&merged)
                .expect("every group has traits");
            kept.reads_arguments |= gone.reads_arguments;
            kept.returned |= gone.returned;
            kept.root_floor = kept.root_floor.min(gone.root_floor);
        }
        self.lower_root_floors_above(merged);
    }

    /// Gives the groups above `group` its root floor where theirs is larger: what lies below
    /// them now includes all that lies below the groups `group` merged.
    fn lower_root_floors_above(&mut self, group: usize) {
        let mut lowered = vec![group];
        while let Some(below) = lowered.pop() {
            let floor = self.traits[&below].root_floor;
            let producers: Vec<usize> = self.producers(below).collect();
            for producer in producers {
                let traits = self
                    .traits
                    .get_mut(&producer)
                    .expect("every group has traits");
                if traits.root_floor > floor {
                    traits.root_floor = floor;
                    lowered.push(producer);
                }
            }
        }
    }
}

#[cfg(test)]
impl GroupGraph {
    /// The groups at the ends of `edges`, none reading a function argument, `returned` those
    /// whose results the function returns and `roots` the smallest root op of those with one.
    pub(super) fn of_edges(
        edges: &[(usize, usize)],
        returned: &[usize],
        roots: &[(usize, usize)],
    ) -> Self {
        let graph = DiGraphMap::from_edges(edges);
        let traits = graph
            .nodes()
            .map(|group| {
                let root = roots.iter().find(|(with, _)| *with == group);
                let traits = Traits {
                    reads_arguments: false,
                    returned: returned.contains(&group),
                    root_floor: root.map_or(usize::MAX, |(_, op)| *op),
                };
                (group, traits)
            })
            .collect();
        Self::with_root_floors(graph, traits)
    }
}
