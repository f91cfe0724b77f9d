//! `cuGetExportTable` on HIP: the driver's private tables that NVIDIA's runtime asks for when it
//! is linked into a program (`-cudart static`, nvcc's default) and reaches anycuda only through
//! `libcuda.so.1`.
//!
//! NVIDIA's runtime (`libcudart_static.a` of CUDA 12.x and 13.x) gets every driver function
//! through `cuGetProcAddress_v2`, `cuGetExportTable` among them, then asks for seven tables by
//! UUID before its first call returns. Six are required: without one, every runtime call of the
//! program answers the code the driver gave. Its modules go through public functions
//! (`cuLibraryLoadData` on nvcc's fat binary wrapper, `cuLibraryGetKernel`, `cuLaunchKernel`), so
//! fat binaries take the PTX route of [`super::library`] like any other image.
//!
//! What each table is, as observed on NVIDIA's driver 580 (CUDA 13.0) under the runtimes of
//! CUDA 13.0 and 12.9, and what anycuda serves (docs/c-abi.md, "Statically linked runtime", has
//! the same table for users). A table is an array of pointers; in all but the context-local
//! storage, slot 0 is the table's size in bytes:
//!
//! | UUID | name | slots the runtime calls | anycuda |
//! |---|---|---|---|
//! | `6bd5fb6c-5bf4-e74a-8987-d93912fd9df9` | runtime interface | 2: a device's primary context, not retained | [`primary_context`]; 7 (no-op) and 12 (compilers loaded: success) for CUDA 13.1's runtime |
//! | `a094798c-2e74-2e74-93f2-0800200c0a66` | tools callback hooks | 2, 6: buffers the runtime reads for attached tools | zeroed buffers: no tool attached |
//! | `42d85a81-23f6-cb47-8298-f6e78a3aecdc` | tools thread-local storage | none | present, entries refuse |
//! | `c693336e-1121-df11-a8c3-68f355d89593` | context-local storage (no size slot) | 0 put, 1 delete, 2 get (on nearly every runtime call) | [`Cls`]: values per (context, key), destructors run when the primary context is reset |
//! | `263e8860-7cd2-6143-92f6-bbd5006dfa7e` | context checks | 2: is this context a wrapper (no), 3: a check (0) | as NVIDIA answers for a plain context |
//! | `d4082055-bde6-704b-8d34-ba123c66e1f2` | integrity check | 1: a keyed hash the runtime compares with its own | [`integrity_hash`] over anycuda's own tables and devices |
//! | `f8cff951-2146-8b4e-b9e2-fb469e7c0dd9` | CUDA 13's first request | none | refused: the runtime goes on without it (as on NVIDIA when refused) |
//!
//! Slots NVIDIA fills whose meaning is unknown hold an entry that logs the table and slot and
//! answers `CUDA_ERROR_NOT_SUPPORTED`, never a NULL a caller would jump through. Any other UUID
//! is refused with `CUDA_ERROR_NOT_SUPPORTED` and a warning naming it and the library that
//! asked.
//!
//! The entries are called by the runtime directly, not through anycuda's C ABI, so they reach the
//! backend anycuda's selection installed ([`install`]); until then every table is refused.

use super::support::{INVALID_VALUE, NOT_SUPPORTED, SUCCESS};
use crate::HipBackend;
use anycuda_api::driver::{CUcontext, CUdevice, CUdevice_attribute, CUresult, CUuuid};
use anycuda_api::traits::Driver;
use core::cell::UnsafeCell;
use core::ffi::{c_int, c_uint, c_void};
use std::collections::HashMap;
use std::sync::{OnceLock, PoisonError, RwLock};

/// The backend the entries call (anycuda's process-wide HIP backend).
static PROCESS: OnceLock<&'static HipBackend> = OnceLock::new();

/// Names the backend the tables' entries call: anycuda's process-wide HIP backend, installed
/// once by the backend selection when it loads it. Later calls are ignored.
pub fn install(b: &'static HipBackend) {
    let _ = PROCESS.set(b);
}

fn backend() -> Option<&'static HipBackend> {
    PROCESS.get().copied()
}

// ------------------------------------------------------------------ the tables

type Slot = *const c_void;

