# What scripts/gpu_suite.sh and scripts/gpu_multi.sh share; sourced, not run. The sourcing script
# sets summary_file (its summary.txt), summary=() and failed=0, and record_tag (the prefix of
# each line it echoes).

# record STEP STATUS KEYLINE: one SUMMARY line, also appended to summary.txt at once (so that it
# survives a run that is cut short); a FAIL sets failed=1.
record() {
  local line
  line=$(printf '%-10s %-4s %s' "$1" "$2" "$3")
  summary+=("$line")
  echo "$line" >>"$summary_file"
  [[ $2 == FAIL ]] && failed=1
  echo "$record_tag$line"
}

# cmocka_from_deps ROOT: where the system has no cmocka, unpacks the Debian packages in ROOT/.deps
# (libcmocka0_*.deb and libcmocka-dev_*.deb, git-ignored) into /tmp/cuprim-cmocka-PID (one per
# process: gpu_verify.sh runs several suites at once) and points CMake (CMAKE_PREFIX_PATH),
# pkg-config and the dynamic loader (LD_LIBRARY_PATH) at them. Returns 2 with a message where
# there is no cmocka and no package to unpack.
cmocka_from_deps() {
  local root=$1 prefix usr pc libdir deb
  [[ -f /usr/include/cmocka.h ]] || pkg-config --exists cmocka 2>/dev/null && return 0
  shopt -s nullglob
  local debs=("$root"/.deps/libcmocka0_*.deb "$root"/.deps/libcmocka-dev_*.deb)
  shopt -u nullglob
  if [[ ${#debs[@]} -lt 2 ]]; then
    echo "$record_tag""no cmocka on this machine and no .deps/libcmocka{0,-dev}_*.deb to unpack;" >&2
    echo "  get them with: mkdir -p .deps && cd .deps && apt-get download libcmocka0 libcmocka-dev" >&2
    return 2
  fi
  prefix=/tmp/cuprim-cmocka-$$
  rm -rf "$prefix"
  for deb in "${debs[@]}"; do dpkg -x "$deb" "$prefix" || return 2; done
  usr=$prefix/usr
  # cmocka's CMake config finds its prefix from its own location; its .pc file names /usr.
  for pc in "$usr"/lib/*/pkgconfig/cmocka.pc; do sed -i "s|/usr|$usr|g" "$pc"; done
  libdir=$(dirname "$(find "$usr/lib" -name 'libcmocka.so*' | head -n 1)")
  export CMAKE_PREFIX_PATH=$usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
  export PKG_CONFIG_PATH=$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
  export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  echo "$record_tag""cmocka unpacked from .deps into $usr"
}
