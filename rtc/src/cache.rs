//! A persistent cache of compiled programs, so run-time compilation does not cost every start.
//!
//! The safe layer's `Program` (`anycuda::core::Program`, which re-exports this module as
//! `anycuda::core::cache`) asks a [`ProgramCache`] before it runs the compiler and stores what a
//! successful compile made afterwards. The cache only stores bytes under a [`CacheKey`]; the key
//! is a SHA-256 digest of everything that decides the compiler's output (see `Program`'s "Cache"
//! section), and the bytes are the compiled code of every kind the compile made, its log and
//! its lowered names. The backends store the code they compile from source bundles here too
//! ([`BundleCodeCache`], the default of [`crate::rtc_bundle::code_cache`]).
//!
//! It lives in the compiler front end, below the backends, so that both `Program` (above) and
//! the backends' bundle compiles (below `anycuda::core`) use it without an arrow pointing up.
//!
//! | cuda.core | anycuda::core |
//! |---|---|
//! | `ProgramCacheResource` | [`ProgramCache`] |
//! | `InMemoryProgramCache` | [`InMemoryProgramCache`] |
//! | `FileStreamProgramCache` | [`FileProgramCache`] |
//!
//! The process-wide default, [`default_cache`], is a [`FileProgramCache`] in
//! `$ANYCUDA_CACHE_DIR`, else `$XDG_CACHE_HOME/anycuda`, else `$HOME/.cache/anycuda`, holding at
//! most `$ANYCUDA_CACHE_MAX_BYTES` (default [`DEFAULT_MAX_BYTES`], 1 GiB);
//! `ANYCUDA_CACHE_DISABLE=1` turns it off. A cache that fails (an unwritable folder, a full disk)
//! never fails a compile: the failure is logged and the compiler runs.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

/// The default size limit of the file cache: 1 GiB.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

/// Names the cache folder, overriding the XDG default.
pub const CACHE_DIR_ENV: &str = "ANYCUDA_CACHE_DIR";
/// `1` (or `true`, `yes`, `on`) turns the default cache off.
pub const CACHE_DISABLE_ENV: &str = "ANYCUDA_CACHE_DISABLE";
/// The default cache's size limit in bytes.
pub const CACHE_MAX_BYTES_ENV: &str = "ANYCUDA_CACHE_MAX_BYTES";

/// What identifies one compile: a SHA-256 digest of its inputs.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CacheKey([u8; 32]);

impl CacheKey {
    /// A key from its 32 digest bytes (e.g. one read back from a custom store).
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// The digest bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The digest as 64 lower-case hex digits (the file cache's entry name).
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl std::fmt::Debug for CacheKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CacheKey({})", self.hex())
    }
}

/// Builds a [`CacheKey`] from a sequence of fields. Every field is length-prefixed, so two
/// different sequences never hash the same bytes.
#[derive(Clone, Debug, Default)]
pub struct KeyBuilder(Sha256);

impl KeyBuilder {
    /// An empty key.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one field.
    pub fn field(&mut self, bytes: impl AsRef<[u8]>) -> &mut Self {
        let b = bytes.as_ref();
        self.0.update(&(b.len() as u64).to_le_bytes());
        self.0.update(b);
        self
    }

    /// The key of the fields added so far.
    pub fn finish(&self) -> CacheKey {
        CacheKey(self.0.clone().finish())
    }
}

/// A store of compiled programs: opaque bytes under a [`CacheKey`] (cuda.core's
/// `ProgramCacheResource`). Implementations must be safe to share between threads; a failure
/// to store is an `Err` that `Program` logs and ignores.
pub trait ProgramCache: Send + Sync + std::fmt::Debug {
    /// The bytes stored under `key`, if any. A damaged entry is a miss (and may be removed).
    fn get(&self, key: &CacheKey) -> Option<Vec<u8>>;

    /// Stores `value` under `key`, replacing what was there.
    ///
    /// # Errors
    /// Whatever kept the value from being stored (I/O errors for a file cache).
    fn put(&self, key: &CacheKey, value: &[u8]) -> io::Result<()>;
}

