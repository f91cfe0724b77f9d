//! anycuda-codegen: regenerates every `*/src/generated/` file of the workspace from the pinned
//! inputs that `ci/fetch-inputs.sh` fetches. `--check` compares instead of writing (CI).

mod bindgen_run;
mod cublas;
mod cublas_hip;
mod cublaslt;
mod cudart12;
mod cufft;
mod curand;
mod cusparse;
mod emit;
mod emit_capi;
mod emit_cuda;
mod emit_cudarc;
mod emit_hip_serve;
mod emit_traits;
mod extras;
mod face;
mod hip;
mod inputs;
mod layout;
mod mapping;
mod model;
mod nccl;
mod nvidia_platform;
mod nvjitlink;
mod nvml;
mod optional_lib;

use anyhow::{bail, Context, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("anycuda-codegen: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<ExitCode> {
    let mut check = false;
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--check" => check = true,
            "-h" | "--help" => {
                println!("usage: cargo run -p anycuda-codegen [-- --check]");
                return Ok(ExitCode::SUCCESS);
            }
            other => bail!("unknown argument `{other}` (expected --check)"),
        }
    }
    let root = repo_root()?;
    let inputs = inputs::Inputs::locate(&root)?;
    let outputs = generate(&inputs)?;
    if check {
        let mut stale = Vec::new();
        for (rel, text) in &outputs {
            let cur = std::fs::read_to_string(root.join(rel)).unwrap_or_default();
            if &cur != text {
                stale.push(rel.display().to_string());
            }
        }
        if stale.is_empty() {
            println!(
                "anycuda-codegen: {} generated files are up to date",
                outputs.len()
            );
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!("anycuda-codegen: stale generated files:");
        for s in &stale {
            eprintln!("  {s}");
        }
        eprintln!("fix: {}", inputs::FIX_COMMAND);
        return Ok(ExitCode::from(1));
    }
    for (rel, text) in &outputs {
        let path = root.join(rel);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
            continue;
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        println!("wrote {}", rel.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The workspace root: the parent of this crate's (symlink-resolved) manifest directory.
fn repo_root() -> Result<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = dir.canonicalize().unwrap_or(dir);
    dir.parent()
        .map(Path::to_path_buf)
        .context("codegen crate has no parent directory")
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

/// Generates every output in memory: (path relative to the root, content).
fn generate(inp: &inputs::Inputs) -> Result<Vec<(PathBuf, String)>> {
    use bindgen_run::Job;
    let inc = &inp.cuda_include;
    let shim = format!("-I{}", inp.root.join("codegen/shim").display());
    let driver_b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["cuda.h"],
                allow_files: &[r".*/cuda\.h"],
                clang_args: vec![],
            },
            inc,
        )?,
        "cuda.h",
    )?;
    let runtime_b = model::read(
        &bindgen_run::run(
            &Job {
                // `crt/nvcc_entry_points.h` (codegen/shim): nvcc's hidden entry points
                // (`__cudaRegisterFatBinary`, ...), which the runtime wheel's headers lack.
                includes: &[
                    "cuda_runtime_api.h",
                    "library_types.h",
                    "crt/nvcc_entry_points.h",
                ],
                allow_files: &[
                    r".*/(cuda_runtime_api|driver_types|vector_types|library_types|surface_types|texture_types|device_types|nvcc_entry_points)\.h",
                ],
                clang_args: vec![shim.clone()],
            },
            inc,
        )?,
        "cuda_runtime_api.h",
    )?;
    let inc12 = inp
        .root
        .join(".cache/inputs/cuda/nvidia/cuda_runtime/include");
    let runtime12_b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["cuda_runtime_api.h", "library_types.h"],
                allow_files: &[
                    r".*/(cuda_runtime_api|driver_types|vector_types|library_types|surface_types|texture_types|device_types)\.h",
                ],
                clang_args: vec![shim.clone()],
            },
            &inc12,
        )?,
        "CUDA 12 cuda_runtime_api.h",
    )?;
    let nvrtc_b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["nvrtc.h"],
                allow_files: &[r".*/nvrtc\.h"],
                clang_args: vec![],
            },
            inc,
        )?,
        "nvrtc.h",
    )?;

    let cuda_h = read(&inc.join("cuda.h"))?;
    let typedefs_h = read(&inc.join("cudaTypedefs.h"))?;
    // The driver's interop and profiler entry points (NVIDIA's libcuda exports them; the static
    // runtime asks for every one) and the runtime's interop functions: exported by passing them on.
    let interop_typedefs: Vec<String> = [
        "cudaGLTypedefs.h",
        "cudaEGLTypedefs.h",
        "cudaVDPAUTypedefs.h",
        "cudaProfilerTypedefs.h",
    ]
    .iter()
    .map(|h| read(&inc.join(h)))
    .collect::<Result<_>>()?;
    let runtime_interop: Vec<String> = [
        "cuda_gl_interop.h",
        "cuda_egl_interop.h",
        "cuda_vdpau_interop.h",
    ]
    .iter()
    .map(|h| read(&inc.join(h)))
    .collect::<Result<_>>()?;
    let runtime_headers: Vec<String> = [
        "driver_types.h",
        "cuda_runtime_api.h",
        "vector_types.h",
        "library_types.h",
        "surface_types.h",
        "texture_types.h",
    ]
    .iter()
    .map(|h| read(&inc.join(h)))
    .collect::<Result<_>>()?;
    let nvrtc_h = read(&inc.join("nvrtc.h"))?;

    let ranges = extras::ranges(&inp.root)?;
    let mut extras = emit_cuda::Extras::new();
    extras::load(&inp.root, &ranges, &mut extras)?;
    // ---- HIP ----
    let hip523 = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["hip/hiprtc.h", "hip/hip_runtime_api.h"],
                allow_files: &[r".*/hip/.*"],
                clang_args: vec!["-D__HIP_PLATFORM_AMD__".into()],
            },
            &inp.hip_include,
        )?,
        "HIP 5.2.3 headers",
    )?;
    check_layouts(&[&driver_b, &runtime_b, &nvrtc_b, &hip523])?;
    let mut versions = vec![hip::HipVer {
        hip_version: hip::HipVer::declared_version(&hip523)
            .context("no HIP_VERSION in the HIP 5.2.3 headers")?,
        source: "Debian libamdhip64-dev headers".to_string(),
        b: hip523,
    }];
    for f in inp.cubecl_files()? {
        let text = read(&f)?;
        let name = f
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let b = model::read(&text, &name)?;
        let hv = hip::HipVer::declared_version(&b)
            .with_context(|| format!("no HIP_VERSION in {name}"))?;
        versions.push(hip::HipVer {
            hip_version: hv,
            source: format!("cubecl-hip-sys {name}"),
            b,
        });
    }
    versions.sort_by_key(|v| v.hip_version);
    let hip_in = format!(
        "HIP {} headers (Debian libamdhip64-dev), cubecl-hip-sys {}",
        inp.hip_523_version, inp.cubecl_version
    );
    // ---- CUDA<->HIP mapping (adds the hallucinated constants to `extras`) ----
    let mut cuda_consts: HashMap<String, i64> = HashMap::new();
    for b in [&driver_b, &runtime_b] {
        for e in b.enums.values() {
            for v in &e.variants {
                cuda_consts.insert(v.name.clone(), v.value);
            }
        }
        for it in &b.items {
            if let model::Item::Plain(syn::Item::Const(c)) = it {
                if let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) = &*c.expr
                {
                    if let Ok(v) = i.base10_parse::<i64>() {
                        cuda_consts.insert(c.ident.to_string(), v);
                    }
                }
            }
        }
    }
    for m in [
        "CU_LAUNCH_PARAM_END",
        "CU_LAUNCH_PARAM_BUFFER_POINTER",
        "CU_LAUNCH_PARAM_BUFFER_SIZE",
    ] {
        let v = *cuda_consts
            .get(&format!("{m}_AS_INT"))
            .with_context(|| format!("no {m}_AS_INT in cuda.h"))?;
        cuda_consts.insert(m.to_string(), v);
    }
    let hip_api_h = read(&inp.hip_include.join("hip/hip_runtime_api.h"))?;
    let re = regex::Regex::new(
        r"(?m)^\s*#\s*define\s+(HIP_LAUNCH_PARAM_\w+)\s+\(\(void\s*\*\)\s*(0x[0-9a-fA-F]+|\d+)\)",
    )?;
    let mut hip_launch_params = HashMap::new();
    for c in re.captures_iter(&hip_api_h) {
        let v = &c[2];
        let v = match v.strip_prefix("0x") {
            Some(h) => i64::from_str_radix(h, 16)?,
            None => v.parse()?,
        };
        hip_launch_params.insert(c[1].to_string(), v);
    }
    let mapping = mapping::build(
        &inp.root,
        &ranges,
        &[&driver_b, &runtime_b, &nvrtc_b],
        &cuda_consts,
        &versions,
        &hip_launch_params,
    )?;
    let cuda_bs = [&driver_b, &runtime_b, &nvrtc_b];
    let mapping = nvidia_platform::attach(mapping, &inp.hip_include, &cuda_bs, &cuda_consts)?;
    for (k, v) in &mapping.extras {
        extras
            .entry(k.clone())
            .or_default()
            .extend(v.iter().cloned());
    }
    if std::env::var_os("ANYCUDA_CODEGEN_REPORT").is_some() {
        for (c, h, m, co, ho, d) in &mapping.stats {
            eprintln!("{c:>28} <-> {h:<28} mapped {m:>3} (values differ {d:>3}), cuda-only {co:>3}, hip-only {ho:>3}");
        }
        if let Ok(t) = std::env::var("ANYCUDA_CODEGEN_REPORT_TYPE") {
            if let Some(last) = mapping.enum_maps.last() {
                for e in last.iter().filter(|e| e.cuda_type == t) {
                    for p in &e.pairs {
                        eprintln!("pair {} {} {} {}", p.0, p.1, p.2, p.3);
                    }
                    for c in &e.cuda_only {
                        eprintln!("cuda-only {} {}", c.0, c.1);
                    }
                    for h in &e.hip_only {
                        eprintln!("hip-only {} {} -> {} {}", h.0, h.1, h.2, h.3);
                    }
                }
            }
        }
        for u in &mapping.unrepresentable {
            eprintln!("not representable: {u}");
        }
    }

    for k in extras.keys() {
        let known = [&driver_b, &runtime_b, &nvrtc_b]
            .iter()
            .any(|b| b.enums.values().any(|e| e.user_name() == k));
        if !known {
            bail!("extra constants for {k}, which is no CUDA enum");
        }
    }
    let cuda_in = format!("nvidia-cuda-runtime {}", inp.cuda_runtime_version);
    let nvrtc_in = format!("nvidia-cuda-nvrtc {}", inp.cuda_nvrtc_version);
    let both_in = format!("{cuda_in}, {nvrtc_in}");
    let mut out = Vec::new();
    let rt_refs: Vec<&str> = runtime_headers.iter().map(String::as_str).collect();
    out.push((
        PathBuf::from("api/src/generated/driver.rs"),
        emit_cuda::api_module(
            &driver_b,
            &[&cuda_h],
            &extras,
            &format!("{cuda_in} (cuda.h)"),
            "CUDA Driver API types from `cuda.h`.",
            None,
        )?,
    ));
    out.push((
        PathBuf::from("api/src/generated/runtime.rs"),
        emit_cuda::api_module(&runtime_b, &rt_refs, &extras, &format!("{cuda_in} (cuda_runtime_api.h, driver_types.h, ...)"), "CUDA Runtime API types from `cuda_runtime_api.h`, `driver_types.h` and the headers they include.", Some((&driver_b, "crate::generated::driver")))?,
    ));
    out.push((
        PathBuf::from("api/src/generated/nvrtc.rs"),
        emit_cuda::api_module(
            &nvrtc_b,
            &[&nvrtc_h],
            &extras,
            &format!("{nvrtc_in} (nvrtc.h)"),
            "NVRTC types from `nvrtc.h`.",
            None,
        )?,
    ));

    let driver_fns = emit_cuda::catalogue(&driver_b, &cuda_h, "cu", Some(&typedefs_h))?;
    let runtime_fns = emit_cuda::catalogue(&runtime_b, &runtime_headers[1], "cuda", None)?;
    let nvrtc_fns = emit_cuda::catalogue(&nvrtc_b, &nvrtc_h, "nvrtc", None)?;
    let runtime12_h = read(&inc12.join("cuda_runtime_api.h"))?;
    let runtime12_fns = emit_cuda::catalogue(&runtime12_b, &runtime12_h, "cuda", None)?;
    let cuda_version = cuda_h
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("#define CUDA_VERSION")
                .map(|v| v.trim().to_string())
        })
        .context("no CUDA_VERSION in cuda.h")?
        .parse::<u32>()
        .context("CUDA_VERSION is not a number")?;
    out.push((
        PathBuf::from("api/src/generated/functions.rs"),
        emit_cuda::functions_module(
            &driver_fns,
            &runtime_fns,
            &nvrtc_fns,
            cuda_version,
            &inp.cuda_runtime_version,
            &inp.cuda_nvrtc_version,
            &both_in,
        )?,
    ));
    out.push((
        PathBuf::from("api/src/generated/mod.rs"),
        format!(
            "{}\n//! Generated CUDA types, the function catalogue and the `Driver`/`Runtime`/`Rtc` traits.\n//! (`rustfmt::skip`: the files are already formatted by codegen, byte-stable for `--check`.)\n#[rustfmt::skip]\npub mod driver;\n#[rustfmt::skip]\npub mod functions;\n#[rustfmt::skip]\npub mod nvrtc;\n#[rustfmt::skip]\npub mod runtime;\n#[rustfmt::skip]\npub mod traits;\n",
            emit::banner(&both_in)
        ),
    ));
    out.push((
        PathBuf::from("backends/cuda/src/generated/table.rs"),
        emit_cuda::table_module(&driver_fns, &runtime_fns, &nvrtc_fns, &both_in)?,
    ));
    out.extend(emit_traits::generate(
        &inp.root,
        &driver_fns,
        &runtime_fns,
        &nvrtc_fns,
        &both_in,
    )?);
    out.push((
        PathBuf::from("backends/cuda/src/generated/mod.rs"),
        format!(
            "{}\n//! Generated function tables and the `Driver`/`Runtime`/`Rtc` forwarding impls.\n//! (`rustfmt::skip`: the files are already formatted by codegen, byte-stable for `--check`.)\n#[rustfmt::skip]\npub mod forward;\n#[rustfmt::skip]\npub mod table;\n",
            emit::banner(&both_in)
        ),
    ));

    out.push((
        PathBuf::from("backends/hip/src/generated/conv.rs"),
        mapping::conv_module(&mapping, &versions, &hip_in)?,
    ));
    let hu = hip::union(versions)?;
    out.push((
        PathBuf::from("backends/hip/src/generated/types.rs"),
        hip::types_module(&hu, &hip_in)?,
    ));
    out.push((
        PathBuf::from("backends/hip/src/generated/table.rs"),
        hip::table_module(&hu, &hip_in)?,
    ));
    out.push((
        PathBuf::from("backends/hip/src/generated/serve.rs"),
        emit_hip_serve::module(
            &inp.root,
            &driver_fns,
            &driver_b,
            &runtime_fns,
            &runtime_b,
            &hu,
            &mapping,
            &hip_in,
        )?,
    ));
    out.push((
        PathBuf::from("backends/hip/src/generated/mod.rs"),
        format!(
            "{}\n//! Generated HIP types, function tables and CUDA<->HIP conversion tables.\n//! (`rustfmt::skip`: the files are already formatted by codegen, byte-stable for `--check`.)\n#[rustfmt::skip]\npub mod conv;\n#[rustfmt::skip]\npub mod serve;\n#[rustfmt::skip]\npub mod table;\n#[rustfmt::skip]\npub mod types;\n",
            emit::banner(&hip_in)
        ),
    ));
    out.extend(emit_capi::generate(
        &inp.root,
        &driver_fns,
        &runtime_fns,
        &nvrtc_fns,
        &emit_capi::Headers {
            cuda_h: &cuda_h,
            runtime_h: &runtime_headers[1],
            typedefs_h: &typedefs_h,
            interop_typedefs: &interop_typedefs,
            runtime_interop: &runtime_interop,
        },
        &both_in,
    )?);
    out.extend(cudart12::generate(
        &inp.root,
        &cudart12::Inputs {
            b12: &runtime12_b,
            fns12: &runtime12_fns,
            header12: &runtime12_h,
            b13: &runtime_b,
            fns13: &runtime_fns,
            exports13: &emit_capi::runtime_exports(&runtime_fns, &runtime_headers[1])?,
            cuda12_version: read(&inc12.join("cuda.h"))?
                .lines()
                .find_map(|l| {
                    l.trim()
                        .strip_prefix("#define CUDA_VERSION")
                        .map(|v| v.trim().to_string())
                })
                .context("no CUDA_VERSION in CUDA 12's cuda.h")?
                .parse()
                .context("CUDA 12's CUDA_VERSION is not a number")?,
            inputs: &format!(
                "{cuda_in}, nvidia-cuda-runtime-cu12 {}",
                inp.cuda12_runtime_version
            ),
        },
    )?);
    out.extend(emit_cudarc::generate(&driver_fns, &cuda_in)?);
    out.extend(nccl::generate(&inp.root, &ranges, &runtime_b)?);
    out.extend(nvjitlink::generate(&inp.root, &ranges)?);
    out.extend(curand::generate(&inp.root, &ranges, &runtime_b)?);
    out.extend(cublas::generate(&inp.root, &ranges, &runtime_b)?);
    out.extend(cublaslt::generate(&inp.root, &ranges, &runtime_b)?);
    out.extend(cusparse::generate(&inp.root, &ranges, &runtime_b)?);
    out.extend(nvml::generate(&inp.root)?);
    out.extend(cufft::generate(&inp.root, &ranges, &runtime_b)?);
    Ok(out)
}

