//! Choosing the backend: a programmatic choice before first use, else `ANYCUDA_BACKEND`, else
//! `auto`. Backends are loaded at most once per process and never unloaded (vendor runtimes do
//! not all survive `dlclose`), so a `Backend` is a cheap `Copy` handle.

use crate::Backend;
use anycuda_api::backend::{BackendKind, LibraryRole};
use anycuda_api::driver::CUresult;
use anycuda_api::error::{DriverError, LoadError};
use anycuda_api::traits::Driver;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// The environment variable that chooses the backend at run time.
pub const ENV_VAR: &str = "ANYCUDA_BACKEND";

/// What the user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BackendChoice {
    /// The first compiled-in backend with a device (CUDA first); with no device anywhere, the
    /// first whose compiler loads, so compile-only work still runs.
    Auto,
    /// A specific backend.
    Only(BackendKind),
}

impl FromStr for BackendChoice {
    type Err = SelectError;
    /// Parses `cuda|nvidia`, `hip|rocm|amd`, `auto` (case-insensitive, surrounding spaces ignored).
    fn from_str(s: &str) -> Result<Self, SelectError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => Ok(Self::Auto),
            "cuda" | "nvidia" => Ok(Self::Only(BackendKind::Cuda)),
            "hip" | "rocm" | "amd" => Ok(Self::Only(BackendKind::Hip)),
            _ => Err(SelectError::InvalidChoice(s.to_string())),
        }
    }
}

impl std::fmt::Display for BackendChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Auto => f.write_str("auto"),
            Self::Only(k) => write!(f, "{k}"),
        }
    }
}

/// Why no backend could be chosen, or a choice was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SelectError {
    /// `ANYCUDA_BACKEND` (or a parsed string) named no backend.
    #[error("unknown backend {0:?}: expected cuda (or nvidia), hip (or rocm, amd), or auto")]
    InvalidChoice(String),
    /// `select` was called after the backend had already been chosen differently.
    #[error("the {active} backend is already in use; select() must be called before first use")]
    AlreadyChosen {
        /// The backend in use.
        active: BackendKind,
    },
    /// `select` was called after first use had already tried to choose a backend and failed
    /// (the failure is fixed for the process, as a success would be).
    #[error("the backend was already chosen by first use, which failed: {0}")]
    FirstUseFailed(Box<SelectError>),
    /// The requested backend is not compiled in.
    #[error(transparent)]
    NotCompiledIn(LoadError),
    /// No library of the requested backend(s) could be used; every reason is listed.
    #[error("no usable GPU backend:{}", .0.iter().map(|(k, e)| format!("\n  {k}: {e}")).collect::<String>())]
    NothingUsable(Vec<(BackendKind, String)>),
}

/// The chosen backend and why it was chosen.
#[derive(Clone, Debug)]
pub struct Selected {
    /// The backend every free function dispatches to.
    pub backend: Backend,
    /// What was asked for.
    pub choice: BackendChoice,
    /// Where the choice came from (`select()`, `ANYCUDA_BACKEND`, default) and why this backend.
    pub reason: String,
}

impl Selected {
    /// The active backend's kind.
    pub fn kind(&self) -> BackendKind {
        self.backend.kind()
    }
}

/// The programmatic choice, and whether first use has already read it (from then on the
/// choice is fixed, even while the backend is still being loaded).
struct Choice {
    requested: Option<BackendChoice>,
    fixed: bool,
}

static OVERRIDE: Mutex<Choice> = Mutex::new(Choice {
    requested: None,
    fixed: false,
});
static ACTIVE: OnceLock<Result<Selected, SelectError>> = OnceLock::new();

/// Chooses the backend programmatically. Overrides `ANYCUDA_BACKEND`.
///
/// Either the choice takes effect (no API call has started choosing yet), or the call waits
/// for the choice already under way (another thread's first use) to finish and reports it:
/// `Ok` only when the outcome is what was asked for (that backend; for `Auto`, an automatic
/// choice), never `Ok` for a choice that was ignored.
///
/// # Errors
/// [`SelectError::AlreadyChosen`] once another backend is in use, or, for `Auto`, once a
/// backend was named (by `ANYCUDA_BACKEND` or an earlier `select`); the first API call fixes
/// the choice. Choosing the backend in use again is fine. [`SelectError::FirstUseFailed`] when the first
/// use already tried to choose and found no usable backend (that outcome is fixed too).
pub fn select(choice: BackendChoice) -> Result<(), SelectError> {
    {
        let mut slot = OVERRIDE.lock().unwrap_or_else(|p| p.into_inner());
        if !slot.fixed {
            slot.requested = Some(choice);
            return Ok(());
        }
    }
    // First use has read the choice: wait for it to finish (`get_or_init` blocks while another
    // thread initialises) and compare.
    match backend() {
        Ok(sel) => match choice {
            BackendChoice::Only(k) if k == sel.kind() => Ok(()),
            // `auto` was honoured only if first use resolved `auto` too (not a named backend
            // from ANYCUDA_BACKEND or an earlier `select`).
            BackendChoice::Auto if sel.choice == BackendChoice::Auto => Ok(()),
            _ => Err(SelectError::AlreadyChosen { active: sel.kind() }),
        },
        Err(e) => Err(SelectError::FirstUseFailed(Box::new(e.clone()))),
    }
}