/// A table as the runtime reads it: pointer-sized slots.
#[repr(C)]
struct Table<const N: usize>([Slot; N]);
// SAFETY: the slots are function addresses and sizes, never written after initialisation.
unsafe impl<const N: usize> Sync for Table<N> {}

/// Slot 0 of a sized table: its size in bytes, slot 0 included.
const fn size_of<const N: usize>() -> Slot {
    (N * core::mem::size_of::<Slot>()) as Slot
}

const NIL: Slot = core::ptr::null();

/// Runtime interface (`6bd5fb6c-…`), 13 slots as NVIDIA's driver 580 has.
static CUDART: Table<13> = Table([
    size_of::<13>(),
    refused::<0, 1> as Slot, // module from a fat binary wrapper (CUDA <= 11 runtimes)
    primary_context as Slot,
    refused::<0, 3> as Slot,
    refused::<0, 4> as Slot,
    refused::<0, 5> as Slot,
    refused::<0, 6> as Slot, // module from a wrapper, extended (CUDA <= 11 runtimes)
    no_op as Slot,
    refused::<0, 8> as Slot, // module from a fat binary header (CUDA <= 11 runtimes)
    refused::<0, 9> as Slot,
    NIL, // NULL on NVIDIA's driver too
    refused::<0, 11> as Slot,
    compilers_loaded as Slot,
]);

/// Tools callback hooks (`a094798c-…`).
static HOOKS: Table<7> = Table([
    size_of::<7>(),
    refused::<1, 1> as Slot,
    hooks_buffer_2 as Slot,
    refused::<1, 3> as Slot,
    refused::<1, 4> as Slot,
    refused::<1, 5> as Slot,
    hooks_buffer_6 as Slot,
]);

/// Tools thread-local storage (`42d85a81-…`): requested, never called by the runtimes seen.
static TOOLS_TLS: Table<3> = Table([
    size_of::<3>(),
    refused::<2, 1> as Slot,
    refused::<2, 2> as Slot,
]);

/// Context-local storage (`c693336e-…`): no size slot, a NULL slot ends it.
static CLS_TABLE: Table<4> = Table([cls_put as Slot, cls_delete as Slot, cls_get as Slot, NIL]);

/// Context checks (`263e8860-…`), 15 slots as NVIDIA's driver 580 has.
static CONTEXT_CHECKS: Table<15> = Table([
    size_of::<15>(),
    refused::<4, 1> as Slot,
    context_is_wrapper as Slot,
    context_check_3 as Slot,
    refused::<4, 4> as Slot,
    refused::<4, 5> as Slot,
    refused::<4, 6> as Slot,
    refused::<4, 7> as Slot,
    refused::<4, 8> as Slot,
    refused::<4, 9> as Slot,
    refused::<4, 10> as Slot,
    refused::<4, 11> as Slot,
    refused::<4, 12> as Slot,
    refused::<4, 13> as Slot,
    refused::<4, 14> as Slot,
]);

/// Integrity check (`d4082055-…`).
static INTEGRITY: Table<3> = Table([
    size_of::<3>(),
    integrity_check as Slot,
    refused::<5, 2> as Slot,
]);

/// One table the runtime may ask for: its UUID, name and what anycuda answers.
struct Known {
    uuid: [u8; 16],
    name: &'static str,
    table: Option<fn() -> Slot>,
}

