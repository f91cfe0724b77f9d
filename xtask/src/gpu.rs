//! The GPU bundle (`cargo xtask gpu pack`), running its parts here (`gpu run`), and the benchmarks
//! (`cargo xtask bench`).
//!
//! The GPU machine has no Rust toolchain and no network: the bundle is built where Rust is and
//! carried there, and its entry is `bash ci/gpu-all.sh PART...`, which sets the environment every
//! GPU process shares (ci/gpu-env.sh) and builds HIP's NVIDIA platform once for the whole run.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::sh::{self, Code};

/// The parts of `ci/gpu-all.sh`, in its words (a unit test keeps the two lists equal).
pub const PARTS: &[(&str, &str)] = &[
    ("test", "the examples and the GPU suites on the CUDA and the HIP backend (ci/gpu-test.sh)"),
    ("nccl", "the collective layer; all of it on 2 GPUs (ci/nccl-gpu-test.sh)"),
    ("cudarc", "cudarc's examples and tests on the facade and on cudarc, the workload, the overhead (ci/cudarc-gpu.sh)"),
    ("bench", "the interleaved overhead benchmark against C++, HIP C++ and cuda-python (ci/bench.sh)"),
    ("blasbench", "the interleaved GEMM benchmark: cuBLAS from C++, anycuda, cudarc (ci/blas-bench.sh)"),
    ("ncclbench", "the all-reduce benchmark against NCCL from C and PyTorch; 2 GPUs (ci/nccl-bench.sh)"),
    ("libbench", "the drop-in CUDA libraries against NVIDIA's from C: a call's cost, GEMM, all-reduce (ci/capi-lib-bench.sh)"),
    ("ptxbench", "PTX translated for AMD against the CUDA source compiled by hipRTC; cold and warm loads (ci/ptx-bench.sh)"),
    ("sanitize", "compute-sanitizer over the safe layer's examples and GPU tests (ci/gpu-sanitize.sh)"),
    ("capi", "unchanged C, C++ and Python programs on anycuda's C ABI (ci/capi-gpu.sh)"),
    ("static", "programs with NVIDIA's runtime linked statically, CUDA 13 and 12.9, three columns (ci/static-gpu.sh)"),
    ("candle", "candle 0.11.1's CUDA tests on cudarc and on the facade (ci/candle-gpu.sh; .gpu/candle.tar.xz)"),
    ("candlemodel", "a candle-transformers Llama on the facade and on cudarc (ci/candle-gpu.sh --model)"),
    ("hipmath", "only the setup: hipBLAS and hipRAND over cuBLAS/cuRAND (ci/hip-nvidia/build-math.sh)"),
];

/// The benchmarks: name, the `ci/gpu-all.sh` part that runs it (None: runs here, no GPU needed),
/// what it measures.
pub const BENCHES: &[(&str, Option<&str>, &str)] = &[
    (
        "capi",
        None,
        "the C ABI's per-call cost, no GPU needed (ci/capi-bench.sh)",
    ),
    (
        "dispatch",
        Some("bench"),
        "launch and copy overhead against the driver API from C++ (ci/bench.sh)",
    ),
    (
        "blas",
        Some("blasbench"),
        "GEMM against cuBLAS from C++ and cudarc (ci/blas-bench.sh)",
    ),
    (
        "ptx",
        Some("ptxbench"),
        "PTX translated for AMD against the CUDA source compiled by hipRTC, and cold/warm loads (ci/ptx-bench.sh)",
    ),
    (
        "nccl",
        Some("ncclbench"),
        "all-reduce against NCCL from C and PyTorch, 2 GPUs; only when named (ci/nccl-bench.sh)",
    ),
    (
        "lib",
        Some("libbench"),
        "the drop-in libraries against NVIDIA's from C: a call, GEMM, all-reduce; only when named (ci/capi-lib-bench.sh)",
    ),
];

pub fn part_names() -> Vec<&'static str> {
    PARTS.iter().map(|p| p.0).collect()
}