/// The active backend, choosing and loading it on first use.
///
/// # Errors
/// The reason no backend can be used (every library tried, by backend), or an invalid
/// `ANYCUDA_BACKEND`.
pub fn backend() -> Result<&'static Selected, &'static SelectError> {
    ACTIVE.get_or_init(choose).as_ref()
}

/// The active backend as one word, for dispatch: the address of the `'static` backend, its
/// kind in the lowest bit (both backend types are aligned to more than 1); 0 until chosen.
/// Measured on an H100, reading the `OnceLock` and the `Result` around `Selected` on every call
/// cost about 2 ns of a 15 ns trivial call; one load costs less.
#[cfg(any(feature = "backend-cuda", feature = "backend-hip"))]
static FAST: AtomicUsize = AtomicUsize::new(0);
#[cfg(any(feature = "backend-cuda", feature = "backend-hip"))]
const HIP_TAG: usize = 1;
#[cfg(feature = "backend-cuda")]
const _: () = assert!(std::mem::align_of::<anycuda_cuda::CudaBackend>() > HIP_TAG);
#[cfg(feature = "backend-hip")]
const _: () = assert!(std::mem::align_of::<anycuda_hip::HipBackend>() > HIP_TAG);

#[cfg(any(feature = "backend-cuda", feature = "backend-hip"))]
fn encode(b: Backend) -> usize {
    match b {
        #[cfg(feature = "backend-cuda")]
        Backend::Cuda(r) => std::ptr::from_ref(r) as usize,
        #[cfg(feature = "backend-hip")]
        Backend::Hip(r) => std::ptr::from_ref(r) as usize | HIP_TAG,
    }
}

/// The backend `encode` made `v` from.
#[cfg(any(feature = "backend-cuda", feature = "backend-hip"))]
#[inline(always)]
fn decode(v: usize) -> Backend {
    #[cfg(feature = "backend-hip")]
    // SAFETY: a tagged `v` came from `encode` of a `&'static HipBackend` (never freed).
    let hip = || Backend::Hip(unsafe { &*((v & !HIP_TAG) as *const anycuda_hip::HipBackend) });
    #[cfg(feature = "backend-cuda")]
    // SAFETY: an untagged `v` came from `encode` of a `&'static CudaBackend` (never freed).
    let cuda = || Backend::Cuda(unsafe { &*(v as *const anycuda_cuda::CudaBackend) });
    #[cfg(all(feature = "backend-cuda", feature = "backend-hip"))]
    return if v & HIP_TAG != 0 { hip() } else { cuda() };
    #[cfg(all(feature = "backend-cuda", not(feature = "backend-hip")))]
    return cuda();
    #[cfg(all(feature = "backend-hip", not(feature = "backend-cuda")))]
    return hip();
}

/// The active backend for dispatch, if any (the error is logged once, by `choose`).
#[inline]
pub(crate) fn active() -> Option<Backend> {
    #[cfg(not(any(feature = "backend-cuda", feature = "backend-hip")))]
    return None;
    #[cfg(any(feature = "backend-cuda", feature = "backend-hip"))]
    match FAST.load(Ordering::Acquire) {
        0 => active_slow(),
        v => Some(decode(v)),
    }
}

/// The CUDA backend, when calls already dispatch to it (chosen, loaded and published): one
/// atomic load; never chooses, never blocks. For the C ABI (anycuda-capi), whose Driver API
/// exports skip the re-entry guard then: a call into them from inside NVIDIA's own libraries
/// reaches NVIDIA's driver through this backend either way (docs/c-abi.md, "The re-entry
/// guard"). The export calls the backend it gets here, so the one load is the whole dispatch:
/// asking "is it CUDA?" and then dispatching through the general path (a second load and an
/// out-of-line call) cost +2.65 ns per trivial call against NVIDIA's libcuda on an H200, this
/// +1.3 ns (docs/c-abi.md).
#[inline(always)]
pub fn cuda_dispatch() -> Option<Backend> {
    #[cfg(feature = "backend-cuda")]
    {
        let v = FAST.load(Ordering::Acquire);
        if v == 0 || v & HIP_TAG != 0 {
            return None;
        }
        // SAFETY: an untagged non-zero `v` came from `encode` of a `&'static CudaBackend`
        // (never freed).
        Some(Backend::Cuda(unsafe {
            &*(v as *const anycuda_cuda::CudaBackend)
        }))
    }
    #[cfg(not(feature = "backend-cuda"))]
    None
}

