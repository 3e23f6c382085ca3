#!/usr/bin/env bash
# Checks that the table of every register form (Sources/Mailroom/Mailroom.docc/RegistrationForms.md) and the
# public register, intercept and mail(of:) overloads of PostOffice agree, and that there are at most 48 of them, by
# Mailroom's symbol graph. Run after ./builddocs.sh, which writes the graph.
#
#   Tests/DocsSite/check-forms.sh [symbol-graph]      (default: .build-docs/graphs/Mailroom/Mailroom.symbols.json)
set -euo pipefail
cd "$(dirname "$0")/../.."

python3 Tests/DocsSite/check_forms.py "${1:-.build-docs/graphs/Mailroom/Mailroom.symbols.json}" \
    Sources/Mailroom/Mailroom.docc/RegistrationForms.md