/// Every UUID anycuda knows, served or refused by name. Index = the `T` of [`refused`].
const KNOWN: &[Known] = &[
    Known {
        uuid: uuid("6bd5fb6c5bf4e74a8987d93912fd9df9"),
        name: "runtime interface",
        table: Some(|| CUDART.0.as_ptr().cast()),
    },
    Known {
        uuid: uuid("a094798c2e742e7493f20800200c0a66"),
        name: "tools callback hooks",
        table: Some(|| HOOKS.0.as_ptr().cast()),
    },
    Known {
        uuid: uuid("42d85a8123f6cb478298f6e78a3aecdc"),
        name: "tools thread-local storage",
        table: Some(|| TOOLS_TLS.0.as_ptr().cast()),
    },
    Known {
        uuid: uuid("c693336e1121df11a8c368f355d89593"),
        name: "context-local storage",
        table: Some(|| CLS_TABLE.0.as_ptr().cast()),
    },
    Known {
        uuid: uuid("263e88607cd2614392f6bbd5006dfa7e"),
        name: "context checks",
        table: Some(|| CONTEXT_CHECKS.0.as_ptr().cast()),
    },
    Known {
        uuid: uuid("d4082055bde6704b8d34ba123c66e1f2"),
        name: "integrity check",
        table: Some(|| INTEGRITY.0.as_ptr().cast()),
    },
    Known {
        uuid: uuid("f8cff95121468b4eb9e2fb469e7c0dd9"),
        name: "CUDA 13 runtime's first request (optional)",
        table: None,
    },
    Known {
        uuid: uuid("0ca50b8c1004929a89a7d0df10e77286"),
        name: "context creation bypass (PhysX)",
        table: None,
    },
    Known {
        uuid: uuid("195bcbf4d67d024aacc51d29cea631ae"),
        name: "heap access",
        table: None,
    },
    Known {
        uuid: uuid("b10541e1f7c7c74a9f64f223be99f1e2"),
        name: "device extended runtime (OptiX)",
        table: None,
    },
];

/// A UUID's 16 bytes from its 32 hex digits, in memory order (as `CUuuid.bytes` holds them).
const fn uuid(hex: &str) -> [u8; 16] {
    const fn digit(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => panic!("not a lower-case hex digit"),
        }
    }
    let h = hex.as_bytes();
    assert!(h.len() == 32);
    let mut out = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        out[i] = digit(h[2 * i]) << 4 | digit(h[2 * i + 1]);
        i += 1;
    }
    out
}

