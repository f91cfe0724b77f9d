//! Finding and opening the vendor libraries, in cuda.pathfinder's order: an explicit file, a
//! library already loaded, NVIDIA's pip wheels (site-packages' `nvidia/*/lib`), conda's `lib`,
//! the install roots' variables, then the loader's path (see [`Search::plan_with`]).
//!
//! Loading never panics: every failure becomes a [`LoadError`] naming what was tried, and each
//! library's tries are kept for reports ([`traces`], `anycuda info`). Finding the candidates
//! runs no process and reads only the environment, `/proc/self` and a few folders: it is safe
//! while a library loads (anycuda's C ABI searches from inside the host program).
//!
//! # Trust
//! A library named by the environment (`ANYCUDA_*_LIBRARY`, `CUDA_PATH`/`CUDA_HOME`,
//! `ROCM_PATH`/`HIP_PATH`, `CONDA_PREFIX`, `VIRTUAL_ENV`, `ANYCUDA_SITE_PACKAGES`), installed in
//! the running Python's site-packages, already loaded by the program, or found on the loader's
//! path is **trusted**: loading it runs its initialisers, and its entry points are called with
//! CUDA's or HIP's ABI on the caller's pointers. anycuda checks that the symbols exist and the
//! version is new enough, nothing more; whoever can set those variables (or install packages
//! into that Python) can run code in the process, as with `LD_PRELOAD`.

use crate::error::LoadError;
use libloading::Library;
use std::ffi::{c_void, CStr, OsString};
use std::path::{Path, PathBuf};

/// An opened library and the path (or soname) it was opened by.
#[derive(Debug)]
pub struct Opened {
    /// The open handle; entry points resolved from it stay valid while it lives.
    pub lib: Library,
    /// The candidate that opened, as given to the dynamic loader.
    pub path: String,
}

impl Opened {
    /// Resolves a symbol, or null when it is absent.
    pub fn sym(&self, name: &CStr) -> *mut c_void {
        // SAFETY: we only read the address; callers transmute it to the header's signature.
        unsafe {
            self.lib
                .get::<*mut c_void>(name.to_bytes_with_nul())
                .map(|s| *s)
                .unwrap_or(std::ptr::null_mut())
        }
    }

    /// The absolute path of the file the loader actually mapped, when it can be found.
    pub fn resolved_path(&self, probe: &CStr) -> String {
        let addr = self.sym(probe);
        if addr.is_null() {
            return self.path.clone();
        }
        // SAFETY: `DlInfo` is a plain C struct of raw pointers, for which all-zero bytes (null
        // pointers) are a valid value; `dladdr` overwrites it below.
        let mut info: libc_dl::DlInfo = unsafe { std::mem::zeroed() };
        // SAFETY: dladdr only reads `addr` and fills `info`.
        let ok = unsafe { libc_dl::dladdr(addr, &mut info) };
        if ok != 0 && !info.dli_fname.is_null() {
            // SAFETY: dladdr returns a NUL-terminated path owned by the loader.
            let p = unsafe { CStr::from_ptr(info.dli_fname) };
            return p.to_string_lossy().into_owned();
        }
        self.path.clone()
    }
}

/// The file of the first caller outside the object that holds this function (anycuda's own
/// library): the library that called into anycuda, for messages naming who asked (e.g. an
/// unknown private table). `None` when the stack or the loader cannot tell.
pub fn calling_object() -> Option<String> {
    let mut frames = [std::ptr::null_mut::<std::ffi::c_void>(); 32];
    // SAFETY: glibc fills at most `len` return addresses into the buffer.
    let n = unsafe { libc_dl::backtrace(frames.as_mut_ptr(), frames.len() as std::ffi::c_int) };
    let file_of = |addr: *const std::ffi::c_void| -> Option<String> {
        // SAFETY: all-zero bytes are a valid `DlInfo` (null pointers); dladdr overwrites it.
        let mut info: libc_dl::DlInfo = unsafe { std::mem::zeroed() };
        // SAFETY: dladdr only reads `addr` and fills `info`.
        if unsafe { libc_dl::dladdr(addr, &mut info) } == 0 || info.dli_fname.is_null() {
            return None;
        }
        // SAFETY: dladdr returns a NUL-terminated path owned by the loader.
        Some(
            unsafe { CStr::from_ptr(info.dli_fname) }
                .to_string_lossy()
                .into_owned(),
        )
    };
    let own = file_of(calling_object as *const std::ffi::c_void)?;
    frames[..n.max(0) as usize]
        .iter()
        .filter_map(|&a| file_of(a))
        .find(|f| *f != own)
}

/// Whether the library just opened is anycuda's C ABI: the C-ABI library itself (it defines
/// [`CAPI_MARKER`]), or one of `anycuda libdir`'s name libraries (no symbols of their own; they
/// name the C-ABI library as a direct dependency). A vendor library that merely depends on
/// anycuda under a vendor's soname (HIP's NVIDIA platform links `libcuda.so.1`, which is
/// anycuda's when its folder is on the library path) is not: `dlsym` on a handle searches the
/// object's dependencies too, so finding the marker is not enough; where it is defined decides.
fn is_anycuda_capi(lib: Library) -> (Library, bool) {
    let unix: libloading::os::unix::Library = lib.into();
    let raw = unix.into_raw();
    // SAFETY: `raw` is the live handle just taken out of `unix`; it is put back below.
    let marker = unsafe { libc_dl::dlsym(raw, CAPI_MARKER.as_ptr()) };
    let ours = !marker.is_null() && {
        // SAFETY: plain C structs of raw pointers, valid all-zero; the loader fills them.
        let mut info: libc_dl::DlInfo = unsafe { std::mem::zeroed() };
        let mut lm: *const libc_dl::LinkMap = std::ptr::null();
        // SAFETY: dladdr reads the address only; dlinfo(RTLD_DI_LINKMAP) writes the handle's
        // link map pointer, which the loader keeps alive while the handle is open.
        let known = unsafe {
            libc_dl::dladdr(marker, &mut info) != 0
                && libc_dl::dlinfo(raw, libc_dl::RTLD_DI_LINKMAP, (&raw mut lm).cast()) == 0
                && !lm.is_null()
        };
        // Unknown: refuse, as before (the marker was found).
        // SAFETY: `lm` is the loader's link map for this open handle (checked non-null).
        !known || unsafe { defines_or_needs(&*lm, info.dli_fname) }
    };
    // SAFETY: `raw` came from `into_raw` above and is given back exactly once.
    let lib = unsafe { libloading::os::unix::Library::from_raw(raw) };
    (lib.into(), ours)
}

