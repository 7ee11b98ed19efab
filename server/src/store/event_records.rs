//! What the store keeps of competitions, behind [`EventRecords`] (which [`Store`](super::Store)
//! requires): each event's record, as JSON the store does not read (what it means, its teams,
//! rounds and standings, is `competition::record`'s), with its id assigned in order.

use tengen_protocol::EventId;

use super::StoreError;

/// EventRecords' records, durable.
pub trait EventRecords {
    /// Record a new competition (its record as JSON, see `competition::record`) and assign its id.
    fn create_event(&self, record_json: &str, now_ms: u64) -> Result<EventId, StoreError>;
    /// Replace a competition's record, durably, before anyone hears of the change.
    fn save_event(&self, event: EventId, record_json: &str) -> Result<(), StoreError>;
    /// Every competition's record, oldest first.
    fn events(&self) -> Result<Vec<(EventId, String)>, StoreError>;
}

/// Competition records: ids assigned in order, saved over, listed oldest first; an unknown event is
/// not saved into being.
#[cfg(test)]
pub(crate) fn conformance(store: &dyn EventRecords) {
    assert_eq!(store.events().unwrap(), Vec::new());
    let first = store.create_event(r#"{"n":1}"#, 10).unwrap();
    let second = store.create_event(r#"{"n":2}"#, 11).unwrap();
    assert!(second > first);
    store.save_event(first, r#"{"n":3}"#).unwrap();
    assert_eq!(
        store.events().unwrap(),
        vec![
            (first, r#"{"n":3}"#.to_string()),
            (second, r#"{"n":2}"#.to_string())
        ]
    );
    assert!(store.save_event(EventId(second.0 + 100), "{}").is_err());
    assert_eq!(store.events().unwrap().len(), 2);
}
