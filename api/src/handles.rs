//! Handle tables: a handle given to the user is a key, never a pointer, so a null, made-up or
//! destroyed handle gets an error instead of UB.
//!
//! - **Never reused.** Each handle is a fresh key (a counter, scrambled by a per-table salt,
//!   shaped like a user-space heap pointer: 16-byte aligned, below 2^47), so a stale handle cannot name a program created later, even when the vendor library
//!   reuses the freed address (hipRTC does in most destroy-then-create pairs).
//! - **Check and use are one step.** [`Handles::with`] holds the entry's read lock for the whole
//!   use; [`Handles::remove`] unlinks the entry and then takes its write lock, so it waits for
//!   uses in flight and no use can start on a removed entry: there is no window between the
//!   check and the use.

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

/// One live object; `None` once removed.
type Entry<T> = Arc<RwLock<Option<T>>>;

/// The live objects behind the handles a backend handed out.
///
/// Looking a handle up costs one uncontended lock; it guards only calls that are heavy anyway
/// (program compilation), never a hot path.
#[derive(Debug)]
pub struct Handles<T> {
    inner: Mutex<Inner<T>>,
    salt: u64,
}

#[derive(Debug)]
struct Inner<T> {
    live: HashMap<u64, Entry<T>>,
    next: u64,
}

/// Bits of a key below its alignment: keys are multiples of 16, as heap pointers are.
const KEY_ALIGN_BITS: u32 = 4;
/// Bits of a key: keys lie below 2^47, in the user half of an x86-64 or AArch64 address space.
const KEY_BITS: u32 = 47;

/// The key of the `n`th handle of a table: a bijection of the counter within
/// `KEY_BITS - KEY_ALIGN_BITS` bits (an odd multiplier and a salt, modulo a power of two), so
/// distinct counters give distinct keys (2^43 of them: one handle per microsecond lasts 278
/// years), shifted to 16-byte alignment. A key looks like what NVIDIA's libraries hand out, a
/// user-space heap pointer: callers that keep handles as unsigned 64-bit integers or as
/// pointers (cuda.bindings' `nvrtcProgram`, which refused a key above 2^63 with an
/// `OverflowError`) take it as they take NVIDIA's. 0 only for the one counter value the caller
/// skips.
fn key_of(n: u64, salt: u64) -> u64 {
    let bits = KEY_BITS - KEY_ALIGN_BITS;
    let mask = (1u64 << bits) - 1;
    ((n.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt) & mask) << KEY_ALIGN_BITS
}

impl<T> Default for Handles<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Handles<T> {
    /// An empty table.
    pub fn new() -> Self {
        // A per-table random salt, so handles of one table mean nothing to another and a guessed
        // integer is very unlikely to be live.
        let salt = RandomState::new().hash_one(0x0061_6e79_6375_6461_u64);
        Self {
            inner: Mutex::new(Inner {
                live: HashMap::new(),
                next: 0,
            }),
            salt,
        }
    }

    /// Stores `value` and returns its new handle (never 0, never one handed out before).
    pub fn insert(&self, value: T) -> usize {
        let mut inner = self.lock();
        loop {
            inner.next += 1;
            let key = key_of(inner.next, self.salt);
            if key != 0 && !inner.live.contains_key(&key) {
                inner.live.insert(key, Arc::new(RwLock::new(Some(value))));
                return key as usize;
            }
        }
    }

    /// Runs `f` on the live object behind `handle`, holding it against removal meanwhile;
    /// `None` when the handle is not live.
    pub fn with<R>(&self, handle: usize, f: impl FnOnce(&T) -> R) -> Option<R> {
        let entry = self.lock().live.get(&(handle as u64)).cloned()?;
        let guard = entry.read().unwrap_or_else(|p| p.into_inner());
        guard.as_ref().map(f)
    }

    /// Whether `handle` is live now.
    pub fn contains(&self, handle: usize) -> bool {
        self.lock().live.contains_key(&(handle as u64))
    }

    /// Unlinks `handle` and returns its object once no use is in flight; `None` when the handle
    /// is not live (already removed, or never handed out).
    pub fn remove(&self, handle: usize) -> Option<T> {
        let entry = self.lock().live.remove(&(handle as u64))?;
        let mut guard = entry.write().unwrap_or_else(|p| p.into_inner());
        guard.take()
    }

    /// How many handles are live.
    pub fn len(&self) -> usize {
        self.lock().live.len()
    }

    /// Whether no handle is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> MutexGuard<'_, Inner<T>> {
        // A poisoned table is still a valid table: a panic elsewhere must not become an abort.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn handles_are_never_reused_and_stale_ones_are_refused() {
        let t = Handles::new();
        let mut seen = std::collections::HashSet::new();
        for i in 0..10_000 {
            let h = t.insert(i);
            assert_ne!(h, 0);
            assert!(seen.insert(h), "handle {h:#x} handed out twice");
            assert_eq!(t.remove(h), Some(i));
            assert_eq!(t.remove(h), None, "a destroyed handle is dead");
            assert_eq!(t.with(h, |v| *v), None);
        }
        assert!(t.is_empty());
        assert_eq!(t.with(0, |v| *v), None);
    }

    #[test]
    fn keys_look_like_user_space_heap_pointers() {
        for _ in 0..64 {
            let t = Handles::new();
            for i in 0..256 {
                let h = t.insert(i) as u64;
                assert_ne!(h, 0);
                assert_eq!(h % 16, 0, "handle {h:#x} is not 16-byte aligned");
                assert!(
                    h < 1 << 47,
                    "handle {h:#x} is above the user half of the address space"
                );
            }
        }
        // The counter's bijection: distinct counters, distinct keys, under any salt.
        let keys: std::collections::HashSet<u64> =
            (1..=100_000).map(|n| key_of(n, 0x5a5a)).collect();
        assert_eq!(keys.len(), 100_000);
    }

    #[test]
    fn remove_waits_for_a_use_in_flight() {
        let t = Arc::new(Handles::new());
        let h = t.insert(String::from("live"));
        let in_use = Arc::new(AtomicBool::new(false));
        let (t2, in_use2) = (t.clone(), in_use.clone());
        let user = std::thread::spawn(move || {
            t2.with(h, |s| {
                in_use2.store(true, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(200));
                // Still ours: remove() has not taken it away mid-use.
                s.clone()
            })
        });
        while !in_use.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        let started = std::time::Instant::now();
        assert_eq!(t.remove(h).as_deref(), Some("live"));
        assert!(started.elapsed() >= std::time::Duration::from_millis(100));
        assert_eq!(user.join().unwrap().as_deref(), Some("live"));
        assert_eq!(t.with(h, |s| s.clone()), None);
    }
}