/// Whether the object of `lm` is the one at `defining` (the C-ABI library itself), or names
/// that file's base name as a `DT_NEEDED` of its own (a name library).
///
/// # Safety
/// `lm` is a live link map of the dynamic loader; `defining` is null or a C string.
unsafe fn defines_or_needs(lm: &libc_dl::LinkMap, defining: *const std::ffi::c_char) -> bool {
    if defining.is_null() {
        return true;
    }
    // SAFETY: `defining` is dladdr's NUL-terminated path, owned by the loader.
    let def = unsafe { CStr::from_ptr(defining) };
    // SAFETY: the loader's `l_name` is a NUL-terminated string (possibly empty).
    if !lm.l_name.is_null() && unsafe { CStr::from_ptr(lm.l_name) } == def {
        return true;
    }
    let base = def
        .to_bytes()
        .rsplit(|&b| b == b'/')
        .next()
        .unwrap_or_default();
    // The object's dynamic section, as mapped: DT_NEEDED entries are offsets into DT_STRTAB
    // (an address the loader has relocated on the platforms anycuda builds for; an unrelocated
    // one, below the load bias, gets the bias added).
    const DT_NULL: i64 = 0;
    const DT_NEEDED: i64 = 1;
    const DT_STRTAB: i64 = 5;
    let (mut strtab, mut needed) = (0usize, Vec::new());
    let mut d = lm.l_ld;
    // At most 4096 entries: a dynamic section is tens of entries; a damaged one stops there.
    for _ in 0..4096 {
        if d.is_null() {
            break;
        }
        // SAFETY: `l_ld` points at the object's mapped dynamic section, DT_NULL-terminated.
        let e = unsafe { d.read() };
        match e.d_tag {
            DT_NULL => break,
            DT_NEEDED => needed.push(e.d_val as usize),
            DT_STRTAB => strtab = e.d_val as usize,
            _ => {}
        }
        // SAFETY: still inside the section (DT_NULL not reached).
        d = unsafe { d.add(1) };
    }
    if strtab == 0 {
        return false;
    }
    if strtab < lm.l_addr {
        strtab += lm.l_addr;
    }
    needed.iter().any(|&off| {
        // SAFETY: DT_NEEDED values index the object's string table, NUL-terminated.
        let n = unsafe { CStr::from_ptr((strtab + off) as *const std::ffi::c_char) };
        n.to_bytes() == base
    })
}

mod libc_dl {
    use std::ffi::{c_char, c_int, c_void};
    /// `dlinfo` request for the handle's `struct link_map *`.
    pub const RTLD_DI_LINKMAP: c_int = 2;
    /// The public head of glibc's `struct link_map` (`<link.h>`).
    #[repr(C)]
    pub struct LinkMap {
        pub l_addr: usize,
        pub l_name: *const c_char,
        pub l_ld: *const Dyn,
        pub l_next: *const LinkMap,
        pub l_prev: *const LinkMap,
    }
    /// `ElfW(Dyn)` on a 64-bit host.
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct Dyn {
        pub d_tag: i64,
        pub d_val: u64,
    }
    #[repr(C)]
    pub struct DlInfo {
        pub dli_fname: *const c_char,
        pub dli_fbase: *mut c_void,
        pub dli_sname: *const c_char,
        pub dli_saddr: *mut c_void,
    }
    extern "C" {
        pub fn dladdr(addr: *const c_void, info: *mut DlInfo) -> c_int;
        pub fn backtrace(buffer: *mut *mut c_void, size: c_int) -> c_int;
        pub fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
        pub fn dlinfo(handle: *mut c_void, request: c_int, info: *mut c_void) -> c_int;
    }
}

/// A library, its resolved function table and the version it reported.
#[derive(Debug)]
pub struct Loaded<T> {
    /// The resolved entry points (valid while this value lives: it keeps the library open).
    pub table: T,
    /// The file the dynamic loader mapped.
    pub path: String,
    /// The version it reported, in the vendor's encoding (`13000`, `50221153`).
    pub version: i32,
    _lib: Opened,
    /// Libraries preloaded for this one (e.g. NVRTC's builtins), kept open as long as it is.
    _companions: Vec<Opened>,
}

impl<T> Loaded<T> {
    /// Resolves a symbol of the loaded library by name, or null when it has none: for the
    /// entry points its table does not hold (the older ABIs and the interop functions a
    /// drop-in forwards as they are).
    pub fn sym(&self, name: &CStr) -> *mut c_void {
        self._lib.sym(name)
    }

    /// Bundles a table with the libraries its pointers come from.
    pub fn new(table: T, path: String, version: i32, lib: Opened, companions: Vec<Opened>) -> Self {
        Self {
            table,
            path,
            version,
            _lib: lib,
            _companions: companions,
        }
    }
}

/// Resolves a symbol a backend cannot work without.
///
/// # Errors
/// [`LoadError::MissingSymbol`] naming the library, file and symbol.
pub fn required(o: &Opened, library: &'static str, name: &CStr) -> Result<*mut c_void, LoadError> {
    let p = o.sym(name);
    if p.is_null() {
        return Err(LoadError::MissingSymbol {
            library,
            path: o.path.clone(),
            symbol: name.to_string_lossy().into_owned(),
        });
    }
    Ok(p)
}

/// Where to look for one library.
#[derive(Clone, Debug)]
pub struct Search {
    /// Human name for errors, e.g. `NVRTC (libnvrtc)`.
    pub library: &'static str,
    /// An environment variable naming an exact file; when set, it is the only candidate.
    pub explicit_env: &'static str,
    /// Sonames, in order of preference: looked for among the libraries already loaded, in
    /// NVIDIA's wheels and conda's `lib`, under the install roots, and through the system loader.
    pub sonames: &'static [&'static str],
    /// Environment variables naming install roots (e.g. `CUDA_PATH`), tried after conda's
    /// folder and before the loader's path.
    pub root_envs: &'static [&'static str],
    /// Subdirectories of each root holding the library.
    pub lib_dirs: &'static [&'static str],
    /// Fixed install roots (e.g. `/opt/rocm`), tried after the loader's path.
    pub default_roots: &'static [&'static str],
}

