#!/usr/bin/env bash
# Unpacks Trino's libraries and its Hive connector (plugin/hive, with its HDFS client) from the server archive.
# The archive stores a jar that several plugins share once and hard-links the others to it, so the jars that
# plugin/hive links to are extracted too, from wherever they are stored. Maven's own unpacking leaves hard links
# empty, hence tar. Usage: unpack.sh <trino-server-N.tar.gz> <output directory>
set -euo pipefail
archive="$1"
out="$2"
top="$(basename "$archive" .tar.gz)"
if [ -f "$out/$top/.unpacked" ]; then
  exit 0
fi
rm -rf "${out:?}/$top"
mkdir -p "$out"
mapfile -t linked < <(tar -tvzf "$archive" "$top/plugin/hive" | sed -n 's/.* link to //p' \
  | grep -v -e "^$top/lib/" -e "^$top/plugin/hive/" | sort -u)
tar -xzf "$archive" -C "$out" "$top/lib" "$top/plugin/hive" "${linked[@]}"
# the other plugins' jars came only as link targets: Trino would take their directories for broken plugins
mv "$out/$top/plugin/hive" "$out/$top/hive"
rm -rf "${out:?}/$top/plugin"
mkdir "$out/$top/plugin"
mv "$out/$top/hive" "$out/$top/plugin/hive"
touch "$out/$top/.unpacked"
