#!/usr/bin/env bash
# The import picture: which layer of the house uses which, from the `use` paths in the code,
# and the rules that keep every arrow pointing down:
#
#   facade (facades/cudarc)   cli (cli/: anycuda-cli, the `anycuda` command)
#        \                    /
#         core (src/core: anycuda::core, the safe layer)   c-abi (capi/: anycuda-capi,
#           |                                             /   cudart12/: anycuda-cudart12)
#         raw (the rest of src/: anycuda::{driver, runtime, nvrtc, rtc, nccl, nvjitlink, ...})
#           |
#         backends (backends/cuda: anycuda_cuda, backends/hip: anycuda_hip)
#           |
#         rtc (rtc: anycuda_rtc, the compiler front end and the program cache)
#           |
#         api (api: anycuda_api, the vocabulary)
#   (the tool crates, codegen/ and xtask/, stand outside the layers: their Cargo.toml is checked
#   only for the C ABI rule below)
#
#   test-support (test-support/: anycuda_test, test-support/macros: anycuda_test_macros) stands
#   beside the house: only tests, examples and benchmarks use it (a dev-dependency), and it uses
#   no anycuda crate (so every crate can take it without a dependency cycle).
#
# Prints, for each layer, the layers its code names and in how many files (comment lines do
# not count), the arrows that point up (a layer naming one above it) and the circles (two
# layers naming each other). Fails (exit 1) when
# - src/core names a backend (anycuda_cuda, anycuda_hip, anycuda::native / crate::native, a
#   `Backend::Cuda`/`Backend::Hip` branch or `as_cuda()`/`as_hip()`);
# - anything under backends/, rtc/ or api/ uses the `anycuda` crate or its core (in code or as
#   a Cargo dependency), rtc/ or api/ uses a backend, or api/ uses anycuda-rtc;
# - an arrow points up other than the raw layer's re-exports of core (listed as a note), or
#   two layers name each other (a circle);
# - the facade names a backend crate (in code or as a Cargo dependency) or branches on one;
# - the C ABI (capi/, cudart12/) names a backend crate (in code, `anycuda::native`, or as a
#   Cargo dependency) or `anycuda::core`: it exports the raw layer, over anycuda-api's types;
# - cudart12/ uses the anycuda crate or anycuda-capi as a crate (in code or as a Cargo
#   dependency): it holds no anycuda state and reaches the C ABI through its table, opened at
#   run time;
# - any other layer, or a Cargo.toml outside the C ABI, uses the C ABI's crates;
# - the library crate depends on clap or env_logger, or any crate depends on anycuda-cli (the
#   command is a crate of its own so that library users never build it);
# - inside the HIP backend, a translation (src/conv/) uses an adaptation (src/adapt/): the
#   adaptations call the translations, never the other way;
# - library code (any layer above) names anycuda_test, or a Cargo.toml takes anycuda-test other
#   than as a dev-dependency; or test-support uses an anycuda crate (code or Cargo dependency).
# Needs bash, grep and awk only. Usage: bash ci/import-picture.sh (from anywhere).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The Rust files of a layer, one a line.
files_of() {
    case "$1" in
    facade) find facades/cudarc/src -name '*.rs' ;;
    cli) find cli/src -name '*.rs' ;;
    core) find src/core -name '*.rs' ;;
    raw) find src -name '*.rs' -not -path 'src/core/*' ;;
    backends) find backends/cuda/src backends/hip/src -name '*.rs' ;;
    rtc) find rtc/src -name '*.rs' ;;
    api) find api/src -name '*.rs' ;;
    hip-conv) find backends/hip/src/conv -name '*.rs' ;;
    c-abi) find capi/src cudart12/src -name '*.rs' ;;
    cudart12) find cudart12/src -name '*.rs' ;;
    test-support) find test-support/src test-support/macros/src -name '*.rs' ;;
    esac | sort
}

