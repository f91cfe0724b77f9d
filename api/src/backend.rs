//! What identifies a backend and describes its libraries.

/// A GPU backend anycuda can drive.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, strum::Display, strum::EnumIter, strum::IntoStaticStr,
)]
#[strum(serialize_all = "lowercase")]
pub enum BackendKind {
    /// NVIDIA: libcuda, libcudart, libnvrtc.
    Cuda,
    /// AMD ROCm (or HIP's NVIDIA platform): libamdhip64, hipRTC.
    Hip,
}

/// One library a backend uses, and how loading it went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryReport {
    /// Its role: `driver`, `runtime`, `nvrtc`, `hip`, `hiprtc`.
    pub role: &'static str,
    /// Where it was loaded from and its version, or why it could not be used.
    pub status: Result<LoadedLibrary, crate::error::LoadError>,
}

/// A library that loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedLibrary {
    /// The file the dynamic loader mapped.
    pub path: String,
    /// The version it reports, formatted for people (e.g. `13.0`, `5.2.21153`).
    pub version: String,
    /// Entry points resolved, of those the pinned headers declare.
    pub entry_points: (usize, usize),
}
