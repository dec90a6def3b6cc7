#!/usr/bin/env bash
# tools/pack.sh — builds libkgen and packs the NuGet package Kgen (docs/package.md).
#
#   bash tools/pack.sh [-o DIR] [--version VERSION] [--lib LIBKGEN]
#
# 1. builds libkgen.so (cmake target `kgen` in build/, configured RelWithDebInfo when build/
#    has no cache yet), or takes LIBKGEN, one already built (the .NET tests pass $KGEN_LIB);
#    defaults: DIR build/nuget, VERSION the project's <Version>;
# 2. stages it in build/nuget-native/ without debug sections, with the libcjson.so.1 it links
#    (Debian's libcjson-dev ships no static archive; libkgen.so has RUNPATH $ORIGIN, so the copy
#    beside it is the one loaded) and cJSON's license notice; checks with readelf and ldd that
#    the staged library needs nothing but glibc and what lies beside it;
# 3. `dotnet pack dotnet/Kgen` (Release) into DIR, with obj/bin under build/nuget-build/ so the
#    solution's own dotnet/*/obj and bin are left alone.
# Prints the package's path as its last line.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/build/nuget"
version=""
lib=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$(mkdir -p "$2" && cd "$2" && pwd)"; shift 2 ;;
    --version) version="$2"; shift 2 ;;
    --lib) lib="$2"; shift 2 ;;
    *) echo "usage: tools/pack.sh [-o DIR] [--version VERSION] [--lib LIBKGEN]" >&2; exit 2 ;;
  esac
done
command -v dotnet >/dev/null 2>&1 || { echo "pack: the .NET SDK (dotnet) is needed" >&2; exit 1; }

# 1. libkgen.so
if [ -z "$lib" ]; then
  jobs=$(nproc 2>/dev/null || echo 2)
  [ -f build/CMakeCache.txt ] || cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build --target kgen -j"$jobs" >/dev/null
  lib="$root/build/libkgen.so"
fi
[ -f "$lib" ] || { echo "pack: no $lib" >&2; exit 1; }

# 2. the native files, staged
stage="$root/build/nuget-native"
rm -rf "$stage"
mkdir -p "$stage"
objcopy --strip-debug "$lib" "$stage/libkgen.so"
cjson="$(ldd "$lib" | awk '$1 == "libcjson.so.1" { print $3 }')"
if [ -z "$cjson" ] || [ ! -f "$cjson" ]; then
  echo "pack: $lib's libcjson.so.1 not found (ldd $lib)" >&2
  exit 1
fi
cp -L "$cjson" "$stage/libcjson.so.1"
{
  echo "The Kgen package ships libcjson.so.1 (cJSON $(basename "$(readlink -f "$cjson")" | sed 's/^libcjson\.so\.//'), runtimes/linux-x64/native/),"
  echo "copied from the build machine's system library. Its license:"
  echo
  if [ -f /usr/share/doc/libcjson1/copyright ]; then
    cat /usr/share/doc/libcjson1/copyright
  else
    echo "cJSON — Copyright (c) 2009-2017 Dave Gamble and cJSON contributors — MIT License"
    echo "https://github.com/DaveGamble/cJSON/blob/master/LICENSE"
  fi
} >"$stage/THIRD-PARTY-NOTICES.txt"
readelf -d "$stage/libkgen.so" | grep -q 'R.*PATH.*\[\$ORIGIN\]' || {
  echo "pack: libkgen.so lacks RUNPATH \$ORIGIN (CMakeLists.txt sets it; reconfigure build/)" >&2
  exit 1
}
# every needed library is glibc's or the staged copy
missing="$(cd "$stage" && ldd ./libkgen.so | awk '
  /not found/ { print; next }
  $1 ~ /^(linux-vdso|\/lib64\/ld-linux)/ { next }
  $1 ~ /^lib(c|m|dl|pthread|rt)\.so\./ { next }
  $3 !~ /nuget-native\// { print }')"
if [ -n "$missing" ]; then
  echo "pack: the staged libkgen.so needs libraries outside glibc and $stage:" >&2
  echo "$missing" >&2
  exit 1
fi

# 3. the package
args=(-c Release -o "$out" --artifacts-path "$root/build/nuget-build" -nologo -v q
      -p:KgenNativeDir="$stage/")
[ -n "$version" ] && args+=(-p:Version="$version")
dotnet pack dotnet/Kgen/Kgen.fsproj "${args[@]}" >&2
v="$version"
[ -n "$v" ] || v="$(sed -n 's:.*<Version>\(.*\)</Version>.*:\1:p' dotnet/Kgen/Kgen.fsproj | head -1)"
pkg="$out/Kgen.$v.nupkg"
[ -f "$pkg" ] || { echo "pack: $pkg was not written" >&2; exit 1; }
echo "$pkg"