# Prints a Rust file's code with comments and the contents of string literals removed (so
# that advice text such as "use anycuda::core::Program" is not an import), each line
# prefixed with FILE:LINE: .
CODE_AWK='
{
    out = ""; i = 1; n = length($0)
    while (i <= n) {
        c = substr($0, i, 1)
        if (instr) {
            if (c == "\\") { i += 2; continue }
            if (c == "\"" && substr($0, i + 1, hashes) == hs) { instr = 0; i += 1 + hashes; out = out "\"\""; continue }
            i++; continue
        }
        two = substr($0, i, 2)
        if (two == "//") break
        if (c == "\"") { instr = 1; hashes = 0; hs = ""; i++; continue }
        if (two == "r\"" || two == "r#") {
            j = i + 1; h = 0
            while (substr($0, j, 1) == "#") { h++; j++ }
            if (substr($0, j, 1) == "\"") {
                instr = 1; hashes = h; hs = ""; for (k = 0; k < h; k++) hs = hs "#"
                i = j + 1; continue
            }
        }
        if (c == "\x27" && substr($0, i + 2, 1) == "\x27") { out = out "\x27_\x27"; i += 3; continue }
        out = out c; i++
    }
    printf "%s:%d: %s\n", FILENAME, FNR, out
}'
code_of() {
    awk "$CODE_AWK" "$1"
}

# Each layer's code, read once into a scratch folder.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for layer in facade cli core raw backends rtc api hip-conv c-abi cudart12 test-support; do
    files_of "$layer" | while IFS= read -r f; do code_of "$f"; done >"$scratch/$layer"
done

# How many of the layer's files have a code line matching the extended regex.
count() {
    grep -E -- "^[^ ]* .*($2)" "$scratch/$1" | cut -d: -f1 | sort -u | wc -l | tr -d ' '
}

# The code lines of a layer matching the regex, as FILE:LINE: code.
offenders() {
    grep -E -- "^[^ ]* .*($2)" "$scratch/$1" | sed 's/^/      /' || true
}

# What each layer names. Paths into the `anycuda` crate read `crate::` inside it and
# `anycuda::` outside it; a grouped import (`anycuda::{core::X, driver}`) counts for each
# layer it names. The crate root's own items (`anycuda::Backend`, `anycuda::BackendKind`,
# `anycuda::DriverError`) are the raw layer's.
API='\banycuda_api\b'
RTC='\banycuda_rtc\b'
BACKEND_CRATES='\banycuda_(cuda|hip)\b'
NATIVE='\b(anycuda|crate)::native\b'
BACKEND="$BACKEND_CRATES|$NATIVE"
CORE_OUT='\banycuda::(core\b|\{[^}]*\bcore\b)'
RAW_OUT='\banycuda::([A-Za-z_]+|\{)'
CORE_IN='\bcrate::core\b'
RAW_IN='\bcrate::(driver|runtime|nvrtc|rtc|nccl|nvjitlink|dispatch|select|generated|backend|Backend|Selected)\b'
BRANCH='\bBackend::(Cuda|Hip)\b|\bas_(cuda|hip)\(|\bBackendKind::(Cuda|Hip)\b'
CABI='\banycuda_(capi|cudart12)\b'
# Inside the C ABI's crates `crate::` is their own, so a backend is named only from outside.
CABI_BACKEND="$BACKEND_CRATES|\\banycuda::native\\b"
TEST='\banycuda_test(_macros)?\b'
# Any anycuda crate but the test support's own.
ANY_ANYCUDA='\banycuda::|\banycuda_(api|rtc|cuda|hip|cudarc|capi|cudart12)\b'

