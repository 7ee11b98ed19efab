//! Maximum matching in a general graph (Edmonds' blossom algorithm, O(V³)). The Swiss and knockout
//! pairers ask it one question: can the players still unpaired all be paired using only the allowed
//! pairs (never met before, colours still balanced)? Answering that exactly, before committing to each
//! pair, is what lets the pairer promise "no pair meets twice while another pairing exists": a greedy
//! pairer alone paints itself into a corner in the last rounds, and a backtracking one can take
//! exponential time proving that no rematch-free pairing exists.
//!
//! The pairer asks that question once per player it pairs, so a matching is not rebuilt each time:
//! [`complete`] starts from the caller's current matching (after removing the pair just tried, at
//! most two players are left without a partner) and only searches augmenting paths from the free
//! ones, O(V²) each, which keeps a round of a 512-player field well under a second.
//!
//! Indices here are positions in the caller's own list, all below `n` by construction (the matrix is
//! checked square on entry), so the indexing cannot go out of bounds whatever the players' results
//! were.

/// No partner.
pub const NONE: usize = usize::MAX;

/// Blossom search state over `n` vertices with adjacency matrix `allowed`.
struct Blossom<'a> {
    allowed: &'a [Vec<bool>],
    /// Vertices taking part; the others are ignored as if absent.
    active: &'a [bool],
    mate: Vec<usize>,
    parent: Vec<usize>,
    base: Vec<usize>,
    used: Vec<bool>,
    in_blossom: Vec<bool>,
    queue: std::collections::VecDeque<usize>,
}

impl Blossom<'_> {
    fn lowest_common_ancestor(&self, mut a: usize, mut b: usize) -> usize {
        let mut seen = vec![false; self.mate.len()];
        loop {
            a = self.base[a];
            seen[a] = true;
            if self.mate[a] == NONE {
                break;
            }
            a = self.parent[self.mate[a]];
        }
        loop {
            b = self.base[b];
            if seen[b] {
                return b;
            }
            b = self.parent[self.mate[b]];
        }
    }

    fn mark_path(&mut self, mut v: usize, b: usize, mut child: usize) {
        while self.base[v] != b {
            self.in_blossom[self.base[v]] = true;
            self.in_blossom[self.base[self.mate[v]]] = true;
            self.parent[v] = child;
            child = self.mate[v];
            v = self.parent[self.mate[v]];
        }
    }

    fn contract(&mut self, v: usize, to: usize) {
        let base = self.lowest_common_ancestor(v, to);
        self.in_blossom.iter_mut().for_each(|b| *b = false);
        self.mark_path(v, base, to);
        self.mark_path(to, base, v);
        for i in 0..self.mate.len() {
            if self.in_blossom[self.base[i]] {
                self.base[i] = base;
                if !self.used[i] {
                    self.used[i] = true;
                    self.queue.push_back(i);
                }
            }
        }
    }

    /// Searches an augmenting path from the free vertex `root`; returns its free end, or `NONE`.
    fn find_path(&mut self, root: usize) -> usize {
        let n = self.mate.len();
        self.used.iter_mut().for_each(|u| *u = false);
        self.parent.iter_mut().for_each(|p| *p = NONE);
        self.base.iter_mut().enumerate().for_each(|(i, b)| *b = i);
        self.used[root] = true;
        self.queue.clear();
        self.queue.push_back(root);
        while let Some(v) = self.queue.pop_front() {
            for to in 0..n {
                if !self.active[to]
                    || !self.allowed[v][to]
                    || self.base[v] == self.base[to]
                    || self.mate[v] == to
                {
                    continue;
                }
                if to == root || (self.mate[to] != NONE && self.parent[self.mate[to]] != NONE) {
                    self.contract(v, to);
                } else if self.parent[to] == NONE {
                    self.parent[to] = v;
                    if self.mate[to] == NONE {
                        return to;
                    }
                    let next = self.mate[to];
                    self.used[next] = true;
                    self.queue.push_back(next);
                }
            }
        }
        NONE
    }

    fn augment(&mut self, mut v: usize) {
        while v != NONE {
            let pv = self.parent[v];
            let ppv = self.mate[pv];
            self.mate[v] = pv;
            self.mate[pv] = v;
            v = ppv;
        }
    }
}

