//! Finding and opening the vendor libraries: sonames first, then the environment's install dirs.
//!
//! Loading never panics: every failure becomes a [`LoadError`] naming what was tried.
//!
//! # Trust
//! A library named by the environment (`ANYCUDA_*_LIBRARY`, `CUDA_PATH`/`CUDA_HOME`,
//! `ROCM_PATH`/`HIP_PATH`) or found on the loader's path is **trusted**: loading it runs its
//! initialisers, and its entry points are called with CUDA's or HIP's ABI on the caller's
//! pointers. anycuda checks that the symbols exist and the version is new enough, nothing
//! more; whoever can set those variables can run code in the process, as with `LD_PRELOAD`.

use crate::error::LoadError;
use libloading::Library;
use std::ffi::{c_void, CStr};
use std::path::PathBuf;

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
    /// Sonames tried through the system loader, in order.
    pub sonames: &'static [&'static str],
    /// Environment variables naming install roots (e.g. `CUDA_PATH`), tried after the sonames.
    pub root_envs: &'static [&'static str],
    /// Subdirectories of each root holding the library.
    pub lib_dirs: &'static [&'static str],
    /// Fixed install roots tried last (e.g. `/opt/rocm`).
    pub default_roots: &'static [&'static str],
}

impl Search {
    /// Every candidate in search order: the explicit file alone when its variable is set; else
    /// the sonames, the roots' folders, then the sonames by path (the loader's cache,
    /// `LD_LIBRARY_PATH`, [`SYSTEM_LIB_DIRS`]), which find the vendor's files when a soname
    /// answers with anycuda's own C ABI.
    pub fn candidates(&self) -> Vec<String> {
        if let Some(p) = std::env::var_os(self.explicit_env).filter(|p| !p.is_empty()) {
            return vec![p.to_string_lossy().into_owned()];
        }
        let mut out: Vec<String> = self.sonames.iter().map(|s| s.to_string()).collect();
        let roots = self
            .root_envs
            .iter()
            .filter_map(|e| {
                std::env::var_os(e)
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from)
            })
            .chain(self.default_roots.iter().map(PathBuf::from));
        for root in roots {
            for dir in self.lib_dirs {
                for so in self.sonames {
                    let p = root.join(dir).join(so).to_string_lossy().into_owned();
                    if !out.contains(&p) {
                        out.push(p);
                    }
                }
            }
        }
        // The same libraries by path: when anycuda's C ABI is loaded as `libcuda.so.1` (and the
        // other sonames), the loader answers those sonames with anycuda itself, which `open`
        // refuses; these paths still find the vendor's files. The loader's own cache first
        // (what the soname would have found without anycuda's folder), then the library path,
        // then the usual system folders.
        let cache = std::fs::read(LD_SO_CACHE).unwrap_or_default();
        let ld_path = std::env::var("LD_LIBRARY_PATH").unwrap_or_default();
        for so in self.sonames {
            let from_cache = ld_so_cache_entries(&cache, so);
            let dirs = ld_path
                .split(':')
                .filter(|d| !d.is_empty())
                .chain(SYSTEM_LIB_DIRS.iter().copied());
            let paths = from_cache
                .into_iter()
                .chain(dirs.map(|d| PathBuf::from(d).join(so).to_string_lossy().into_owned()));
            for p in paths {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        out
    }

    /// Opens the first candidate that loads and is not anycuda's own C ABI (a library
    /// exporting [`CAPI_MARKER`] is refused, logged, and listed with the reason).
    ///
    /// # Errors
    /// [`LoadError::NotFound`] listing every candidate and why it failed.
    pub fn open(&self) -> Result<Opened, LoadError> {
        let mut tried = Vec::new();
        for c in self.candidates() {
            // A path (not a soname) is checked before the dynamic loader maps it: a FIFO would
            // block dlopen, and a truncated file kills the process with SIGBUS inside it.
            if c.contains('/') {
                if let Err(why) = check_library_file(std::path::Path::new(&c)) {
                    tried.push(format!("{c} ({why})"));
                    continue;
                }
            }
            // SAFETY: opening a vendor library runs its initialisers; that is what using it means.
            match unsafe { Library::new(&c) } {
                Ok(lib) => {
                    let (lib, ours) = is_anycuda_capi(lib);
                    let o = Opened { lib, path: c };
                    if ours {
                        let at = o.resolved_path(CAPI_MARKER);
                        log::info!(
                            "{}: {} is anycuda's own C ABI ({at}), not the vendor's library: refused, so anycuda never loads itself",
                            self.library,
                            o.path
                        );
                        tried.push(format!(
                            "{} (anycuda's own C ABI, {at}: refused, anycuda never loads itself)",
                            o.path
                        ));
                        continue;
                    }
                    log::debug!("{}: opened {}", self.library, o.path);
                    return Ok(o);
                }
                Err(e) => tried.push(format!("{c} ({})", short_reason(&e))),
            }
        }
        Err(LoadError::NotFound {
            library: self.library,
            tried,
        })
    }
}

/// The ELF machine of this host (`EM_X86_64`, `EM_AARCH64`), which a library must match.
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
