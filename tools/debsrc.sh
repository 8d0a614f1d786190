# Fetch from Debian's archive through an apt list private to the build
# (sourced by tools/build-*.sh). apt's state for the fetch lives in
# OUTDIR/apt/ (the list, passed with -o Dir::Etc::SourceList, and private
# Dir::State::Lists and Dir::Cache): the machine's apt configuration and
# lists are not touched.
#
#   debsrc_source TAG OUTDIR PACKAGE     apt-get source PACKAGE into OUTDIR/src/
#                                        (emptied first; Debian's patches applied)
#   debsrc_download TAG OUTDIR PACKAGE   apt-get download PACKAGE (a binary
#                                        .deb) into OUTDIR/deb/ (emptied first)
# Each returns 1 after one line per failure on stderr ("TAG: ..."), the
# last lines of apt's log indented under it; the caller decides whether
# that is fatal. TAG names the calling script in those lines.

DEBSRC_ARCHIVE="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main"

# debsrc_apt TAG OUTDIR KIND: write the list of KIND (deb-src or deb),
# apt-get update it; sets debsrc_opts.
debsrc_apt() {
	local tag=$1 apt=$2/apt kind=$3
	command -v dpkg-source >/dev/null || "$(dirname "${BASH_SOURCE[0]}")/deps.sh"	# dpkg-dev (root)
	if ! command -v dpkg-source >/dev/null; then
		echo "$tag: dpkg-source missing (apt-get install dpkg-dev)" >&2
		return 1
	fi
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
	echo "$kind $DEBSRC_ARCHIVE" >"$apt/sources.list"
	debsrc_opts=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
		-o APT::Sandbox::User=root -q)
	apt-get "${debsrc_opts[@]}" update >"$apt/update.log" 2>&1 && return 0
	echo "$tag: apt-get update of the private $kind list in $apt failed:" >&2
	tail -3 "$apt/update.log" | sed 's/^/    /' >&2
	return 1
}

debsrc_source() {
	local tag=$1 out=$2 pkg=$3
	debsrc_apt "$tag" "$out" deb-src || return 1
	echo "$tag: apt-get source $pkg (private deb-src list in $out/apt)"
	rm -rf "$out/src" && mkdir -p "$out/src"
	(cd "$out/src" && apt-get "${debsrc_opts[@]}" source "$pkg") >"$out/apt/source.log" 2>&1 && return 0
	echo "$tag: apt-get source $pkg failed:" >&2
	tail -3 "$out/apt/source.log" | sed 's/^/    /' >&2
	return 1
}

debsrc_download() {
	local tag=$1 out=$2 pkg=$3
	debsrc_apt "$tag" "$out" deb || return 1
	echo "$tag: apt-get download $pkg (private deb list in $out/apt)"
	rm -rf "$out/deb" && mkdir -p "$out/deb"
	(cd "$out/deb" && apt-get "${debsrc_opts[@]}" download "$pkg") >"$out/apt/download.log" 2>&1 && return 0
	echo "$tag: apt-get download $pkg failed:" >&2
	tail -3 "$out/apt/download.log" | sed 's/^/    /' >&2
	return 1
}
