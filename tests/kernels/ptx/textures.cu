// Texture and surface objects, as nvcc and NVVM write them (tex, tld4, suld.b, sust.b on a
// 64-bit handle): the PTX translator's texture kernels (tests/ptx_translate.rs compiles them
// with NVRTC, translates the PTX and compiles the translation with hipRTC; on a GPU it runs
// them translated and natively).

// Samples a 2D texture at n coordinate pairs: tex2D, tex2DLod (level 0), and tex2Dgather of
// each component (tld4.r/g/b/a), 6 float4 per point.
extern "C" __global__ void tex_sample2d(cudaTextureObject_t t, const float* xy, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = xy[2 * i], y = xy[2 * i + 1];
    out[6 * i] = tex2D<float4>(t, x, y);
    out[6 * i + 1] = tex2DLod<float4>(t, x, y, 0.0f);
    out[6 * i + 2] = tex2Dgather<float4>(t, x, y, 0);
    out[6 * i + 3] = tex2Dgather<float4>(t, x, y, 1);
    out[6 * i + 4] = tex2Dgather<float4>(t, x, y, 2);
    out[6 * i + 5] = tex2Dgather<float4>(t, x, y, 3);
}

// Fetches a 1D texture over linear memory at integer indices (tex.1d.v4.f32.s32), past both
// ends too: a float4 buffer and a one-channel float buffer.
extern "C" __global__ void tex_fetch1d(cudaTextureObject_t t4, cudaTextureObject_t t1, const int* idx, float4* out4, float* out1, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out4[i] = tex1Dfetch<float4>(t4, idx[i]);
    out1[i] = tex1Dfetch<float>(t1, idx[i]);
}

// Reads a 2D float4 surface (suld.b.2d.v4.b32, x in bytes), writes each element plus one to
// another (sust.b.2d.v4.b32); reads past the right edge in zero mode (suld ... .zero) into
// zeros; reads and writes a 1D u32 surface (suld.b.1d.b32, sust.b.1d.b32).
extern "C" __global__ void surf_ops(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, cudaSurfaceObject_t u, float4* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    float4 v;
    surf2Dread(&v, src, x * (int)sizeof(float4), y);
    float4 z;
    surf2Dread(&z, src, (x + w) * (int)sizeof(float4), y, cudaBoundaryModeZero);
    out[2 * (y * w + x)] = v;
    out[2 * (y * w + x) + 1] = z;
    surf2Dwrite(make_float4(v.x + 1.0f, v.y * 2.0f, -v.z, v.w), dst, x * (int)sizeof(float4), y);
    if (y == 0) {
        unsigned int a;
        surf1Dread(&a, u, x * 4);
        surf1Dwrite(a * 2654435761u + 1u, u, x * 4);
    }
}

// The other geometries and forms, compiled (not run): 1D, 3D, layered and cube-map sampling,
// explicit levels and gradients, integer results, 8-, 16- and 64-bit and vector surface
// accesses in 1D, 3D and layered surfaces.
extern "C" __global__ void tex_forms(cudaTextureObject_t t, cudaSurfaceObject_t s, const float* f, int* o) {
    float a = f[0], b = f[1], c = f[2];
    int i = o[0];
    float4 r = tex1D<float4>(t, a);
    r.x += tex3D<float4>(t, a, b, c).y;
    r.y += tex1DLayered<float4>(t, a, i).z;
    r.z += tex2DLayered<float4>(t, a, b, i).w;
    r.w += texCubemap<float4>(t, a, b, c).x;
    r.x += texCubemapLayered<float4>(t, a, b, c, i).y;
    r.y += tex1DLod<float4>(t, a, c).x + tex3DLod<float4>(t, a, b, c, a).y;
    r.z += tex2DLayeredLod<float4>(t, a, b, i, c).z + texCubemapLod<float4>(t, a, b, c, a).w;
    r.w += tex1DGrad<float4>(t, a, b, c).x;
    r.x += tex2DGrad<float4>(t, a, b, make_float2(a, b), make_float2(c, a)).y;
    r.y += tex3DGrad<float4>(t, a, b, c, make_float4(a, b, c, 0), make_float4(c, b, a, 0)).z;
    r.z += tex2DLayeredGrad<float4>(t, a, b, i, make_float2(a, b), make_float2(c, a)).w;
    int4 n = tex2D<int4>(t, a, b);
    uint4 u = tex1Dfetch<uint4>(t, i);
    int4 g = tex2Dgather<int4>(t, a, b, 1);
    unsigned char c8;
    surf1Dread(&c8, s, i);
    uchar4 c84;
    surf2Dread(&c84, s, i * 4, i);
    unsigned short c16;
    surf3Dread(&c16, s, i * 2, i, i);
    ushort2 c162;
    surf1DLayeredread(&c162, s, i * 4, i);
    unsigned long long c64;
    surf2DLayeredread(&c64, s, i * 8, i, i, cudaBoundaryModeZero);
    ulonglong2 c642;
    surf2Dread(&c642, s, i * 16, i);
    uint2 c322;
    surf3Dread(&c322, s, i * 8, i, i);
    surf1Dwrite((unsigned char)(c8 + 1), s, i);
    surf2Dwrite(make_uchar4(c84.x, c84.y, 1, 2), s, i * 4, i);
    surf3Dwrite((unsigned short)(c16 + c162.y), s, i * 2, i, i);
    surf1DLayeredwrite(make_ushort2(c162.x, 3), s, i * 4, i);
    surf2DLayeredwrite(c64 + 5, s, i * 8, i, i, cudaBoundaryModeZero);
    surf2Dwrite(make_ulonglong2(c642.y, c642.x), s, i * 16, i);
    surf3Dwrite(make_uint2(c322.y, c322.x), s, i * 8, i, i);
    o[1] = (int)(r.x + r.y + r.z + r.w) + n.x + (int)u.y + g.z;
}
