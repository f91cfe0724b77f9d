//! Runs user-lib's cudarc code, which the [patch] routed onto anycuda. Prints SKIP with no GPU.

fn main() {
    let data: Vec<f32> = (0..1000).map(|i| i as f32).collect();
    match user_lib::scale_on_gpu(&data, 3.0) {
        Ok(out) => {
            let bad = out
                .iter()
                .zip(&data)
                .filter(|(o, d)| **o != **d * 3.0)
                .count();
            if bad == 0 {
                println!("PASS: 1000 values scaled through cudarc (patched onto anycuda)");
            } else {
                println!("FAIL: {bad} wrong values");
                std::process::exit(1);
            }
        }
        Err(user_lib::Error::Driver(e)) if std::env::var_os("ANYCUDA_REQUIRE_GPU").is_none() => {
            println!("SKIP: no usable GPU ({e})");
        }
        Err(e) => {
            println!("FAIL: {e:?}");
            std::process::exit(1);
        }
    }
}
