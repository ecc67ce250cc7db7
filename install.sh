#!/bin/sh
# Installs svc. Piped from the release location (`curl -fsSL <url>/install.sh | sh`, options after
# `sh -s --`) or run from a checkout. It downloads the release's SHA256SUMS, its signature and this
# machine's archive into a temp dir outside the install dir, checks the signature against the release
# key below (with minisign, else OpenSSL 3) and the archive against SHA256SUMS, unpacks the binary
# and proves it runs; only then is it copied to a temp file in the install dir and renamed over `svc`,
# so a refused or interrupted install leaves the install dir as it was. POSIX sh: no bash needed.
set -eu

# Where releases are published: <url>/latest/download/<asset> and <url>/download/v<version>/<asset>.
# svc update and GET /daemon/update look there too (RELEASE_URL in src/update/release-location.ts; a test checks they agree).
RELEASE_URL="https://github.com/svc-dev/svc/releases"
# The key that signs each release's SHA256SUMS (minisign format; `svc --version --verbose` prints it).
RELEASE_PUBLIC_KEY="RWSruKIyOZx7JNMU1GMP5BAzQHOY7m2p47lPS0FQajYaxQJSpCDyGW3+"

usage() {
  cat <<EOF
usage: install.sh [options]      (piped: curl -fsSL <url>/install.sh | sh -s -- [options])

Installs svc into a directory (default: \$HOME/.svc/bin) and puts that directory on PATH.

options:
  --version <version>     release to install, e.g. 0.2.0 (env SVC_VERSION; default: latest)
  --base-url <url>        release location (env SVC_RELEASE_URL; default: $RELEASE_URL)
  --install-dir <dir>     where to put svc (env SVC_INSTALL_DIR; default: \$HOME/.svc/bin)
  --binary <file>         install this local build instead of downloading (not verified)
  --no-modify-path        do not add the install directory to your shell's rc file
  --insecure-skip-signature
                          install without checking the release signature when neither minisign
                          nor OpenSSL 3 is available (the checksum is still checked)
  -h, --help              show this help

Each release holds svc-<os>-<arch>.tar.gz for linux-x64, linux-arm64, darwin-x64 and darwin-arm64,
SHA256SUMS and its minisign signature SHA256SUMS.minisig. SVC_INSTALL_VERIFIER=minisign|openssl
picks the signature checker; SVC_INSTALL_PLATFORM stands in for \`uname -ms\` (for testing).
EOF
}

error() {
  echo "install.sh: error: $*" >&2
  exit 1
}

info() {
  echo "$*"
}

# The release archive's platform for this machine. Under Rosetta 2 an arm64 Mac reports x86_64;
# prefer the native build.
platform_name() {
  platform="${SVC_INSTALL_PLATFORM:-$(uname -ms)}"
  if [ "$platform" = "Darwin x86_64" ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
    platform="Darwin arm64"
  fi
  case "$platform" in
  "Linux x86_64" | "Linux amd64") echo linux-x64 ;;
  "Linux aarch64" | "Linux arm64") echo linux-arm64 ;;
  "Darwin x86_64") echo darwin-x64 ;;
  "Darwin arm64") echo darwin-arm64 ;;
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

# bytes <file> <skip> <count>: a slice of a binary file.
bytes() {
  dd if="$1" bs=1 skip="$2" count="$3" 2>/dev/null
}

hex() {
  od -An -tx1 | tr -d ' \n'
}

openssl_has_ed25519() {
  command -v openssl >/dev/null 2>&1 || return 1
  case "$(openssl version 2>/dev/null)" in
  "OpenSSL "[3-9].*) return 0 ;;
  *) return 1 ;;
  esac
}

# Checks a minisign signature (prehashed "ED" kind) with OpenSSL 3: Ed25519 over BLAKE2b-512 of the
# file, then the global signature over signature ‖ trusted comment. Prints the trusted comment.
openssl_verify() {
  file=$1 minisig=$2 dir=$3
  printf '%s\n' "$RELEASE_PUBLIC_KEY" | openssl base64 -d -A >"$dir/key" 2>/dev/null || true
  [ "$(wc -c <"$dir/key" | tr -d ' ')" = 42 ] || error "the release key in this script is damaged"
  # An Ed25519 SubjectPublicKeyInfo is a fixed 12-byte DER header followed by the 32-byte key.
  {
    echo "-----BEGIN PUBLIC KEY-----"
    { printf '\060\052\060\005\006\003\053\145\160\003\041\000' && bytes "$dir/key" 10 32; } | openssl base64 -A
    echo
    echo "-----END PUBLIC KEY-----"
  } >"$dir/key.pem"
  sed -n 2p "$minisig" | openssl base64 -d -A >"$dir/sig" 2>/dev/null || true
  [ "$(wc -c <"$dir/sig" | tr -d ' ')" = 74 ] || return 1
  [ "$(bytes "$dir/sig" 0 2 | hex)" = 4544 ] || return 1
  bytes "$dir/sig" 10 64 >"$dir/signature"
  openssl dgst -blake2b512 -binary <"$file" >"$dir/hash"
  openssl pkeyutl -verify -pubin -inkey "$dir/key.pem" -rawin -in "$dir/hash" -sigfile "$dir/signature" >/dev/null 2>&1 || return 1
  comment_line=$(sed -n 3p "$minisig")
  case "$comment_line" in
  "trusted comment: "*) comment=${comment_line#trusted comment: } ;;
  *) return 1 ;;
  esac
  { cat "$dir/signature" && printf '%s' "$comment"; } >"$dir/global"
  sed -n 4p "$minisig" | openssl base64 -d -A >"$dir/global.sig" 2>/dev/null || true
  openssl pkeyutl -verify -pubin -inkey "$dir/key.pem" -rawin -in "$dir/global" -sigfile "$dir/global.sig" >/dev/null 2>&1 || return 1
  printf '%s\n' "$comment"
}

# verify_signature <file> <minisig> <scratch dir>: prints the trusted comment, or refuses.
verify_signature() {
  verifier="${SVC_INSTALL_VERIFIER:-}"
  if [ -z "$verifier" ]; then
    if command -v minisign >/dev/null 2>&1; then
      verifier=minisign
    elif openssl_has_ed25519; then
      verifier=openssl
    fi
  fi
  case "$verifier" in
  minisign)
    minisign -V -Q -m "$1" -x "$2" -P "$RELEASE_PUBLIC_KEY" 2>/dev/null || error "the release's signature does not match the svc release key: refusing to install"
    ;;
  openssl)
    openssl_has_ed25519 || error "SVC_INSTALL_VERIFIER=openssl needs OpenSSL 3 or later"
    openssl_verify "$1" "$2" "$3" || error "the release's signature does not match the svc release key: refusing to install"
    ;;
  "")
    [ "$insecure" = 1 ] || error "cannot check the release's signature: install minisign or OpenSSL 3 and run this again (or pass --insecure-skip-signature to trust the checksum alone)"
    echo "install.sh: warning: the release's signature was NOT checked (--insecure-skip-signature)" >&2
    ;;
  *) error "SVC_INSTALL_VERIFIER must be minisign or openssl, not '$verifier'" ;;
  esac
}

# Appends a PATH line for $install_dir to the user's shell rc file, once.
add_to_path() {
  shell_name=$(basename "${SHELL:-none}")
  case "$install_dir" in
  *[!A-Za-z0-9_./@+-]*)
    info "Add $install_dir to your PATH to run svc by name."
    return
    ;;
  esac
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
    info "Add $install_dir to your PATH to run svc by name (unknown shell '$shell_name')."
    return
    ;;
  esac
  if [ -f "$rc" ] && grep -qxF "$line" "$rc"; then
    info "$rc already puts $install_dir on PATH; open a new shell to use svc."
    return
  fi
  mkdir -p "$(dirname "$rc")"
  printf '\n# svc\n%s\n' "$line" >>"$rc"
  info "Added $install_dir to PATH in $rc; open a new shell (or: . $rc) to use svc."
}

# The whole install is one function called on the last line, so a download of this script cut short
# (curl | sh) runs nothing.
main() {
  binary=""
  base_url="${SVC_RELEASE_URL:-$RELEASE_URL}"
  version="${SVC_VERSION:-latest}"
  install_dir="${SVC_INSTALL_DIR:-}"
  modify_path=1
  insecure=0

  while [ $# -gt 0 ]; do
    case "$1" in
    --binary | --base-url | --version | --install-dir)
      if [ $# -lt 2 ] || [ -z "$2" ]; then error "$1 needs a value"; fi
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
    --insecure-skip-signature)
      insecure=1
      shift
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    *) error "unknown option '$1' (see install.sh --help)" ;;
    esac
  done

  if [ -z "$install_dir" ]; then
    [ -n "${HOME:-}" ] || error "HOME is not set: pass --install-dir <dir>"
    install_dir="$HOME/.svc/bin"
  fi
  case "$install_dir" in
  /*) ;;
  *) install_dir="$PWD/$install_dir" ;;
  esac
  target="$install_dir/svc"

  # Everything before the final copy happens in a temp dir outside the install dir.
  work=$(mktemp -d "${TMPDIR:-/tmp}/svc-install.XXXXXX") || error "cannot create a temp dir"
  staged=""
  cleanup() {
    rm -rf "$work"
    if [ -n "$staged" ]; then rm -f "$staged"; fi
  }
  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM HUP
  mkdir "$work/unpacked" "$work/check"
  new="$work/unpacked/svc"

  if [ -n "$binary" ]; then
    [ -f "$binary" ] || error "--binary $binary: no such file"
    info "Installing $binary"
    cp "$binary" "$new"
  else
    archive="svc-$(platform_name).tar.gz"
    version="${version#v}"
    base_url="${base_url%/}"
    if [ "$version" = latest ]; then release="$base_url/latest/download"; else release="$base_url/download/v$version"; fi
    info "Downloading $release/$archive"
    download "$release/SHA256SUMS" "$work/SHA256SUMS"
    download "$release/SHA256SUMS.minisig" "$work/SHA256SUMS.minisig"
    download "$release/$archive" "$work/$archive"
    comment=$(verify_signature "$work/SHA256SUMS" "$work/SHA256SUMS.minisig" "$work/check")
    if [ -n "$comment" ]; then
      info "Signature verified: $comment"
      if [ "$version" != latest ]; then
        case "$comment" in
        "svc $version "* | "svc $version+"* | "svc $version") ;;
        *) error "asked for $version, but the signed release is '$comment': refusing to install" ;;
        esac
      fi
    fi
    expected=$(awk -v name="$archive" '$2 == name || $2 == "*" name { print $1; exit }' "$work/SHA256SUMS")
    [ -n "$expected" ] || error "SHA256SUMS lists no $archive"
    actual=$(sha256_of "$work/$archive")
    [ "$actual" = "$expected" ] || error "checksum mismatch for $archive: SHA256SUMS says $expected, the download is $actual; nothing installed"
    gzip -dc <"$work/$archive" | tar -xf - -C "$work/unpacked" svc || error "cannot unpack $archive"
    [ -f "$new" ] || error "$archive holds no svc binary"
  fi

  chmod 755 "$new"
  new_version=$("$new" --version 2>&1) || error "the new binary does not run: $new_version"
  old_version=""
  if [ -x "$target" ]; then old_version=$("$target" --version 2>/dev/null || true); fi

  mkdir -p "$install_dir" || error "cannot create $install_dir"
  staged=$(mktemp "$install_dir/.svc-install.XXXXXX") || error "cannot write to $install_dir"
  cp "$new" "$staged"
  chmod 755 "$staged"
  mv -f "$staged" "$target"
  staged=""
  if [ -n "$old_version" ]; then
    info "Upgraded svc $old_version to $new_version in $target"
  else
    info "Installed svc $new_version to $target"
  fi

  run="$target"
  case ":${PATH:-}:" in
  *":$install_dir:"*) run=svc ;;
  *) if [ "$modify_path" = 1 ]; then add_to_path; fi ;;
  esac
  info ""
  info "Next, start it in your project:  $run --workspace /path/to/your/project"
}

main "$@"
