#!/usr/bin/env bash
# Checks the links of the site builddocs.sh built: every href and src of its HTML, every page, image and
# breadcrumb its render JSON and navigator refer to, resolves to a file of the site served at its base path; and
# every member of PostOffice is curated by hand on PostOffice's page. Run after ./builddocs.sh [output-folder].
#
#   Tests/DocsSite/check-links.sh [output-folder]      (default: .build-docs/site, as builddocs.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."

output="${1:-.build-docs/site}"
python3 Tests/DocsSite/check_links.py "$output/Mailroom" \
    --fully-curated /documentation/mailroom/postoffice