/// First use: choose (once), then publish the choice for [`active`]'s one load.
#[cfg(any(feature = "backend-cuda", feature = "backend-hip"))]
#[cold]
#[inline(never)]
fn active_slow() -> Option<Backend> {
    let b = backend().ok()?.backend;
    FAST.store(encode(b), Ordering::Release);
    Some(b)
}

fn choose() -> Result<Selected, SelectError> {
    let overridden = {
        let mut slot = OVERRIDE.lock().unwrap_or_else(|p| p.into_inner());
        // From here on `select` can no longer change the outcome: it waits for it instead.
        slot.fixed = true;
        slot.requested
    };
    // A value that is not UTF-8 is an invalid choice, not "unset".
    let env = std::env::var_os(ENV_VAR).map(|v| v.to_string_lossy().into_owned());
    let (choice, source) = match (overridden, env) {
        (Some(c), _) => (c, "select()".to_string()),
        (None, Some(v)) => match v.parse() {
            Ok(c) => (c, format!("{ENV_VAR}={v}")),
            Err(e) => {
                log::error!("anycuda: {e}");
                return Err(e);
            }
        },
        (None, None) => (BackendChoice::Auto, "default (auto)".to_string()),
    };
    let r = resolve(choice, &source);
    match &r {
        Ok(s) => log::info!("anycuda: using the {} backend: {}", s.kind(), s.reason),
        Err(e) => log::error!("anycuda: {e}"),
    }
    r
}

fn resolve(choice: BackendChoice, source: &str) -> Result<Selected, SelectError> {
    match choice {
        BackendChoice::Only(kind) => {
            let b = Backend::load(kind).map_err(SelectError::NotCompiledIn)?;
            let loaded: Vec<_> = b
                .libraries()
                .into_iter()
                .filter(|l| l.status.is_ok())
                .collect();
            if loaded.is_empty() {
                return Err(SelectError::NothingUsable(vec![(kind, failures(b))]));
            }
            Ok(Selected {
                backend: b,
                choice,
                reason: format!("requested by {source}"),
            })
        }
        BackendChoice::Auto => {
            let mut failed = Vec::new();
            let mut compile_only = None;
            for kind in crate::compiled_in() {
                let b = match Backend::load(kind) {
                    Ok(b) => b,
                    Err(e) => {
                        failed.push((kind, e.to_string()));
                        continue;
                    }
                };
                match device_count(b) {
                    Ok(n) if n > 0 => {
                        let reason = format!("{source}: first backend with a device ({n} found)");
                        return Ok(Selected {
                            backend: b,
                            choice,
                            reason,
                        });
                    }
                    Ok(_) => failed.push((kind, "no device".to_string())),
                    Err(e) => failed.push((kind, e.to_string())),
                }
                if compile_only.is_none() && b.compiler_loaded() {
                    compile_only = Some(b);
                }
            }
            match compile_only {
                Some(b) => {
                    let why: Vec<_> = failed.iter().map(|(k, e)| format!("{k}: {e}")).collect();
                    let reason = format!(
                        "{source}: no GPU found ({}); first backend whose compiler loads",
                        why.join("; ")
                    );
                    Ok(Selected {
                        backend: b,
                        choice,
                        reason,
                    })
                }
                None => Err(SelectError::NothingUsable(failed)),
            }
        }
    }
}

/// Every library failure of a backend, joined for people.
fn failures(b: Backend) -> String {
    b.libraries()
        .into_iter()
        .filter_map(|l| l.status.err().map(|e| format!("{}: {e}", l.role)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why [`device_count`] could not count devices.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DeviceCountError {
    /// The backend's driver library (libcuda, or HIP) did not load.
    #[error("no {role} library: {error}")]
    MissingLibrary {
        /// The library that is missing.
        role: LibraryRole,
        /// Why it could not be used.
        error: LoadError,
    },
    /// `cuInit` or `cuDeviceGetCount` failed.
    #[error("{call}: {error}")]
    Call {
        /// The failing call.
        call: &'static str,
        /// Its CUDA error.
        error: DriverError,
    },
}

/// Devices a backend sees through its driver API (`cuInit` + `cuDeviceGetCount`).
///
/// # Errors
/// The missing driver library, or the failing call with its CUDA error.
pub fn device_count(b: Backend) -> Result<i32, DeviceCountError> {
    for l in b.libraries() {
        if let (true, Err(error)) = (l.role.is_driver(), l.status) {
            return Err(DeviceCountError::MissingLibrary {
                role: l.role,
                error,
            });
        }
    }
    let call = |call, r: CUresult| {
        r.result()
            .map_err(|error| DeviceCountError::Call { call, error })
    };
    let mut n = 0;
    // SAFETY: valid out-pointer.
    unsafe {
        call("cuInit", b.cuInit(0))?;
        call("cuDeviceGetCount", b.cuDeviceGetCount(&mut n))?;
    }
    Ok(n)
}
