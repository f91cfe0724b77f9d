//! CUDA↔HIP translation at the boundary: the table types and their lookups.
//!
//! The data lives in `generated/conv.rs` (one [`ConvTables`] per supported HIP version, made by
//! anycuda-codegen from the pinned headers); this file is hand-written. Values are carried as
//! `i64` so every C enum (signed or unsigned, any width) fits; callers cast at the FFI edge.
//!
//! Direction conventions:
//! - CUDA → HIP ([`EnumMap::to_hip`]) is for arguments. A CUDA value HIP cannot express gives
//!   `None`: the caller returns the not-supported error (or derives the answer another way);
//!   nothing is invented on this path.
//! - HIP → CUDA ([`EnumMap::to_cuda`]) is for values that come back (errors, queried enums). A
//!   HIP value with no CUDA counterpart maps to its hallucinated constant; one unknown when the
//!   tables were generated maps to [`anycuda_api::hallucinated::for_unknown`], so the raw code
//!   is always recoverable through [`anycuda_api::hallucinated::classify`].

use anycuda_api::hallucinated::{self, Invented};

pub use crate::generated::conv::{ConvTables, HIP_VERSIONS, NVIDIA_PLATFORM, TABLES};

/// The translation of one CUDA enum to one HIP enum, for one set of HIP versions.
#[derive(Debug)]
pub struct EnumMap {
    /// The CUDA type, e.g. `CUresult`.
    pub cuda_type: &'static str,
    /// The HIP type, e.g. `hipError_t`.
    pub hip_type: &'static str,
    /// `(cuda, hip)`, sorted by CUDA value, CUDA values unique (hallucinated ones included).
    pub to_hip: &'static [(i64, i64)],
    /// `(hip, cuda)`, sorted by HIP value, HIP values unique (HIP-only values map to their
    /// hallucinated CUDA value).
    pub to_cuda: &'static [(i64, i64)],
    /// `(cuda name, cuda value, hip name, hip value)` of every paired enumerator, in CUDA header
    /// order (CUDA aliases included).
    pub pairs: &'static [(&'static str, i64, &'static str, i64)],
    /// `(cuda name, cuda value)` of CUDA enumerators HIP cannot express.
    pub cuda_only: &'static [(&'static str, i64)],
    /// `(hip name, hip value, hallucinated CUDA name, hallucinated CUDA value)` of HIP
    /// enumerators with no CUDA counterpart.
    pub hip_only: &'static [(&'static str, i64, &'static str, i64)],
}

fn search(table: &[(i64, i64)], key: i64) -> Option<i64> {
    table
        .binary_search_by_key(&key, |&(k, _)| k)
        .ok()
        .map(|i| table[i].1)
}

impl EnumMap {
    /// The HIP value for a CUDA value, or `None` when HIP cannot express it.
    ///
    /// Hallucinated CUDA values give their HIP value back, and so do values built by
    /// [`hallucinated::for_unknown`] (the raw HIP code they carry).
    pub fn to_hip(&self, cuda: i64) -> Option<i64> {
        search(self.to_hip, cuda).or(match hallucinated::classify(cuda) {
            Some(Invented::Unknown(raw)) => Some(raw),
            _ => None,
        })
    }

    /// The CUDA value for a HIP value known to these tables (paired or HIP-only).
    pub fn lookup_cuda(&self, hip: i64) -> Option<i64> {
        search(self.to_cuda, hip)
    }

    /// The CUDA value for a HIP value coming back from HIP: the table's value, else the
    /// reserved "unknown" value carrying the raw code. `None` only for a raw code outside the
    /// representable range (negative or huge; no HIP version has such a code), where the
    /// caller picks its fallback (e.g. the unknown-error value).
    pub fn to_cuda(&self, hip: i64) -> Option<i64> {
        self.lookup_cuda(hip)
            .or_else(|| hallucinated::for_unknown(hip))
    }

    /// The HIP value of a HIP enumerator name in these tables.
    pub fn hip_value(&self, hip_name: &str) -> Option<i64> {
        self.pairs
            .iter()
            .find(|p| p.2 == hip_name)
            .map(|p| p.3)
            .or_else(|| self.hip_only.iter().find(|h| h.0 == hip_name).map(|h| h.1))
    }

