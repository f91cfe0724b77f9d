/* cuFFT through the C ABI's libcufft.so.12, without a GPU (ci/capi-test.sh): built against
 * NVIDIA's cufft.h and linked against the libdir's libcufft.so.12, so it records NVIDIA's
 * soname and version node. It runs on NVIDIA's own library (the wheel), on anycuda's CUDA
 * backend and on the HIP backend over Debian's hipFFT (ROCm 5.7.1 and 6.4.3), and every run must
 * print the same lines: cuFFT's answers without a GPU and to unknown plans, which the HIP
 * backend gives itself before hipFFT sees the call (hipFFT aborts the process without a device).
 * Values that differ by library (the version) are printed as "nonzero". */
#include <cufft.h>
#include <stdio.h>

int main(void) {
    int v = 0;
    cufftResult r = cufftGetVersion(&v);
    printf("cufftGetVersion %d nonzero=%d\n", (int)r, v > 0);
    r = cufftGetProperty(MAJOR_VERSION, &v);
    printf("cufftGetProperty(MAJOR) %d nonzero=%d\n", (int)r, v > 0);
    r = cufftGetProperty((libraryPropertyType)7, &v);
    printf("cufftGetProperty(7) %d\n", (int)r);
    cufftHandle plan = -7;
    r = cufftCreate(&plan);
    printf("cufftCreate %d untouched=%d\n", (int)r, plan == -7);
    if (r == CUFFT_SUCCESS) cufftDestroy(plan);
    plan = -7;
    r = cufftPlan1d(&plan, 64, CUFFT_C2C, 1);
    printf("cufftPlan1d %d untouched=%d\n", (int)r, plan == -7);
    if (r == CUFFT_SUCCESS) cufftDestroy(plan);
    size_t ws = 0;
    printf("cufftEstimate1d %d\n", (int)cufftEstimate1d(64, CUFFT_C2C, 1, &ws));
    printf("cufftDestroy(12345) %d\n", (int)cufftDestroy(12345));
    printf("cufftDestroy(CUFFT_PLAN_NULL) %d\n", (int)cufftDestroy(CUFFT_PLAN_NULL));
    printf("cufftGetSize(12345) %d\n", (int)cufftGetSize(12345, &ws));
    printf("cufftSetStream(12345) %d\n", (int)cufftSetStream(12345, NULL));
    printf("cufftExecC2C(12345) %d\n", (int)cufftExecC2C(12345, NULL, NULL, CUFFT_FORWARD));
    printf("cufftExecD2Z(12345) %d\n", (int)cufftExecD2Z(12345, NULL, NULL));
    return 0;
}