/// A cache in this process's memory, bounded by size, evicting the least recently used entry
/// first (cuda.core's `InMemoryProgramCache`).
#[derive(Debug)]
pub struct InMemoryProgramCache {
    max_bytes: u64,
    inner: Mutex<MemInner>,
}

#[derive(Debug, Default)]
struct MemInner {
    entries: HashMap<CacheKey, (Arc<[u8]>, u64)>,
    clock: u64,
    total: u64,
}

impl InMemoryProgramCache {
    /// An empty cache holding at most `max_bytes` of entries.
    pub fn new(max_bytes: u64) -> Self {
        Self {
            max_bytes,
            inner: Mutex::new(MemInner::default()),
        }
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// Whether it holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of all entries.
    pub fn total_bytes(&self) -> u64 {
        self.lock().total
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MemInner> {
        // The map stays consistent under every panic point (updates are single statements).
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl ProgramCache for InMemoryProgramCache {
    fn get(&self, key: &CacheKey) -> Option<Vec<u8>> {
        let mut g = self.lock();
        g.clock += 1;
        let now = g.clock;
        let e = g.entries.get_mut(key)?;
        e.1 = now;
        Some(e.0.to_vec())
    }

    fn put(&self, key: &CacheKey, value: &[u8]) -> io::Result<()> {
        let len = value.len() as u64;
        if len > self.max_bytes {
            return Ok(()); // could never be kept: not an error, just not cached
        }
        let mut g = self.lock();
        g.clock += 1;
        let now = g.clock;
        if let Some((old, _)) = g.entries.insert(*key, (Arc::from(value), now)) {
            g.total -= old.len() as u64;
        }
        g.total += len;
        while g.total > self.max_bytes {
            let Some(oldest) = g.entries.iter().min_by_key(|(_, e)| e.1).map(|(k, _)| *k) else {
                break;
            };
            if let Some((old, _)) = g.entries.remove(&oldest) {
                g.total -= old.len() as u64;
            }
        }
        Ok(())
    }
}

/// A cache of files in one folder, shared by every process that names it (cuda.core's
/// `FileStreamProgramCache`).
///
/// - One file per entry, `<key hex>.entry`: a header (magic, format version, the key, the
///   payload's length and its SHA-256) and the payload. An entry that does not match its header
///   (truncated, a flipped byte, another key) is never returned: it is removed and the compile
///   that missed stores a fresh one.
/// - Writes are atomic: the entry is written to a temporary file in the same folder and renamed
///   over the final name, so a reader sees the old entry or the new one, never half of one; two
///   processes storing the same key both succeed and one entry remains.
/// - Size: after each store, entries are removed oldest-used first until the folder's entries
///   total at most [`max_bytes`](Self::max_bytes). A hit touches the entry's modification time,
///   which is what "used" means. Files vanishing under another process's eviction are expected.
///   An entry larger than the limit is not stored.
/// - Trust: the checksum finds damage, not malice. Whoever can write the folder decides what
///   code a hit loads, so it must be trusted as the compiler is; folders the cache creates are
///   the user's alone (mode 0700 on Unix).
#[derive(Debug, Clone)]
pub struct FileProgramCache {
    dir: PathBuf,
    max_bytes: u64,
}

const ENTRY_MAGIC: &[u8; 16] = b"anycuda-program\0";
const ENTRY_FORMAT: u32 = 1;
const HEADER_LEN: usize = 16 + 4 + 32 + 8 + 32;
const ENTRY_EXT: &str = "entry";
/// Temporary files older than this are left over from a crashed writer and removed.
const STALE_TEMP: Duration = Duration::from_secs(600);

impl FileProgramCache {
    /// A cache in `dir` holding at most `max_bytes` of entries. Nothing is created until the
    /// first store.
    pub fn new(dir: impl Into<PathBuf>, max_bytes: u64) -> Self {
        Self {
            dir: dir.into(),
            max_bytes,
        }
    }

    /// Its folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Its size limit in bytes.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The file that holds (or would hold) the entry of `key`.
    pub fn entry_path(&self, key: &CacheKey) -> PathBuf {
        self.dir.join(format!("{}.{ENTRY_EXT}", key.hex()))
    }

    /// The entries now in the folder, with their sizes (none when the folder does not exist).
    pub fn entries(&self) -> Vec<(PathBuf, u64)> {
        self.scan(false)
            .into_iter()
            .map(|(p, len, _)| (p, len))
            .collect()
    }

    /// The entries with size and modification time; `tidy` also removes temporary files a
    /// crashed writer left behind.
    fn scan(&self, tidy: bool) -> Vec<(PathBuf, u64, SystemTime)> {
        let Ok(rd) = fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for e in rd.flatten() {
            let path = e.path();
            let name = e.file_name();
            let name = name.to_string_lossy();
            // Another process may remove any of these at any time: skip what vanished.
            let Ok(meta) = e.metadata() else { continue };
            let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            if name.starts_with(".tmp-") {
                if !tidy {
                    continue;
                }
                let age = SystemTime::now().duration_since(mtime).unwrap_or_default();
                if age > STALE_TEMP {
                    let _ = fs::remove_file(&path);
                }
                continue;
            }
            if meta.is_file() && path.extension().is_some_and(|x| x == ENTRY_EXT) {
                out.push((path, meta.len(), mtime));
            }
        }
        out
    }

    /// Removes entries, least recently used first, until they total at most the limit.
    fn evict(&self) {
        let mut entries = self.scan(true);
        let mut total: u64 = entries.iter().map(|e| e.1).sum();
        if total <= self.max_bytes {
            return;
        }
        entries.sort_by_key(|e| e.2);
        for (path, len, _) in entries {
            if total <= self.max_bytes {
                break;
            }
            match fs::remove_file(&path) {
                Ok(()) => {}
                // Gone already (another process evicted it): it no longer counts either.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => {
                    log::debug!("program cache: cannot evict {}: {e}", path.display());
                    continue;
                }
            }
            total = total.saturating_sub(len);
        }
    }

    /// The payload of a well-formed entry for `key`, or why it is not one.
    fn check(key: &CacheKey, bytes: &[u8]) -> Result<Vec<u8>, &'static str> {
        if bytes.len() < HEADER_LEN {
            return Err("shorter than its header");
        }
        let (head, payload) = bytes.split_at(HEADER_LEN);
        if &head[..16] != ENTRY_MAGIC {
            return Err("bad magic");
        }
        if head[16..20] != ENTRY_FORMAT.to_le_bytes() {
            return Err("another entry format");
        }
        if &head[20..52] != key.as_bytes() {
            return Err("another key");
        }
        let mut len = [0u8; 8];
        len.copy_from_slice(&head[52..60]);
        if u64::from_le_bytes(len) != payload.len() as u64 {
            return Err("length does not match (truncated?)");
        }
        if head[60..92] != sha256(payload) {
            return Err("checksum does not match");
        }
        Ok(payload.to_vec())
    }
}

/// Creates `dir` and its parents; on Unix a folder it creates is the user's alone (0700), since
/// whoever can write entries decides what code a hit loads.
fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir)
}

