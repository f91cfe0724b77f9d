//! NCCL's vocabulary: types and values of the pinned `nccl.h`, the function catalogue, the
//! function-pointer table both backends load, the [`Nccl`] trait, errors and library search.
//!
//! NCCL (NVIDIA) and RCCL (AMD's port) keep the same names; their numbers differ in places
//! (RCCL 2.13 has no `ncclInProgress`, and its `ncclNumResults` is 7, NCCL's `ncclInProgress`).
//! The public values are always NCCL's: the HIP backend translates RCCL's at the boundary.

use crate::enums::CudaEnum;
use crate::error::LoadError;
use crate::loader::{required, Loaded, Search};
use core::ffi::{c_char, c_int, CStr};
use std::sync::OnceLock;

#[path = "generated/nccl.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod types;
#[path = "generated/nccl_fns.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod fns;

pub use fns::*;
pub use types::*;

/// What a call answers, as a C string, when the loaded library lacks it.
pub const NOT_SUPPORTED_TEXT: &CStr =
    c"anycuda: not supported by the loaded collective library (or none loaded)";

/// `NCCL_CONFIG_UNDEF_INT`: "let the library choose".
pub const NCCL_CONFIG_UNDEF_INT: c_int = c_int::MIN;

/// `NCCL_VERSION(x, y, z)`: the version code NCCL reports (`22303` for 2.23.3).
pub const fn nccl_version(x: i32, y: i32, z: i32) -> i32 {
    if x <= 2 && y <= 8 {
        x * 1000 + y * 100 + z
    } else {
        x * 10000 + y * 100 + z
    }
}

/// A version code as people write it: `22303` -> `2.23.3`, `2708` -> `2.7.8`.
pub fn version_string(code: i32) -> String {
    if code >= 10000 {
        format!("{}.{}.{}", code / 10000, (code % 10000) / 100, code % 100)
    } else {
        format!("{}.{}.{}", code / 1000, (code % 1000) / 100, code % 100)
    }
}

impl ncclConfig_t {
    /// `NCCL_CONFIG_INITIALIZER` of the pinned header: every option "undefined" (library
    /// default).
    pub fn initializer() -> Self {
        let u = NCCL_CONFIG_UNDEF_INT;
        Self {
            size: core::mem::size_of::<ncclConfig_t>(),
            magic: NCCL_API_MAGIC,
            version: NCCL_VERSION_CODE,
            blocking: u,
            cgaClusterSize: u,
            minCTAs: u,
            maxCTAs: u,
            netName: core::ptr::null(),
            splitShare: u,
            trafficClass: u,
            commName: core::ptr::null(),
            collnetEnable: u,
            CTAPolicy: u,
            shrinkShare: u,
            nvlsCTAs: u,
            nChannelsPerNetPeer: u,
            nvlinkCentricSched: u,
            graphUsageMode: u,
            numRmaCtx: u,
            maxP2pPeers: u,
            graphStreamOrdering: u,
            launchOrderImplicit: u,
            numRmaSig: u,
            rmaEagerInit: u,
            hostCftMode: u,
            nvlsHostMode: u,
        }
    }

    /// The initializer declared as NCCL 2.14's config: its first eight fields (through
    /// `netName`), the layout every NCCL since 2.14 and RCCL since 2.14 reads. A library older
    /// than the pinned header then never reads fields it does not know.
    pub fn initializer_v2_14() -> Self {
        let mut c = Self::initializer();
        c.size = core::mem::offset_of!(ncclConfig_t, splitShare);
        c.version = nccl_version(2, 14, 0) as _;
        c
    }
}

impl ncclUniqueId {
    /// The id's 128 bytes, to send to the other ranks by any channel.
    pub fn to_bytes(&self) -> [u8; 128] {
        self.internal.map(|c| c as u8)
    }
    /// An id from the bytes [`ncclUniqueId::to_bytes`] gave.
    pub fn from_bytes(b: &[u8; 128]) -> Self {
        Self {
            internal: b.map(|c| c as c_char),
        }
    }
    /// The id as 256 lowercase hex digits (for an environment variable or a file).
    pub fn to_hex(&self) -> String {
        self.to_bytes().iter().map(|b| format!("{b:02x}")).collect()
    }
    /// Parses [`ncclUniqueId::to_hex`]'s output; `None` unless the string is exactly 256
    /// ASCII hex digits (either case). Nothing else is accepted: no sign, no `0x`, no
    /// whitespace (trim a line ending read from a file yourself).
    pub fn from_hex(s: &str) -> Option<Self> {
        fn digit(c: u8) -> Option<u8> {
            match c {
                b'0'..=b'9' => Some(c - b'0'),
                b'a'..=b'f' => Some(c - b'a' + 10),
                b'A'..=b'F' => Some(c - b'A' + 10),
                _ => None,
            }
        }
        let s = s.as_bytes();
        if s.len() != 256 {
            return None;
        }
        let mut b = [0u8; 128];
        for (out, pair) in b.iter_mut().zip(s.chunks_exact(2)) {
            *out = (digit(pair[0])? << 4) | digit(pair[1])?;
        }
        Some(Self::from_bytes(&b))
    }
}

