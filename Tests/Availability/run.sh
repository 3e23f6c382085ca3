#!/usr/bin/env bash
# Checks that the platforms in Package.swift agree with the Apple availability of every API the library products
# that need no other package use (Mailroom, MailroomTesting, MailroomFoundation), though no Apple SDK is here:
# check.py reads the type-checked AST of each target and the symbol graphs of the toolchain's modules (its header
# says how, and what it cannot see). It first checks SelfTest.swift, to show it still reports what it must. It prints, per target,
# how many symbols it checked and the highest requirement per platform with the symbols that set it; `--all`
# lists every symbol. Exits non-zero on any API newer than the code using it may run on.
#
#   Tests/Availability/run.sh                             (after `swift build`)
#   Tests/Availability/run.sh --scratch-path .build-x --all
set -euo pipefail
cd "$(dirname "$0")/../.."
exec python3 Tests/Availability/check.py "$@"