pub fn bench_names() -> Vec<&'static str> {
    BENCHES.iter().map(|b| b.0).collect()
}

fn table(rows: impl Iterator<Item = (&'static str, &'static str)>) -> String {
    rows.map(|(n, what)| format!("{n:12} {what}\n")).collect()
}

pub fn part_listing() -> String {
    table(PARTS.iter().copied())
}

pub fn bench_listing() -> String {
    table(BENCHES.iter().map(|b| (b.0, b.2)))
}

/// Whether this machine has an NVIDIA GPU (nvidia-smi lists one).
fn have_gpu() -> bool {
    sh::succeeds(&["nvidia-smi", "-L"])
}

const NO_GPU: &str = "no NVIDIA GPU here (nvidia-smi -L fails). Build the bundle here with \
`cargo xtask gpu pack`, carry the repository with .gpu/ to the GPU machine, and run \
`bash ci/gpu-all.sh PART...` there (docs/contributing.md, On a GPU machine)";

/// `cargo xtask gpu pack`: builds everything the GPU machine runs into .device/ and packs it into
/// .gpu/bundle.tar.xz (git-ignored, about 17 MB): the CLI, the examples and the test executables
/// (ci/bundle-for-gpu.sh), the cudarc proofs (ci/cudarc-bundle.sh), Debian's libamdhip64-dev .deb
/// for HIP's NVIDIA platform, and in .device/math the inputs of hipBLAS/hipRAND on NVIDIA
/// (ci/hip-nvidia/fetch-math.sh: hipBLAS's source, hipRAND's headers, the pinned cuBLAS/cuRAND
/// headers; not NVIDIA's libraries, which the GPU machine has).
pub fn pack(root: &Path) -> Result<(), Code> {
    let dev = root.join(".device");
    sh::run_quiet(root, &["bash", "ci/hip-nvidia/fetch-deb.sh", ".device"])?;
    let math = sh::output(root, &["bash", "ci/hip-nvidia/fetch-math.sh"])?;
    let math = Path::new(&math);
    let dmath = dev.join("math");
    io(
        fs::remove_dir_all(&dmath).or_else(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Ok(())
            } else {
                Err(e)
            }
        }),
        "clear .device/math",
    )?;
    io(
        fs::create_dir_all(dmath.join("src")),
        "make .device/math/src",
    )?;
    io(
        fs::create_dir_all(dmath.join("cuda/nvidia/cu13")),
        "make .device/math/cuda",
    )?;
    for entry in io(fs::read_dir(math.join("src")), "read the math sources")? {
        let entry = io(entry, "read the math sources")?;
        io(
            fs::copy(entry.path(), dmath.join("src").join(entry.file_name())),
            "copy a math source",
        )?;
    }
    let include = math.join("cuda/nvidia/cu13/include");
    let include = include
        .to_str()
        .ok_or_else(|| fail("the math folder's path is not UTF-8"))?;
    sh::run(
        root,
        &["cp", "-r", include, ".device/math/cuda/nvidia/cu13/"],
        &[],
    )?;
    sh::run(root, &["bash", "ci/bundle-for-gpu.sh"], &[])?;
    sh::run(root, &["bash", "ci/cudarc-bundle.sh"], &[])?;
    // Debug sections out: the bundle is carried, and the GPU machine needs none.
    let mut bins = Vec::new();
    for dir in ["bin", "tests", "tests/hip"] {
        if let Ok(rd) = fs::read_dir(dev.join(dir)) {
            bins.extend(rd.flatten().map(|e| e.path()).filter(|p| p.is_file()));
        }
    }
    if !bins.is_empty() {
        let _ = Command::new("strip")
            .args(&bins)
            .stderr(Stdio::null())
            .status();
    }
    io(fs::create_dir_all(root.join(".gpu")), "make .gpu")?;
    let out = root.join(".gpu/bundle.tar.xz");
    let file = io(fs::File::create(&out), "create .gpu/bundle.tar.xz")?;
    let mut tar = io(
        Command::new("tar")
            .args(["-C", ".device", "-cf", "-", "."])
            .current_dir(root)
            .stdout(Stdio::piped())
            .spawn(),
        "run tar",
    )?;
    let xz = Command::new("xz")
        .args(["-9", "-T2"])
        .stdin(tar.stdout.take().expect("piped"))
        .stdout(file)
        .status();
    let tar_ok = io(tar.wait(), "wait for tar")?.success();
    if !(tar_ok && io(xz, "run xz")?.success()) {
        return Err(fail("packing .device into .gpu/bundle.tar.xz failed"));
    }
    let size = fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
    println!(
        "xtask: .gpu/bundle.tar.xz: {:.1} MB (on the GPU machine: bash ci/gpu-all.sh PART...)",
        size as f64 / 1e6
    );
    Ok(())
}