/// One step of the search, in the order the steps run (cuda.pathfinder's order, then the
/// fallbacks): see [`Search::plan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// The exact file named by the library's `ANYCUDA_*_LIBRARY` variable (the only candidate
    /// when it is set).
    Explicit,
    /// A library of that soname already loaded in the process (`dlopen(RTLD_NOLOAD)`).
    AlreadyLoaded,
    /// `nvidia/*/lib` in a site-packages folder: NVIDIA's pip wheels (`nvidia/cu13/lib` for
    /// CUDA 13, `nvidia/cuda_nvrtc/lib`, `nvidia/cuda_runtime/lib`, ... for CUDA 12).
    SitePackages,
    /// `$CONDA_PREFIX/lib`.
    Conda,
    /// An install root named by a variable (`CUDA_PATH`, `CUDA_HOME`, `ROCM_PATH`, `HIP_PATH`).
    InstallRoot,
    /// The soname through the dynamic loader's own search (`LD_LIBRARY_PATH`, the runpath, its
    /// cache, the system folders).
    LoaderPath,
    /// A usual install root (`/usr/local/cuda`, `/opt/rocm`).
    DefaultRoot,
    /// The soname by path (the loader's cache, `LD_LIBRARY_PATH`, the system folders): finds the
    /// vendor's file where the loader answers the soname with anycuda's own C ABI.
    ByPath,
}

impl Step {
    /// A short label for reports (`anycuda info`).
    pub fn label(self) -> &'static str {
        match self {
            Step::Explicit => "explicit file",
            Step::AlreadyLoaded => "already loaded",
            Step::SitePackages => "site-packages",
            Step::Conda => "conda",
            Step::InstallRoot => "install root",
            Step::LoaderPath => "loader's path",
            Step::DefaultRoot => "usual folder",
            Step::ByPath => "by path",
        }
    }
}

impl core::fmt::Display for Step {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.label())
    }
}

/// One candidate of a search: what is handed to the dynamic loader, and which step gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The step.
    pub step: Step,
    /// The soname or path tried; for a step that found nothing to try, the folder it looked in.
    pub name: String,
    /// What pointed there: a variable (`VIRTUAL_ENV`, `CUDA_PATH`), `this Python`, ...
    pub via: String,
    /// Set when the step looked and found nothing to open: why (listed, never opened).
    pub nothing: Option<String>,
}

/// One candidate as the search tried it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Try {
    /// The candidate.
    pub candidate: Candidate,
    /// The file the loader mapped, or why the candidate was passed over.
    pub outcome: Result<String, String>,
}

impl Try {
    /// The entry a [`LoadError::NotFound`] lists: `name (why)`.
    fn tried_entry(&self) -> String {
        match &self.outcome {
            Ok(p) => format!("{} (opened {p})", self.candidate.name),
            Err(why) => format!("{} ({why})", self.candidate.name),
        }
    }
}

/// A library's latest search in this process: every try in order, the last one the file used
/// when the search succeeded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchTrace {
    /// The library, as [`Search::library`] names it.
    pub library: &'static str,
    /// The tries, in order.
    pub tries: Vec<Try>,
}

/// The searches run so far in this process, one per library (the latest), in the order the
/// libraries were first searched for: what `anycuda info` shows.
static TRACES: std::sync::Mutex<Vec<SearchTrace>> = std::sync::Mutex::new(Vec::new());

fn record(trace: SearchTrace) {
    let mut all = TRACES.lock().unwrap_or_else(|e| e.into_inner());
    match all.iter_mut().find(|t| t.library == trace.library) {
        Some(t) => *t = trace,
        None => all.push(trace),
    }
}

/// Every library search this process has run (the latest per library), each try in order.
pub fn traces() -> Vec<SearchTrace> {
    TRACES.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The environment variable that names site-packages folders to search first (`:`-separated):
/// `python -m anycuda` sets it to its interpreter's `site.getsitepackages()`, and users with
/// an unusual layout (`pip install --target`) can set it themselves.
pub const SITE_PACKAGES_ENV: &str = "ANYCUDA_SITE_PACKAGES";

/// The Python interpreter a process is, as far as the library search needs it: read from
/// `/proc/self` without running anything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Python {
    /// The interpreter's binary, symlinks resolved (`/proc/self/exe`), e.g.
    /// `/usr/bin/python3.11`: its prefix holds the base installation's site-packages.
    pub exe: PathBuf,
    /// The path it was started by (`argv[0]`, through `PATH` when it has no `/`), symlinks
    /// kept: a virtual environment's `bin/python`, beside which Python looks for `pyvenv.cfg`.
    pub invoked: Option<PathBuf>,
}

impl Python {
    /// This process, when it is a Python interpreter (its binary is named `python`,
    /// `python3`, `python3.12`, ...); `None` otherwise. A few `readlink`/`stat` calls; safe
    /// to call while a library loads.
    pub fn of_this_process() -> Option<Python> {
        let exe = std::fs::read_link("/proc/self/exe").ok()?;
        if !is_python_name(exe.file_name()?.to_str()?) {
            return None;
        }
        let cmdline = std::fs::read("/proc/self/cmdline").unwrap_or_default();
        let argv0 = cmdline.split(|&b| b == 0).next().unwrap_or_default();
        let argv0 = String::from_utf8_lossy(argv0).into_owned();
        let invoked = if argv0.is_empty() {
            None
        } else if argv0.contains('/') {
            let p = PathBuf::from(&argv0);
            if p.is_absolute() {
                Some(p)
            } else {
                std::env::current_dir().ok().map(|d| d.join(p))
            }
        } else {
            std::env::var_os("PATH").and_then(|path| {
                std::env::split_paths(&path)
                    .map(|d| d.join(&argv0))
                    .find(|p| p.is_file())
            })
        };
        Some(Python { exe, invoked })
    }

    /// `3.11` from `python3.11` (the resolved binary's name, else the invoked one's).
    fn version(&self) -> Option<String> {
        [Some(&self.exe), self.invoked.as_ref()]
            .into_iter()
            .flatten()
            .filter_map(|p| p.file_name()?.to_str())
            .find_map(|n| {
                let v = n.strip_prefix("python")?;
                let v = v.trim_end_matches(|c: char| c.is_ascii_alphabetic());
                (v.contains('.') && v.split('.').all(|x| x.parse::<u32>().is_ok()))
                    .then(|| v.to_string())
            })
    }

    /// The virtual environment's root, when the invoked binary is in one (a `pyvenv.cfg` in its
    /// folder or the folder above, as Python looks), and whether it includes the base's
    /// site-packages (`include-system-site-packages = true`).
    fn venv(&self) -> Option<(PathBuf, bool)> {
        let bin = self.invoked.as_ref()?.parent()?;
        let root = [Some(bin), bin.parent()]
            .into_iter()
            .flatten()
            .find(|d| d.join("pyvenv.cfg").is_file())?;
        let cfg = std::fs::read_to_string(root.join("pyvenv.cfg")).unwrap_or_default();
        let system = cfg.lines().any(|l| {
            l.split_once('=').is_some_and(|(k, v)| {
                k.trim() == "include-system-site-packages" && v.trim().eq_ignore_ascii_case("true")
            })
        });
        Some((root.to_path_buf(), system))
    }
}