echo "import picture (per layer: how many of its files name each other layer in code; - is itself)"
# Each cell is kept in `names[ROW,COLUMN]` for the arrows and circles below; the last column,
# test (anycuda-test), is shown only: its own checks are below.
declare -A names
COLUMNS=(core raw facade backends rtc api c-abi)
# Prints one line of the table (padded cells, no trailing blanks).
line() {
    local l
    l=$(printf '  %-12s' "$1")$(shift && printf ' %-8s' "$@")
    echo "${l%"${l##*[! ]}"}"
}
line layer "${COLUMNS[@]}" test
row() {
    local layer=$1 i=0 v test=-
    shift
    for v in "$@"; do
        names[$layer,${COLUMNS[$i]}]=$v
        i=$((i + 1))
    done
    # `count` fails (pipefail) when nothing matches, yet prints the 0.
    [[ $layer == test-support ]] || test=$(count "$layer" "$TEST") || true
    line "$layer" "$@" "$test"
}
row facade "$(count facade "$CORE_OUT")" "$(count facade "$RAW_OUT")" - \
    "$(count facade "$BACKEND")" "$(count facade "$RTC")" "$(count facade "$API")" \
    "$(count facade "$CABI")"
row cli "$(count cli "$CORE_OUT")" "$(count cli "$RAW_OUT")" "$(count cli '\banycuda_cudarc\b')" \
    "$(count cli "$BACKEND")" "$(count cli "$RTC")" "$(count cli "$API")" "$(count cli "$CABI")"
row core - "$(count core "$RAW_IN")" "$(count core '\banycuda_cudarc\b')" \
    "$(count core "$BACKEND")" "$(count core "$RTC")" "$(count core "$API")" "$(count core "$CABI")"
row raw "$(count raw "$CORE_IN")" - "$(count raw '\banycuda_cudarc\b')" \
    "$(count raw "$BACKEND")" "$(count raw "$RTC")" "$(count raw "$API")" "$(count raw "$CABI")"
row backends "$(count backends '\banycuda::')" "$(count backends '\banycuda::')" \
    "$(count backends '\banycuda_cudarc\b')" - "$(count backends "$RTC")" \
    "$(count backends "$API")" "$(count backends "$CABI")"
row rtc "$(count rtc '\banycuda::')" "$(count rtc '\banycuda::')" \
    "$(count rtc '\banycuda_cudarc\b')" "$(count rtc "$BACKEND_CRATES")" - "$(count rtc "$API")" \
    "$(count rtc "$CABI")"
row api "$(count api '\banycuda::')" "$(count api '\banycuda::')" \
    "$(count api '\banycuda_cudarc\b')" "$(count api "$BACKEND_CRATES")" "$(count api "$RTC")" - \
    "$(count api "$CABI")"
row c-abi "$(count c-abi "$CORE_OUT")" "$(count c-abi "$RAW_OUT")" \
    "$(count c-abi '\banycuda_cudarc\b')" "$(count c-abi "$CABI_BACKEND")" "$(count c-abi "$RTC")" \
    "$(count c-abi "$API")" -
row test-support "$(count test-support '\banycuda::')" "$(count test-support '\banycuda::')" \
    "$(count test-support '\banycuda_cudarc\b')" "$(count test-support "$BACKEND_CRATES")" \
    "$(count test-support "$RTC")" "$(count test-support "$API")" "$(count test-support "$CABI")"
echo "  (backends, rtc, api and test-support: a path into the anycuda crate, core or raw alike;"
echo "   test: anycuda-test, which only tests, examples and benchmarks use)"

# The layers' heights, top to bottom (the facade and the CLI side by side, and the C ABI beside
# core: both stand on the raw layer). An arrow up is a layer naming a higher one. test-support
# stands beside the house and has checks of its own below.
declare -A height=([facade]=5 [cli]=5 [core]=4 [c-abi]=4 [raw]=3 [backends]=2 [rtc]=1 [api]=0)
up_arrows=()
circles=()
# Whether layer $1 names layer $2; the raw layer's re-exports of core do not count here (they
# are allowed, and listed in a note below).
names_layer() {
    local n=${names[$1,$2]:--}
    [[ $n != - && $n != 0 ]] && ! [[ $1 == raw && $2 == core ]]
}
for r in facade cli core raw backends rtc api c-abi; do
    for c in "${COLUMNS[@]}"; do
        names_layer "$r" "$c" || continue
        ((height[$c] > height[$r])) && up_arrows+=("$r -> $c (${names[$r,$c]} files)")
        [[ $r < $c ]] && names_layer "$c" "$r" && circles+=("$r <-> $c")
    done
done
echo "  arrows up: ${#up_arrows[@]}${up_arrows[*]:+ (${up_arrows[*]})}; circles: ${#circles[@]}${circles[*]:+ (${circles[*]})}"

# Arrows up that are allowed but worth seeing: raw code naming core.
up=$(offenders raw "$CORE_IN")
if [ -n "$up" ]; then
    echo
    echo "note: raw code that names core (an arrow up; allowed only as a re-export):"
    echo "$up"
fi

# The C ABI's branches on the backend kind, through the raw layer's public BackendKind: allowed
# (on the CUDA backend the drop-in answers with NVIDIA's own entry points), but worth seeing.
cabi_branch=$(offenders c-abi "$BRANCH")
if [ -n "$cabi_branch" ]; then
    echo
    echo "note: C-ABI code that branches on the backend (allowed: on the CUDA backend it hands out"
    echo "      NVIDIA's own entry points, docs/c-abi.md):"
    echo "$cabi_branch"
fi

fail=0
check() {
    local what=$1 hits=$2
    if [ -n "$hits" ]; then
        echo "FAIL: $what"
        echo "$hits"
        fail=1
    else
        echo "ok: $what"
    fi
}
dep_on() {
    # Cargo.toml files (given) that depend on one of the packages (regex on the name).
    local re=$1
    shift
    grep -nHE "^[[:space:]]*($re)[[:space:]]*(=|\.workspace)" "$@" | sed 's/^/      /' || true
}

echo
check "src/core names no backend and has no backend branch" \
    "$(offenders core "$BACKEND|$BRANCH")"
check "backends/, rtc/ and api/ do not use the anycuda crate or its core" \
    "$(for l in backends rtc api; do offenders "$l" '\banycuda::|\banycuda_cudarc\b'; done
       dep_on 'anycuda|anycuda-cudarc' backends/*/Cargo.toml rtc/Cargo.toml api/Cargo.toml)"
check "rtc/ and api/ use no backend" \
    "$(offenders rtc "$BACKEND_CRATES"; offenders api "$BACKEND_CRATES"
       dep_on 'anycuda-(cuda|hip)' rtc/Cargo.toml api/Cargo.toml)"
check "api/ does not use anycuda-rtc (the front end stands on the vocabulary, not the reverse)" \
    "$(offenders api "$RTC"; dep_on 'anycuda-rtc' api/Cargo.toml)"
check "no arrow points up (but the raw layer's re-exports of core) and no two layers name each other" \
    "$(for a in "${up_arrows[@]}"; do echo "      arrow up: $a"; done
       for c in "${circles[@]}"; do echo "      circle: $c"; done)"
check "the facade names no backend crate and has no backend branch" \
    "$(offenders facade "$BACKEND|$BRANCH"; dep_on 'anycuda-(cuda|hip)' facades/cudarc/Cargo.toml)"
check "the HIP backend's translations (conv/) use no adaptation (adapt/)" \
    "$(offenders hip-conv '\bcrate::adapt\b')"
check "the C ABI (capi/, cudart12/) names no backend crate and not anycuda::core" \
    "$(offenders c-abi "$CABI_BACKEND|$CORE_OUT"; dep_on 'anycuda-(cuda|hip)' capi/Cargo.toml cudart12/Cargo.toml)"
check "cudart12/ uses neither the anycuda crate nor anycuda-capi as a crate (no state of its own)" \
    "$(offenders cudart12 '\banycuda::|\banycuda_capi\b'; dep_on 'anycuda|anycuda-capi' cudart12/Cargo.toml)"
check "no other layer uses the C ABI (anycuda-capi, anycuda-cudart12)" \
    "$(for l in facade cli core raw backends rtc api; do offenders "$l" "$CABI"; done
       dep_on 'anycuda-(capi|cudart12)' Cargo.toml rtc/Cargo.toml api/Cargo.toml backends/*/Cargo.toml \
           codegen/Cargo.toml xtask/Cargo.toml facades/*/Cargo.toml)"
check "the library crate builds no command-line parser (clap, the CLI's crates are cli/'s alone)" \
    "$(dep_on 'clap|env_logger' Cargo.toml; dep_on 'anycuda-cli' Cargo.toml api/Cargo.toml \
           rtc/Cargo.toml backends/*/Cargo.toml capi/Cargo.toml cudart12/Cargo.toml facades/*/Cargo.toml)"
# anycuda-test in a Cargo.toml's section other than [dev-dependencies] (or the workspace's
# [workspace.dependencies], which only declares it).
not_dev_dep() {
    awk '/^\[/ { sec = $0 } /^[[:space:]]*anycuda-test[[:space:]]*(=|\.workspace)/ &&
        sec != "[dev-dependencies]" && sec != "[workspace.dependencies]" {
        printf "      %s:%d: %s (in %s)\n", FILENAME, FNR, $0, sec }' "$@"
}
check "only tests, examples and benchmarks use anycuda-test (a dev-dependency)" \
    "$(for l in facade cli core raw backends rtc api c-abi; do offenders "$l" "$TEST"; done
       not_dev_dep Cargo.toml rtc/Cargo.toml api/Cargo.toml backends/*/Cargo.toml codegen/Cargo.toml \
           facades/cudarc/Cargo.toml capi/Cargo.toml cudart12/Cargo.toml cli/Cargo.toml \
           xtask/Cargo.toml)"
check "test-support uses no anycuda crate (every crate can take it without a cycle)" \
    "$(offenders test-support "$ANY_ANYCUDA"
       dep_on 'anycuda|anycuda-(api|rtc|cuda|hip|cudarc|capi|cudart12)' test-support/Cargo.toml \
           test-support/macros/Cargo.toml)"
exit "$fail"
