#!/usr/bin/env bash
# Installs the Debian packages dtplan needs. Idempotent; silent when everything is present.
set -euo pipefail

packages=(
  build-essential g++ cmake ninja-build pkg-config
  libcli11-dev nlohmann-json3-dev libspdlog-dev libfmt-dev doctest-dev
  libbenchmark-dev coinor-libcbc-dev libopenmpi-dev openmpi-bin libgoogle-perftools-dev
  chromium python3-jsonschema clang-format
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq >/dev/null
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