static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

impl ProgramCache for FileProgramCache {
    fn get(&self, key: &CacheKey) -> Option<Vec<u8>> {
        let path = self.entry_path(key);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
            Err(e) => {
                log::warn!("program cache: cannot read {}: {e}", path.display());
                return None;
            }
        };
        match Self::check(key, &bytes) {
            Ok(payload) => {
                // Mark it used for the eviction order; failing to is harmless.
                if let Ok(f) = fs::File::options().write(true).open(&path) {
                    let _ = f.set_modified(SystemTime::now());
                }
                Some(payload)
            }
            Err(why) => {
                log::warn!(
                    "program cache: ignoring damaged entry {} ({why}); it will be replaced",
                    path.display()
                );
                let _ = fs::remove_file(&path);
                None
            }
        }
    }

    fn put(&self, key: &CacheKey, value: &[u8]) -> io::Result<()> {
        if (HEADER_LEN + value.len()) as u64 > self.max_bytes {
            return Ok(()); // could never be kept: not an error, just not cached
        }
        create_private_dir(&self.dir)?;
        let tmp = self.dir.join(format!(
            ".tmp-{}-{}-{}",
            std::process::id(),
            TEMP_SEQ.fetch_add(1, Ordering::Relaxed),
            key.hex()
        ));
        let write = || -> io::Result<()> {
            let mut f = fs::File::create_new(&tmp)?;
            let mut head = Vec::with_capacity(HEADER_LEN);
            head.extend_from_slice(ENTRY_MAGIC);
            head.extend_from_slice(&ENTRY_FORMAT.to_le_bytes());
            head.extend_from_slice(key.as_bytes());
            head.extend_from_slice(&(value.len() as u64).to_le_bytes());
            head.extend_from_slice(&sha256(value));
            f.write_all(&head)?;
            f.write_all(value)?;
            f.flush()?;
            // Same folder, so the rename is atomic: readers see no partial entry.
            fs::rename(&tmp, self.entry_path(key))
        };
        if let Err(e) = write() {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        self.evict();
        Ok(())
    }
}

