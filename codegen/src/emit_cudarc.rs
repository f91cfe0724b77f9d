//! The cudarc facade's one-call `result` wrappers (`facades/cudarc/src/driver/generated/`).
//!
//! cudarc's `driver::result` is a layer of functions that each make one driver call and turn its
//! code into a `Result`, with cudarc's names, argument order and argument types. Most of them
//! are pure shape: which argument is the out-parameter, which order cudarc takes the rest in,
//! which flag newtype it takes instead of the C integer. [`SPECS`] says that shape in one line
//! per wrapper; the C side (the function, its parameters' types, the out-parameter's pointee)
//! comes from the driver catalogue, so a header change that breaks a wrapper fails here.
//! Wrappers with a real rule of their own (two out-parameters, a string buffer, a slice length,
//! a descriptor built from arguments) stay hand-written in the facade's `result.rs`.

use crate::emit::banner;
use crate::emit_cuda::CudaFn;
use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use syn::visit_mut::VisitMut;

/// One wrapper: `[module::]name(params) [-> Ret] = cName(args)`, its doc line, and for a safe
/// function why the call is sound whatever the arguments.
///
/// `params` are cudarc's, in cudarc's order: `name` (type taken from the C parameter that the
/// bare `name` is passed to) or `name: Type` (cudarc's own type; the C argument says how it
/// becomes the C value, e.g. `flags.0`). `args` are the C arguments in C order; `*` marks the
/// out-parameter, whose pointee is the `Ok` type.
struct Spec {
    sig: &'static str,
    doc: &'static str,
    /// `Some(why)`: a safe fn; `why` completes the SAFETY comment.
    safe: Option<&'static str>,
    /// Extra `# Errors` text (the default is "The driver's error.").
    errors: &'static str,
}

const fn u(sig: &'static str, doc: &'static str) -> Spec {
    Spec {
        sig,
        doc,
        safe: None,
        errors: "",
    }
}

const fn s(sig: &'static str, doc: &'static str, why: &'static str) -> Spec {
    Spec {
        sig,
        doc,
        safe: Some(why),
        errors: "",
    }
}

const fn e(mut spec: Spec, errors: &'static str) -> Spec {
    spec.errors = errors;
    spec
}

/// Module docs, in the order the modules are written.
const MODULES: &[(&str, &str)] = &[
    ("", ""),
    ("device", "Devices (`cuDevice*`)."),
    ("function", "Kernel functions (`cuFunc*`)."),
    ("occupancy", "Occupancy queries (`cuOccupancy*`)."),
    ("primary_ctx", "Primary contexts (`cuDevicePrimaryCtx*`)."),
    (
        "ctx",
        "Contexts (`cuCtx*`), acting on the calling thread's current context.",
    ),
    ("stream", "Streams (`cuStream*`)."),
    ("module", "Modules (`cuModule*`)."),
    ("event", "Events (`cuEvent*`)."),
    (
        "external_memory",
        "External memory (`cuImportExternalMemory`, ...).",
    ),
    ("graph", "Graphs (`cuGraph*`)."),
    ("mem_pool", "Memory pools (`cuMemPool*`)."),
];

const NO_PTR: &str = "it takes values only, which the driver checks";