/// Checks the layout calculator against every size bindgen reported (it sizes cubecl's types).
fn check_layouts(all: &[&model::Bindings]) -> Result<()> {
    for b in all {
        let defs: layout::Defs<'_> = b
            .items
            .iter()
            .filter_map(|it| match it {
                model::Item::Plain(
                    p @ (syn::Item::Struct(_) | syn::Item::Union(_) | syn::Item::Type(_)),
                ) => {
                    let n = match p {
                        syn::Item::Struct(s) => s.ident.to_string(),
                        syn::Item::Union(u) => u.ident.to_string(),
                        syn::Item::Type(t) => t.ident.to_string(),
                        _ => return None,
                    };
                    Some((n, p))
                }
                _ => None,
            })
            .collect();
        let mut enum_items: Vec<(String, syn::Item)> = Vec::new();
        for e in b.enums.values() {
            let r = syn::Ident::new(&e.repr, proc_macro2::Span::call_site());
            for n in std::iter::once(&e.tag).chain(e.aliases.iter()) {
                let t = syn::Ident::new(n, proc_macro2::Span::call_site());
                enum_items.push((n.clone(), syn::parse_quote!(type #t = #r;)));
            }
        }
        let mut defs = defs;
        for (n, i) in &enum_items {
            defs.insert(n.clone(), i);
        }
        let mut names: Vec<(&String, &u64)> = b.sizes.iter().collect();
        names.sort();
        for (name, size) in names {
            let (s, _) = layout::of_name(name, &defs)?;
            if s != *size {
                bail!("layout calculator: {name} computed {s}, bindgen says {size}");
            }
        }
    }
    Ok(())
}
