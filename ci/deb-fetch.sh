#!/usr/bin/env bash
# Sourced by the scripts that need Debian packages without installing them (ci/curand-fetch.sh,
# ci/cublas-fetch.sh, ci/nccl-fetch.sh): one private apt configuration per input (its own
# sources.list, state and cache folders) and `dpkg -x`; nothing is installed system-wide.
#
#   deb_fetch DEST APT_DIR SUITE MARKER STAMP PKG=VERSION...
#
# Unpacks every PKG at its pinned VERSION from Debian SUITE into DEST, unless DEST/.STAMP.done
# and DEST/MARKER already exist. The .debs stay in APT_DIR/debs (named by exact version), so a
# second unpack needs no network; a missing one is downloaded.
deb_fetch() {
    local dest="$1" apt_dir="$2" suite="$3" marker="$4" stamp="$5"
    shift 5
    [[ -f "$dest/.$stamp.done" && -e "$dest/$marker" ]] && return 0
    mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
    : >"$apt_dir/state/status"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" \
        >"$apt_dir/sources.list"
    local opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
        -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=/dev/null"
        -o "Dir::State=$apt_dir/state" -o "Dir::State::status=$apt_dir/state/status"
        -o "Dir::Cache=$apt_dir/cache" -o "APT::Architecture=amd64" -o "APT::Architectures=amd64"
        -o "Debug::NoLocking=1" -o "Acquire::Languages=none" -o "APT::Sandbox::User=$(id -un)")
    local spec want=()
    # A .deb's file name carries its version with ':' written as %3a.
    deb_of() { compgen -G "$apt_dir/debs/${1%%=*}_${1#*=}_*.deb" | head -n1; }
    for spec in "$@"; do
        spec="${spec//:/%3a}"
        [[ -n "$(deb_of "$spec")" ]] || want+=("${spec//%3a/:}")
    done
    if ((${#want[@]})); then
        printf 'deb-fetch: downloading %s (Debian %s)\n' "${want[*]}" "$suite" >&2
        apt-get "${opts[@]}" -q update >&2
        (cd "$apt_dir/debs" && apt-get "${opts[@]}" -q download "${want[@]}" >&2)
    fi
    rm -rf "$dest"
    mkdir -p "$dest"
    for spec in "$@"; do
        dpkg -x "$(deb_of "${spec//:/%3a}")" "$dest"
    done
    touch "$dest/.$stamp.done"
}
