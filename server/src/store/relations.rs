//! What the store keeps of players' relations to each other: whom each follows, blocks and mutes,
//! in the order they did so. A trait of its own, which [`Store`](super::Store) requires, so each
//! backend keeps this concern in one `impl` block. The store only keeps the lists and their bound;
//! what a relation means (whose chat is hidden, what is refused, who sees whom online) is
//! `crate::relations`' and the hall's business.

use tengen_protocol::UserId;

use super::StoreError;

/// One kind of relation a player holds to another.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum RelationKind {
    Follow,
    Block,
    Mute,
}

impl RelationKind {
    pub const ALL: [RelationKind; 3] = [
        RelationKind::Follow,
        RelationKind::Block,
        RelationKind::Mute,
    ];

    /// As stored.
    pub fn as_str(self) -> &'static str {
        match self {
            RelationKind::Follow => "follow",
            RelationKind::Block => "block",
            RelationKind::Mute => "mute",
        }
    }

    pub fn parse(text: &str) -> Option<RelationKind> {
        RelationKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == text)
    }
}

/// What adding a relation did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// Added now (or it was there already: adding is idempotent).
    Done,
    /// The list holds its bound already: nothing changed.
    Full,
}

/// Players' relations, durable.
pub trait Relations {
    /// Every relation `user` holds, each kind's oldest first.
    fn relations_of(&self, user: UserId) -> Result<Vec<(RelationKind, UserId)>, StoreError>;

    /// The users holding a relation of `kind` to `user` (their followers, their blockers), in no
    /// particular order.
    fn relations_to(&self, user: UserId, kind: RelationKind) -> Result<Vec<UserId>, StoreError>;

    /// `user` now holds `kind` to `other` (as of `at_ms`, which orders the list), unless their list of
    /// that kind holds `max` others already. A block drops `user`'s follow of `other` in the same
    /// write. Adding a relation already held changes nothing and is `Done`.
    fn add_relation(
        &self,
        user: UserId,
        kind: RelationKind,
        other: UserId,
        max: usize,
        at_ms: u64,
    ) -> Result<Added, StoreError>;

    /// `user` no longer holds `kind` to `other` (nothing to do if they did not).
    fn remove_relation(
        &self,
        user: UserId,
        kind: RelationKind,
        other: UserId,
    ) -> Result<(), StoreError>;
}

/// The behaviour both backends must show (run by the store conformance suite).
#[cfg(test)]
pub(crate) fn conformance(store: &dyn super::Store) {
    use crate::username::name;
    use RelationKind::{Block, Follow, Mute};
    let make = |n: &str| store.create_user(&name(n), "hash", 1).unwrap();
    let (ann, ben, cat) = (make("rel-ann"), make("rel-ben"), make("rel-猫"));
    assert_eq!(store.relations_of(ann).unwrap(), vec![]);
    assert_eq!(store.add_relation(ann, Follow, cat, 2, 20), Ok(Added::Done));
    assert_eq!(store.add_relation(ann, Follow, ben, 2, 10), Ok(Added::Done));
    // Again: nothing changes, and the list being full does not refuse what is there.
    assert_eq!(store.add_relation(ann, Follow, ben, 2, 30), Ok(Added::Done));
    // Oldest first.
    assert_eq!(
        store.relations_of(ann).unwrap(),
        vec![(Follow, ben), (Follow, cat)]
    );
    let dan = make("rel-dan");
    assert_eq!(store.add_relation(ann, Follow, dan, 2, 40), Ok(Added::Full));
    assert_eq!(store.relations_to(dan, Follow).unwrap(), vec![]);
    // Each kind has its own bound, and a block drops the follow.
    assert_eq!(store.add_relation(ann, Mute, cat, 2, 50), Ok(Added::Done));
    assert_eq!(store.add_relation(ann, Block, ben, 2, 60), Ok(Added::Done));
    let mut held = store.relations_of(ann).unwrap();
    held.sort();
    assert_eq!(held, vec![(Follow, cat), (Block, ben), (Mute, cat)]);
    assert_eq!(store.relations_to(ben, Follow).unwrap(), vec![]);
    assert_eq!(store.relations_to(ben, Block).unwrap(), vec![ann]);
    store.add_relation(dan, Follow, cat, 2, 70).unwrap();
    let mut followers = store.relations_to(cat, Follow).unwrap();
    followers.sort();
    assert_eq!(followers, vec![ann, dan]);
    store.remove_relation(ann, Follow, cat).unwrap();
    store.remove_relation(ann, Follow, cat).unwrap();
    store.remove_relation(ann, Block, ben).unwrap();
    assert_eq!(store.relations_of(ann).unwrap(), vec![(Mute, cat)]);
    assert_eq!(store.relations_to(cat, Follow).unwrap(), vec![dan]);
    assert_eq!(store.relations_to(ben, Block).unwrap(), vec![]);
}