    /// The HIP enumerator name of a HIP value, if these tables know it.
    pub fn hip_name(&self, hip: i64) -> Option<&'static str> {
        self.pairs
            .iter()
            .find(|p| p.3 == hip)
            .map(|p| p.2)
            .or_else(|| self.hip_only.iter().find(|h| h.1 == hip).map(|h| h.0))
    }
}

/// A group of CUDA flags (or `extra` markers) and their HIP counterparts, for one set of HIP
/// versions.
#[derive(Debug)]
pub struct FlagMap {
    /// The group, e.g. `cu_stream_flags` (see `codegen/flag-groups.txt`).
    pub group: &'static str,
    /// `(cuda name, cuda value, hip name, hip value)`; the HIP name is empty where this HIP
    /// version lacks the flag.
    pub entries: &'static [(&'static str, i64, &'static str, i64)],
}

impl FlagMap {
    fn mapped(&self) -> impl Iterator<Item = &(&'static str, i64, &'static str, i64)> {
        self.entries.iter().filter(|e| !e.2.is_empty())
    }

    /// Translates a CUDA flag word to HIP bit by bit.
    ///
    /// # Errors
    /// `Err(bits)` with the CUDA bits HIP cannot express (the caller returns not-supported).
    pub fn bits_to_hip(&self, cuda: u64) -> Result<u64, u64> {
        translate_bits(cuda, self.mapped().map(|e| (e.1 as u64, e.3 as u64)))
    }

    /// Translates a HIP flag word to CUDA bit by bit.
    ///
    /// # Errors
    /// `Err(bits)` with the HIP bits that have no CUDA counterpart.
    pub fn bits_to_cuda(&self, hip: u64) -> Result<u64, u64> {
        translate_bits(hip, self.mapped().map(|e| (e.3 as u64, e.1 as u64)))
    }

    /// Translates one CUDA value exactly (for markers such as `CU_LAUNCH_PARAM_END`).
    pub fn value_to_hip(&self, cuda: i64) -> Option<i64> {
        self.mapped().find(|e| e.1 == cuda).map(|e| e.3)
    }

    /// Translates one HIP value exactly.
    pub fn value_to_cuda(&self, hip: i64) -> Option<i64> {
        self.mapped().find(|e| e.3 == hip).map(|e| e.1)
    }

    /// The HIP value of a CUDA flag by name, if this HIP version has it.
    pub fn hip_of(&self, cuda_name: &str) -> Option<i64> {
        self.mapped().find(|e| e.0 == cuda_name).map(|e| e.3)
    }
}

/// Moves `from`-side bits to the `to` side; multi-bit entries first so a combined value wins
/// over its parts. Zero-valued entries (`*_DEFAULT`) contribute nothing.
fn translate_bits(value: u64, map: impl Iterator<Item = (u64, u64)>) -> Result<u64, u64> {
    let mut entries: Vec<(u64, u64)> = map.filter(|(f, _)| *f != 0).collect();
    entries.sort_by_key(|(f, _)| core::cmp::Reverse(f.count_ones()));
    let mut rest = value;
    let mut out = 0;
    for (from, to) in entries {
        if rest & from == from {
            rest &= !from;
            out |= to;
        }
    }
    if rest == 0 {
        Ok(out)
    } else {
        Err(rest)
    }
}

/// The tables for a HIP runtime reporting `hip_runtime_version` (`hipRuntimeGetVersion`).
///
/// The newest supported version not newer than the given one; older than all → the oldest.
/// A value below 10 000 000 is not a HIP version at all: HIP's NVIDIA platform reports the
/// CUDA runtime version there (e.g. 13000). That platform is Debian's HIP 5.2.3 `nvidia_detail`
/// headers compiled over CUDA, where many HIP names are CUDA's (`#define HIP_LAUNCH_PARAM_END
/// CU_LAUNCH_PARAM_END`, `typedef enum cudaGraphNodeType hipGraphNodeType;`): it gets
/// [`NVIDIA_PLATFORM`], the 5.2.3 tables with those headers' values substituted (`hipError_t`
/// and `hipDeviceAttribute_t` keep HIP's values there, as that library converts them itself).
pub fn tables_for(hip_runtime_version: i32) -> &'static ConvTables {
    if hip_runtime_version < 10_000_000 {
        return NVIDIA_PLATFORM;
    }
    let i = HIP_VERSIONS.partition_point(|&v| v <= hip_runtime_version);
    TABLES[i.saturating_sub(1)]
}
