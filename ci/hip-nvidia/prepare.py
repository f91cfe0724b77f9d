#!/usr/bin/env python3
"""Turns HIP 5.2.3's NVIDIA platform headers into a translation unit that exports HIP as a library.

    prepare.py SRC_INCLUDE BUILD_DIR

SRC_INCLUDE holds Debian libamdhip64-dev's hip/ directory (usr/include of the package). This
script never modifies it. It writes into BUILD_DIR:

    include/hip/...   a copy of the headers, with the nvidia_detail files patched (see PATCHES)
    exports.cpp       one `extern "C"` definition per HIP / hipRTC function of those headers
    summary.txt       patches applied, functions exported and skipped (with reasons), and how the
                      exported set compares with the AMD platform's declarations
    exports.txt       the exported names, one a line (build.sh checks the library against it)

Why: HIP's NVIDIA platform is header-only (every hip* function is an `inline static` wrapper of a
CUDA call), so there is no libamdhip64.so to dlopen on an NVIDIA machine. anycuda's HIP backend
dlopens one, so we compile the headers into one: each header function is renamed to
anycuda_impl_<name> in the copy, and exports.cpp defines <name> with the header's exact signature
as a real symbol that forwards to it. A static_assert per function proves the signature matches.

The headers predate CUDA 13; PATCHES make them compile there with the smallest honest change:
an API CUDA removed makes the HIP function return hipErrorNotSupported, a struct field CUDA
removed is read through the device-attribute query that replaced it.
"""

import json
import re
import shutil
import sys
from pathlib import Path

NV = "hip/nvidia_detail"
RUNTIME = f"{NV}/nvidia_hip_runtime_api.h"
HIPRTC = f"{NV}/nvidia_hiprtc.h"
PREFIX = "anycuda_impl_"


def lit(snippet):
    """A regex matching `snippet` with any run of whitespace standing for any other (or none)."""
    return r"\s*".join(re.escape(tok) for tok in snippet.split())