#[rustfmt::skip]
const SPECS: &[Spec] = &[
    s("init() = cuInit(0)", "Initialises the driver (`cuInit(0)`).",
      "the flag 0 is the only one CUDA defines and no pointer is passed; the dispatcher answers NOT_INITIALIZED when no backend loads"),
    // ---- device ----
    s("device::get(ordinal) = cuDeviceGet(*, ordinal)", "The device handle of an ordinal (`cuDeviceGet`).",
      "the ordinal is a plain integer the driver range-checks"),
    s("device::get_count() = cuDeviceGetCount(*)", "The number of devices (`cuDeviceGetCount`).", "nothing else is passed"),
    u("device::total_mem(dev) -> usize = cuDeviceTotalMem(*, dev)", "Total device memory in bytes (`cuDeviceTotalMem`)."),
    e(u("device::get_attribute(dev, attrib) -> i32 = cuDeviceGetAttribute(*, attrib, dev)", "A device attribute (`cuDeviceGetAttribute`)."),
      "On HIP, `CUDA_ERROR_NOT_SUPPORTED` for an attribute HIP cannot answer."),
    s("device::get_uuid(dev) = cuDeviceGetUuid(*, dev)", "The device's UUID (`cuDeviceGetUuid`).",
      "`dev` is a plain ordinal the driver checks"),
    u("device::get_default_mem_pool(dev) = cuDeviceGetDefaultMemPool(*, dev)", "The device's default memory pool (`cuDeviceGetDefaultMemPool`)."),
    u("device::get_mem_pool(dev) = cuDeviceGetMemPool(*, dev)", "The device's current memory pool (`cuDeviceGetMemPool`)."),
    u("device::set_mem_pool(dev, pool) = cuDeviceSetMemPool(dev, pool)", "Sets the device's current memory pool (`cuDeviceSetMemPool`)."),
    // ---- function ----
    u("function::get_function_attribute(f, attribute) -> i32 = cuFuncGetAttribute(*, attribute, f)", "A function attribute (`cuFuncGetAttribute`)."),
    u("function::set_function_attribute(f, attribute, value: i32) = cuFuncSetAttribute(f, attribute, value)", "Sets a function attribute (`cuFuncSetAttribute`)."),
    u("function::set_function_cache_config(f, attribute) = cuFuncSetCacheConfig(f, attribute)", "Sets a function's cache preference (`cuFuncSetCacheConfig`)."),
    // ---- occupancy ----
    u("occupancy::available_dynamic_shared_mem_per_block(f, num_blocks, block_size) -> usize = cuOccupancyAvailableDynamicSMemPerBlock(*, f, num_blocks, block_size)",
      "`cuOccupancyAvailableDynamicSMemPerBlock`."),
    u("occupancy::max_active_block_per_multiprocessor(f, block_size, dynamic_smem_size) -> i32 = cuOccupancyMaxActiveBlocksPerMultiprocessor(*, f, block_size, dynamic_smem_size)",
      "`cuOccupancyMaxActiveBlocksPerMultiprocessor`."),
    u("occupancy::max_active_block_per_multiprocessor_with_flags(f, block_size, dynamic_smem_size, flags) -> i32 = cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(*, f, block_size, dynamic_smem_size, flags)",
      "`cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`."),
    // ---- primary_ctx ----
    u("primary_ctx::retain(dev) = cuDevicePrimaryCtxRetain(*, dev)", "`cuDevicePrimaryCtxRetain`."),
    u("primary_ctx::release(dev) = cuDevicePrimaryCtxRelease(dev)", "`cuDevicePrimaryCtxRelease`."),
    // ---- ctx ----
    e(u("ctx::create_v4(ctx_create_params, flags, dev) = cuCtxCreate(*, ctx_create_params, flags, dev)", "`cuCtxCreate_v4`."),
      "On HIP, non-null `ctx_create_params` is not supported."),
    u("ctx::set_current(ctx) = cuCtxSetCurrent(ctx)", "`cuCtxSetCurrent`."),
    s("ctx::set_flags(flags: sys::CUctx_flags) = cuCtxSetFlags(flags.0)", "`cuCtxSetFlags`.",
      "the flag word applies to the calling thread's current context, which the driver checks exists"),
    s("ctx::synchronize() = cuCtxSynchronize()", "`cuCtxSynchronize`.",
      "it waits on the calling thread's current context, which the driver checks exists"),
    s("ctx::get_limit(limit) = cuCtxGetLimit(*, limit)", "`cuCtxGetLimit`.", "`limit` is a value the driver checks"),
    s("ctx::set_limit(limit, value) = cuCtxSetLimit(limit, value)", "`cuCtxSetLimit`.", NO_PTR),
    s("ctx::get_cache_config() = cuCtxGetCacheConfig(*)", "`cuCtxGetCacheConfig`.", "nothing else is passed"),
    s("ctx::set_cache_config(config) = cuCtxSetCacheConfig(config)", "`cuCtxSetCacheConfig`.", NO_PTR),
    // ---- stream ----
    s("stream::create(kind: StreamKind) = cuStreamCreate(*, kind.flags())", "`cuStreamCreate`.",
      "the flags are one of the two `StreamKind` values CUDA defines"),
    s("stream::create_with_priority(kind: StreamKind, priority: i32) = cuStreamCreateWithPriority(*, kind.flags(), priority)",
      "`cuStreamCreateWithPriority`.", "flags and priority are values the driver checks (priorities are clamped)"),
    u("stream::synchronize(stream) = cuStreamSynchronize(stream)", "`cuStreamSynchronize`."),
    u("stream::destroy(stream) = cuStreamDestroy(stream)", "`cuStreamDestroy`."),
    u("stream::wait_event(stream, event, flags: sys::CUevent_wait_flags) = cuStreamWaitEvent(stream, event, flags.0)", "`cuStreamWaitEvent`."),
    u("stream::attach_mem_async(stream, dptr, num_bytes, flags: sys::CUmemAttach_flags) = cuStreamAttachMemAsync(stream, dptr, num_bytes, flags.0)",
      "`cuStreamAttachMemAsync`."),
    u("stream::launch_host_function(stream, func: unsafe extern \"C\" fn(*mut c_void), arg) = cuLaunchHostFunc(stream, Some(func), arg)",
      "`cuLaunchHostFunc`: `func(arg)` runs on a driver thread once `stream` reaches it."),
    u("stream::begin_capture(stream, mode) = cuStreamBeginCapture(stream, mode)", "`cuStreamBeginCapture`."),
    u("stream::end_capture(stream) = cuStreamEndCapture(stream, *)", "`cuStreamEndCapture`."),
    u("stream::is_capturing(stream) = cuStreamIsCapturing(stream, *)", "`cuStreamIsCapturing`."),
    // ---- memory ----
    u("malloc_async(stream, num_bytes) = cuMemAllocAsync(*, num_bytes, stream)", "`cuMemAllocAsync`."),
    u("malloc_sync(num_bytes) = cuMemAlloc(*, num_bytes)", "`cuMemAlloc`."),
    u("malloc_managed(num_bytes, flags: sys::CUmemAttach_flags) = cuMemAllocManaged(*, num_bytes, flags.0)", "`cuMemAllocManaged`."),
    u("malloc_host(num_bytes, flags) -> *mut c_void = cuMemHostAlloc(*, num_bytes, flags)", "`cuMemHostAlloc`."),
    u("free_host(host_ptr) = cuMemFreeHost(host_ptr)", "`cuMemFreeHost`."),
    u("mem_advise(dptr, num_bytes, advice, location) = cuMemAdvise(dptr, num_bytes, advice, location)", "`cuMemAdvise`."),
    u("mem_prefetch_async(dptr, num_bytes, location, stream) = cuMemPrefetchAsync(dptr, num_bytes, location, 0, stream)",
      "`cuMemPrefetchAsync` (no flags)."),
    u("free_async(dptr, stream) = cuMemFreeAsync(dptr, stream)", "`cuMemFreeAsync`."),
    u("free_sync(dptr) = cuMemFree(dptr)", "`cuMemFree`."),
    u("memory_free(device_ptr) = cuMemFree(device_ptr)", "`cuMemFree` (cudarc's older name)."),
    u("memset_d8_async(dptr, uc, num_bytes, stream) = cuMemsetD8Async(dptr, uc, num_bytes, stream)", "`cuMemsetD8Async`."),
    u("memset_d8_sync(dptr, uc, num_bytes) = cuMemsetD8(dptr, uc, num_bytes)", "`cuMemsetD8`."),
    u("memcpy_dtod_async(dst, src, num_bytes, stream) = cuMemcpyDtoDAsync(dst, src, num_bytes, stream)", "`cuMemcpyDtoDAsync`."),
    u("memcpy_dtod_sync(dst, src, num_bytes) = cuMemcpyDtoD(dst, src, num_bytes)", "`cuMemcpyDtoD`."),
    u("memcpy_peer_async(dst_ctx, dst, src_ctx, src, num_bytes, stream) = cuMemcpyPeerAsync(dst, dst_ctx, src, src_ctx, num_bytes, stream)",
      "`cuMemcpyPeerAsync`."),
    // ---- module ----
    e(s("module::load(fname: CString) = cuModuleLoad(*, fname.as_ptr())", "`cuModuleLoad` of a file.",
        "`fname` is an owned NUL-terminated path alive for the call"),
      "On an AMD GPU, PTX is translated for the device; `CUDA_ERROR_NOT_SUPPORTED` for an NVIDIA cubin or PTX with an instruction the translator refuses, with the reason in [`not_supported_reason`](crate::driver::result::not_supported_reason) (the HIP backend's rule)."),
    e(u("module::load_data(image) = cuModuleLoadData(*, image)", "`cuModuleLoadData`."),
      "On an AMD GPU, PTX text is translated for the device; `CUDA_ERROR_NOT_SUPPORTED` for an NVIDIA cubin or PTX with an instruction the translator refuses, with the reason in [`not_supported_reason`](crate::driver::result::not_supported_reason) (the HIP backend's rule)."),
    e(u("module::get_function(module, name: CString) = cuModuleGetFunction(*, module, name.as_ptr())", "`cuModuleGetFunction`."),
      "`CUDA_ERROR_NOT_FOUND` for an unknown name."),
    u("module::unload(module) = cuModuleUnload(module)", "`cuModuleUnload`."),
    // ---- event ----
    s("event::create(flags: sys::CUevent_flags) = cuEventCreate(*, flags.0)", "`cuEventCreate`.", "the flags are a value the driver checks"),
    u("event::record(event, stream) = cuEventRecord(event, stream)", "`cuEventRecord`."),
    u("event::elapsed(start, end) = cuEventElapsedTime(*, start, end)", "`cuEventElapsedTime` in milliseconds."),
    e(u("event::query(event) = cuEventQuery(event)", "`cuEventQuery`."), "`CUDA_ERROR_NOT_READY` while pending."),
    u("event::synchronize(event) = cuEventSynchronize(event)", "`cuEventSynchronize`."),
    u("event::destroy(event) = cuEventDestroy(event)", "`cuEventDestroy`."),
    // ---- external memory ----
    u("external_memory::destroy_external_memory(external_memory) = cuDestroyExternalMemory(external_memory)", "`cuDestroyExternalMemory`."),
    // ---- graph ----
    u("graph::instantiate(graph, flags: sys::CUgraphInstantiate_flags) = cuGraphInstantiateWithFlags(*, graph, flags.0 as _)",
      "`cuGraphInstantiateWithFlags`."),
    u("graph::exec_destroy(graph_exec) = cuGraphExecDestroy(graph_exec)", "`cuGraphExecDestroy`."),
    u("graph::destroy(graph) = cuGraphDestroy(graph)", "`cuGraphDestroy`."),
    u("graph::launch(graph_exec, stream) = cuGraphLaunch(graph_exec, stream)", "`cuGraphLaunch`."),
    u("graph::upload(graph_exec, stream) = cuGraphUpload(graph_exec, stream)", "`cuGraphUpload`."),
    // ---- mem_pool ----
    u("mem_pool::create(pool_props) = cuMemPoolCreate(*, pool_props)", "`cuMemPoolCreate`."),
    u("mem_pool::destroy(pool) = cuMemPoolDestroy(pool)", "`cuMemPoolDestroy`."),
    u("mem_pool::trim_to(pool, min_bytes_to_keep) = cuMemPoolTrimTo(pool, min_bytes_to_keep)", "`cuMemPoolTrimTo`."),
    u("mem_pool::get_attribute(pool, attr, value) = cuMemPoolGetAttribute(pool, attr, value)", "`cuMemPoolGetAttribute`."),
    u("mem_pool::set_attribute(pool, attr, value) = cuMemPoolSetAttribute(pool, attr, value)", "`cuMemPoolSetAttribute`."),
    u("mem_pool::alloc_async(pool, num_bytes, stream) = cuMemAllocFromPoolAsync(*, num_bytes, pool, stream)", "`cuMemAllocFromPoolAsync`."),
];

