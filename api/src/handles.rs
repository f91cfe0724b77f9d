//! A registry of live handles, so a null or destroyed handle gets an error instead of UB.

use std::collections::HashSet;
use std::sync::Mutex;

/// Addresses of the handles a backend has handed out and not yet destroyed.
///
/// Checking costs one uncontended lock; it guards only calls that are heavy anyway (program
/// compilation), never a hot path.
#[derive(Debug, Default)]
pub struct Registry {
    live: Mutex<HashSet<usize>>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }
    /// Records a new handle.
    pub fn insert(&self, addr: usize) {
        self.lock().insert(addr);
    }
    /// Whether the handle is live (null never is).
    pub fn contains(&self, addr: usize) -> bool {
        addr != 0 && self.lock().contains(&addr)
    }
    /// Forgets a handle; returns whether it was live.
    pub fn remove(&self, addr: usize) -> bool {
        self.lock().remove(&addr)
    }
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<usize>> {
        // A poisoned set is still a valid set: a panic elsewhere must not turn into an abort here.
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }
}