# (file, id, reason, regex, replacement, expected number of matches)
# Each reason is one line: it lands in summary.txt and in README.md's patch list. A replacement is
# a re.sub template (\1 is a group; write no other backslash) or a function of the match. The
# expected count makes a different header version fail loudly instead of half-patching.
PATCHES = [
    (RUNTIME, "cuda-11020-typo",
     "upstream typo `#define CUDA_11010 11020` redefines CUDA_11010 (warning); define CUDA_11020",
     r"#define CUDA_11010 11020", "#define CUDA_11020 11020", 1),

    (RUNTIME, "mem-location-helper",
     "CUDA 13 cudaMemAdvise/cudaMemPrefetchAsync take a cudaMemLocation: add a device->location helper",
     lit("inline static hipError_t hipMemAdvise("),
     "/* anycuda patch: CUDA 13 addresses managed memory by cudaMemLocation, HIP by device ordinal\n"
     "   (cudaCpuDeviceId meaning the host). */\n"
     "inline static struct cudaMemLocation anycuda_memLocation(int device) {\n"
     "    struct cudaMemLocation location;\n"
     "    location.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost\n"
     "                                              : cudaMemLocationTypeDevice;\n"
     "    location.id = device == cudaCpuDeviceId ? 0 : device;\n"
     "    return location;\n"
     "}\n\n"
     "inline static hipError_t hipMemAdvise(", 1),
    (RUNTIME, "mem-advise",
     "CUDA 13 cudaMemAdvise takes a cudaMemLocation instead of an int device",
     lit("hipMemoryAdviseTocudaMemoryAdvise(advice), device));"),
     "hipMemoryAdviseTocudaMemoryAdvise(advice), anycuda_memLocation(device)));", 1),
    (RUNTIME, "mem-prefetch-async",
     "CUDA 13 cudaMemPrefetchAsync takes (cudaMemLocation, flags) instead of an int device",
     lit("cudaMemPrefetchAsync(dev_ptr, count, device, stream)"),
     "cudaMemPrefetchAsync(dev_ptr, count, anycuda_memLocation(device), 0, stream)", 1),

    (RUNTIME, "choose-device-removed-fields",
     "cudaDeviceProp lost clockRate, computeMode, memoryClockRate in CUDA 13: "
     "hipChooseDevice no longer matches on them",
     r"\n[ \t]*cdprop\.(?:clockRate|computeMode|memoryClockRate) = prop->\w+;",
     "", 3),

    (RUNTIME, "device-props-zero",
     "hipGetDeviceProperties zeroes the struct first, so fields the NVIDIA path never sets "
     "(gcnArchName, ...) read as 0/\"\" instead of the caller's garbage",
     lit("struct cudaDeviceProp cdprop; cudaError_t cerror;"),
     "memset(p_prop, 0, sizeof(*p_prop)); /* anycuda patch: define unset fields */\n"
     "    struct cudaDeviceProp cdprop;\n    cudaError_t cerror;", 1),
    (RUNTIME, "device-props-attrs",
     "cudaDeviceProp lost clockRate, memoryClockRate, computeMode, kernelExecTimeoutEnabled "
     "in CUDA 13: hipGetDeviceProperties reads them with cudaDeviceGetAttribute",
     r"p_prop->(clockRate|memoryClockRate|computeMode|kernelExecTimeoutEnabled)(\s*)= "
     r"cdprop\.\1;",
     lambda m: "cudaDeviceGetAttribute(&p_prop->%s, %s, device); /* anycuda patch */" % (
         m.group(1), {"clockRate": "cudaDevAttrClockRate",
                      "memoryClockRate": "cudaDevAttrMemoryClockRate",
                      "computeMode": "cudaDevAttrComputeMode",
                      "kernelExecTimeoutEnabled": "cudaDevAttrKernelExecTimeout"}[m.group(1)]),
     4),
    (RUNTIME, "device-props-clock-instruction-rate",
     "clockInstructionRate was copied from the removed cudaDeviceProp.clockRate: copy the "
     "value just queried",
     lit("p_prop->clockInstructionRate = cdprop.clockRate;"),
     "p_prop->clockInstructionRate = p_prop->clockRate; /* anycuda patch */", 1),
    (RUNTIME, "device-props-coop-multi-device",
     "CUDA 13 removed multi-device cooperative launch (and the cudaDeviceProp field): "
     "report it unsupported (0)",
     lit("p_prop->cooperativeMultiDeviceLaunch = cdprop.cooperativeMultiDeviceLaunch;"),
     "p_prop->cooperativeMultiDeviceLaunch = 0; /* anycuda patch: removed in CUDA 13 */", 1),

    (RUNTIME, "device-attr-coop-multi-device",
     "cudaDevAttrCooperativeMultiDeviceLaunch was removed in CUDA 13: hipDeviceGetAttribute "
     "returns hipErrorNotSupported for it",
     lit("cdattr = cudaDevAttrCooperativeMultiDeviceLaunch; break;"),
     "return hipErrorNotSupported; /* anycuda patch: removed in CUDA 13 */", 1),

    (RUNTIME, "ctx-create-v4",
     "CUDA 13's cuCtxCreate is cuCtxCreate_v4 with a CUctxCreateParams* (NULL = plain context)",
     lit("cuCtxCreate(ctx, flags, device)"),
     "cuCtxCreate(ctx, NULL, flags, device)", 1),

    (RUNTIME, "bind-texture",
     "texture references (cudaBindTexture) were removed in CUDA 12: hipErrorNotSupported",
     lit("return hipCUDAErrorTohipError(cudaBindTexture(offset, tex, devPtr, desc, size));"),
     "return hipErrorNotSupported; /* anycuda patch: cudaBindTexture removed in CUDA 12 */", 1),
    (RUNTIME, "bind-texture-2d",
     "texture references (cudaBindTexture2D) were removed in CUDA 12: hipErrorNotSupported",
     lit("return hipCUDAErrorTohipError(cudaBindTexture2D(offset, tex, devPtr, desc, width, "
         "height, pitch));"),
     "return hipErrorNotSupported; /* anycuda patch: cudaBindTexture2D removed in CUDA 12 */", 1),
    (RUNTIME, "texture-alignment-offset",
     "texture references (cudaGetTextureAlignmentOffset) were removed in CUDA 12: "
     "hipErrorNotSupported",
     lit("return hipCUDAErrorTohipError(cudaGetTextureAlignmentOffset(offset,texref));"),
     "return hipErrorNotSupported; /* anycuda patch: removed in CUDA 12 */", 1),
    (RUNTIME, "coop-launch-multi-device",
     "cudaLaunchCooperativeKernelMultiDevice was removed in CUDA 13: hipErrorNotSupported",
     lit("return hipCUDAErrorTohipError(cudaLaunchCooperativeKernelMultiDevice(launchParamsList, "
         "numDevices, flags));"),
     "return hipErrorNotSupported; /* anycuda patch: removed in CUDA 13 */", 1),

    (RUNTIME, "module-get-texref-return",
     "hipModuleGetTexRef forgot `return` (undefined behaviour: garbage hipError_t)",
     r"(?<!return )hipCUResultTohipError\(cuModuleGetTexRef\(",
     "return hipCUResultTohipError(cuModuleGetTexRef(", 1),

    # The graph API below lives in the formerly nvcc-only tail (see ungate-cudacc).
    (RUNTIME, "graph-instantiate",
     "CUDA 12 cudaGraphInstantiate takes flags and no longer reports an error node or log: "
     "instantiate with flags 0, return no error node and an empty log",
     lit("return hipCUDAErrorTohipError( cudaGraphInstantiate(pGraphExec, graph, pErrorNode, "
         "pLogBuffer, bufferSize));"),
     "/* anycuda patch: CUDA 12 dropped the error-node and log outputs. */\n"
     "    if (pErrorNode) *pErrorNode = NULL;\n"
     "    if (pLogBuffer && bufferSize) pLogBuffer[0] = 0;\n"
     "    return hipCUDAErrorTohipError(cudaGraphInstantiate(pGraphExec, graph, 0));", 1),
    (RUNTIME, "graph-edge-data",
     "CUDA 13 graph edge calls take a cudaGraphEdgeData* next to the node lists: pass NULL "
     "(default edges, which is all HIP 5.2 can express)",
     r"\b(cudaGraphAddDependencies\(graph, from, to,|cudaGraphRemoveDependencies\(graph, from, "
     r"to,|cudaGraphGetEdges\(graph, from, to,|cudaGraphNodeGetDependencies\(node, "
     r"pDependencies,|cudaGraphNodeGetDependentNodes\(node, pDependentNodes,|"
     r"cudaStreamUpdateCaptureDependencies\(stream, dependencies,)(\s*)",
     r"\1 NULL /* anycuda patch: edgeData */,\2", 6),
    (RUNTIME, "stream-capture-info-v2",
     "CUDA 13 folded cudaStreamGetCaptureInfo_v2 into cudaStreamGetCaptureInfo, with an "
     "edgeData output: pass NULL for it",
     lit("cudaStreamGetCaptureInfo_v2( stream, captureStatus_out, id_out, graph_out, "
         "dependencies_out, numDependencies_out)"),
     "cudaStreamGetCaptureInfo(stream, captureStatus_out, id_out, graph_out, dependencies_out,\n"
     "        NULL /* anycuda patch: edgeData */, numDependencies_out)", 1),
    (RUNTIME, "graph-exec-update",
     "CUDA 12 cudaGraphExecUpdate returns a cudaGraphExecUpdateResultInfo: unpack its "
     "errorNode and result into HIP's two outputs",
     lit("return hipCUDAErrorTohipError( cudaGraphExecUpdate(hGraphExec, hGraph, hErrorNode_out, "
         "updateResult_out));"),
     "/* anycuda patch: CUDA 12 reports both outputs in one struct. */\n"
     "    cudaGraphExecUpdateResultInfo info;\n"
     "    memset(&info, 0, sizeof(info));\n"
     "    cudaError_t err = cudaGraphExecUpdate(hGraphExec, hGraph, &info);\n"
     "    if (hErrorNode_out) *hErrorNode_out = info.errorNode;\n"
     "    if (updateResult_out) *updateResult_out = info.result;\n"
     "    return hipCUDAErrorTohipError(err);", 1),

    (RUNTIME, "ungate-cudacc",
     "the tail (graphs, hipArrayCreate, hipTexObject*, hipStreamWaitValue*, ...) was only "
     "compiled by nvcc's device pass (__CUDACC__); it is host code: compile it everywhere",
     r"#ifdef __CUDACC__\n",
     "#if 1 /* anycuda patch: was #ifdef __CUDACC__; the C++ templates inside are removed */\n", 1),
]