/// Splits at commas outside parentheses, trimming; an empty list gives no items.
fn split_top(list: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0i32, 0usize, Vec::new());
    for (i, c) in list.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(list[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = list[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

/// Prefixes every CUDA type name with `sys::` (the facade's `sys`, where cudarc-shaped types
/// such as `CUfunc_cache` replace anycuda's).
struct SysPrefix;

impl VisitMut for SysPrefix {
    fn visit_type_path_mut(&mut self, p: &mut syn::TypePath) {
        if p.qself.is_none() && p.path.segments.len() == 1 {
            let id = p.path.segments[0].ident.to_string();
            if id.starts_with("CU") || id.starts_with("cu") {
                let seg = p.path.segments[0].clone();
                p.path = syn::parse_quote!(sys::#seg);
                return;
            }
        }
        syn::visit_mut::visit_type_path_mut(self, p);
    }
}

/// A type as source text, `sys::`-prefixed and formatted as rustfmt would.
fn type_text(ty: &syn::Type) -> String {
    let mut ty = ty.clone();
    SysPrefix.visit_type_mut(&mut ty);
    let file: syn::File = syn::parse_quote!(type T = #ty;);
    let text = prettyplease::unparse(&file);
    text.trim()
        .trim_start_matches("type T = ")
        .trim_end_matches(';')
        .to_string()
}

/// One parsed wrapper, ready to print.
struct Wrapper {
    module: &'static str,
    name: &'static str,
    params: Vec<(String, String)>,
    ret: String,
    c_name: String,
    c_args: Vec<String>,
    has_out: bool,
    spec: &'static Spec,
}

fn parse(spec: &'static Spec, fns: &HashMap<&str, &CudaFn>) -> Result<Wrapper> {
    let (lhs, rhs) = spec
        .sig
        .split_once(" = ")
        .with_context(|| format!("`{}`: no ` = `", spec.sig))?;
    let (path, rest) = lhs.split_once('(').context("no `(`")?;
    let (module, name) = path.rsplit_once("::").unwrap_or(("", path));
    let (params_s, ret_s) = rest.rsplit_once(')').context("no `)`")?;
    let ret_override = ret_s.trim().strip_prefix("->").map(str::trim);
    let (c_name, c_rest) = rhs.split_once('(').context("no C `(`")?;
    let c_args_s = c_rest.strip_suffix(')').context("no C `)`")?;
    let c_args: Vec<String> = split_top(c_args_s).into_iter().map(String::from).collect();
    let f = fns
        .get(c_name)
        .with_context(|| format!("`{}`: no `{c_name}` in cuda.h", spec.sig))?;
    if f.decl.args.len() != c_args.len() {
        bail!(
            "`{}`: `{c_name}` takes {} arguments, the spec passes {}",
            spec.sig,
            f.decl.args.len(),
            c_args.len()
        );
    }
    let mut ret = "()".to_string();
    let mut has_out = false;
    for (i, a) in c_args.iter().enumerate() {
        if a == "*" {
            if has_out {
                bail!("`{}`: two out-parameters (write it by hand)", spec.sig);
            }
            has_out = true;
            match &f.decl.args[i].1 {
                syn::Type::Ptr(p) if p.mutability.is_some() => ret = type_text(&p.elem),
                other => bail!(
                    "`{}`: `{c_name}` argument {i} is `{}`, not an out-pointer",
                    spec.sig,
                    type_text(other)
                ),
            }
        }
    }
    if let Some(r) = ret_override {
        ret = r.to_string();
    }
    let mut params = Vec::new();
    for p in split_top(params_s) {
        let (pn, pt) = match p.split_once(':') {
            Some((n, t)) => (n.trim().to_string(), t.trim().to_string()),
            None => {
                let i = c_args.iter().position(|a| a == p).with_context(|| {
                    format!(
                        "`{}`: `{p}` has no type and is passed to no C parameter",
                        spec.sig
                    )
                })?;
                (p.to_string(), type_text(&f.decl.args[i].1))
            }
        };
        params.push((pn, pt));
    }
    Ok(Wrapper {
        module,
        name,
        params,
        ret,
        c_name: c_name.to_string(),
        c_args,
        has_out,
        spec,
    })
}

/// Wraps `text` into `// ` comment lines of at most 100 columns at `indent`.
fn comment(indent: &str, lead: &str, text: &str) -> String {
    let mut out = String::new();
    let mut line = format!("{indent}{lead}");
    let mut first = true;
    for w in text.split_whitespace() {
        if !first && line.len() + 1 + w.len() > 100 {
            out.push_str(&line);
            out.push('\n');
            line = format!("{indent}{}", lead.replace("SAFETY: ", "").trim_end());
            line.push(' ');
            first = true;
        }
        if !first {
            line.push(' ');
        }
        line.push_str(w);
        first = false;
    }
    out.push_str(&line);
    out.push('\n');
    out
}

fn print(w: &Wrapper, indent: &str) -> String {
    let mut o = String::new();
    let doc = |o: &mut String, l: &str| {
        if l.is_empty() {
            o.push_str(&format!("{indent}///\n"));
        } else {
            o.push_str(&format!("{indent}/// {l}\n"));
        }
    };
    doc(&mut o, w.spec.doc);
    doc(&mut o, "");
    doc(&mut o, "# Errors");
    if w.spec.errors.is_empty() {
        doc(&mut o, "The driver's error.");
    } else {
        doc(&mut o, &format!("The driver's error. {}", w.spec.errors));
    }
    if w.spec.safe.is_none() {
        doc(&mut o, "");
        doc(&mut o, "# Safety");
        doc(
            &mut o,
            "The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.",
        );
    }
    let unsafe_kw = if w.spec.safe.is_none() { "unsafe " } else { "" };
    let params: Vec<String> = w.params.iter().map(|(n, t)| format!("{n}: {t}")).collect();
    let head = format!("{indent}pub {unsafe_kw}fn {}(", w.name);
    let tail = format!(") -> Result<{}, DriverError> {{", w.ret);
    let one = format!("{head}{}{tail}", params.join(", "));
    if one.len() <= 100 {
        o.push_str(&one);
        o.push('\n');
    } else {
        o.push_str(&head);
        o.push('\n');
        for p in &params {
            o.push_str(&format!("{indent}    {p},\n"));
        }
        o.push_str(&format!("{indent}{tail}\n"));
    }
    let body = format!("{indent}    ");
    let why = match (w.spec.safe, w.has_out) {
        (Some(why), true) => format!(
            "`out` gives `{}` its own slot of the type it writes, read only on success; {why}.",
            w.c_name
        ),
        (Some(why), false) => format!("`{}`: {why}.", w.c_name),
        (None, true) => format!(
            "`out` gives `{}` its own slot of the type it writes, read only on success; the handles and pointers passed are live and valid for the call (the caller's contract, this fn's `# Safety`).",
            w.c_name
        ),
        (None, false) => format!(
            "the caller's contract (this fn's `# Safety`) is `{}`'s: the handles and pointers passed are live and valid for the call.",
            w.c_name
        ),
    };
    o.push_str(&comment(&body, "// SAFETY: ", &why));
    let args: Vec<&str> = w
        .c_args
        .iter()
        .map(|a| if a == "*" { "p" } else { a.as_str() })
        .collect();
    let call = format!("sys::{}({})", w.c_name, args.join(", "));
    let line = if w.has_out {
        format!("{body}unsafe {{ out(|p| {call}) }}")
    } else {
        format!("{body}ok(unsafe {{ {call} }})")
    };
    if line.len() <= 100 {
        o.push_str(&line);
        o.push('\n');
    } else if w.has_out {
        o.push_str(&format!(
            "{body}unsafe {{\n{body}    out(|p| {call})\n{body}}}\n"
        ));
    } else {
        o.push_str(&format!(
            "{body}ok(unsafe {{\n{body}    {call}\n{body}}})\n"
        ));
    }
    o.push_str(&format!("{indent}}}\n"));
    o
}

/// The generated files: `generated/mod.rs` and `generated/result.rs` under the facade's
/// `driver/`.
pub fn generate(driver_fns: &[CudaFn], inputs: &str) -> Result<Vec<(PathBuf, String)>> {
    let fns: HashMap<&str, &CudaFn> = driver_fns.iter().map(|f| (f.name.as_str(), f)).collect();
    let mut by_mod: BTreeMap<&str, Vec<Wrapper>> = BTreeMap::new();
    for spec in SPECS {
        let w = parse(spec, &fns)?;
        if !MODULES.iter().any(|(m, _)| *m == w.module) {
            bail!(
                "`{}`: module `{}` has no doc in MODULES",
                spec.sig,
                w.module
            );
        }
        by_mod.entry(w.module).or_default().push(w);
    }
    let mut text = String::new();
    for (m, mdoc) in MODULES {
        let Some(ws) = by_mod.get(m) else {
            bail!("module `{m}` has no wrapper");
        };
        if m.is_empty() {
            for w in ws {
                text.push('\n');
                text.push_str(&print(w, ""));
            }
            continue;
        }
        text.push_str(&format!(
            "\n/// {mdoc}\npub mod {m} {{\n    use super::*;\n"
        ));
        for w in ws {
            text.push('\n');
            text.push_str(&print(w, "    "));
        }
        text.push_str("}\n");
    }
    let ffi: Vec<&str> = ["c_char", "c_int", "c_uchar", "c_uint", "c_void"]
        .into_iter()
        .filter(|t| text.contains(t))
        .collect();
    let head = format!(
        "{}\n//! cudarc's one-call `driver::result` wrappers: each makes one driver call and turns its\n\
         //! code into a `Result`. Re-exported by the hand-written `driver/result.rs`, which keeps the\n\
         //! wrappers with a rule of their own. Spec: `codegen/src/emit_cudarc.rs`.\n\n\
         use crate::driver::result::{{ok, out, stream::StreamKind, DriverError}};\n\
         use crate::driver::sys;\n\
         use core::ffi::{{{}}};\n\
         use std::ffi::CString;\n",
        banner(inputs),
        ffi.join(", ")
    );
    let text = head + &text;
    let dir = PathBuf::from("facades/cudarc/src/driver/generated");
    let mod_rs = format!(
        "{}\n//! Generated parts of the facade's `driver` module.\n//! (`rustfmt::skip`: the files are already formatted by codegen, byte-stable for `--check`.)\n#[rustfmt::skip]\npub mod result;\n",
        banner(inputs)
    );
    Ok(vec![
        (dir.join("mod.rs"), mod_rs),
        (dir.join("result.rs"), text),
    ])
}
