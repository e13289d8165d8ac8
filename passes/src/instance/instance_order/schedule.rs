//! The orderers over the instance graph and the live-memory model that compares them
//! (GraphTurbo §3.3, Algorithm 3).

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::Direction;

/// An instance in the instance graph: its op (position in the block) and its output bytes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Node {
    pub op: usize,
    pub bytes: usize,
}

/// Which orderer to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Orderer {
    /// Algorithm 3, the most recently readied instance first.
    Dfs,
    /// Algorithm 3, the earliest readied instance first.
    Bfs,
    /// The one of DFS and BFS with the lower peak (DFS on a tie).
    Auto,
    /// A list scheduler that runs the ready instance leaving the least memory live.
    MinPeak,
}

impl Orderer {
    pub(super) fn name(self) -> &'static str {
        match self {
            Orderer::Dfs => "dfs",
            Orderer::Bfs => "bfs",
            Orderer::Auto => "auto",
            Orderer::MinPeak => "min-peak",
        }
    }
}

/// The instance graph with what the orderers need of it.
pub(super) struct Schedule<'g> {
    graph: &'g DiGraph<Node, ()>,
}

impl<'g> Schedule<'g> {
    pub(super) fn new(graph: &'g DiGraph<Node, ()>) -> Self {
        Self { graph }
    }

    fn indegrees(&self) -> Vec<usize> {
        self.graph
            .node_indices()
            .map(|node| {
                self.graph
                    .neighbors_directed(node, Direction::Incoming)
                    .count()
            })
            .collect()
    }

    /// The order `orderer` makes (node indices), and the orderer that made it (DFS or BFS for
    /// `auto`).
    pub(super) fn order(&self, orderer: Orderer) -> (Orderer, Vec<usize>) {
        match orderer {
            Orderer::Dfs | Orderer::Bfs => (orderer, self.ready_list(orderer == Orderer::Dfs)),
            Orderer::MinPeak => (orderer, self.min_peak()),
            Orderer::Auto => {
                let dfs = self.ready_list(true);
                let bfs = self.ready_list(false);
                if self.peak(&bfs) < self.peak(&dfs) {
                    (Orderer::Bfs, bfs)
                } else {
                    (Orderer::Dfs, dfs)
                }
            }
        }
    }

    /// Algorithm 3: instances enter the ready list when their last producer is ordered; DFS takes
    /// the last entry, BFS the first. The list starts with the sources, the first instance in the
    /// block taken first either way (the paper lets the visit order be any; this one gives Fig.
    /// 3b's labels).
    fn ready_list(&self, depth_first: bool) -> Vec<usize> {
        let mut waiting = self.indegrees();
        let sources: Vec<usize> = (0..waiting.len()).filter(|&n| waiting[n] == 0).collect();
        let mut ready: Vec<usize> = if depth_first {
            sources.into_iter().rev().collect()
        } else {
            sources
        };
        let mut order = Vec::with_capacity(waiting.len());
        let mut next = 0;
        while order.len() < waiting.len() {
            let node = if depth_first {
                ready
                    .pop()
                    .expect("an acyclic graph always has a ready instance")
            } else {
                next += 1;
                ready[next - 1]
            };
            order.push(node);
            let readied: Vec<usize> = self
                .consumers(node)
                .into_iter()
                .filter(|&consumer| {
                    waiting[consumer] -= 1;
                    waiting[consumer] == 0
                })
                .collect();
            if depth_first {
                ready.extend(readied.into_iter().rev());
            } else {
                ready.extend(readied);
            }
        }
        order
    }

    /// The distinct consumers of `node`.
    fn consumers(&self, node: usize) -> Vec<usize> {
        self.neighbours(node, Direction::Outgoing)
    }

    /// The distinct producers of `node`.
    fn producers(&self, node: usize) -> Vec<usize> {
        self.neighbours(node, Direction::Incoming)
    }

    fn neighbours(&self, node: usize, direction: Direction) -> Vec<usize> {
        let mut nodes: Vec<usize> = self
            .graph
            .neighbors_directed(NodeIndex::new(node), direction)
            .map(|n| n.index())
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }

    /// The live memory while each instance of `order` runs: outputs produced and still to be
    /// read, plus its own outputs; the peak over the order.
    pub(super) fn peak(&self, order: &[usize]) -> usize {
        let count = self.graph.node_count();
        let mut unread: Vec<usize> = (0..count).map(|node| self.consumers(node).len()).collect();
        let mut live = 0usize;
        let mut peak = 0;
        for &node in order {
            live += self.graph[NodeIndex::new(node)].bytes;
            peak = peak.max(live);
            for producer in self.producers(node) {
                unread[producer] -= 1;
                if unread[producer] == 0 {
                    live -= self.graph[NodeIndex::new(producer)].bytes;
                }
            }
            if unread[node] == 0 {
                live -= self.graph[NodeIndex::new(node)].bytes;
            }
        }
        peak
    }

    /// Beyond the paper: among the ready instances, run the one after which the least memory is
    /// live (its outputs, less the inputs it reads last); the first in block order on a tie.
    fn min_peak(&self) -> Vec<usize> {
        let count = self.graph.node_count();
        let mut waiting = self.indegrees();
        let mut unread: Vec<usize> = (0..count).map(|node| self.consumers(node).len()).collect();
        let mut ready: Vec<usize> = (0..count).filter(|&n| waiting[n] == 0).collect();
        let mut order = Vec::with_capacity(count);
        while !ready.is_empty() {
            let growth = |node: usize, unread: &[usize]| -> i64 {
                let freed: usize = self
                    .producers(node)
                    .iter()
                    .filter(|&&p| unread[p] == 1)
                    .map(|&p| self.graph[NodeIndex::new(p)].bytes)
                    .sum();
                self.graph[NodeIndex::new(node)].bytes as i64 - freed as i64
            };
            let position = (0..ready.len())
                .min_by_key(|&i| (growth(ready[i], &unread), ready[i]))
                .expect("not empty");
            let node = ready.remove(position);
            order.push(node);
            for producer in self.producers(node) {
                unread[producer] -= 1;
            }
            for consumer in self.consumers(node) {
                waiting[consumer] -= 1;
                if waiting[consumer] == 0 {
                    ready.push(consumer);
                }
            }
        }
        order
    }
}