/// What the environment asks of the default cache: `None` when it is disabled or no folder
/// can be named. `var` reads one variable (the process environment in [`default_cache`]).
pub fn file_cache_from_env(var: impl Fn(&str) -> Option<OsString>) -> Option<FileProgramCache> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty());
    if let Some(v) = set(CACHE_DISABLE_ENV) {
        let v = v.to_string_lossy().trim().to_ascii_lowercase();
        if matches!(v.as_str(), "1" | "true" | "yes" | "on") {
            return None;
        }
    }
    let dir = match set(CACHE_DIR_ENV) {
        Some(d) => PathBuf::from(d),
        None => {
            // XDG: a relative XDG_CACHE_HOME is invalid and ignored.
            let xdg = set("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute());
            match xdg {
                Some(x) => x.join("anycuda"),
                None => PathBuf::from(set("HOME")?).join(".cache").join("anycuda"),
            }
        }
    };
    let max_bytes = match set(CACHE_MAX_BYTES_ENV) {
        Some(v) => match v.to_string_lossy().trim().parse::<u64>() {
            Ok(n) => n,
            Err(_) => {
                log::warn!(
                    "{CACHE_MAX_BYTES_ENV}={v:?} is not a byte count; using {DEFAULT_MAX_BYTES}"
                );
                DEFAULT_MAX_BYTES
            }
        },
        None => DEFAULT_MAX_BYTES,
    };
    Some(FileProgramCache::new(dir, max_bytes))
}

/// The process-wide cache every `Program` starts with: a
/// [`FileProgramCache`] configured by the environment when first asked (see the module
/// documentation), or `None` when `ANYCUDA_CACHE_DISABLE=1` or no folder can be named.
pub fn default_cache() -> Option<Arc<dyn ProgramCache>> {
    static DEFAULT: OnceLock<Option<Arc<dyn ProgramCache>>> = OnceLock::new();
    DEFAULT
        .get_or_init(|| {
            file_cache_from_env(|n| std::env::var_os(n))
                .map(|c| Arc::new(c) as Arc<dyn ProgramCache>)
        })
        .clone()
}

/// A [`ProgramCache`] as the backends' store for code compiled from PTX source bundles
/// (`anycuda nvcc`'s, compiled by the HIP backend when such PTX loads on AMD, and by the CUDA
/// backend when its driver refuses such PTX). Unless another is installed
/// ([`crate::rtc_bundle::install_code_cache`]), the backends use the [`default_cache`] one
/// ([`crate::rtc_bundle::code_cache`]), so those compiles are cached like `Program`'s.
#[derive(Debug, Clone, Default)]
pub struct BundleCodeCache(Option<Arc<dyn ProgramCache>>);

impl BundleCodeCache {
    /// The [`default_cache`], looked up at each use (none when it is disabled).
    pub const fn default_cache() -> Self {
        Self(None)
    }

    /// A given cache.
    pub fn new(cache: Arc<dyn ProgramCache>) -> Self {
        Self(Some(cache))
    }

    fn cache(&self) -> Option<Arc<dyn ProgramCache>> {
        self.0.clone().or_else(default_cache)
    }

    fn key(fields: &[&[u8]]) -> CacheKey {
        let mut k = KeyBuilder::new();
        k.field(b"anycuda bundle code");
        k.field((fields.len() as u64).to_le_bytes());
        for f in fields {
            k.field(f);
        }
        k.finish()
    }
}

