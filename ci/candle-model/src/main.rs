//! A real candle model on the GPU, its source untouched: candle-transformers 0.11.1's Llama, built
//! from deterministic random weights (no downloads), run on the CPU and on the GPU in one process.
//!
//! ```text
//! candle-model check [--dtype f32|bf16] [--out FILE]   # CPU against GPU; exit 1 past tolerance
//! candle-model compare FILE FILE [--tol REL]           # two GPU runs' logits (e.g. CUDA vs HIP)
//! candle-model bench [--iters N]                       # medians, one JSON line per workload
//! ```
//!
//! The same source builds against cudarc itself and against anycuda's cudarc facade (only the
//! wrapper workspace's `[patch.crates-io]` differs), and `ANYCUDA_BACKEND` picks CUDA or HIP at
//! run time in the facade build. ci/candle-gpu.sh runs every mode and interleaves the two builds'
//! `bench` runs.
//!
//! Weights depend only on each tensor's name and shape (a splitmix64 stream seeded by the name),
//! so every process, on every build and backend, builds the same model.

use candle_core::{DType, Device, Tensor};
use candle_nn::{VarBuilder, VarMap};
use candle_transformers::models::llama::{Cache, Config, Llama};
use std::collections::HashMap;
use std::process::ExitCode;
use std::time::Instant;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// The model the check runs: 4 layers, grouped-query attention (8 heads over 4 KV heads).
fn check_config() -> Config {
    llama(256, 688, 1024, 4, 8, 4)
}

/// The model the benchmark runs: large enough that a forward pass is GPU work, not launch
/// overhead alone (8 layers of width 1024).
fn bench_config() -> Config {
    llama(1024, 2816, 8192, 8, 16, 8)
}

fn llama(
    hidden: usize,
    inter: usize,
    vocab: usize,
    layers: usize,
    heads: usize,
    kv: usize,
) -> Config {
    Config {
        hidden_size: hidden,
        intermediate_size: inter,
        vocab_size: vocab,
        num_hidden_layers: layers,
        num_attention_heads: heads,
        num_key_value_heads: kv,
        use_flash_attn: false,
        rms_norm_eps: 1e-5,
        rope_theta: 10_000.0,
        bos_token_id: None,
        eos_token_id: None,
        rope_scaling: None,
        max_position_embeddings: 512,
        tie_word_embeddings: false,
    }
}

/// splitmix64: a fixed, platform-independent stream.
struct Mix(u64);
impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [-1, 1).
    fn unit(&mut self) -> f32 {
        ((self.next() >> 40) as f32 / (1u64 << 23) as f32) - 1.0
    }
}

fn seed(name: &str) -> u64 {
    // FNV-1a of the tensor's name.
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Every weight the model loads, by name: shapes come from loading the model once over a
/// `VarMap` on the CPU (whose own random values are discarded), values from [`Mix`]. Matrices are
/// uniform in ±1/√fan_in (the scale of a trained model's activations), norm scales 1 ± 0.1.
fn weights(cfg: &Config) -> Res<Vec<(String, Vec<usize>, Vec<f32>)>> {
    let varmap = VarMap::new();
    Llama::load(
        VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu),
        cfg,
    )?;
    let data = varmap.data().lock().map_err(|_| "VarMap lock poisoned")?;
    let mut names: Vec<&String> = data.keys().collect();
    names.sort();
    Ok(names
        .into_iter()
        .map(|name| {
            let shape = data[name].dims().to_vec();
            let n: usize = shape.iter().product();
            let mut mix = Mix(seed(name));
            let values = if shape.len() == 1 {
                (0..n).map(|_| 1.0 + 0.1 * mix.unit()).collect()
            } else {
                let scale = 1.0 / (*shape.last().unwrap_or(&1) as f32).sqrt();
                (0..n).map(|_| scale * mix.unit()).collect()
            };
            (name.clone(), shape, values)
        })
        .collect())
}

fn load(
    cfg: &Config,
    w: &[(String, Vec<usize>, Vec<f32>)],
    dtype: DType,
    dev: &Device,
) -> Res<Llama> {
    let mut map = HashMap::new();
    for (name, shape, values) in w {
        let t = Tensor::from_slice(values, shape.as_slice(), dev)?.to_dtype(dtype)?;
        map.insert(name.clone(), t);
    }
    Ok(Llama::load(VarBuilder::from_tensors(map, dtype, dev), cfg)?)
}

