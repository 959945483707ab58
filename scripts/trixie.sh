#!/bin/sh
# Unpack single packages of Debian 13 (trixie) into a private folder, for
# the serve tests that need more than Debian 12 has:
#   prometheus 2.53                native histograms from a protobuf scrape
#   python3-opentelemetry-proto    the OTLP .proto files' Python classes,
#                                  to decode what kdist pushes
# Its own apt configuration, state and lists: the system's sources and
# packages stay as they are (one suite on the system).  Both are
# architecture-independent or static (prometheus is a Go binary).
#   scripts/trixie.sh [DIR]   default /var/cache/kdist-trixie; prints DIR/root
set -e
dir=${1:-/var/cache/kdist-trixie}
pkgs="prometheus python3-opentelemetry-proto"
if [ -x "$dir/root/usr/bin/prometheus" ] && [ -d "$dir/root/usr/lib/python3/dist-packages/opentelemetry" ]; then
	echo "$dir/root"
	exit 0
fi
mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/apt/etc/preferences.d" \
	"$dir/apt/etc/sources.list.d" "$dir/deb"
cat >"$dir/apt/etc/sources.list" <<SRC
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
SRC
apt_opts="-o Dir::Etc=$dir/apt/etc -o Dir::State=$dir/apt -o Dir::State::Lists=$dir/apt/lists
	-o Dir::State::status=/dev/null -o Dir::Cache=$dir/apt/cache -o APT::Sandbox::User=root
	-o Debug::NoLocking=1 -o Acquire::Languages=none"
# shellcheck disable=SC2086
apt-get $apt_opts -q update >&2
rm -f "$dir"/deb/*.deb
# shellcheck disable=SC2086
(cd "$dir/deb" && apt-get $apt_opts -q download $pkgs >&2)
rm -rf "$dir/root.tmp"
for deb in "$dir"/deb/*.deb; do
	dpkg-deb -x "$deb" "$dir/root.tmp"
done
rm -rf "$dir/root" && mv "$dir/root.tmp" "$dir/root"
"$dir/root/usr/bin/prometheus" --version >&2
echo "$dir/root"