/// anycuda's own text for a result code (`name: description`), as a C string that lives for
/// the process. Used where no library can answer `ncclGetErrorString`, and for codes the
/// loaded library does not know (NCCL-only codes on RCCL, anycuda's own).
pub fn error_string(r: ncclResult_t) -> *const c_char {
    static TEXTS: OnceLock<Vec<(i64, std::ffi::CString)>> = OnceLock::new();
    let texts = TEXTS.get_or_init(|| {
        ncclResult_t::CONSTANTS
            .iter()
            .filter_map(|c| {
                let t = if c.description.is_empty() {
                    c.name.to_string()
                } else {
                    format!("{}: {}", c.name, c.description)
                };
                Some((c.value, std::ffi::CString::new(t).ok()?))
            })
            .collect()
    });
    let v = r.to_i64();
    texts
        .iter()
        .find(|(k, _)| *k == v)
        .map(|(_, s)| s.as_ptr())
        .unwrap_or(c"unknown ncclResult_t code".as_ptr())
}

/// NCCL: the soname, then `NCCL_HOME`/`NCCL_ROOT`/`CUDA_PATH`/`CUDA_HOME`, then the usual
/// install roots; `ANYCUDA_NCCL_LIBRARY` overrides all of that.
pub const NCCL_SEARCH: Search = Search {
    library: "NCCL (libnccl)",
    explicit_env: "ANYCUDA_NCCL_LIBRARY",
    sonames: &["libnccl.so.2", "libnccl.so"],
    root_envs: &["NCCL_HOME", "NCCL_ROOT", "CUDA_PATH", "CUDA_HOME"],
    lib_dirs: &["lib", "lib64", "targets/x86_64-linux/lib"],
    default_roots: &["/usr/local/cuda", "/usr/local/nccl"],
};

/// RCCL: the soname, then `ROCM_PATH`/`HIP_PATH`, then `/opt/rocm`; `ANYCUDA_RCCL_LIBRARY`
/// overrides all of that.
pub const RCCL_SEARCH: Search = Search {
    library: "RCCL (librccl)",
    explicit_env: "ANYCUDA_RCCL_LIBRARY",
    sonames: &["librccl.so.1", "librccl.so"],
    root_envs: &["ROCM_PATH", "HIP_PATH"],
    lib_dirs: &["lib", "lib64", "lib/x86_64-linux-gnu"],
    default_roots: &["/opt/rocm"],
};

/// Oldest library served: `ncclCommGetAsyncError` and `ncclCommAbort` (errors instead of
/// hangs) came in 2.4; RCCL counts in NCCL's versions.
pub const MIN_VERSION: i32 = 2400;

/// Opens NCCL or RCCL, resolves every entry point of the catalogue by name, and asks its
/// version (which needs no GPU).
///
/// # Errors
/// [`LoadError::NotFound`] naming every candidate tried, [`LoadError::MissingSymbol`] without
/// `ncclGetVersion`, [`LoadError::VersionQuery`] or [`LoadError::TooOld`].
pub fn load(search: &Search) -> Result<Loaded<NcclTable>, LoadError> {
    let o = search.open()?;
    let lib = search.library;
    let gv = required(&o, lib, c"ncclGetVersion")?;
    // SAFETY: ncclGetVersion(int*) -> ncclResult_t in every NCCL and RCCL.
    let gv: unsafe extern "C" fn(*mut c_int) -> ncclResult_t = unsafe { core::mem::transmute(gv) };
    let mut version = 0;
    // SAFETY: valid out-pointer.
    let r = unsafe { gv(&mut version) };
    let path = o.resolved_path(c"ncclGetVersion");
    if r != ncclResult_t::ncclSuccess {
        return Err(LoadError::VersionQuery {
            library: lib,
            path,
            detail: format!("ncclGetVersion: {r}"),
        });
    }
    if version < MIN_VERSION {
        return Err(LoadError::TooOld {
            library: lib,
            path,
            found: version_string(version),
            needed: version_string(MIN_VERSION),
        });
    }
    // SAFETY: each symbol is resolved by the name the header declares; NCCL's and RCCL's C ABI
    // for these names is the header's (enums are C ints either way).
    let table = unsafe {
        NcclTable::load(|f| match std::ffi::CString::new(f.symbol) {
            Ok(n) => o.sym(&n),
            Err(_) => core::ptr::null_mut(),
        })
    };
    Ok(Loaded::new(table, path, version, o, Vec::new()))
}