/// Token ids: a fixed pseudo-random sequence.
fn tokens(n: usize, vocab: usize) -> Vec<u32> {
    let mut mix = Mix(7);
    (0..n).map(|_| (mix.next() % vocab as u64) as u32).collect()
}

const PROMPT: usize = 24;
const DECODE: usize = 8;

/// A prompt of 24 tokens, then 8 decode steps through the KV cache (teacher-forced: each step
/// feeds the next token of a fixed sequence, so every device runs the same inputs). Returns the
/// 9 steps' logits, concatenated.
fn generate(
    cfg: &Config,
    w: &[(String, Vec<usize>, Vec<f32>)],
    dtype: DType,
    dev: &Device,
) -> Res<Vec<f32>> {
    let model = load(cfg, w, dtype, dev)?;
    let mut cache = Cache::new(true, dtype, cfg, dev)?;
    let toks = tokens(PROMPT + DECODE, cfg.vocab_size);
    let mut out = Vec::new();
    let input = Tensor::new(&toks[..PROMPT], dev)?.unsqueeze(0)?;
    out.extend(
        model
            .forward(&input, 0, &mut cache)?
            .flatten_all()?
            .to_vec1::<f32>()?,
    );
    for i in 0..DECODE {
        let input = Tensor::new(&toks[PROMPT + i..PROMPT + i + 1], dev)?.unsqueeze(0)?;
        out.extend(
            model
                .forward(&input, PROMPT + i, &mut cache)?
                .flatten_all()?
                .to_vec1::<f32>()?,
        );
    }
    Ok(out)
}

/// max |a - b| / max |a| (a: the reference), and the two parts.
fn rel_diff(a: &[f32], b: &[f32]) -> Res<(f32, f32, f32)> {
    if a.len() != b.len() {
        return Err(format!("lengths differ: {} vs {}", a.len(), b.len()).into());
    }
    if let Some(i) = b.iter().position(|x| !x.is_finite()) {
        return Err(format!("non-finite value at {i}: {}", b[i]).into());
    }
    let diff = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0f32, f32::max);
    let scale = a.iter().map(|x| x.abs()).fold(0f32, f32::max);
    Ok((diff / scale.max(f32::MIN_POSITIVE), diff, scale))
}

fn parse_dtype(s: &str) -> Res<(DType, f32)> {
    // Tolerances, relative to the largest reference logit. f32: cuBLAS and candle's CPU gemm sum
    // in different orders (1e-6 is typical; 1e-4 leaves room for 4 layers and 9 steps). bf16: an
    // 8-bit mantissa in every weight and activation, against the CPU's f32.
    match s {
        "f32" => Ok((DType::F32, 1e-4)),
        "bf16" => Ok((DType::BF16, 5e-2)),
        _ => Err(format!("unknown dtype {s} (f32, bf16)").into()),
    }
}

fn arg<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn write_f32(path: &str, v: &[f32]) -> Res<()> {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(path, bytes)?;
    Ok(())
}