/// `python`, `python3`, `python3.12`, `python3.13t`, `python3.11d`: an interpreter's binary.
fn is_python_name(n: &str) -> bool {
    n.strip_prefix("python").is_some_and(|v| {
        v.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || matches!(c, 'd' | 'm' | 't'))
    })
}

/// The site-packages folders of an installation prefix that exist: `lib/pythonX.Y/site-packages`
/// (`lib64` too, and Debian's `dist-packages`), for `version` when known, else for every
/// `python3.*` folder there (newest first). `/usr` brings `/usr/local` first, as Debian's
/// Python orders them.
fn prefix_site_dirs(prefix: &Path, version: Option<&str>) -> Vec<PathBuf> {
    let mut prefixes = Vec::new();
    if prefix == Path::new("/usr") {
        prefixes.push(PathBuf::from("/usr/local"));
    }
    prefixes.push(prefix.to_path_buf());
    let mut out = Vec::new();
    for p in prefixes {
        let names: Vec<String> = match version {
            Some(v) => vec![format!("python{v}")],
            None => {
                let mut n: Vec<String> = std::fs::read_dir(p.join("lib"))
                    .into_iter()
                    .flatten()
                    .filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .filter(|n| n.starts_with("python3") && is_python_name(n))
                    .collect();
                // python3.9 before python3.12 as text; newest first by the minor number.
                n.sort_by_key(|n| {
                    std::cmp::Reverse(
                        n.rsplit('.')
                            .next()
                            .and_then(|m| m.parse::<u32>().ok())
                            .unwrap_or(0),
                    )
                });
                n
            }
        };
        for lib in ["lib", "lib64"] {
            for n in &names {
                for leaf in ["site-packages", "dist-packages"] {
                    out.push(p.join(lib).join(n).join(leaf));
                }
            }
        }
        out.push(p.join("lib/python3/dist-packages"));
    }
    out.retain(|d| d.is_dir());
    out
}

/// The site-packages folders the search looks into, in order, each with what pointed there:
/// `ANYCUDA_SITE_PACKAGES`; this process's own Python (its virtual environment, the user's
/// site-packages outside one, its installation); `VIRTUAL_ENV`; `CONDA_PREFIX`'s Python. Only
/// folders that exist; each once. Reads `var` for the environment; runs nothing.
pub fn site_packages_with(
    var: &dyn Fn(&str) -> Option<OsString>,
    python: Option<&Python>,
) -> Vec<(PathBuf, String)> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty());
    let mut out: Vec<(PathBuf, String)> = Vec::new();
    if let Some(list) = set(SITE_PACKAGES_ENV) {
        for d in std::env::split_paths(&list).filter(|d| d.is_dir()) {
            out.push((d, SITE_PACKAGES_ENV.to_string()));
        }
    }
    if let Some(py) = python {
        let version = py.version();
        let v = version.as_deref();
        let venv = py.venv();
        if let Some((root, _)) = &venv {
            for d in prefix_site_dirs(root, v) {
                out.push((d, "this Python's virtual environment".into()));
            }
        }
        if venv.is_none() {
            let base = set("PYTHONUSERBASE")
                .map(PathBuf::from)
                .or_else(|| set("HOME").map(|h| PathBuf::from(h).join(".local")));
            if let (Some(base), Some(v)) = (base, v) {
                let d = base.join(format!("lib/python{v}/site-packages"));
                if d.is_dir() {
                    out.push((d, "this Python's user site-packages".into()));
                }
            }
        }
        if venv.as_ref().is_none_or(|(_, system)| *system) {
            if let Some(prefix) = py.exe.parent().and_then(Path::parent) {
                for d in prefix_site_dirs(prefix, v) {
                    out.push((d, format!("this Python ({})", py.exe.display())));
                }
            }
        }
    }
    for env in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(root) = set(env) {
            for d in prefix_site_dirs(Path::new(&root), None) {
                out.push((d, env.to_string()));
            }
        }
    }
    // Each folder once (a venv named by VIRTUAL_ENV is often this Python's too).
    let mut seen = Vec::new();
    out.retain(|(d, _)| {
        let key = d.canonicalize().unwrap_or_else(|_| d.clone());
        if seen.contains(&key) {
            return false;
        }
        seen.push(key);
        true
    });
    out
}

/// [`site_packages_with`] for this process: its environment and its own Python.
pub fn site_packages() -> Vec<(PathBuf, String)> {
    site_packages_with(&|n| std::env::var_os(n), Python::of_this_process().as_ref())
}

/// The folders `nvidia/*/lib` of one site-packages folder, in name order.
fn nvidia_lib_dirs(site: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(site.join("nvidia"))
        .into_iter()
        .flatten()
        .filter_map(|e| Some(e.ok()?.path().join("lib")))
        .filter(|d| d.is_dir())
        .collect();
    dirs.sort();
    dirs
}

impl Search {
    /// Every candidate in search order, for this process's environment: see
    /// [`Search::plan_with`].
    pub fn plan(&self) -> Vec<Candidate> {
        self.plan_with(&|n| std::env::var_os(n), Python::of_this_process().as_ref())
    }

