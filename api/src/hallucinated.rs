//! The reserved value ranges for constants anycuda invents ("hallucinates").
//!
//! A HIP constant with no CUDA counterpart becomes an extra constant on the CUDA type. Its value is
//! `NAMED_BASE + hip_value`: stable across regenerations (HIP values are ABI), distinct from every
//! real CUDA value (all below `NAMED_BASE`) and from each other (HIP values are distinct).
//! A raw HIP code unknown at generation time (a newer ROCm) maps at run time to
//! `UNKNOWN_BASE + raw`, a disjoint range, so the raw code is always recoverable.

/// Start of the range for constants anycuda itself defines (`Origin::Anycuda`).
pub const ANYCUDA_BASE: i64 = 0x3000_0000;
/// Start of the range for hallucinated constants known at generation time.
pub const NAMED_BASE: i64 = 0x4000_0000;
/// Start of the range for HIP codes unknown at generation time.
pub const UNKNOWN_BASE: i64 = 0x5000_0000;
/// Size of each range: raw HIP values in `0..RANGE` are representable.
pub const RANGE: i64 = 0x1000_0000;

/// Which kind of invented value a CUDA-typed value is, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Invented {
    /// A named hallucinated constant; holds the HIP value it was generated from.
    Named(i64),
    /// A HIP code unknown at generation time; holds the raw HIP code.
    Unknown(i64),
}

/// Classifies a value: real CUDA (None), or invented with its HIP value.
pub const fn classify(value: i64) -> Option<Invented> {
    if value >= NAMED_BASE && value < NAMED_BASE + RANGE {
        Some(Invented::Named(value - NAMED_BASE))
    } else if value >= UNKNOWN_BASE && value < UNKNOWN_BASE + RANGE {
        Some(Invented::Unknown(value - UNKNOWN_BASE))
    } else {
        None
    }
}

/// Whether a value lies in a range anycuda reserves (its own constants, hallucinated ones, or
/// unknown HIP codes): such a value means nothing to a vendor library and is answered by
/// anycuda's tables.
pub const fn is_reserved(value: i64) -> bool {
    value >= ANYCUDA_BASE && value < ANYCUDA_BASE + RANGE || classify(value).is_some()
}

/// The value a raw HIP code unknown to the tables becomes, or `None` when it is outside the
/// representable range (negative or `>= RANGE`; no HIP version has such a code).
pub const fn for_unknown(raw: i64) -> Option<i64> {
    if raw >= 0 && raw < RANGE {
        Some(UNKNOWN_BASE + raw)
    } else {
        None
    }
}
