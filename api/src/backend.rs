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

/// What a library does for its backend.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, strum::Display, strum::EnumIter, strum::IntoStaticStr,
)]
#[strum(serialize_all = "lowercase")]
pub enum LibraryRole {
    /// The CUDA driver, `libcuda`: the Driver API and the devices.
    Driver,
    /// The CUDA runtime, `libcudart`.
    Runtime,
    /// NVIDIA's runtime compiler, `libnvrtc`.
    Nvrtc,
    /// HIP, `libamdhip64`: the Driver and Runtime APIs and the devices.
    Hip,
    /// AMD's runtime compiler, hipRTC (inside `libamdhip64` before ROCm 6, `libhiprtc` after).
    Hiprtc,
}

impl LibraryRole {
    /// Whether this library is the runtime compiler (NVRTC or hipRTC).
    pub fn is_compiler(self) -> bool {
        matches!(self, Self::Nvrtc | Self::Hiprtc)
    }
    /// Whether this library serves the Driver API and sees the devices (libcuda or HIP).
    pub fn is_driver(self) -> bool {
        matches!(self, Self::Driver | Self::Hip)
    }
}

/// One library a backend uses, and how loading it went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryReport {
    /// Its role.
    pub role: LibraryRole,
    /// Where it was loaded from and its version, or why it could not be used.
    pub status: Result<LoadedLibrary, crate::error::LoadError>,
}

impl LibraryReport {
    /// The report of one library as a backend loaded it: its file, its version formatted by
    /// `version` and how many of the `total` declared entry points `count` says resolved; or
    /// why it did not load. One body for every backend.
    pub fn of<T>(
        role: LibraryRole,
        l: &Result<crate::loader::Loaded<T>, crate::error::LoadError>,
        version: impl Fn(i32) -> String,
        count: fn(&T) -> usize,
        total: usize,
    ) -> Self {
        LibraryReport {
            role,
            status: l.as_ref().map_err(Clone::clone).map(|l| LoadedLibrary {
                path: l.path.clone(),
                version: version(l.version),
                entry_points: (count(&l.table), total),
            }),
        }
    }
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