/// A UUID as its usual text, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
pub(crate) fn uuid_text(u: &[u8; 16]) -> String {
    let mut s = String::with_capacity(36);
    for (i, b) in u.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// `cuGetExportTable`: the tables above by UUID; `CUDA_ERROR_NOT_SUPPORTED` for one anycuda
/// refuses or does not know (logged with the library that asked), `CUDA_ERROR_INVALID_VALUE`
/// for a NULL argument. Every request is logged at debug level with its answer.
pub(crate) unsafe fn cuGetExportTable(
    _b: &HipBackend,
    ppExportTable: *mut *const c_void,
    pExportTableId: *const CUuuid,
) -> CUresult {
    if ppExportTable.is_null() || pExportTableId.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: checked non-NULL; a CUuuid is 16 plain bytes.
    let id: [u8; 16] = unsafe { core::ptr::read_unaligned(pExportTableId.cast()) };
    let text = uuid_text(&id);
    let Some(k) = KNOWN.iter().find(|k| k.uuid == id) else {
        log::warn!(
            "cuGetExportTable: unknown table {text} asked by {}: CUDA_ERROR_NOT_SUPPORTED",
            anycuda_api::loader::calling_object().unwrap_or_else(|| "an unknown library".into())
        );
        return NOT_SUPPORTED;
    };
    match (k.table, backend()) {
        (Some(t), Some(_)) => {
            log::debug!("cuGetExportTable: {text} ({}): served", k.name);
            // SAFETY: checked non-NULL.
            unsafe { *ppExportTable = t() };
            SUCCESS
        }
        (Some(_), None) => {
            log::warn!(
                "cuGetExportTable: {text} ({}): refused, CUDA_ERROR_NOT_SUPPORTED: no process \
                 backend installed for the entries to call",
                k.name
            );
            NOT_SUPPORTED
        }
        (None, _) => {
            log::debug!(
                "cuGetExportTable: {text} ({}): not served, CUDA_ERROR_NOT_SUPPORTED",
                k.name
            );
            NOT_SUPPORTED
        }
    }
}

// ------------------------------------------------------------------ entries

/// A slot whose meaning is unknown: logs table `T` (index in [`KNOWN`]) and slot `S`, answers
/// `CUDA_ERROR_NOT_SUPPORTED`. No runtime seen calls one; a caller that does gets an error code,
/// never a jump through NULL.
unsafe extern "C" fn refused<const T: usize, const S: usize>() -> CUresult {
    // A table index outside `KNOWN` does not compile, so the indexing below cannot panic.
    const { assert!(T < KNOWN.len()) };
    log::warn!(
        "cuGetExportTable: slot {S} of the {} table ({}) is not served: CUDA_ERROR_NOT_SUPPORTED",
        KNOWN[T].name,
        uuid_text(&KNOWN[T].uuid)
    );
    NOT_SUPPORTED
}

/// Runtime interface, slot 2: the primary context of `dev`, without retaining it (NVIDIA's
/// driver hands out the handle `cuDevicePrimaryCtxRetain` returns later; the runtime calls this
/// while it enumerates devices, before it retains one).
unsafe extern "C" fn primary_context(out: *mut CUcontext, dev: CUdevice) -> CUresult {
    if out.is_null() {
        return INVALID_VALUE;
    }
    let Some(b) = backend() else {
        return CUresult::CUDA_ERROR_NOT_INITIALIZED;
    };
    // SAFETY: plain device ordinal, validated by HIP.
    match unsafe { super::context::primary_handle(b, dev) } {
        Ok(c) => {
            // SAFETY: checked non-NULL.
            unsafe { *out = c };
            SUCCESS
        }
        Err(e) => {
            log::warn!(
                "cuGetExportTable: runtime interface: primary context of device {dev}: {e:?}"
            );
            e
        }
    }
}

/// Runtime interface, slot 7: takes a value and returns nothing (what it tells the driver is
/// unknown; NVIDIA's effect is not observable from the runtime).
unsafe extern "C" fn no_op(_: usize) {}

/// Runtime interface, slot 12 (CUDA 13.1's runtime): "load the compilers"; nothing to load here.
unsafe extern "C" fn compilers_loaded() -> CUresult {
    SUCCESS
}

/// Room for what a tools callback buffer may hold (the runtime reads it; zero is "no tool").
const HOOK_WORDS: usize = 1024;

/// A zeroed buffer the runtime may read and write; Rust never touches its contents.
struct Buffer(UnsafeCell<[u64; HOOK_WORDS]>);
// SAFETY: only its address is handed out; anycuda never reads or writes through it.
unsafe impl Sync for Buffer {}

static HOOKS_2: Buffer = Buffer(UnsafeCell::new([0; HOOK_WORDS]));
static HOOKS_6: Buffer = Buffer(UnsafeCell::new([0; HOOK_WORDS]));

/// Hands out `buf` and the count NVIDIA's driver reports with it.
unsafe fn hooks_buffer(which: &'static Buffer, count: usize, buf: *mut *mut c_void, n: *mut usize) {
    if !buf.is_null() {
        // SAFETY: checked non-NULL.
        unsafe { *buf = which.0.get().cast() };
    }
    if !n.is_null() {
        // SAFETY: checked non-NULL.
        unsafe { *n = count };
    }
}

/// Tools callback hooks, slot 2: a zeroed buffer and 1024 (NVIDIA's count); zero means no
/// tool is attached.
unsafe extern "C" fn hooks_buffer_2(buf: *mut *mut c_void, n: *mut usize) {
    // SAFETY: forwarded out-pointers, each checked.
    unsafe { hooks_buffer(&HOOKS_2, 1024, buf, n) }
}

/// Tools callback hooks, slot 6: a zeroed buffer and 14 (NVIDIA's count).
unsafe extern "C" fn hooks_buffer_6(buf: *mut *mut c_void, n: *mut usize) {
    // SAFETY: forwarded out-pointers, each checked.
    unsafe { hooks_buffer(&HOOKS_6, 14, buf, n) }
}

/// Context checks, slot 2: whether `ctx` wraps another context. anycuda's contexts never do:
/// `*is_wrapper = 0`, `inner` untouched (NVIDIA's answer for a plain context).
unsafe extern "C" fn context_is_wrapper(
    _ctx: CUcontext,
    is_wrapper: *mut u32,
    _inner: *mut CUcontext,
) -> CUresult {
    if !is_wrapper.is_null() {
        // SAFETY: checked non-NULL.
        unsafe { *is_wrapper = 0 };
    }
    SUCCESS
}

/// Context checks, slot 3: called once after the table is fetched; NVIDIA's driver answers 0.
unsafe extern "C" fn context_check_3() -> u32 {
    0
}

// ------------------------------------------------------------------ context-local storage

/// What a value's owner is told when its context goes away: `(context, key, value)`.
type Destructor = Option<unsafe extern "C" fn(CUcontext, *mut c_void, *mut c_void)>;

/// Context-local storage: the runtime's per-context state, by (context, key).
#[derive(Default)]
pub(crate) struct Cls {
    map: HashMap<(usize, usize), (usize, Destructor)>,
}

static CLS: OnceLock<RwLock<Cls>> = OnceLock::new();

fn cls() -> &'static RwLock<Cls> {
    CLS.get_or_init(Default::default)
}

