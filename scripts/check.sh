#!/bin/sh
# The whole test suite, as CI runs it: install missing Debian packages, build
# with -Werror, run unit tests, a bounded fuzz run and the namespace tests.
# Extra arguments go to make (e.g. SAN=address,undefined).
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
exec make -j"$(nproc)" check "$@"
