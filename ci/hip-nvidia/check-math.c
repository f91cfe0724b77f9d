/* Loads the built libhipblas.so and libhiprand.so the way anycuda's HIP backend does (dlopen +
 * dlsym, the C signatures declared by hand, no HIP, hipBLAS, hipRAND or CUDA header) and
 * exercises them.
 *
 *   check-math HIPBLAS_LIB HIPRAND_LIB CUDART_LIB [gpu]
 *
 * Always (no GPU needed):
 *   hiprandGetVersion succeeds with cuRAND's version (this build forwards it to curandGetVersion);
 *   hiprandCreateGenerator with an unknown generator type gives HIPRAND_STATUS_TYPE_ERROR (the
 *   hipRAND->cuRAND enum conversion) and hiprandGenerateChar HIPRAND_STATUS_NOT_IMPLEMENTED (no
 *   cuRAND counterpart); a host-side generator (hiprandCreateGeneratorHost, cuRAND on the CPU)
 *   fills floats in (0, 1] with a mean near 1/2, the same seed giving the same numbers;
 *   hipblasStatusToString answers.
 * Without "gpu": hipblasCreate and hiprandCreateGenerator must fail (no device), not crash.
 * With "gpu": hipblasCreate, a 2x3 by 3x2 hipblasSgemm (device memory through CUDART_LIB's
 * cudaMalloc/cudaMemcpy) checked against the host's product, and a device hiprandGenerateUniform
 * of 4096 floats checked for range, mean and reproducibility.
 * Exit status 0 on success; every failure names the call. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int status_t; /* hipblasStatus_t, hiprandStatus_t, cudaError_t: enums, success 0 */
typedef void *handle_t;

enum {
    HIPBLAS_OP_N = 111,
    HIPRAND_STATUS_TYPE_ERROR = 103,
    HIPRAND_STATUS_NOT_IMPLEMENTED = 1000,
    HIPRAND_RNG_PSEUDO_DEFAULT = 400,
    CUDA_MEMCPY_HOST_TO_DEVICE = 1,
    CUDA_MEMCPY_DEVICE_TO_HOST = 2,
    N_RANDOM = 4096,
};

static int failures;

static void *open_lib(const char *path, int mode) {
    void *lib = dlopen(path, mode);
    if (!lib) {
        fprintf(stderr, "check-math: dlopen(%s): %s\n", path, dlerror());
        exit(1);
    }
    return lib;
}

static void *sym(void *lib, const char *name) {
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "check-math: %s is not exported: %s\n", name, dlerror());
        exit(1);
    }
    return f;
}

static void fail(const char *what, int got) {
    fprintf(stderr, "check-math: FAIL: %s (got %d)\n", what, got);
    failures++;
}

#define EXPECT(cond, what, got) \
    do {                        \
        if (!(cond)) fail(what, got); \
    } while (0)

/* Range, mean and variance of uniform floats: (0, 1], 1/2 and 1/12. With 4096 samples the mean's
 * standard error is 0.0045, the variance's about 0.0012: +-0.03 and +-0.01 are > 6 sigma. */