/// `ctx`, or the calling thread's current context when NULL: `CUDA_ERROR_INVALID_CONTEXT`
/// without one (NVIDIA's answer).
fn context_or_current(ctx: CUcontext) -> Result<usize, CUresult> {
    if !ctx.is_null() {
        return Ok(ctx as usize);
    }
    let b = backend().ok_or(CUresult::CUDA_ERROR_NOT_INITIALIZED)?;
    let mut cur: CUcontext = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let r = unsafe { Driver::cuCtxGetCurrent(b, &mut cur) };
    if r != SUCCESS {
        return Err(r);
    }
    if cur.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_CONTEXT);
    }
    Ok(cur as usize)
}

/// Context-local storage, slot 0: stores `value` (and its destructor) for `(ctx, key)`,
/// replacing what was there.
unsafe extern "C" fn cls_put(
    ctx: CUcontext,
    key: *mut c_void,
    value: *mut c_void,
    dtor: Destructor,
) -> CUresult {
    let c = match context_or_current(ctx) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let mut m = cls().write().unwrap_or_else(PoisonError::into_inner);
    m.map.insert((c, key as usize), (value as usize, dtor));
    SUCCESS
}

/// Context-local storage, slot 1: forgets `(ctx, key)` without calling its destructor;
/// `CUDA_ERROR_INVALID_HANDLE` when absent.
unsafe extern "C" fn cls_delete(ctx: CUcontext, key: *mut c_void) -> CUresult {
    let c = match context_or_current(ctx) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let mut m = cls().write().unwrap_or_else(PoisonError::into_inner);
    match m.map.remove(&(c, key as usize)) {
        Some(_) => SUCCESS,
        None => CUresult::CUDA_ERROR_INVALID_HANDLE,
    }
}

/// Context-local storage, slot 2: the value of `(ctx, key)`: `CUDA_ERROR_INVALID_CONTEXT`
/// without a context, `CUDA_ERROR_INVALID_HANDLE` when absent (NVIDIA's answers). The runtime
/// calls this at the start of nearly every call: one read lock, no allocation.
unsafe extern "C" fn cls_get(
    value: *mut *mut c_void,
    ctx: CUcontext,
    key: *mut c_void,
) -> CUresult {
    if value.is_null() {
        return INVALID_VALUE;
    }
    let c = match context_or_current(ctx) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let m = cls().read().unwrap_or_else(PoisonError::into_inner);
    match m.map.get(&(c, key as usize)) {
        Some(&(v, _)) => {
            // SAFETY: checked non-NULL.
            unsafe { *value = v as *mut c_void };
            SUCCESS
        }
        None => CUresult::CUDA_ERROR_INVALID_HANDLE,
    }
}

/// Whether any context holds a value (none unless a statically linked runtime has run): the
/// context calls skip the look-up of a primary context otherwise.
pub(crate) fn holds_values() -> bool {
    CLS.get().is_some_and(|l| {
        !l.read()
            .unwrap_or_else(PoisonError::into_inner)
            .map
            .is_empty()
    })
}

/// A context's state is gone (its primary context was reset): every value stored for it is
/// forgotten and its destructor called, outside the lock (a destructor may call back in), as
/// NVIDIA's driver does for `cudaDeviceReset`.
pub(crate) fn context_reset(ctx: CUcontext) {
    let c = ctx as usize;
    let gone: Vec<((usize, usize), (usize, Destructor))> = {
        let Some(lock) = CLS.get() else { return };
        let mut m = lock.write().unwrap_or_else(PoisonError::into_inner);
        let keys: Vec<(usize, usize)> = m.map.keys().filter(|k| k.0 == c).copied().collect();
        keys.into_iter()
            .filter_map(|k| m.map.remove(&k).map(|v| (k, v)))
            .collect()
    };
    for ((_, key), (value, dtor)) in gone {
        if let Some(d) = dtor {
            // SAFETY: the runtime's own destructor, called with what it stored.
            unsafe { d(ctx, key as *mut c_void, value as *mut c_void) };
        }
    }
}