# Removed as a whole before PATCHES: templates are C++-only overloads (no C symbol can carry them);
# several also use `texture<>`, which CUDA 12 removed, so they no longer even parse.
TEMPLATE_RE = re.compile(r"template\s*<[^{;]*?>\s*(?:__HIP_DEPRECATED\s+)?inline\s+static\b")

# inline static functions of the headers, definition only (the body follows the parameter list).
FUNC_RE = re.compile(
    r"(?P<lead>(?:__HIP_DEPRECATED(?:_MSG\(\"[^\"]*\"\))?\s+)?)inline\s+static\s+"
    r"(?P<ret>[A-Za-z_][\w\s\*]*?)\s*\b(?P<name>[A-Za-z_]\w*)\s*\(")

# Conversion helpers of the headers (hipCUDAErrorTohipError, ...) are not HIP API: not exported.
HELPER_RE = re.compile(r"To(?:cuda|Cuda|CU|hip|nvrtc)")


def die(msg):
    sys.stderr.write(f"prepare.py: error: {msg}\n")
    sys.exit(1)


def matching(text, i, open_ch, close_ch):
    """Index just past the bracket closing the one at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_ch:
            depth += 1
        elif text[j] == close_ch:
            depth -= 1
            if depth == 0:
                return j + 1
    die(f"unbalanced {open_ch}{close_ch} at offset {i}")


def remove_templates(text):
    """Deletes every `template <...> inline static ...(...) {...}`; returns (text, names)."""
    removed = []
    while True:
        m = TEMPLATE_RE.search(text)
        if not m:
            return text, removed
        f = FUNC_RE.search(text, m.start())
        if not f or f.start() > m.end() + 200:
            die(f"cannot parse the template at offset {m.start()}")
        close = matching(text, f.end() - 1, "(", ")")
        brace = text.index("{", close)
        end = matching(text, brace, "{", "}")
        removed.append(f.group("name"))
        text = text[:m.start()] + f"/* anycuda patch: C++ template {f.group('name')} removed */" \
            + text[end:]


def split_top(s, sep=","):
    """Splits s at top-level separators (outside (), [], <>)."""
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "([<":
            depth += 1
        elif ch in ")]>":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def strip_dparm(param):
    """`hipStream_t stream __dparm(0)` -> `hipStream_t stream` (a C symbol has no defaults)."""
    i = param.find("__dparm")
    if i < 0:
        return param.strip()
    return param[:i].strip()


def parse_params(raw):
    """Returns (params without defaults, argument names), or raises ValueError with a reason."""
    raw = " ".join(raw.split())
    if raw in ("", "void"):
        return [], []
    params, names = [], []
    for p in split_top(raw):
        p = strip_dparm(p)
        if p == "...":
            raise ValueError("variadic")
        if "(" in p or "[" in p:
            raise ValueError(f"parameter `{p}` is a function pointer or array declarator")
        m = re.search(r"([A-Za-z_]\w*)\s*$", p)
        if not m or re.fullmatch(r"[\w\s]*", p[:m.start()]) is None and "*" not in p:
            raise ValueError(f"unnamed parameter `{p}`")
        params.append(p)
        names.append(m.group(1))
    return params, names


def find_functions(text):
    """[(name, ret, params, names, start, end)] for each inline static definition in text."""
    out = []
    for m in FUNC_RE.finditer(text):
        close = matching(text, m.end() - 1, "(", ")")
        rest = text[close:close + 200].lstrip()
        if not rest.startswith("{"):
            continue  # a declaration or call, not a definition
        out.append((m.group("name"), " ".join(m.group("ret").split()),
                    text[m.end():close - 1], m.start()))
    return out


def amd_declarations(src):
    """Number of parameters of each hip*/hiprtc* function the AMD platform declares."""
    decl = {}
    texts = []
    api = src / "hip/hip_runtime_api.h"
    if api.exists():
        t = api.read_text(errors="replace")
        a = t.find("#if (defined(__HIP_PLATFORM_HCC__) || defined(__HIP_PLATFORM_AMD__))")
        b = t.find("#include \"hip/nvidia_detail/nvidia_hip_runtime_api.h\"")
        texts.append(t[a:b] if a >= 0 and b > a else "")
    rtc = src / "hip/hiprtc.h"
    if rtc.exists():
        texts.append(rtc.read_text(errors="replace"))
    for t in texts:
        t = re.sub(r"/\*.*?\*/", " ", t, flags=re.S)
        t = re.sub(r"//[^\n]*", " ", t)
        for m in re.finditer(r"\b(hip\w*)\s*\(([^;{}]*?)\)\s*(?:__attribute__\s*\(\(.*?\)\)\s*)?;",
                             t, flags=re.S):
            name, raw = m.group(1), m.group(2)
            pre = t[max(0, m.start() - 80):m.start()]
            if not re.search(r"(hipError_t|hiprtcResult|const\s+char\s*\*|\bvoid)\s*$", pre):
                continue  # a call inside a macro or an inline body, not a prototype
            n = 0 if " ".join(raw.split()) in ("", "void") else len(split_top(raw))
            decl.setdefault(name, n)
    return decl


def main():
    if len(sys.argv) != 3:
        die("usage: prepare.py SRC_INCLUDE BUILD_DIR")
    src, build = Path(sys.argv[1]), Path(sys.argv[2])
    for f in (RUNTIME, HIPRTC, "hip/hip_runtime_api.h", "hip/hiprtc.h"):
        if not (src / f).is_file():
            die(f"{src / f} not found: SRC_INCLUDE must hold libamdhip64-dev's hip/ headers")

    inc = build / "include"
    if inc.exists():
        shutil.rmtree(inc)  # idempotent: always patch a fresh copy
    shutil.copytree(src / "hip", inc / "hip", symlinks=False)

    texts = {f: (inc / f).read_text() for f in (RUNTIME, HIPRTC)}
    # Templates first: some repeat the very calls that PATCHES rewrite in the plain functions.
    texts[RUNTIME], templates = remove_templates(texts[RUNTIME])
    applied = []
    for fname, pid, reason, pattern, repl, expected in PATCHES:
        new, n = re.subn(pattern, repl, texts[fname])
        if n != expected:
            die(f"patch {pid}: expected {expected} match(es) in {fname}, found {n} "
                f"(not the HIP 5.2.3-8 headers?)")
        texts[fname] = new
        applied.append((pid, fname, reason))


    # Collect the functions to export, then rename them (definitions and internal uses alike).
    exported, skipped, seen = [], [], {}
    for t in dict.fromkeys(templates):
        n = templates.count(t)
        skipped.append((t, "C++ template overload%s (no C symbol possible; the texture<> ones "
                           "no longer parse under CUDA 12+)" % (f" x{n}" if n > 1 else "")))
    for fname in (RUNTIME, HIPRTC):
        for name, ret, raw, _ in find_functions(texts[fname]):
            if not name.startswith("hip"):
                continue  # nvrtcResultTohiprtcResult: internal, not HIP's name space
            if HELPER_RE.search(name):
                skipped.append((name, "header-internal conversion helper, not HIP API"))
                continue
            if name in seen:
                skipped.append((name, "C++ overload of an already exported name"))
                continue
            try:
                params, names = parse_params(raw)
            except ValueError as e:
                skipped.append((name, f"signature not exportable: {e}"))
                continue
            seen[name] = fname
            exported.append((name, ret, params, names))
    names = sorted(seen, key=len, reverse=True)
    word = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    for fname in texts:
        texts[fname] = word.sub(lambda m: PREFIX + m.group(1), texts[fname])
        (inc / fname).write_text(texts[fname])

    # The translation unit.
    out = [
        "// Generated by ci/hip-nvidia/prepare.py from Debian libamdhip64-dev's hip/nvidia_detail",
        "// headers (patched copy in include/). Do not edit; do not commit.",
        "// Every function of HIP's NVIDIA platform, exported under its HIP name.",
        "#ifndef __HIP_PLATFORM_NVIDIA__",
        "#define __HIP_PLATFORM_NVIDIA__ 1",
        "#endif",
        "// The C++ convenience templates (hipMalloc(T**)) would call the renamed functions.",
        "#define __HIP_DISABLE_CPP_FUNCTIONS__ 1",
        "#include <string.h>",
        "#include <hip/hip_runtime_api.h>",
        "#include <hip/hiprtc.h>",
        "#include <type_traits>",
        "",
        "#if !defined(CUDART_VERSION) || CUDART_VERSION < 13000",
        "#error \"the anycuda patches target the CUDA 13 headers (CUDART_VERSION >= 13000)\"",
        "#endif",
        "",
        "#define ANYCUDA_EXPORT extern \"C\" __attribute__((visibility(\"default\")))",
        "// Same type as the header's function, so the exported symbol has HIP's exact signature.",
        "#define ANYCUDA_SAME_SIGNATURE(f) \\",
        "    static_assert(std::is_same<decltype(&f), decltype(&" + PREFIX + "##f)>::value, \\",
        "                  #f \": exported signature differs from the header's\")",
        "",
    ]
    for name, ret, params, args in exported:
        out.append(f"ANYCUDA_EXPORT {ret} {name}({', '.join(params) or 'void'}) {{")
        out.append(f"    return {PREFIX}{name}({', '.join(args)});")
        out.append("}")
        out.append(f"ANYCUDA_SAME_SIGNATURE({name});")
    (build / "exports.cpp").write_text("\n".join(out) + "\n")
    (build / "exports.txt").write_text("".join(n + "\n" for n, *_ in exported))

    # How the exported set compares with what the AMD platform declares (what anycuda resolves).
    amd = amd_declarations(src)
    nv_arity = {n: len(p) for n, _, p, _ in exported}
    missing = sorted(n for n in amd if n not in nv_arity)
    arity = sorted(f"{n}: NVIDIA {nv_arity[n]} parameter(s), AMD {amd[n]}"
                   for n in nv_arity if n in amd and amd[n] != nv_arity[n])
    extra = sorted(n for n in nv_arity if amd and n not in amd)

    lines = [f"patches applied: {len(applied)}"]
    lines += [f"  {pid} ({Path(f).name}): {r}" for pid, f, r in applied]
    lines.append(f"functions exported: {len(exported)} "
                 f"({sum(1 for n in exported if n[0].startswith('hiprtc'))} hiprtc*)")
    lines.append(f"functions skipped: {len(skipped)}")
    lines += [f"  {n}: {r}" for n, r in skipped]
    if amd:
        lines.append(f"AMD-platform hip*/hiprtc* declarations: {len(amd)}; "
                     f"absent from this library (HIP's NVIDIA headers lack them): {len(missing)}")
        lines.append("  " + " ".join(missing))
        lines.append(f"exported with a different parameter count than the AMD declaration "
                     f"(check before relying on them): {len(arity)}")
        lines += [f"  {a}" for a in arity]
        lines.append(f"exported but not declared on AMD: {len(extra)}")
        lines.append("  " + " ".join(extra))
    (build / "summary.txt").write_text("\n".join(lines) + "\n")
    (build / "summary.json").write_text(json.dumps({
        "patches": [{"id": p, "file": f, "reason": r} for p, f, r in applied],
        "exported": [n for n, *_ in exported],
        "skipped": [{"name": n, "reason": r} for n, r in skipped],
        "absent_vs_amd": missing, "arity_differs_vs_amd": arity, "extra_vs_amd": extra,
    }, indent=1) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
