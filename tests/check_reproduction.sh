#!/bin/bash
# check_reproduction.sh ROOT SCRATCH - `make reproduction` and `make receive`
# as a contributor and a maintainer run them, in a scratch copy of the
# checkout's Makefile, CITATION.cff and data/ (ROOT's), with the programs
# already built (make -o keeps them as they are):
#  - folders of reproductions/ named with a colon and a space leave every
#    target working (they once made every target fail, `make help` too);
#  - ID=, BY= (and git's user.name) and CONDITIONS= are kept as written: an
#    apostrophe, a dollar and a quote survive, and a command in them does
#    not run;
#  - an ID that is not a name is refused by the program, not by a shell;
#  - the one file `make reproduction` writes is received whole by `make
#    receive` in another copy, and a tampered copy is refused, the file
#    and the member named, leaving reproductions/ as it was.
# Run by `make check-reproduction`.
set -u
mkdir -p "$2" && root=$(realpath "$1") scratch=$(realpath "$2") || exit 1
fail() { echo "check-reproduction: $*"; exit 1; }
make_here() { make --no-print-directory -o build/ipctax-summary -o build/tangle "$@"; }
setup() {
    rm -rf "$1" && mkdir -p "$1/build" "$1/reproductions" || exit 1
    cp "$root/Makefile" "$root/CITATION.cff" "$1/" && cp -r "$root/data" "$1/" &&
        cp "$root/build/ipctax-summary" "$1/build/" || exit 1
    git -C "$1" init -q && git -C "$1" config user.name "Jo O'Hara \$HOME \"J\"" || exit 1
}
setup "$scratch/sender"
setup "$scratch/receiver"
cd "$scratch/sender" || exit 1
mkdir -p "reproductions/a:b" "reproductions/c d"
make_here help > /dev/null || fail "make help fails beside a folder named with a colon"
make_here -n build/woven/values.csv > /dev/null 2> log ||
    fail "the weave's rules fail beside folders named 'a:b' and 'c d': $(cat log)"
rmdir "reproductions/a:b" "reproductions/c d"

pwned="$scratch/pwned"
rm -f "$pwned"
conditions="a'; touch $pwned; echo '50\$ budget \"q\""
make_here reproduction ID=x-1 CONDITIONS="$conditions" > log 2>&1 ||
    fail "make reproduction with quotes in CONDITIONS failed: $(cat log)"
[ ! -e "$pwned" ] || fail "a command in CONDITIONS ran"
grep -qxF -- "- conditions: $conditions" reproductions/x-1/README.md ||
    fail "CONDITIONS was not kept as written: $(grep conditions reproductions/x-1/README.md)"
grep -qxF -- "- by: Jo O'Hara \$HOME \"J\"" reproductions/x-1/README.md ||
    fail "git's user.name was not kept as written: $(grep by: reproductions/x-1/README.md)"
grep -q "build/reproduction-x-1.tar" log || fail "make reproduction did not name its file"
grep -q "no address to send it to" log || fail "without an address, make reproduction did not say so"
make_here reproduction ID="it's" > log 2>&1 && fail "an ID with an apostrophe was taken"
grep -q "is not a name for a reproduction" log || fail "a bad ID was refused thus: $(cat log)"

cp build/reproduction-x-1.tar "$scratch/receiver/sent.tar"
cd "$scratch/receiver" || exit 1
make_here receive FILE=sent.tar > log 2>&1 || fail "make receive failed: $(cat log)"
cmp -s "$scratch/sender/reproductions/x-1/manifest.csv" reproductions/x-1/manifest.csv ||
    fail "the received run's manifest is not the sent one's"
rm -rf reproductions/x-1
size=$(stat -c %s sent.tar)
cp sent.tar tampered.tar
printf 'X' | dd of=tampered.tar bs=1 seek=$((size / 2)) conv=notrunc 2> /dev/null
make_here receive FILE=tampered.tar > log 2>&1 && fail "a tampered file was received"
grep -q "tampered.tar: x-1/" log || fail "the refusal does not name the file and member: $(cat log)"
[ -z "$(ls -A reproductions)" ] || fail "a refused file left $(ls -A reproductions)"
echo "check-reproduction: names with a colon or a space break no target; ID=, BY= and" \
     "CONDITIONS= are kept as written and run nothing; the file sent is received whole," \
     "and a tampered one refused by name"