// ------------------------------------------------------------------ integrity check

/// What the integrity check answers for a `version` ending in 0.
const INTEGRITY_0: [u8; 16] = [
    0x5c, 0x67, 0xcb, 0x03, 0x1c, 0x18, 0x41, 0x33, 0xe8, 0xd1, 0x4c, 0x1f, 0xaa, 0x83, 0xd3, 0x8e,
];
/// What it answers for a `version` ending in 1 (byte 7 differs).
const INTEGRITY_1: [u8; 16] = [
    0x5c, 0x67, 0xcb, 0x03, 0x1c, 0x18, 0x41, 0x18, 0xe8, 0xd1, 0x4c, 0x1f, 0xaa, 0x83, 0xd3, 0x8e,
];
/// The key of the keyed hash (one MD2 block).
const INTEGRITY_KEY: [u8; 16] = [
    0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52, 0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f,
];

/// What the hash covers, besides the devices.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IntegrityInput {
    /// What `cuDriverGetVersion` reports.
    pub driver_version: u32,
    /// The runtime's argument (its version, plus 0, 1 or 2).
    pub version: u32,
    /// The process id.
    pub pid: u32,
    /// `pthread_self()` of the calling thread, truncated to 32 bits.
    pub thread: u32,
    /// Address of the runtime interface table handed out.
    pub cudart_table: u64,
    /// Address of the integrity table handed out.
    pub integrity_table: u64,
    /// Address of the integrity function (slot 1 of that table).
    pub function: u64,
    /// The runtime's argument: seconds since 1970.
    pub unix_seconds: u64,
}

/// One device's part of the hash: its UUID and PCI domain, bus and device numbers.
pub(crate) type DeviceRecord = ([u8; 16], i32, i32, i32);

/// The integrity check's answer: HMAC (RFC 2104) over MD2 (RFC 1319) with the driver's key, of
/// the input's fields (little-endian, packed) followed by each device's record, for a version
/// ending in 2..9; fixed answers for versions ending in 0 and 1. The runtime compares it with
/// its own computation over what it saw (the tables' and function's addresses, the devices
/// anycuda reports), so consistency is what matters.
pub(crate) fn integrity_hash(input: &IntegrityInput, devices: &[DeviceRecord]) -> [u8; 16] {
    match input.version % 10 {
        0 => return INTEGRITY_0,
        1 => return INTEGRITY_1,
        _ => {}
    }
    let mut msg = Vec::with_capacity(48 + 28 * devices.len());
    for w in [input.driver_version, input.version, input.pid, input.thread] {
        msg.extend_from_slice(&w.to_le_bytes());
    }
    for w in [
        input.cudart_table,
        input.integrity_table,
        input.function,
        input.unix_seconds,
    ] {
        msg.extend_from_slice(&w.to_le_bytes());
    }
    for (uuid, domain, bus, device) in devices {
        msg.extend_from_slice(uuid);
        for v in [domain, bus, device] {
            msg.extend_from_slice(&v.to_le_bytes());
        }
    }
    hmac_md2(&INTEGRITY_KEY, &msg)
}

/// HMAC-MD2 with a one-block key.
fn hmac_md2(key: &[u8; 16], msg: &[u8]) -> [u8; 16] {
    let mut inner = Vec::with_capacity(16 + msg.len());
    inner.extend(key.iter().map(|k| k ^ 0x36));
    inner.extend_from_slice(msg);
    let ih = md2(&inner);
    let mut outer = Vec::with_capacity(32);
    outer.extend(key.iter().map(|k| k ^ 0x5c));
    outer.extend_from_slice(&ih);
    md2(&outer)
}

