//! The direct path of the CUDA libraries' exports: on the CUDA backend a drop-in's export calls
//! NVIDIA's function of the same name at once (one atomic load, one indirect call), so a
//! trivial call costs what NVIDIA's library costs (docs/c-abi.md, "The CUDA libraries").
//!
//! The choice is made once per library, on the first call: NVIDIA's loaded library on the CUDA
//! backend, else the guarded path through the facade (the HIP backend, or no library). The
//! guard is not needed on the direct path: a vendor library calling back by name would be
//! answered by the same NVIDIA library.

use core::sync::atomic::{AtomicUsize, Ordering};

/// Not decided yet.
const UNKNOWN: usize = 0;
/// Decided: no direct path (the HIP backend, or no library).
const NONE: usize = 1;

/// One library's direct path: unknown, none, or NVIDIA's table.
pub struct Direct<T: 'static>(AtomicUsize, core::marker::PhantomData<&'static T>);

impl<T: 'static> Default for Direct<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: 'static> Direct<T> {
    /// Not decided yet.
    pub const fn new() -> Self {
        Self(AtomicUsize::new(UNKNOWN), core::marker::PhantomData)
    }

    /// NVIDIA's table, or `None`; decided on the first call by `decide`, which answers
    /// `Some(choice)` once the answer is final and `None` while it is not (no backend selected
    /// yet, e.g. during the backend's own load): then nothing is kept and the next call asks
    /// again.
    #[inline(always)]
    pub fn get(&self, decide: impl FnOnce() -> Option<Option<&'static T>>) -> Option<&'static T> {
        match self.0.load(Ordering::Acquire) {
            UNKNOWN => self.decide(decide),
            NONE => None,
            // SAFETY: only `decide` stores a pointer, from a `&'static T`.
            p => Some(unsafe { &*(p as *const T) }),
        }
    }

    #[cold]
    #[inline(never)]
    fn decide(&self, decide: impl FnOnce() -> Option<Option<&'static T>>) -> Option<&'static T> {
        let choice = decide()?;
        let v = choice.map_or(NONE, |t| t as *const T as usize);
        self.0.store(v, Ordering::Release);
        choice
    }
}