fn read_f32(path: &str) -> Res<Vec<f32>> {
    let b = std::fs::read(path)?;
    if b.len() % 4 != 0 {
        return Err(format!("{path}: {} bytes, not a whole number of f32", b.len()).into());
    }
    Ok(b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// CPU against GPU, same weights and inputs.
fn check(args: &[String]) -> Res<bool> {
    let (dtype, tol) = parse_dtype(arg(args, "--dtype").unwrap_or("f32"))?;
    let cfg = check_config();
    let w = weights(&cfg)?;
    let cpu = generate(&cfg, &w, DType::F32, &Device::Cpu)?;
    let gpu_dev = Device::new_cuda(0)?;
    let gpu = generate(&cfg, &w, dtype, &gpu_dev)?;
    if let Some(path) = arg(args, "--out") {
        write_f32(path, &gpu)?;
    }
    let (rel, diff, scale) = rel_diff(&cpu, &gpu)?;
    let ok = rel <= tol;
    println!(
        "{{\"check\":\"llama {} layers, {} steps\",\"dtype\":\"{dtype:?}\",\"logits\":{},\"max_abs_diff\":{diff:e},\"max_abs_cpu\":{scale},\"rel\":{rel:e},\"tol\":{tol:e},\"pass\":{ok}}}",
        cfg.num_hidden_layers,
        1 + DECODE,
        gpu.len()
    );
    Ok(ok)
}

fn compare(args: &[String]) -> Res<bool> {
    let (Some(a), Some(b)) = (args.first(), args.get(1)) else {
        return Err("usage: candle-model compare FILE FILE [--tol REL]".into());
    };
    let tol: f32 = arg(args, "--tol").unwrap_or("1e-4").parse()?;
    let (rel, diff, scale) = rel_diff(&read_f32(a)?, &read_f32(b)?)?;
    let ok = rel <= tol;
    println!("{{\"compare\":\"{a} {b}\",\"max_abs_diff\":{diff:e},\"max_abs\":{scale},\"rel\":{rel:e},\"tol\":{tol:e},\"pass\":{ok}}}");
    Ok(ok)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs `f` (which queues GPU work) for a warm-up of at least [`WARMUP`] calls and
/// [`WARMUP_SECS`] seconds, then `iters` times more, each call followed by a synchronize, and
/// returns the median milliseconds of those `iters`.
fn time(dev: &Device, iters: usize, mut f: impl FnMut() -> Res<()>) -> Res<f64> {
    let start = Instant::now();
    let mut n = 0;
    while n < WARMUP || start.elapsed().as_secs_f64() < WARMUP_SECS {
        f()?;
        dev.synchronize()?;
        n += 1;
    }
    let mut ms = Vec::with_capacity(iters);
    for _ in 0..iters {
        let t = Instant::now();
        f()?;
        dev.synchronize()?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(median(ms))
}

/// Untimed calls before each timed series: the first calls load kernel modules and grow memory
/// pools; the time lets the GPU's clocks rise from idle (a process starts on an idle GPU).
const WARMUP: usize = 10;
const WARMUP_SECS: f64 = 0.5;

fn bench(args: &[String]) -> Res<bool> {
    let iters: usize = arg(args, "--iters").unwrap_or("50").parse()?;
    let dev = Device::new_cuda(0)?;
    let cfg = bench_config();
    let w = weights(&cfg)?;
    let mut lines = Vec::new();
    let mut report =
        |what: &str, ms: f64| lines.push(format!("{{\"what\":\"{what}\",\"median_ms\":{ms:.5}}}"));
    for (dtype, name) in [(DType::BF16, "bf16"), (DType::F32, "f32")] {
        let model = load(&cfg, &w, dtype, &dev)?;
        let prompt = Tensor::new(&tokens(128, cfg.vocab_size)[..], &dev)?.unsqueeze(0)?;
        let ms = time(&dev, iters, || {
            let mut cache = Cache::new(false, dtype, &cfg, &dev)?;
            model.forward(&prompt, 0, &mut cache)?;
            Ok(())
        })?;
        report(&format!("llama forward, 128-token prompt, {name}"), ms);
        // One decode step after a 128-token prompt: small kernels, where per-call cost shows.
        let mut cache = Cache::new(true, dtype, &cfg, &dev)?;
        model.forward(&prompt, 0, &mut cache)?;
        let one = Tensor::new(&[1u32], &dev)?.unsqueeze(0)?;
        let ms = time(&dev, iters, || {
            // A copy of the prompt's cache each time (its tensors are shared, not copied), so
            // every timed step decodes the same position.
            let mut c = cache.clone();
            model.forward(&one, 128, &mut c)?;
            Ok(())
        })?;
        report(&format!("llama decode step at position 128, {name}"), ms);
    }
    for (n, dtype, name) in [(4096usize, DType::BF16, "bf16"), (1024, DType::F32, "f32")] {
        let a = Tensor::randn(0f32, 1., (n, n), &dev)?.to_dtype(dtype)?;
        let b = Tensor::randn(0f32, 1., (n, n), &dev)?.to_dtype(dtype)?;
        let ms = time(&dev, iters, || {
            a.matmul(&b)?;
            Ok(())
        })?;
        report(&format!("matmul {n}x{n}x{n}, {name}"), ms);
    }
    for l in lines {
        println!("{l}");
    }
    Ok(true)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(String::as_str) {
        Some("check") => check(&args[1..]),
        Some("compare") => compare(&args[1..]),
        Some("bench") => bench(&args[1..]),
        _ => Err("usage: candle-model check [--dtype f32|bf16] [--out FILE] | compare A B [--tol REL] | bench [--iters N]".into()),
    };
    match r {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("candle-model: error: {e}");
            ExitCode::from(2)
        }
    }
}