    /// Every candidate in search order, cuda.pathfinder's order first:
    /// 1. the explicit file (`ANYCUDA_*_LIBRARY`), alone when its variable is set;
    /// 2. each soname already loaded in the process;
    /// 3. `nvidia/*/lib/SONAME` in each site-packages folder ([`site_packages_with`]; a folder
    ///    without one is listed as looked at), for NVIDIA's libraries
    ///    ([`Search::is_nvidia_library`]);
    /// 4. `$CONDA_PREFIX/lib/SONAME`;
    /// 5. the install roots' folders (`CUDA_PATH`/`CUDA_HOME`, `ROCM_PATH`/`HIP_PATH`);
    /// 6. the sonames through the dynamic loader;
    /// 7. the usual install roots (`/usr/local/cuda`, `/opt/rocm`);
    /// 8. the sonames by path (the loader's cache, `LD_LIBRARY_PATH`, [`SYSTEM_LIB_DIRS`]),
    ///    which find the vendor's files when a soname answers with anycuda's own C ABI.
    ///
    /// `var` reads the environment and `python` is the process's interpreter, if it is one; a
    /// path is listed once, at its first step.
    pub fn plan_with(
        &self,
        var: &dyn Fn(&str) -> Option<OsString>,
        python: Option<&Python>,
    ) -> Vec<Candidate> {
        let set = |name: &str| var(name).filter(|v| !v.is_empty());
        if let Some(p) = set(self.explicit_env) {
            return vec![Candidate {
                step: Step::Explicit,
                name: p.to_string_lossy().into_owned(),
                via: self.explicit_env.to_string(),
                nothing: None,
            }];
        }
        let mut out: Vec<Candidate> = Vec::new();
        let mut push = |step: Step, name: String, via: &str, nothing: Option<String>| {
            // A soname is tried twice (already loaded, then through the loader); a path once.
            let dup = out.iter().any(|c| {
                c.name == name && (c.step == Step::AlreadyLoaded) == (step == Step::AlreadyLoaded)
            });
            if !dup {
                out.push(Candidate {
                    step,
                    name,
                    via: via.to_string(),
                    nothing,
                });
            }
        };
        for so in self.sonames {
            push(Step::AlreadyLoaded, so.to_string(), "this process", None);
        }
        let sites = if self.is_nvidia_library() {
            site_packages_with(var, python)
        } else {
            Vec::new()
        };
        for (site, via) in sites {
            let dirs = nvidia_lib_dirs(&site);
            let mut found = false;
            for so in self.sonames {
                for d in &dirs {
                    let p = d.join(so);
                    if p.exists() {
                        found = true;
                        push(
                            Step::SitePackages,
                            p.to_string_lossy().into_owned(),
                            &via,
                            None,
                        );
                    }
                }
            }
            // Listed all the same, so a report shows the folder was looked at.
            if !found && !self.sonames.is_empty() {
                let why = format!("no nvidia/*/lib/{} here", self.sonames.join(" or "));
                push(
                    Step::SitePackages,
                    site.to_string_lossy().into_owned(),
                    &via,
                    Some(why),
                );
            }
        }
        if let Some(conda) = set("CONDA_PREFIX") {
            for so in self.sonames {
                let p = Path::new(&conda).join("lib").join(so);
                push(
                    Step::Conda,
                    p.to_string_lossy().into_owned(),
                    "CONDA_PREFIX",
                    None,
                );
            }
        }
        let roots = self
            .root_envs
            .iter()
            .filter_map(|e| set(e).map(|v| (PathBuf::from(v), *e)));
        for (root, env) in roots {
            for dir in self.lib_dirs {
                for so in self.sonames {
                    let p = root.join(dir).join(so).to_string_lossy().into_owned();
                    push(Step::InstallRoot, p, env, None);
                }
            }
        }
        for so in self.sonames {
            push(Step::LoaderPath, so.to_string(), "the dynamic loader", None);
        }
        for root in self.default_roots {
            for dir in self.lib_dirs {
                for so in self.sonames {
                    let p = Path::new(root).join(dir).join(so);
                    push(
                        Step::DefaultRoot,
                        p.to_string_lossy().into_owned(),
                        root,
                        None,
                    );
                }
            }
        }
        // The same libraries by path: when anycuda's C ABI is loaded as `libcuda.so.1` (and the
        // other sonames), the loader answers those sonames with anycuda itself, which `open`
        // refuses; these paths still find the vendor's files. The loader's own cache first
        // (what the soname would have found without anycuda's folder), then the library path,
        // then the usual system folders.
        let cache = std::fs::read(LD_SO_CACHE).unwrap_or_default();
        let ld_path = set("LD_LIBRARY_PATH").unwrap_or_default();
        let ld_path = ld_path.to_string_lossy();
        for so in self.sonames {
            for p in ld_so_cache_entries(&cache, so) {
                push(Step::ByPath, p, LD_SO_CACHE, None);
            }
            for d in ld_path.split(':').filter(|d| !d.is_empty()) {
                let p = Path::new(d).join(so).to_string_lossy().into_owned();
                push(Step::ByPath, p, "LD_LIBRARY_PATH", None);
            }
            for d in SYSTEM_LIB_DIRS {
                let p = Path::new(d).join(so).to_string_lossy().into_owned();
                push(Step::ByPath, p, "system folder", None);
            }
        }
        out
    }

    /// Whether NVIDIA's pip wheels may hold this library: the searches that look in CUDA's
    /// install roots (`CUDA_PATH`/`CUDA_HOME`: the runtime, NVRTC, nvJitLink, cuBLAS, cuRAND,
    /// NCCL, ...). The others (the driver, which no wheel ships, and AMD's libraries) skip the
    /// site-packages step.
    pub fn is_nvidia_library(&self) -> bool {
        self.root_envs
            .iter()
            .any(|e| matches!(*e, "CUDA_PATH" | "CUDA_HOME"))
    }

    /// The name of every candidate in search order ([`Search::plan`]); a soname appears twice
    /// (already loaded, then through the loader).
    pub fn candidates(&self) -> Vec<String> {
        self.plan().into_iter().map(|c| c.name).collect()
    }

    /// Opens the first candidate of [`Search::plan`] that loads and is not anycuda's own C ABI
    /// (a library exporting [`CAPI_MARKER`] is refused, logged, and listed with the reason),
    /// and records the tries for [`traces`].
    ///
    /// # Errors
    /// [`LoadError::NotFound`] listing every candidate and why it failed.
    pub fn open(&self) -> Result<Opened, LoadError> {
        let mut tries = Vec::new();
        let opened = self.open_plan(self.plan(), &mut tries);
        // The error lists paths and sonames looked for; "not already loaded" is every
        // library's usual state and stays in the trace only.
        let tried = tries
            .iter()
            .filter(|t| t.candidate.step != Step::AlreadyLoaded || t.outcome.is_ok())
            .map(Try::tried_entry)
            .collect();
        record(SearchTrace {
            library: self.library,
            tries,
        });
        opened.ok_or(LoadError::NotFound {
            library: self.library,
            tried,
        })
    }

    fn open_plan(&self, plan: Vec<Candidate>, tries: &mut Vec<Try>) -> Option<Opened> {
        for c in plan {
            let outcome = self.try_one(&c);
            match outcome {
                Ok(o) => {
                    log::debug!(
                        "{}: opened {} ({}, {})",
                        self.library,
                        o.path,
                        c.step,
                        c.via
                    );
                    tries.push(Try {
                        candidate: c,
                        outcome: Ok(o.path.clone()),
                    });
                    return Some(o);
                }
                Err(why) => tries.push(Try {
                    candidate: c,
                    outcome: Err(why),
                }),
            }
        }
        None
    }

