//! Zobrist keys for position hashing, computed at compile time from a fixed seed: the same on every run
//! and every machine, so hashes can be compared across processes and no global randomness is involved.

/// Cells in the largest padded board (25x25 plus a one-point border all round).
pub(crate) const MAX_CELLS: usize =
    (crate::point::MAX_SIZE as usize + 2) * (crate::point::MAX_SIZE as usize + 2);

/// One key per padded cell and colour.
pub(crate) static STONE_KEYS: [[u64; 2]; MAX_CELLS] = make_stone_keys();

/// Mixed into a position's hash when White is to move, for situational superko.
pub(crate) const WHITE_TO_MOVE_KEY: u64 = splitmix64(0x7465_6e67_656e_2d6b);

/// SplitMix64: a tiny, well-distributed generator that can run in a `const fn`.
const fn splitmix64(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const fn make_stone_keys() -> [[u64; 2]; MAX_CELLS] {
    let mut keys = [[0u64; 2]; MAX_CELLS];
    let mut state: u64 = 0x5445_4e47_454e; // "TENGEN"
    let mut cell = 0;
    while cell < MAX_CELLS {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        keys[cell][0] = splitmix64(state);
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        keys[cell][1] = splitmix64(state);
        cell += 1;
    }
    keys
}
