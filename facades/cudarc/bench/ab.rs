//! The facade against cudarc itself in one process: the loops of ab_ops.rs, built once against
//! cudarc 0.19.10 and once against anycuda-cudarc (on the CUDA backend), alternating in 21
//! rounds so that the drift of a shared machine hits both alike. Prints the medians and the
//! median of the per-round ratios facade / cudarc; with no GPU, SKIP.
//! ci/cudarc-bench.sh builds it; ci/cudarc-gpu.sh runs it.

mod real {
    use ::cudarc_real as cudarc;
    include!("ab_ops.rs");
}
mod facade {
    use ::cudarc_facade as cudarc;
    include!("ab_ops.rs");
}

const SRC: &str = r#"
extern "C" __global__ void empty(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 0 && i < n) x[i] = 0.0f;
}"#;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

type Loop<S, E> = fn(&mut S, usize) -> Result<f64, E>;

fn main() {
    std::env::set_var("ANYCUDA_BACKEND", "cuda");
    // The facade first: cudarc panics where there is no libcuda.
    let mut f = match facade::setup(SRC) {
        Ok(s) => s,
        Err(e) => {
            println!("SKIP: no GPU ({e:?})");
            return;
        }
    };
    let mut r = real::setup(SRC).expect("cudarc sets up where the facade does");
    let cases: [(&str, usize, Loop<real::State, _>, Loop<facade::State, _>); 3] = [
        (
            "launch_builder_launch",
            20_000,
            real::launches,
            facade::launches,
        ),
        ("memcpy_htod_4KiB", 5_000, real::htod, facade::htod),
        ("memcpy_dtoh_4KiB", 5_000, real::dtoh, facade::dtoh),
    ];
    for (name, n, a, b) in cases {
        // Warm-up, then 21 alternating rounds, starting with either side in turn.
        a(&mut r, n / 10).expect("cudarc");
        b(&mut f, n / 10).expect("facade");
        let (mut ta, mut tb, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..21 {
            let (x, y) = if round % 2 == 0 {
                let x = a(&mut r, n).expect("cudarc");
                (x, b(&mut f, n).expect("facade"))
            } else {
                let y = b(&mut f, n).expect("facade");
                (a(&mut r, n).expect("cudarc"), y)
            };
            ta.push(x);
            tb.push(y);
            ratio.push(y / x);
        }
        println!(
            "AB {name} us cudarc {:.4} facade {:.4} ratio {:.4}",
            median(ta),
            median(tb),
            median(ratio)
        );
    }
}
