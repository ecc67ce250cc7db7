#!/usr/bin/env bash
# Installs the svc binary: downloads the release asset for this platform and checks it against its
# published sha256, or installs a local build with --binary. The new binary is written to a temp file
# beside the old one, proven to run, then renamed over it, so an interrupted install never leaves a
# half-written svc behind.
set -euo pipefail

usage() {
  cat <<EOF
usage: install.sh [options]

Installs svc into a directory (default: \$HOME/.svc/bin) and puts that directory on PATH.

options:
  --binary <file>        install this local build instead of downloading (no network)
  --base-url <url>       release base URL; assets are <url>/latest/<asset> or <url>/v<version>/<asset>
                         (env SVC_RELEASE_BASE_URL)
  --version <version>    release to download, e.g. 0.2.0 (env SVC_VERSION; default: latest)
  --install-dir <dir>    where to put svc (env SVC_INSTALL_DIR; default: \$HOME/.svc/bin)
  --no-modify-path       do not add the install directory to your shell's rc file
  -h, --help             show this help

Assets are named svc-<os>-<arch>: svc-linux-x64, svc-linux-arm64, svc-darwin-x64, svc-darwin-arm64,
each with a <asset>.sha256 beside it. SVC_INSTALL_PLATFORM stands in for \`uname -ms\` (for testing).
EOF
}

error() {
  echo "install.sh: error: $*" >&2
  exit 1
}

info() {
  echo "$*"
}

binary=""
base_url="${SVC_RELEASE_BASE_URL:-}"
version="${SVC_VERSION:-latest}"
install_dir="${SVC_INSTALL_DIR:-${HOME:?HOME is not set}/.svc/bin}"
modify_path=1

while [[ $# -gt 0 ]]; do
  case "$1" in
  --binary | --base-url | --version | --install-dir)
    [[ $# -ge 2 && -n "$2" ]] || error "$1 needs a value"
    case "$1" in
    --binary) binary="$2" ;;
    --base-url) base_url="$2" ;;
    --version) version="$2" ;;
    --install-dir) install_dir="$2" ;;
    esac
    shift 2
    ;;
  --no-modify-path)
    modify_path=0
    shift
    ;;
  -h | --help)
    usage
    exit 0
    ;;
  *) error "unknown option '$1' (see install.sh --help)" ;;
  esac
done

# The release asset for this machine. Under Rosetta 2 an arm64 Mac reports x86_64; prefer the native build.
asset_name() {
  local platform="${SVC_INSTALL_PLATFORM:-$(uname -ms)}"
  if [[ $platform == "Darwin x86_64" && $(sysctl -n sysctl.proc_translated 2>/dev/null || true) == 1 ]]; then
    platform="Darwin arm64"
  fi
  case "$platform" in
  "Linux x86_64" | "Linux amd64") echo svc-linux-x64 ;;
  "Linux aarch64" | "Linux arm64") echo svc-linux-arm64 ;;
  "Darwin x86_64") echo svc-darwin-x64 ;;
  "Darwin arm64") echo svc-darwin-arm64 ;;
  *) error "no svc build for platform '$platform'" ;;
  esac
}

# download <url> <file>: curl, else wget; fails on any HTTP error status.
download() {
  if command -v curl >/dev/null 2>&1; then
    curl --fail --location --silent --show-error --output "$2" "$1" || error "could not download $1"
  elif command -v wget >/dev/null 2>&1; then
    wget --quiet --output-document="$2" "$1" || error "could not download $1 (wget exit $?)"
  else
    error "curl or wget is needed to download svc (or pass --binary <file>)"
  fi
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  else
    error "sha256sum or shasum is needed to verify the download"
  fi
}

# Appends a PATH line for $install_dir to the user's shell rc file, once.
add_to_path() {
  local shell_name rc line
  shell_name=$(basename "${SHELL:-}")
  if [[ ! $install_dir =~ ^[[:alnum:]_./@+-]+$ ]]; then
    info "Add $install_dir to your PATH to run svc by name."
    return
  fi
  case "$shell_name" in
  bash)
    rc="$HOME/.bashrc"
    line="export PATH=\"$install_dir:\$PATH\""
    ;;
  zsh)
    rc="${ZDOTDIR:-$HOME}/.zshrc"
    line="export PATH=\"$install_dir:\$PATH\""
    ;;
  fish)
    rc="${XDG_CONFIG_HOME:-$HOME/.config}/fish/config.fish"
    line="set --export PATH \"$install_dir\" \$PATH"
    ;;
  *)
    info "Add $install_dir to your PATH to run svc by name (unknown shell '${shell_name:-none}')."
    return
    ;;
  esac
  if [[ -f $rc ]] && grep -qxF "$line" "$rc"; then
    info "$rc already puts $install_dir on PATH; open a new shell to use svc."
    return
  fi
  mkdir -p "$(dirname "$rc")"
  printf '\n# svc\n%s\n' "$line" >>"$rc"
  info "Added $install_dir to PATH in $rc; open a new shell (or: source $rc) to use svc."
}

# Settle what to install before touching the disk.
if [[ -n $binary ]]; then
  [[ -f $binary ]] || error "--binary $binary: no such file"
else
  [[ -n $base_url ]] || error "no release URL: pass --base-url <url> or set SVC_RELEASE_BASE_URL (or install a local build with --binary)"
  asset=$(asset_name)
  version="${version#v}"
  if [[ $version == latest ]]; then url="${base_url%/}/latest/$asset"; else url="${base_url%/}/v$version/$asset"; fi
fi

[[ $install_dir == /* ]] || install_dir="$PWD/$install_dir"
mkdir -p "$install_dir" || error "cannot create $install_dir"
target="$install_dir/svc"

# Everything in flight lives in one temp dir inside the install dir, so the final mv is a rename on
# the same filesystem, and the trap removes whatever an error or interrupt leaves behind.
work=$(mktemp -d "$install_dir/.svc-install.XXXXXX") || error "cannot write to $install_dir"
trap 'rm -rf "$work"' EXIT
staged="$work/svc"

if [[ -n $binary ]]; then
  info "Installing $binary"
  cp "$binary" "$staged"
else
  info "Downloading $url"
  download "$url" "$staged"
  download "$url.sha256" "$work/svc.sha256"
  read -r expected _ <"$work/svc.sha256" || true
  expected=$(tr '[:upper:]' '[:lower:]' <<<"${expected:-}")
  [[ $expected =~ ^[0-9a-f]{64}$ ]] || error "$url.sha256 does not hold a sha256 checksum"
  actual=$(sha256_of "$staged")
  [[ $actual == "$expected" ]] || error "checksum mismatch for $url: expected $expected, got $actual; nothing installed"
fi

chmod 755 "$staged"
installed_version=$("$staged" --version 2>&1) || error "the new binary does not run: $installed_version"
mv -f "$staged" "$target"
info "Installed svc $installed_version to $target"

if [[ $modify_path == 1 ]]; then
  case ":${PATH:-}:" in
  *":$install_dir:"*) ;;
  *) add_to_path ;;
  esac
fi