fn fail(msg: &str) -> Code {
    eprintln!("xtask: {msg}");
    1
}

fn io<T>(r: std::io::Result<T>, what: &str) -> Result<T, Code> {
    r.map_err(|e| fail(&format!("cannot {what}: {e}")))
}

/// `cargo xtask gpu run PART...`: on a machine with Rust and a GPU, packs the bundle and runs its
/// entry, exactly what the GPU machine runs.
pub fn run(root: &Path, parts: &[String]) -> Result<(), Code> {
    if !have_gpu() {
        eprintln!("xtask: {NO_GPU}");
        return Err(2);
    }
    pack(root)?;
    let mut argv = vec!["bash", "ci/gpu-all.sh"];
    argv.extend(parts.iter().map(String::as_str));
    sh::run(root, &argv, &[])
}

/// `cargo xtask bench [NAME...]`: the benchmarks named; none named: `capi`, and `dispatch` and
/// `blas` where there is a GPU. The GPU ones run as parts of the bundle (packed once).
pub fn bench(root: &Path, names: &[String]) -> Result<(), Code> {
    let gpu = have_gpu();
    let chosen: Vec<&(&str, Option<&str>, &str)> = if names.is_empty() {
        BENCHES
            .iter()
            .filter(|b| b.1.is_none() || (gpu && !matches!(b.0, "nccl" | "lib")))
            .collect()
    } else {
        names
            .iter()
            .filter_map(|n| BENCHES.iter().find(|b| b.0 == n))
            .collect()
    };
    let parts: Vec<&str> = chosen.iter().filter_map(|b| b.1).collect();
    if !parts.is_empty() && !gpu {
        eprintln!("xtask: {NO_GPU}");
        return Err(2);
    }
    if names.is_empty() && !gpu {
        println!(
            "xtask: no GPU here: only the C ABI's benchmark runs (`cargo xtask bench --list`)"
        );
    }
    if chosen.iter().any(|b| b.0 == "capi") {
        sh::run(root, &["bash", "ci/capi-bench.sh"], &[])?;
    }
    if parts.is_empty() {
        return Ok(());
    }
    pack(root)?;
    let mut argv = vec!["bash", "ci/gpu-all.sh"];
    argv.extend(parts);
    sh::run(root, &argv, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The part names `ci/gpu-all.sh` runs: the arms of its `case "$p" in` (`name) ...`).
    fn gpu_all_parts() -> Vec<String> {
        let text = fs::read_to_string(crate::repo_root().join("ci/gpu-all.sh")).unwrap();
        let body = text
            .split("case \"$p\" in")
            .nth(1)
            .expect("gpu-all.sh: case \"$p\" in");
        let body = body.split("esac").next().unwrap();
        body.lines()
            .filter_map(|l| {
                let l = l.trim_start();
                let (name, _) = l.split_once(')')?;
                (!name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase()))
                    .then(|| name.to_string())
            })
            .collect()
    }

    #[test]
    fn parts_are_gpu_all_parts() {
        assert_eq!(gpu_all_parts(), part_names());
    }

    #[test]
    fn every_gpu_bench_is_a_part() {
        for (name, part, _) in BENCHES {
            if let Some(part) = part {
                assert!(part_names().contains(part), "bench {name}: no part {part}");
            }
        }
    }
}
