#!/bin/bash
# Run the given cmocka binaries; exit non-zero if any fails.
rc=0
for t in "$@"; do "$t" || rc=1; done
exit $rc