static void check_uniform(const char *what, const float *x, int n) {
    double sum = 0, sq = 0;
    int out = 0;
    for (int i = 0; i < n; i++) {
        if (!(x[i] > 0.0f && x[i] <= 1.0f)) out++;
        sum += x[i];
        sq += (double)x[i] * x[i];
    }
    double mean = sum / n, var = sq / n - mean * mean;
    printf("%s: %d floats, mean %.4f, variance %.4f, %d outside (0, 1]\n", what, n, mean, var, out);
    EXPECT(out == 0, "uniform floats outside (0, 1]", out);
    EXPECT(fabs(mean - 0.5) < 0.03, "uniform mean not near 1/2", (int)(mean * 1000));
    EXPECT(fabs(var - 1.0 / 12) < 0.01, "uniform variance not near 1/12", (int)(var * 1000));
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: check-math HIPBLAS_LIB HIPRAND_LIB CUDART_LIB [gpu]\n");
        return 2;
    }
    int gpu = argc > 4 && strcmp(argv[4], "gpu") == 0;
    void *blas = open_lib(argv[1], RTLD_NOW);
    void *rand = open_lib(argv[2], RTLD_NOW);

    /* ---- hipRAND, no GPU needed ---- */
    status_t (*rand_version)(int *) = (status_t(*)(int *))sym(rand, "hiprandGetVersion");
    status_t (*rand_create)(handle_t *, int) = (status_t(*)(handle_t *, int))sym(rand, "hiprandCreateGenerator");
    status_t (*rand_create_host)(handle_t *, int) =
        (status_t(*)(handle_t *, int))sym(rand, "hiprandCreateGeneratorHost");
    status_t (*rand_destroy)(handle_t) = (status_t(*)(handle_t))sym(rand, "hiprandDestroyGenerator");
    status_t (*rand_seed)(handle_t, unsigned long long) =
        (status_t(*)(handle_t, unsigned long long))sym(rand, "hiprandSetPseudoRandomGeneratorSeed");
    status_t (*rand_uniform)(handle_t, float *, size_t) =
        (status_t(*)(handle_t, float *, size_t))sym(rand, "hiprandGenerateUniform");
    status_t (*rand_char)(handle_t, unsigned char *, size_t) =
        (status_t(*)(handle_t, unsigned char *, size_t))sym(rand, "hiprandGenerateChar");

    int version = 0;
    status_t r = rand_version(&version);
    printf("hiprandGetVersion: status %d, version %d (cuRAND's)\n", r, version);
    EXPECT(r == 0 && version >= 10000, "hiprandGetVersion", r);

    handle_t g = NULL;
    r = rand_create(&g, 12345);
    printf("hiprandCreateGenerator(type 12345): status %d\n", r);
    EXPECT(r == HIPRAND_STATUS_TYPE_ERROR, "unknown generator type must give HIPRAND_STATUS_TYPE_ERROR", r);
    r = rand_char(NULL, NULL, 0);
    printf("hiprandGenerateChar: status %d\n", r);
    EXPECT(r == HIPRAND_STATUS_NOT_IMPLEMENTED, "hiprandGenerateChar must be NOT_IMPLEMENTED", r);

    static float a[N_RANDOM], b[N_RANDOM];
    for (int pass = 0; pass < 2; pass++) {
        handle_t h = NULL;
        float *dst = pass == 0 ? a : b;
        r = rand_create_host(&h, HIPRAND_RNG_PSEUDO_DEFAULT);
        EXPECT(r == 0, "hiprandCreateGeneratorHost", r);
        if (r != 0) break;
        EXPECT((r = rand_seed(h, 1234)) == 0, "hiprandSetPseudoRandomGeneratorSeed (host)", r);
        EXPECT((r = rand_uniform(h, dst, N_RANDOM)) == 0, "hiprandGenerateUniform (host)", r);
        EXPECT((r = rand_destroy(h)) == 0, "hiprandDestroyGenerator (host)", r);
    }
    check_uniform("host generator", a, N_RANDOM);
    EXPECT(memcmp(a, b, sizeof a) == 0, "host generator: same seed, different numbers", 0);

    /* ---- hipBLAS ---- */
    const char *(*blas_string)(status_t) = (const char *(*)(status_t))sym(blas, "hipblasStatusToString");
    status_t (*blas_create)(handle_t *) = (status_t(*)(handle_t *))sym(blas, "hipblasCreate");
    status_t (*blas_destroy)(handle_t) = (status_t(*)(handle_t))sym(blas, "hipblasDestroy");
    status_t (*sgemm)(handle_t, int, int, int, int, int, const float *, const float *, int,
                      const float *, int, const float *, float *, int) =
        (status_t(*)(handle_t, int, int, int, int, int, const float *, const float *, int,
                     const float *, int, const float *, float *, int))sym(blas, "hipblasSgemm");
    printf("hipblasStatusToString(0): %s\n", blas_string(0));
    EXPECT(strcmp(blas_string(0), "HIPBLAS_STATUS_SUCCESS") == 0, "hipblasStatusToString(0)", 0);

    handle_t blas_handle = NULL;
    r = blas_create(&blas_handle);
    printf("hipblasCreate: status %d (%s)\n", r, blas_string(r));
    if (!gpu) {
        EXPECT(r != 0, "hipblasCreate succeeded without a GPU", r);
        r = rand_create(&g, HIPRAND_RNG_PSEUDO_DEFAULT);
        printf("hiprandCreateGenerator(PSEUDO_DEFAULT): status %d\n", r);
        EXPECT(r != 0, "hiprandCreateGenerator succeeded without a GPU", r);
        if (r == 0) rand_destroy(g);
        if (failures == 0) printf("check-math: OK (no GPU)\n");
        return failures ? 1 : 0;
    }
    EXPECT(r == 0, "hipblasCreate", r);
    if (r != 0) return 1;

    void *cudart = open_lib(argv[3], RTLD_NOW);
    status_t (*cuda_malloc)(void **, size_t) = (status_t(*)(void **, size_t))sym(cudart, "cudaMalloc");
    status_t (*cuda_free)(void *) = (status_t(*)(void *))sym(cudart, "cudaFree");
    status_t (*cuda_memcpy)(void *, const void *, size_t, int) =
        (status_t(*)(void *, const void *, size_t, int))sym(cudart, "cudaMemcpy");
    status_t (*cuda_sync)(void) = (status_t(*)(void))sym(cudart, "cudaDeviceSynchronize");

    /* C (2x2) = A (2x3) * B (3x2), column-major. */
    const float A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {7, 8, 9, 10, 11, 12}, one = 1, zero = 0;
    float C[4] = {-1, -1, -1, -1}, want[4];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            want[i + 2 * j] = 0;
            for (int l = 0; l < 3; l++) want[i + 2 * j] += A[i + 2 * l] * B[l + 3 * j];
        }
    float *dA, *dB, *dC;
    EXPECT((r = cuda_malloc((void **)&dA, sizeof A)) == 0, "cudaMalloc", r);
    EXPECT((r = cuda_malloc((void **)&dB, sizeof B)) == 0, "cudaMalloc", r);
    EXPECT((r = cuda_malloc((void **)&dC, sizeof C)) == 0, "cudaMalloc", r);
    if (failures) return 1;
    cuda_memcpy(dA, A, sizeof A, CUDA_MEMCPY_HOST_TO_DEVICE);
    cuda_memcpy(dB, B, sizeof B, CUDA_MEMCPY_HOST_TO_DEVICE);
    cuda_memcpy(dC, C, sizeof C, CUDA_MEMCPY_HOST_TO_DEVICE);
    r = sgemm(blas_handle, HIPBLAS_OP_N, HIPBLAS_OP_N, 2, 2, 3, &one, dA, 2, dB, 3, &zero, dC, 2);
    EXPECT(r == 0, "hipblasSgemm", r);
    EXPECT((r = cuda_sync()) == 0, "cudaDeviceSynchronize after hipblasSgemm", r);
    EXPECT((r = cuda_memcpy(C, dC, sizeof C, CUDA_MEMCPY_DEVICE_TO_HOST)) == 0, "cudaMemcpy", r);
    printf("hipblasSgemm: [%g %g; %g %g], want [%g %g; %g %g]\n", C[0], C[2], C[1], C[3], want[0],
           want[2], want[1], want[3]);
    for (int i = 0; i < 4; i++) EXPECT(C[i] == want[i], "hipblasSgemm result", i);
    cuda_free(dA);
    cuda_free(dB);
    cuda_free(dC);
    EXPECT((r = blas_destroy(blas_handle)) == 0, "hipblasDestroy", r);

    float *d;
    EXPECT((r = cuda_malloc((void **)&d, sizeof a)) == 0, "cudaMalloc", r);
    if (failures) return 1;
    for (int pass = 0; pass < 2; pass++) {
        handle_t h = NULL;
        EXPECT((r = rand_create(&h, HIPRAND_RNG_PSEUDO_DEFAULT)) == 0, "hiprandCreateGenerator", r);
        if (r != 0) return 1;
        EXPECT((r = rand_seed(h, 1234)) == 0, "hiprandSetPseudoRandomGeneratorSeed", r);
        EXPECT((r = rand_uniform(h, d, N_RANDOM)) == 0, "hiprandGenerateUniform", r);
        EXPECT((r = cuda_sync()) == 0, "cudaDeviceSynchronize after hiprandGenerateUniform", r);
        EXPECT((r = cuda_memcpy(pass == 0 ? a : b, d, sizeof a, CUDA_MEMCPY_DEVICE_TO_HOST)) == 0,
               "cudaMemcpy", r);
        EXPECT((r = rand_destroy(h)) == 0, "hiprandDestroyGenerator", r);
    }
    cuda_free(d);
    check_uniform("device generator", a, N_RANDOM);
    EXPECT(memcmp(a, b, sizeof a) == 0, "device generator: same seed, different numbers", 0);
    if (failures == 0) printf("check-math: OK (GPU)\n");
    return failures ? 1 : 0;
}