impl crate::rtc_bundle::CodeCache for BundleCodeCache {
    fn get(&self, fields: &[&[u8]]) -> Option<Vec<u8>> {
        self.cache()?.get(&Self::key(fields))
    }

    fn put(&self, fields: &[&[u8]], code: &[u8]) {
        if let Some(c) = self.cache() {
            if let Err(e) = c.put(&Self::key(fields), code) {
                log::warn!("program cache: cannot store a bundle's code: {e}");
            }
        }
    }
}

/// SHA-256 (FIPS 180-4), for cache keys and entry checksums: no dependency for 60 lines.
#[derive(Clone, Debug)]
struct Sha256 {
    h: [u32; 8],
    buf: [u8; 64],
    fill: usize,
    total: u64,
}

impl Default for Sha256 {
    fn default() -> Self {
        Self {
            h: [
                0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
                0x5be0cd19,
            ],
            buf: [0; 64],
            fill: 0,
            total: 0,
        }
    }
}

const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

impl Sha256 {
    fn update(&mut self, mut data: &[u8]) {
        self.total = self.total.wrapping_add(data.len() as u64);
        while !data.is_empty() {
            let n = (64 - self.fill).min(data.len());
            self.buf[self.fill..self.fill + n].copy_from_slice(&data[..n]);
            self.fill += n;
            data = &data[n..];
            if self.fill == 64 {
                let block = self.buf;
                self.block(&block);
                self.fill = 0;
            }
        }
    }

    fn block(&mut self, block: &[u8; 64]) {
        let mut w = [0u32; 64];
        for (i, c) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = self.h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = h
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            h = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (s, v) in self.h.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *s = s.wrapping_add(v);
        }
    }

    fn finish(mut self) -> [u8; 32] {
        let bits = self.total.wrapping_mul(8);
        self.update(&[0x80]);
        while self.fill != 56 {
            self.update(&[0]);
        }
        self.update(&bits.to_be_bytes());
        let mut out = [0u8; 32];
        for (o, h) in out.chunks_exact_mut(4).zip(self.h) {
            o.copy_from_slice(&h.to_be_bytes());
        }
        out
    }
}

