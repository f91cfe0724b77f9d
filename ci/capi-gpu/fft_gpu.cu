// cuFFT from C++, as its users call it (ci/capi-gpu.sh, row fft_gpu): built by nvcc against
// NVIDIA's cufft.h, linked with -lcufft, run on NVIDIA's library and on anycuda's
// (LD_LIBRARY_PATH="$(anycuda libdir)") on both backends.
// - C2C 1D, n = 256, batch 2 (cufftPlan1d): forward checked against a host DFT (in double), then
//   inverse, which must give back n times the input;
// - R2C 2D, 32 x 48 (cufftPlan2d): the n/2+1 half spectrum checked against a host DFT;
// - bad input: an unknown plan is CUFFT_INVALID_PLAN, a null plan pointer is not a crash.
// Where the backend has no FFT library (HIP's NVIDIA platform: hipFFT's NVIDIA build is not
// built, see backends/hip/src/cufft.rs), the first plan answers CUFFT_NOT_SUPPORTED and the
// program prints `cufft unsupported` and exits 0; the script expects exactly that line there.
// Prints one line per check ("PASS"/"FAIL") with no measured values, so every column that
// passes prints the same lines; exits 1 on any failure.
#include <cuda_runtime.h>
#include <cufft.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

static int failures = 0;
static void check(const char *what, bool ok) {
    printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    if (!ok) failures++;
}
#define CK(call)                                                              \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            printf("FAIL %s: %s\n", #call, cudaGetErrorString(e_));           \
            exit(1);                                                          \
        }                                                                     \
    } while (0)
#define CF(call)                                                              \
    do {                                                                      \
        cufftResult r_ = (call);                                              \
        if (r_ != CUFFT_SUCCESS) {                                            \
            printf("FAIL %s: cufftResult %d\n", #call, (int)r_);              \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

// Relative error bound for float FFTs of these sizes (log2(n) rounding steps of 2^-24 each,
// against |x| sums): generous, as cuFFT and the host DFT round differently.
static const double TOL = 1e-4;

static bool c2c_1d() {
    const int n = 256, batch = 2;
    std::vector<cufftComplex> h(n * batch), out(n * batch), back(n * batch);
    for (int b = 0; b < batch; b++)
        for (int i = 0; i < n; i++) {
            h[b * n + i].x = (float)sin(0.37 * i + b) + 0.25f * (float)((i * 7 + b) % 5);
            h[b * n + i].y = (float)cos(0.11 * i * (b + 1));
        }
    cufftHandle plan;
    cufftResult r = cufftPlan1d(&plan, n, CUFFT_C2C, batch);
    if (r == CUFFT_NOT_SUPPORTED) {
        printf("cufft unsupported\n");
        exit(0);
    }
    CF(r);
    cufftComplex *d;
    CK(cudaMalloc(&d, sizeof(cufftComplex) * n * batch));
    CK(cudaMemcpy(d, h.data(), sizeof(cufftComplex) * n * batch, cudaMemcpyHostToDevice));
    CF(cufftExecC2C(plan, d, d, CUFFT_FORWARD));
    CK(cudaMemcpy(out.data(), d, sizeof(cufftComplex) * n * batch, cudaMemcpyDeviceToHost));
    CF(cufftExecC2C(plan, d, d, CUFFT_INVERSE));
    CK(cudaMemcpy(back.data(), d, sizeof(cufftComplex) * n * batch, cudaMemcpyDeviceToHost));
    CF(cufftDestroy(plan));
    CK(cudaFree(d));
    double err = 0, scale = 0, rerr = 0;
    for (int b = 0; b < batch; b++)
        for (int k = 0; k < n; k++) {
            double re = 0, im = 0;
            for (int j = 0; j < n; j++) {
                double a = -2 * M_PI * (double)j * k / n;
                re += h[b * n + j].x * cos(a) - h[b * n + j].y * sin(a);
                im += h[b * n + j].x * sin(a) + h[b * n + j].y * cos(a);
                if (k == 0) scale += fabs(h[b * n + j].x) + fabs(h[b * n + j].y);
            }
            err = fmax(err, fmax(fabs(re - out[b * n + k].x), fabs(im - out[b * n + k].y)));
            rerr = fmax(rerr, fmax(fabs(back[b * n + k].x / n - h[b * n + k].x),
                                   fabs(back[b * n + k].y / n - h[b * n + k].y)));
        }
    check("cufftExecC2C forward, 1D n=256 batch=2, against the host DFT", err <= TOL * scale);
    check("cufftExecC2C inverse gives back n times the input", rerr <= TOL * 8);
    return true;
}

static void r2c_2d() {
    const int nx = 32, ny = 48, nyc = ny / 2 + 1;
    std::vector<float> h(nx * ny);
    for (int i = 0; i < nx * ny; i++) h[i] = (float)sin(0.05 * i) + 0.5f * (float)((i * 13) % 7) / 7;
    std::vector<cufftComplex> out(nx * nyc);
    cufftHandle plan;
    CF(cufftPlan2d(&plan, nx, ny, CUFFT_R2C));
    float *di;
    cufftComplex *dout;
    CK(cudaMalloc(&di, sizeof(float) * nx * ny));
    CK(cudaMalloc(&dout, sizeof(cufftComplex) * nx * nyc));
    CK(cudaMemcpy(di, h.data(), sizeof(float) * nx * ny, cudaMemcpyHostToDevice));
    CF(cufftExecR2C(plan, di, dout));
    CK(cudaMemcpy(out.data(), dout, sizeof(cufftComplex) * nx * nyc, cudaMemcpyDeviceToHost));
    CF(cufftDestroy(plan));
    CK(cudaFree(di));
    CK(cudaFree(dout));
    double err = 0, scale = 0;
    for (int i = 0; i < nx * ny; i++) scale += fabs(h[i]);
    for (int kx = 0; kx < nx; kx++)
        for (int ky = 0; ky < nyc; ky++) {
            double re = 0, im = 0;
            for (int x = 0; x < nx; x++)
                for (int y = 0; y < ny; y++) {
                    double a = -2 * M_PI * ((double)kx * x / nx + (double)ky * y / ny);
                    re += h[x * ny + y] * cos(a);
                    im += h[x * ny + y] * sin(a);
                }
            err = fmax(err, fmax(fabs(re - out[kx * nyc + ky].x), fabs(im - out[kx * nyc + ky].y)));
        }
    check("cufftExecR2C 2D 32x48 half spectrum against the host DFT", err <= TOL * scale);
}

static void bad_input() {
    size_t ws = 0;
    check("cufftGetSize on an unknown plan is CUFFT_INVALID_PLAN",
          cufftGetSize(12345, &ws) == CUFFT_INVALID_PLAN);
    check("cufftDestroy on an unknown plan is CUFFT_INVALID_PLAN",
          cufftDestroy(12345) == CUFFT_INVALID_PLAN);
    int v = 0;
    check("cufftGetVersion answers", cufftGetVersion(&v) == CUFFT_SUCCESS && v > 0);
}

int main() {
    c2c_1d();
    r2c_2d();
    bad_input();
    return failures ? 1 : 0;
}