/// Extends `mate` (a valid matching of the active vertices: `mate[v]` is v's partner or [`NONE`]) to
/// a maximum matching of the active vertices of the graph whose edges are the `true` cells of the
/// square, symmetric matrix `allowed`. A malformed input (not square, lengths differing) is left as
/// it is, and then reads as "not perfect".
pub fn complete(allowed: &[Vec<bool>], active: &[bool], mate: &mut Vec<usize>) {
    let n = allowed.len();
    if allowed.iter().any(|row| row.len() != n) || active.len() != n || mate.len() != n {
        return;
    }
    if mate.iter().any(|&m| m != NONE && m >= n) {
        mate.iter_mut().for_each(|m| *m = NONE);
    }
    let mut search = Blossom {
        allowed,
        active,
        mate: std::mem::take(mate),
        parent: vec![NONE; n],
        base: (0..n).collect(),
        used: vec![false; n],
        in_blossom: vec![false; n],
        queue: std::collections::VecDeque::with_capacity(n),
    };
    greedy_start(&mut search);
    for (root, &taking_part) in active.iter().enumerate() {
        if taking_part && search.mate[root] == NONE {
            let end = search.find_path(root);
            search.augment(end);
        }
    }
    *mate = search.mate;
}

/// Matches obvious pairs first, so the blossom search only has the hard part left to do.
fn greedy_start(search: &mut Blossom<'_>) {
    let n = search.mate.len();
    for v in (0..n).filter(|&v| search.active[v]) {
        if search.mate[v] != NONE {
            continue;
        }
        let free = |to: usize| {
            to != v && search.active[to] && search.allowed[v][to] && search.mate[to] == NONE
        };
        if let Some(to) = (0..n).find(|&to| free(to)) {
            search.mate[v] = to;
            search.mate[to] = v;
        }
    }
}

/// Whether every active vertex has a partner in `mate`.
pub fn is_perfect(active: &[bool], mate: &[usize]) -> bool {
    active.len() == mate.len() && active.iter().zip(mate).all(|(&a, &m)| !a || m != NONE)
}

/// Whether every vertex of `allowed` can be matched.
#[cfg(test)]
fn has_perfect_matching(allowed: &[Vec<bool>]) -> bool {
    let active = vec![true; allowed.len()];
    let mut mate = vec![NONE; allowed.len()];
    complete(allowed, &active, &mut mate);
    is_perfect(&active, &mate)
}

/// A maximum matching of all of `allowed`, as options.
#[cfg(test)]
fn maximum_matching(allowed: &[Vec<bool>]) -> Vec<Option<usize>> {
    let active = vec![true; allowed.len()];
    let mut mate = vec![NONE; allowed.len()];
    complete(allowed, &active, &mut mate);
    mate.iter().map(|&m| (m != NONE).then_some(m)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<bool>> {
        let mut m = vec![vec![false; n]; n];
        for &(a, b) in edges {
            m[a][b] = true;
            m[b][a] = true;
        }
        m
    }

    #[test]
    fn finds_a_perfect_matching_through_an_odd_cycle() {
        // A triangle 0-1-2 with a tail 2-3 and 0-4, 4-5: the blossom must be contracted to see that
        // 0-4 can't be used while 4-5 must, so 1 pairs with 0 or 2.
        let g = graph(6, &[(0, 1), (1, 2), (2, 0), (2, 3), (0, 4), (4, 5)]);
        let mate = maximum_matching(&g);
        assert!(mate.iter().all(Option::is_some), "{mate:?}");
        for (v, m) in mate.iter().enumerate() {
            let m = m.unwrap();
            assert!(g[v][m] && mate[m] == Some(v));
        }
    }

    #[test]
    fn says_when_no_perfect_matching_exists() {
        // A star: three leaves share one centre.
        assert!(!has_perfect_matching(&graph(4, &[(0, 1), (0, 2), (0, 3)])));
        assert!(!has_perfect_matching(&graph(3, &[(0, 1), (1, 2)])));
        assert!(has_perfect_matching(&graph(0, &[])));
    }

    #[test]
    fn agrees_with_brute_force_on_small_graphs() {
        // Every graph on 6 vertices drawn from a fixed sequence of edge masks.
        for mask in (0u32..(1 << 15)).step_by(37) {
            let mut edges = Vec::new();
            let mut bit = 0;
            for a in 0..6 {
                for b in a + 1..6 {
                    if mask >> bit & 1 == 1 {
                        edges.push((a, b));
                    }
                    bit += 1;
                }
            }
            let g = graph(6, &edges);
            let size = maximum_matching(&g).iter().filter(|m| m.is_some()).count() / 2;
            assert_eq!(size, brute_force(&g, &mut vec![false; 6]), "mask {mask}");
        }
    }

    fn brute_force(g: &[Vec<bool>], used: &mut Vec<bool>) -> usize {
        let Some(a) = (0..g.len()).find(|&v| !used[v]) else {
            return 0;
        };
        used[a] = true;
        let mut best = brute_force(g, used);
        for b in 0..g.len() {
            if !used[b] && g[a][b] {
                used[b] = true;
                best = best.max(1 + brute_force(g, used));
                used[b] = false;
            }
        }
        used[a] = false;
        best
    }
}
