//! Which Tengen node each generated client talks to, when a run spreads over several (`--server`
//! given more than once). The two players of a game go to different nodes where there are two or
//! more, so a move crosses nodes as it would in a cluster, and the watchers follow round-robin; with
//! one node every client goes to it, so a one-node run is what it always was. Pure, so the
//! assignment is tested without a network.

use std::net::SocketAddr;

/// A slot's clients in the order the scenario opens them: Black, White, then the watchers.
pub const BLACK_CLIENT: usize = 0;
pub const WHITE_CLIENT: usize = 1;

/// The clients of a slot before its watchers.
pub const PLAYERS_PER_SLOT: usize = 2;

/// The node (an index into the node list) of client `client` of slot `slot`. The slot's Black goes
/// to node `slot mod n`, White to the next node, and the watchers round-robin on from there, so
/// players of one game never share a node when n ≥ 2, and every node gets as many Blacks as Whites
/// (give or take one) across slots.
pub fn node_of_slot_client(slot: usize, client: usize, nodes_count: usize) -> usize {
    assert!(nodes_count > 0, "a run has at least one node");
    (slot + client) % nodes_count
}

/// The node of the `n`-th idle connection: round-robin.
pub fn node_of_connection(n: usize, nodes_count: usize) -> usize {
    assert!(nodes_count > 0, "a run has at least one node");
    n % nodes_count
}

/// The address of a slot's client.
pub fn server_of_slot_client(servers: &[SocketAddr], slot: usize, client: usize) -> SocketAddr {
    servers[node_of_slot_client(slot, client, servers.len())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_node_takes_every_client() {
        for slot in 0..10 {
            for client in 0..12 {
                assert_eq!(node_of_slot_client(slot, client, 1), 0);
            }
        }
        assert!((0..100).all(|n| node_of_connection(n, 1) == 0));
    }

    #[test]
    fn players_of_a_game_are_on_different_nodes() {
        for nodes in 2..5 {
            for slot in 0..20 {
                assert_ne!(
                    node_of_slot_client(slot, BLACK_CLIENT, nodes),
                    node_of_slot_client(slot, WHITE_CLIENT, nodes),
                    "slot {slot} on {nodes} nodes"
                );
            }
        }
    }

    #[test]
    fn clients_spread_evenly_over_the_nodes() {
        // 2 nodes, 10 slots of 2 players and 10 watchers: each node gets half of every role.
        let (nodes, slots, watchers) = (2, 10, 10);
        let mut blacks = vec![0; nodes];
        let mut whites = vec![0; nodes];
        let mut watching = vec![0; nodes];
        for slot in 0..slots {
            blacks[node_of_slot_client(slot, BLACK_CLIENT, nodes)] += 1;
            whites[node_of_slot_client(slot, WHITE_CLIENT, nodes)] += 1;
            for w in 0..watchers {
                watching[node_of_slot_client(slot, PLAYERS_PER_SLOT + w, nodes)] += 1;
            }
        }
        assert_eq!(blacks, [5, 5]);
        assert_eq!(whites, [5, 5]);
        assert_eq!(watching, [50, 50]);
        // A slot's own watchers are split too, not all on its Black's node.
        let of_slot_0: Vec<usize> = (0..4)
            .map(|w| node_of_slot_client(0, PLAYERS_PER_SLOT + w, 3))
            .collect();
        assert_eq!(of_slot_0, [2, 0, 1, 2]);
        let idle: Vec<usize> = (0..5).map(|n| node_of_connection(n, 2)).collect();
        assert_eq!(idle, [0, 1, 0, 1, 0]);
    }

    #[test]
    fn addresses_follow_the_assignment() {
        let servers: Vec<SocketAddr> = ["127.0.0.1:8081", "127.0.0.1:8082"]
            .iter()
            .map(|a| a.parse().unwrap())
            .collect();
        assert_eq!(server_of_slot_client(&servers, 0, BLACK_CLIENT), servers[0]);
        assert_eq!(server_of_slot_client(&servers, 0, WHITE_CLIENT), servers[1]);
        assert_eq!(server_of_slot_client(&servers, 1, BLACK_CLIENT), servers[1]);
        assert_eq!(server_of_slot_client(&servers, 1, WHITE_CLIENT), servers[0]);
    }
}