    /// Opens one candidate, or says why not.
    fn try_one(&self, c: &Candidate) -> Result<Opened, String> {
        if let Some(why) = &c.nothing {
            return Err(why.clone());
        }
        let lib = if c.step == Step::AlreadyLoaded {
            already_loaded(&c.name).ok_or_else(|| "not loaded in this process".to_string())?
        } else {
            // A path (not a soname) is checked before the dynamic loader maps it: a FIFO would
            // block dlopen, and a truncated file kills the process with SIGBUS inside it.
            if c.name.contains('/') {
                check_library_file(Path::new(&c.name))?;
            }
            // SAFETY: opening a vendor library runs its initialisers; that is what using it
            // means.
            unsafe { Library::new(&c.name) }.map_err(|e| short_reason(&e))?
        };
        let (lib, ours) = is_anycuda_capi(lib);
        let (lib, path) = if c.step == Step::AlreadyLoaded {
            let (lib, file) = loaded_file(lib);
            (lib, file.unwrap_or_else(|| c.name.clone()))
        } else {
            (lib, c.name.clone())
        };
        let o = Opened { lib, path };
        if ours {
            let at = o.resolved_path(CAPI_MARKER);
            log::info!(
                "{}: {} is anycuda's own C ABI ({at}), not the vendor's library: refused, so anycuda never loads itself",
                self.library,
                c.name
            );
            return Err(format!(
                "anycuda's own C ABI, {at}: refused, anycuda never loads itself"
            ));
        }
        Ok(o)
    }
}

/// The companion a HIP library needs (hipRAND needs rocRAND, hipSPARSE rocSPARSE), opened
/// first when an exact file of the library is named (`search.explicit_env`) and the companion
/// lies beside it under one of `sonames` (tried in order): the dynamic loader then finds it by
/// soname, so a private prefix works without `LD_LIBRARY_PATH`. Empty when there is no such
/// file or it does not open (the library's own open then says what is missing).
pub fn companion_beside(search: &Search, sonames: &[&str]) -> Vec<Opened> {
    let Some(file) = std::env::var_os(search.explicit_env).filter(|p| !p.is_empty()) else {
        return Vec::new();
    };
    let Some(dir) = std::path::Path::new(&file).parent() else {
        return Vec::new();
    };
    for name in sonames {
        let roc = dir.join(name);
        if check_library_file(&roc).is_err() {
            continue;
        }
        // SAFETY: opening the vendor library the named one itself needs; its initialisers run
        // as they would when the loader pulled it in for that library.
        match unsafe { Library::new(&roc) } {
            Ok(lib) => {
                return vec![Opened {
                    lib,
                    path: roc.to_string_lossy().into_owned(),
                }]
            }
            Err(e) => log::debug!("{} beside {}: {e}", roc.display(), search.library),
        }
    }
    Vec::new()
}

/// glibc's `RTLD_NOLOAD`: return a handle only for an object already loaded.
const RTLD_NOLOAD: std::ffi::c_int = 0x4;

/// Puts the already-loaded library at `path` into the process's global symbol scope
/// (`dlopen(path, RTLD_NOLOAD | RTLD_GLOBAL)`: nothing is loaded). For a vendor library that
/// another one needs by internal symbols: NVIDIA's `libcublas.so.13` binds
/// `cublasLtCtxInit@libcublasLt.so.13` and other cuBLASLt internals. Where the program linked
/// against `anycuda libdir`, the soname `libcublasLt.so.13` is anycuda's name library, which
/// defines only the public API, so the loader binds cuBLAS's `DT_NEEDED` to it and those
/// internals resolve nowhere (a symbol lookup error on cuBLAS's first call, the process gone);
/// with NVIDIA's cuBLASLt in the global scope they resolve there. The public names still
/// resolve in anycuda's C ABI first (it was loaded earlier), which a call from inside cuBLAS
/// reaches through the re-entry guard as NVIDIA's cuBLASLt. Returns whether it was done.
pub fn make_global(path: &str) -> bool {
    let flags = libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_GLOBAL | RTLD_NOLOAD;
    // SAFETY: with RTLD_NOLOAD nothing is loaded and no initialiser runs; the object is already
    // in the process, and the new handle is leaked on purpose (the object stays for good, as
    // every vendor library anycuda loads does).
    match unsafe { libloading::os::unix::Library::open(Some(path), flags) } {
        Ok(l) => {
            std::mem::forget(l);
            true
        }
        Err(_) => false,
    }
}

/// A new handle on the object of this soname already loaded in the process, if any (without
/// loading anything).
fn already_loaded(soname: &str) -> Option<Library> {
    let flags = libloading::os::unix::RTLD_LAZY | RTLD_NOLOAD;
    // SAFETY: with RTLD_NOLOAD nothing is loaded and no initialiser runs; the handle only adds
    // a reference to an object already in the process.
    unsafe { libloading::os::unix::Library::open(Some(soname), flags) }
        .ok()
        .map(Into::into)
}

/// The file an open handle's object was loaded from (the name in its link map), when known.
fn loaded_file(lib: Library) -> (Library, Option<String>) {
    let unix: libloading::os::unix::Library = lib.into();
    let raw = unix.into_raw();
    let mut lm: *const libc_dl::LinkMap = std::ptr::null();
    // SAFETY: dlinfo(RTLD_DI_LINKMAP) writes the live handle's link map pointer.
    let ok = unsafe { libc_dl::dlinfo(raw, libc_dl::RTLD_DI_LINKMAP, (&raw mut lm).cast()) } == 0;
    let name = (ok && !lm.is_null())
        .then(|| {
            // SAFETY: the loader keeps the link map (and its NUL-terminated name) alive while the
            // handle is open.
            let n = unsafe { (*lm).l_name };
            // SAFETY: as above; `n` is checked non-null.
            (!n.is_null()).then(|| unsafe { CStr::from_ptr(n) }.to_string_lossy().into_owned())
        })
        .flatten()
        .filter(|n| !n.is_empty());
    // SAFETY: `raw` came from `into_raw` above and is given back exactly once.
    let lib = unsafe { libloading::os::unix::Library::from_raw(raw) };
    (lib.into(), name)
}
/// The symbol that marks anycuda's C ABI (anycuda-capi exports it): a library that has it is
/// anycuda itself under a vendor's soname, never the vendor's library.
pub const CAPI_MARKER: &CStr = c"anycuda_capi_abi_version";

