#!/bin/sh
# Unpack Debian 13's prometheus (2.53: native histograms from a protobuf
# scrape, an OTLP receiver) into a private folder, for the serve tests that
# need more than Debian 12's 2.42.  Its own apt configuration, state and
# lists: the system's sources and its prometheus stay as they are (one
# suite on the system; the package is a static Go binary).
#   scripts/prometheus-trixie.sh [DIR]   default /var/cache/kdist-prometheus
# Prints the binary's path; DIR/usr/bin/prometheus once done.
set -e
dir=${1:-/var/cache/kdist-prometheus}
bin=$dir/root/usr/bin/prometheus
if [ -x "$bin" ]; then
	echo "$bin"
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
# shellcheck disable=SC2086
(cd "$dir/deb" && apt-get $apt_opts -q download prometheus >&2)
rm -rf "$dir/root.tmp"
dpkg-deb -x "$dir"/deb/prometheus_*.deb "$dir/root.tmp"
rm -rf "$dir/root" && mv "$dir/root.tmp" "$dir/root"
"$bin" --version >&2
echo "$bin"