/// MD2's substitution table (RFC 1319, section 3.2: digits of pi).
const MD2_S: [u8; 256] = [
    41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19, 98, 167, 5, 243, 192, 199,
    115, 140, 152, 147, 43, 217, 188, 76, 130, 202, 30, 155, 87, 60, 253, 212, 224, 22, 103, 66,
    111, 24, 138, 23, 229, 18, 190, 78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47,
    238, 122, 169, 104, 121, 145, 21, 178, 7, 63, 148, 194, 16, 137, 11, 34, 95, 33, 128, 127, 93,
    154, 90, 144, 50, 39, 53, 62, 204, 231, 191, 247, 151, 3, 255, 25, 48, 179, 72, 165, 181, 209,
    215, 94, 146, 42, 172, 86, 170, 198, 79, 184, 56, 210, 150, 164, 125, 182, 118, 252, 107, 226,
    156, 116, 4, 241, 69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207, 101, 230, 45, 168, 2, 27,
    96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15, 85, 71, 163, 35, 221, 81,
    175, 58, 195, 92, 249, 206, 186, 197, 234, 38, 44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205,
    244, 65, 129, 77, 82, 106, 220, 55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74,
    120, 136, 149, 139, 227, 99, 232, 109, 233, 203, 213, 254, 59, 0, 29, 57, 242, 239, 183, 14,
    102, 88, 208, 228, 166, 119, 114, 248, 235, 117, 75, 10, 49, 68, 80, 180, 143, 237, 31, 26,
    219, 153, 141, 51, 159, 17, 131, 20,
];

/// MD2 (RFC 1319): pad to 16-byte blocks, append the checksum block, 18 rounds per block over
/// a 48-byte state.
fn md2(data: &[u8]) -> [u8; 16] {
    let pad = 16 - data.len() % 16;
    let mut m = Vec::with_capacity(data.len() + pad + 16);
    m.extend_from_slice(data);
    m.extend(core::iter::repeat_n(pad as u8, pad));
    let mut checksum = [0u8; 16];
    let mut last = 0u8;
    for block in m.chunks_exact(16) {
        for j in 0..16 {
            checksum[j] ^= MD2_S[(block[j] ^ last) as usize];
            last = checksum[j];
        }
    }
    m.extend_from_slice(&checksum);
    let mut x = [0u8; 48];
    for block in m.chunks_exact(16) {
        for j in 0..16 {
            x[16 + j] = block[j];
            x[32 + j] = x[j] ^ block[j];
        }
        let mut t = 0u8;
        for round in 0..18u8 {
            for v in x.iter_mut() {
                *v ^= MD2_S[t as usize];
                t = *v;
            }
            t = t.wrapping_add(round);
        }
    }
    let mut out = [0u8; 16];
    out.copy_from_slice(&x[..16]);
    out
}

extern "C" {
    fn pthread_self() -> usize;
}

/// The devices as anycuda reports them to the runtime (count, UUID, PCI attributes); a device
/// whose query fails contributes zeros, as the runtime would have seen nothing else.
unsafe fn device_records(b: &HipBackend) -> Vec<DeviceRecord> {
    let mut n: c_int = 0;
    // SAFETY: valid out-pointer.
    if unsafe { Driver::cuDeviceGetCount(b, &mut n) } != SUCCESS {
        return Vec::new();
    }
    (0..n.max(0))
        .map(|d| {
            let mut u: CUuuid = CUuuid { bytes: [0; 16] };
            // SAFETY: valid out-pointer and ordinal in range.
            let _ = unsafe { Driver::cuDeviceGetUuid(b, &mut u, d) };
            let attr = |a: CUdevice_attribute| {
                let mut v: c_int = 0;
                // SAFETY: valid out-pointer and ordinal in range.
                let _ = unsafe { Driver::cuDeviceGetAttribute(b, &mut v, a, d) };
                v
            };
            (
                u.bytes.map(|c| c as u8),
                attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
                attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
                attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID),
            )
        })
        .collect()
}

