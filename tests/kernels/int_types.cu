// anycuda-kernel: bytes_to_int64_sum
// anycuda-kernel: fnv1a64
// anycuda-kernel: saturating_add_u8
// Fixed-width integer types from <cstdint>: uint8_t, int16_t, int64_t, uint64_t.
#include <cuda_runtime.h>
#include <cstdint>

extern "C" __global__ void bytes_to_int64_sum(const uint8_t* bytes, const int16_t* weights, int n, unsigned long long* total)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int64_t v = static_cast<int64_t>(bytes[i]) * static_cast<int64_t>(weights[i]);
        atomicAdd(total, static_cast<unsigned long long>(v));
    }
}

// One 64-bit FNV-1a hash per fixed-size record.
extern "C" __global__ void fnv1a64(const uint8_t* records, uint32_t record_len, uint32_t count, uint64_t* hashes)
{
    uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= count) return;
    const uint8_t* p = records + static_cast<uint64_t>(r) * record_len;
    uint64_t h = 14695981039346656037ull;
    for (uint32_t k = 0; k < record_len; ++k) {
        h ^= p[k];
        h *= 1099511628211ull;
    }
    hashes[r] = h;
}

extern "C" __global__ void saturating_add_u8(const uint8_t* a, const uint8_t* b, uint8_t* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uint16_t s = static_cast<uint16_t>(a[i]) + static_cast<uint16_t>(b[i]);
        out[i] = static_cast<uint8_t>(s > UINT8_MAX ? UINT8_MAX : s);
        int8_t sign_probe = static_cast<int8_t>(out[i]);
        if (sign_probe < INT8_MIN + 1 && INT64_MAX > 0) out[i] = 0x80;
    }
}