/// The dynamic loader's cache of sonames → paths.
const LD_SO_CACHE: &str = "/etc/ld.so.cache";

/// Folders vendors install their libraries into, searched by path after the loader's cache and
/// `LD_LIBRARY_PATH`.
pub const SYSTEM_LIB_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/lib64",
    "/usr/local/cuda/lib64",
    "/usr/lib/wsl/lib",
];

/// glibc's `FLAG_ELF_LIBC6` and this host's architecture flag in a cache entry.
const CACHE_TYPE_ELF_LIBC6: u32 = 0x0003;
const CACHE_ARCH: u32 = if cfg!(target_arch = "aarch64") {
    0x0a00
} else {
    0x0300
};

/// The paths `/etc/ld.so.cache` (glibc's "glibc-ld.so.cache1.1" format, alone or after the
/// old "ld.so-1.7.0" table) lists for `soname` on this architecture, in cache order. A cache
/// that is damaged anywhere (short, wrong magic, an offset or string outside the file) gives
/// no paths: the search then goes on with the library path and the system folders.
pub fn ld_so_cache_entries(cache: &[u8], soname: &str) -> Vec<String> {
    parse_ld_so_cache(cache, soname).unwrap_or_default()
}

fn parse_ld_so_cache(cache: &[u8], soname: &str) -> Option<Vec<String>> {
    const OLD: &[u8] = b"ld.so-1.7.0";
    const NEW: &[u8] = b"glibc-ld.so.cache1.1";
    let u32_at = |o: usize| -> Option<u32> {
        let b = cache.get(o..o.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut start = 0usize;
    if cache.starts_with(OLD) {
        // struct file_entry { int flags; unsigned key, value; } after magic[12] + nlibs.
        let n = usize::try_from(u32_at(12)?).ok()?;
        start = 16usize.checked_add(n.checked_mul(12)?)?;
        // The new table follows, aligned like `struct cache_file_new` (8 bytes).
        start = start.checked_add(7)? & !7;
    }
    let head = cache.get(start..)?;
    if !head.starts_with(NEW) {
        return None;
    }
    let nlibs = usize::try_from(u32_at(start + 20)?).ok()?;
    // Header: magic(17) + version(3) + nlibs + len_strings + flags(1) + pad(3) +
    // extension_offset + unused[3] = 48 bytes; each entry: flags, key, value, osversion (4
    // bytes each) + hwcap (8).
    let entries = start.checked_add(48)?;
    if entries.checked_add(nlibs.checked_mul(24)?)? > cache.len() {
        return None;
    }
    let string_at = |off: u32| -> Option<&[u8]> {
        let o = start.checked_add(usize::try_from(off).ok()?)?;
        let tail = cache.get(o..)?;
        let end = tail.iter().position(|&b| b == 0)?;
        Some(&tail[..end])
    };
    let mut out = Vec::new();
    for i in 0..nlibs {
        let e = entries + i * 24;
        let flags = u32_at(e)?;
        let (key, value) = (u32_at(e + 4)?, u32_at(e + 8)?);
        let k = string_at(key)?;
        let v = string_at(value)?;
        if k != soname.as_bytes()
            || flags & 0xff != CACHE_TYPE_ELF_LIBC6
            || flags & 0xff00 != CACHE_ARCH
        {
            continue;
        }
        let p = String::from_utf8(v.to_vec()).ok()?;
        if !out.contains(&p) {
            out.push(p);
        }
    }
    Some(out)
}

/// The ELF machine of this host (`EM_X86_64`, `EM_AARCH64`), which a library must match.
const HOST_MACHINE: u16 = if cfg!(target_arch = "aarch64") {
    183
} else {
    62
};

/// Checks, without blocking and without mapping it, that `path` is a file the dynamic loader can
/// map safely: a regular file (by `stat`, so a FIFO is never opened), with a plausible ELF
/// header (magic, 64-bit, little-endian, this host's machine, `ET_DYN`), whose program headers'
/// file ranges and section header table lie inside the file. It does not prove the file sound
/// (the loader trusts what it maps; see "Trust"), only that mapping it cannot fault on a
/// truncation; a file changed between this check and `dlopen` is not covered.
///
/// # Errors
/// Why the file is refused, for a [`LoadError`]'s list of candidates.
pub fn check_library_file(path: &std::path::Path) -> Result<(), String> {
    use std::io::{Read, Seek, SeekFrom};
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    let ft = meta.file_type();
    if !ft.is_file() {
        let kind = if ft.is_dir() {
            "a directory"
        } else {
            use std::os::unix::fs::FileTypeExt;
            if ft.is_fifo() {
                "a FIFO"
            } else if ft.is_socket() {
                "a socket"
            } else if ft.is_char_device() || ft.is_block_device() {
                "a device"
            } else {
                "not a regular file"
            }
        };
        return Err(format!("{kind}, not a shared library"));
    }
    let size = meta.len();
    let mut f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut h = [0u8; 64];
    if size < 64 || f.read_exact(&mut h).is_err() {
        return Err(format!("{size} bytes: too short for an ELF header"));
    }
    if &h[..4] != b"\x7fELF" {
        return Err("not an ELF file (no ELF magic)".into());
    }
    if h[4] != 2 || h[5] != 1 {
        return Err("not a 64-bit little-endian ELF".into());
    }
    let u16_at = |b: &[u8], o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
    let u64_at = |b: &[u8], o: usize| {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[o..o + 8]);
        u64::from_le_bytes(a)
    };
    if u16_at(&h, 16) != 3 {
        return Err("not a shared object (ELF type is not ET_DYN)".into());
    }
    let machine = u16_at(&h, 18);
    if machine != HOST_MACHINE {
        return Err(format!(
            "ELF machine {machine}, this host is {HOST_MACHINE}"
        ));
    }
    let (phoff, shoff) = (u64_at(&h, 32), u64_at(&h, 40));
    let (phentsize, phnum) = (u64::from(u16_at(&h, 54)), u64::from(u16_at(&h, 56)));
    let (shentsize, mut shnum) = (u64::from(u16_at(&h, 58)), u64::from(u16_at(&h, 60)));
    let inside = |off: u64, len: u64| off.checked_add(len).is_some_and(|end| end <= size);
    let truncated = |what: &str| format!("truncated: {what} lies beyond the file's {size} bytes");
    if phnum == 0 || phentsize != 56 || !inside(phoff, phnum * 56) {
        return Err(truncated("the program header table"));
    }
    let mut ph = vec![0u8; (phnum * 56) as usize];
    f.seek(SeekFrom::Start(phoff))
        .and_then(|_| f.read_exact(&mut ph))
        .map_err(|e| e.to_string())?;
    for (i, e) in ph.chunks_exact(56).enumerate() {
        let (offset, filesz) = (u64_at(e, 8), u64_at(e, 32));
        if !inside(offset, filesz) {
            return Err(truncated(&format!("segment {i}")));
        }
    }
    if shoff != 0 {
        if shentsize != 64 || !inside(shoff, 64) {
            return Err(truncated("the section header table"));
        }
        if shnum == 0 {
            // Extended numbering: the count is section 0's sh_size.
            let mut s0 = [0u8; 64];
            f.seek(SeekFrom::Start(shoff))
                .and_then(|_| f.read_exact(&mut s0))
                .map_err(|e| e.to_string())?;
            shnum = u64_at(&s0, 32);
        }
        if !shnum.checked_mul(64).is_some_and(|len| inside(shoff, len)) {
            return Err(truncated("the section header table"));
        }
    }
    Ok(())
}

/// The loader's message without the repeated file name.
fn short_reason(e: &libloading::Error) -> String {
    let s = e.to_string();
    match s.rsplit_once(": ") {
        Some((_, tail)) if !tail.is_empty() => tail.to_string(),
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    /// A scratch file in a folder of its own, removed with the folder on drop (tests run in
    /// parallel, so no two share one; every run used to leave its folder in the temp dir).
    struct Scratch {
        dir: PathBuf,
        path: PathBuf,
    }

    impl core::ops::Deref for Scratch {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.path
        }
    }

    impl AsRef<Path> for Scratch {
        fn as_ref(&self) -> &Path {
            &self.path
        }
    }

    impl AsRef<std::ffi::OsStr> for Scratch {
        fn as_ref(&self) -> &std::ffi::OsStr {
            self.path.as_os_str()
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    fn scratch(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("anycuda-loader-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch {
            path: dir.join(name),
            dir,
        }
    }

    /// A real shared object: this test binary (a position-independent executable is ET_DYN).
    fn real() -> PathBuf {
        std::env::current_exe().unwrap()
    }

    #[test]
    fn the_loader_cache_lists_libc() {
        let cache = std::fs::read(LD_SO_CACHE).expect("this host has /etc/ld.so.cache");
        let libc = ld_so_cache_entries(&cache, "libc.so.6");
        assert!(
            libc.iter()
                .any(|p| p.ends_with("/libc.so.6") && Path::new(p).exists()),
            "{libc:?}"
        );
        assert!(ld_so_cache_entries(&cache, "libanycuda-no-such.so.1").is_empty());
    }

    #[test]
    fn a_damaged_loader_cache_gives_nothing_and_never_panics() {
        let cache = std::fs::read(LD_SO_CACHE).expect("this host has /etc/ld.so.cache");
        assert!(!ld_so_cache_entries(&cache, "libc.so.6").is_empty());
        // Every truncation, and every single corrupted header byte, is refused or parsed
        // without a panic; a cut inside the entry table is refused outright.
        for cut in (0..cache.len().min(4096)).step_by(7) {
            let short = &cache[..cut];
            let _ = ld_so_cache_entries(short, "libc.so.6");
        }
        assert!(ld_so_cache_entries(&cache[..100], "libc.so.6").is_empty());
        for i in 0..48 {
            let mut bad = cache.clone();
            bad[i] ^= 0xff;
            let _ = ld_so_cache_entries(&bad, "libc.so.6");
        }
        let mut huge = cache.clone();
        huge[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(ld_so_cache_entries(&huge, "libc.so.6").is_empty());
        assert!(ld_so_cache_entries(b"glibc-ld.so.cache1.1", "libc.so.6").is_empty());
        assert!(ld_so_cache_entries(&[], "libc.so.6").is_empty());
    }

    #[test]
    fn a_real_library_passes() {
        assert_eq!(check_library_file(&real()), Ok(()));
    }

    #[test]
    fn bad_files_are_refused_with_a_reason() {
        let bytes = std::fs::read(real()).unwrap();
        let cut = scratch("truncated.so");
        std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        let e = check_library_file(&cut).unwrap_err();
        assert!(e.contains("truncated"), "{e}");
        let head = scratch("head.so");
        std::fs::write(&head, &bytes[..40]).unwrap();
        assert!(check_library_file(&head).unwrap_err().contains("too short"));
        let text = scratch("text.so");
        std::fs::write(&text, "INPUT(-lfoo)\n".repeat(10)).unwrap();
        assert!(check_library_file(&text).unwrap_err().contains("ELF magic"));
        let dir = scratch("dir.so");
        std::fs::create_dir_all(&dir).unwrap();
        assert!(check_library_file(&dir).unwrap_err().contains("directory"));
        let mut other = bytes[..4096.min(bytes.len())].to_vec();
        other[18] = 40; // EM_ARM
        let arm = scratch("arm.so");
        std::fs::write(&arm, &other).unwrap();
        assert!(check_library_file(&arm).unwrap_err().contains("machine"));
        assert!(check_library_file(Path::new("/nonexistent/libx.so")).is_err());
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let fifo = scratch("fifo.so");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("SKIP: no mkfifo");
            return;
        }
        // Through the search, as ANYCUDA_*_LIBRARY would name it: no dlopen, no hang.
        std::env::set_var("ANYCUDA_TEST_LOADER_FIFO", &fifo);
        let s = Search {
            library: "test",
            explicit_env: "ANYCUDA_TEST_LOADER_FIFO",
            sonames: &[],
            root_envs: &[],
            lib_dirs: &[],
            default_roots: &[],
        };
        let e = s.open().unwrap_err().to_string();
        assert!(e.contains("FIFO"), "{e}");
    }

    #[test]
    fn a_truncated_library_named_explicitly_is_a_load_error() {
        let bytes = std::fs::read(real()).unwrap();
        let cut = scratch("explicit-truncated.so");
        std::fs::write(&cut, &bytes[..bytes.len() * 3 / 4]).unwrap();
        std::env::set_var("ANYCUDA_TEST_LOADER_CUT", &cut);
        let s = Search {
            library: "test",
            explicit_env: "ANYCUDA_TEST_LOADER_CUT",
            sonames: &[],
            root_envs: &[],
            lib_dirs: &[],
            default_roots: &[],
        };
        let e = s.open().unwrap_err().to_string();
        assert!(e.contains("truncated"), "{e}");
    }
}