/// Integrity check, slot 1: writes the 16-byte answer of [`integrity_hash`] for `version` and
/// `unix_seconds` to `out`.
unsafe extern "C" fn integrity_check(version: c_uint, unix_seconds: u64, out: *mut u8) -> CUresult {
    if out.is_null() {
        return INVALID_VALUE;
    }
    let Some(b) = backend() else {
        return CUresult::CUDA_ERROR_NOT_INITIALIZED;
    };
    let mut driver_version: c_int = 0;
    // SAFETY: valid out-pointer.
    let _ = unsafe { Driver::cuDriverGetVersion(b, &mut driver_version) };
    let input = IntegrityInput {
        driver_version: driver_version as u32,
        version,
        pid: std::process::id(),
        // SAFETY: no arguments; the runtime hashes the low 32 bits of the same value.
        thread: unsafe { pthread_self() } as u32,
        cudart_table: CUDART.0.as_ptr() as u64,
        integrity_table: INTEGRITY.0.as_ptr() as u64,
        function: INTEGRITY.0[1] as u64,
        unix_seconds,
    };
    let devices = if version % 10 >= 2 {
        // SAFETY: the process backend, plain queries.
        unsafe { device_records(b) }
    } else {
        Vec::new()
    };
    let h = integrity_hash(&input, &devices);
    // SAFETY: the runtime passes 16 writable bytes.
    unsafe { core::ptr::copy_nonoverlapping(h.as_ptr(), out, 16) };
    SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn md2_matches_rfc_1319() {
        assert_eq!(hex(&md2(b"")), "8350e5a3e24c153df2275c9f80692773");
        assert_eq!(hex(&md2(b"abc")), "da853b0d3f88d99b30283a69e6ded6bb");
        assert_eq!(
            hex(&md2(b"message digest")),
            "ab4f496bfb2a530b219ff33031fe06b0"
        );
        assert_eq!(
            hex(&md2(
                b"12345678901234567890123456789012345678901234567890123456789012345678901234567890"
            )),
            "d5976f79d83d3a0dc9806c3c66f3efd8"
        );
    }

    /// The hash of an independent implementation (Python) that matched NVIDIA's driver 580 on
    /// an H200 for versions 13002, 12082, 13005 and 13012, on fixed inputs.
    #[test]
    fn integrity_hash_matches_the_reference() {
        let input = IntegrityInput {
            driver_version: 13000,
            version: 13002,
            pid: 4242,
            thread: 0x1234_5678,
            cudart_table: 0x7ff1_b318_e680,
            integrity_table: 0x7ff1_b318_e660,
            function: 0x7ff1_adae_d350,
            unix_seconds: 1_764_400_000,
        };
        let uuid: [u8; 16] = uuid("bf4baedac2990a9257f4e7434889bd98");
        let h = integrity_hash(&input, &[(uuid, 0, 0, 6)]);
        assert_eq!(hex(&h), "329821712870769b51f290a3485233a1");
        let none = IntegrityInput {
            driver_version: 13000,
            version: 12092,
            pid: 1,
            thread: 2,
            cudart_table: 3,
            integrity_table: 4,
            function: 5,
            unix_seconds: 6,
        };
        assert_eq!(
            hex(&integrity_hash(&none, &[])),
            "45a95aab7457b7100e45417016189f77"
        );
        // Versions ending in 0 and 1: fixed answers, whatever the rest.
        assert_eq!(
            integrity_hash(
                &IntegrityInput {
                    version: 13000,
                    ..none
                },
                &[]
            ),
            INTEGRITY_0
        );
        assert_eq!(
            integrity_hash(
                &IntegrityInput {
                    version: 12091,
                    ..none
                },
                &[]
            ),
            INTEGRITY_1
        );
    }

    #[test]
    fn uuids_round_trip_and_tables_are_sized() {
        assert_eq!(
            uuid_text(&KNOWN[0].uuid),
            "6bd5fb6c-5bf4-e74a-8987-d93912fd9df9"
        );
        assert_eq!(CUDART.0[0] as usize, 13 * 8);
        assert_eq!(HOOKS.0[0] as usize, 7 * 8);
        assert_eq!(CONTEXT_CHECKS.0[0] as usize, 15 * 8);
        assert_eq!(INTEGRITY.0[0] as usize, 3 * 8);
        // Context-local storage: three entries, then the NULL end.
        assert!(CLS_TABLE.0[..3].iter().all(|p| !p.is_null()));
        assert!(CLS_TABLE.0[3].is_null());
        // Every slot but NVIDIA's own NULL (runtime interface, 10) holds a function.
        for (i, p) in CUDART.0.iter().enumerate().skip(1) {
            assert_eq!(p.is_null(), i == 10, "slot {i}");
        }
        // One name per UUID.
        for (i, a) in KNOWN.iter().enumerate() {
            assert!(
                KNOWN[i + 1..].iter().all(|b| b.uuid != a.uuid),
                "{}",
                a.name
            );
        }
    }
}