/// The SHA-256 digest of `data`.
fn sha256(data: &[u8]) -> [u8; 32] {
    let mut s = Sha256::default();
    s.update(data);
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn bundle_code_goes_into_the_given_cache() {
        use crate::rtc_bundle::CodeCache;
        let mem = Arc::new(InMemoryProgramCache::new(1 << 20));
        let c = BundleCodeCache::new(mem.clone());
        let key: [&[u8]; 2] = [b"bundle", b"gfx90a"];
        assert_eq!(c.get(&key), None);
        c.put(&key, b"\x7fELF code");
        assert_eq!(c.get(&key).as_deref(), Some(&b"\x7fELF code"[..]));
        assert_eq!(mem.len(), 1);
        // Other fields, or the same bytes split differently, are another key.
        assert_eq!(c.get(&[b"bundle", b"gfx908"]), None);
        assert_eq!(c.get(&[b"bundlegfx90a"]), None);
    }

    #[test]
    fn sha256_matches_the_fips_examples() {
        assert_eq!(
            hex(&sha256(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            hex(&sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hex(&sha256(
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
            )),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        // Fed in pieces across block boundaries: the same digest.
        let mut s = Sha256::default();
        for _ in 0..1000 {
            s.update(&[b'a'; 1000]);
        }
        assert_eq!(
            hex(&s.finish()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
    }

    #[test]
    fn key_fields_are_length_prefixed() {
        let k = |parts: &[&str]| {
            let mut b = KeyBuilder::new();
            for p in parts {
                b.field(p);
            }
            b.finish()
        };
        assert_ne!(k(&["ab", "c"]), k(&["a", "bc"]));
        assert_eq!(k(&["ab", "c"]), k(&["ab", "c"]));
        assert_eq!(k(&["x"]).hex().len(), 64);
    }

    #[test]
    fn environment_picks_folder_limit_and_off_switch() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |n: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == n)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let c = file_cache_from_env(env(&[("HOME", "/h")])).unwrap();
        assert_eq!(c.dir(), Path::new("/h/.cache/anycuda"));
        assert_eq!(c.max_bytes(), DEFAULT_MAX_BYTES);
        let c = file_cache_from_env(env(&[("HOME", "/h"), ("XDG_CACHE_HOME", "/x")])).unwrap();
        assert_eq!(c.dir(), Path::new("/x/anycuda"));
        // A relative XDG_CACHE_HOME is not valid XDG: ignored.
        let c = file_cache_from_env(env(&[("HOME", "/h"), ("XDG_CACHE_HOME", "rel")])).unwrap();
        assert_eq!(c.dir(), Path::new("/h/.cache/anycuda"));
        let c = file_cache_from_env(env(&[
            ("HOME", "/h"),
            ("XDG_CACHE_HOME", "/x"),
            (CACHE_DIR_ENV, "/mine"),
            (CACHE_MAX_BYTES_ENV, "4096"),
        ]))
        .unwrap();
        assert_eq!(c.dir(), Path::new("/mine"));
        assert_eq!(c.max_bytes(), 4096);
        let c = file_cache_from_env(env(&[("HOME", "/h"), (CACHE_MAX_BYTES_ENV, "lots")])).unwrap();
        assert_eq!(c.max_bytes(), DEFAULT_MAX_BYTES);
        for off in ["1", "true", "ON"] {
            let pairs: &'static [(&str, &str)] =
                Box::leak(vec![("HOME", "/h"), (CACHE_DISABLE_ENV, off)].into_boxed_slice());
            assert!(file_cache_from_env(env(pairs)).is_none(), "{off}");
        }
        let c = file_cache_from_env(env(&[("HOME", "/h"), (CACHE_DISABLE_ENV, "0")]));
        assert!(c.is_some());
        assert!(
            file_cache_from_env(env(&[])).is_none(),
            "no HOME, no folder"
        );
    }

    #[test]
    fn in_memory_cache_evicts_least_recently_used() {
        let c = InMemoryProgramCache::new(10);
        let key = |s: &str| KeyBuilder::new().field(s).finish();
        c.put(&key("a"), b"aaaa").unwrap();
        c.put(&key("b"), b"bbbb").unwrap();
        assert_eq!(c.get(&key("a")).as_deref(), Some(&b"aaaa"[..]));
        c.put(&key("c"), b"cccc").unwrap(); // 12 bytes > 10: b is the least recently used
        assert!(c.get(&key("b")).is_none());
        assert!(c.get(&key("a")).is_some() && c.get(&key("c")).is_some());
        assert_eq!(c.total_bytes(), 8);
        c.put(&key("big"), &[0; 11]).unwrap(); // larger than the limit: not kept
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn file_cache_checks_entries_and_tidies_its_folder() {
        let root = std::env::temp_dir().join(format!("anycuda-fcache-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let dir = root.join("a/b");
        let c = FileProgramCache::new(&dir, 1 << 20);
        let k = KeyBuilder::new().field("k").finish();
        assert!(c.get(&k).is_none(), "no folder yet: a miss, not an error");
        c.put(&k, b"payload").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "created private");
        }
        assert_eq!(c.get(&k).as_deref(), Some(&b"payload"[..]));
        // An entry renamed to another key's name is refused: the header names its key.
        let other = KeyBuilder::new().field("other").finish();
        fs::copy(c.entry_path(&k), c.entry_path(&other)).unwrap();
        assert!(c.get(&other).is_none());
        assert!(!c.entry_path(&other).exists(), "a refused entry is removed");
        // A stale temporary file is tidied away by the next store; a fresh one is left alone.
        let stale = dir.join(".tmp-1-2-x");
        fs::write(&stale, b"partial").unwrap();
        fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(SystemTime::now() - 2 * STALE_TEMP)
            .unwrap();
        let fresh = dir.join(".tmp-1-3-x");
        fs::write(&fresh, b"partial").unwrap();
        c.put(&k, b"again").unwrap();
        assert!(!stale.exists() && fresh.exists());
        // An entry another process removed is a miss, and eviction over what is left works.
        fs::remove_file(c.entry_path(&k)).unwrap();
        assert!(c.get(&k).is_none());
        c.evict();
        assert!(c.entries().is_empty());
        fs::remove_dir_all(&root).unwrap();
    }
}
