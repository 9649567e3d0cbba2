#!/bin/sh
# check_publish.sh PUBLISH DIR - publishing a weave is all or nothing.
#
# Publishes a staged site and figures (four files of 150 KB) with PUBLISH
# (build/ipctax-publish) onto a tmpfs of 512 KB that already holds a
# previous copy: the disk fills half-way through, and the publication must
# fail, leave every previous file as it was (and a file the new weave no
# longer makes) and no copy behind. With room (the tmpfs grown to 4 MB) the
# same publication must put the staged files in place and remove the stale
# one. The tmpfs is mounted in a mount namespace of the test's own
# (unshare), so nothing outlives it; where the machine allows no such mount
# the check says so and is skipped. Run by `make check-publish`.
set -u
if [ "${1:-}" = --inner ]; then
    publish=$2 dir=$3
    fail() { echo "check-publish: $*"; exit 1; }
    mount -t tmpfs -o size=512k tmpfs "$dir/disk" || exit 3
    mkdir -p "$dir/disk/site" "$dir/disk/figures"
    for f in site/index.html site/paper.pdf site/values.csv site/old.csv figures/echo.svg; do
        echo "the previous $f" > "$dir/disk/$f"
    done
    set -- stage/site disk/site html,pdf,csv stage/figures disk/figures svg,pdf,csv
    cd "$dir" || exit 1
    if "$publish" "$@" > log 2>&1; then fail "a publication onto a full disk succeeded"; fi
    grep -q 'nothing was published' log || fail "the failure did not say so: $(cat log)"
    for f in site/index.html site/paper.pdf site/values.csv site/old.csv figures/echo.svg; do
        [ "$(cat "disk/$f")" = "the previous $f" ] || fail "a failed publication changed $f"
    done
    left=$(find disk -name '.*' -type f | head -1)
    [ -z "$left" ] || fail "a failed publication left $left behind"
    mount -o remount,size=4m "$dir/disk" || exit 3
    "$publish" "$@" > log 2>&1 || fail "with room, the publication failed: $(cat log)"
    for f in site/index.html site/paper.pdf site/values.csv figures/echo.svg; do
        cmp -s "stage/$f" "disk/$f" || fail "$f was not published"
    done
    [ ! -e disk/site/old.csv ] || fail "a file the weave no longer makes was kept"
    [ -z "$(find disk -name '.*' -type f | head -1)" ] || fail "a copy was left behind"
    echo "check-publish: a disk that fills part-way leaves the previous site and figures" \
         "whole and no copy; with room, everything is published"
    exit 0
fi
publish=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir/stage/site" "$dir/stage/figures" "$dir/disk" || exit 1
for f in site/index.html site/paper.pdf site/values.csv figures/echo.svg; do
    head -c 150000 /dev/urandom > "$dir/stage/$f"
done
for how in "unshare -m --propagation private" "unshare -r -m --propagation private"; do
    $how true 2>/dev/null || continue
    $how sh "$0" --inner "$(realpath "$publish")" "$(realpath "$dir")"
    status=$?
    [ $status = 3 ] && continue               # the namespace allows no tmpfs
    exit $status
done
echo "check-publish: skipped: this machine lets the test mount no tmpfs of its own" \
     "(unshare -m, or a user namespace); the publication onto a full disk is not tried"
exit 0
