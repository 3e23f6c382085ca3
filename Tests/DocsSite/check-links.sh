#!/usr/bin/env bash
# Checks the links of the site builddocs.sh built: every href and src of its HTML, every page, image and
# breadcrumb its render JSON and navigator refer to, resolves to a file of the site served at its base path; every
# module builddocs.sh lists (Mailroom, MailroomFoundation, the integration packages') has its page in the site; and
# every member of PostOffice is curated by hand on PostOffice's page. Run after ./builddocs.sh [output-folder].
#
#   Tests/DocsSite/check-links.sh [output-folder]      (default: .build-docs/site, as builddocs.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."

output="${1:-.build-docs/site}"
modules=()
while read -r module; do
    modules+=(--page "/documentation/${module,,}")
done < <(./builddocs.sh --modules)
python3 Tests/DocsSite/check_links.py "$output/Mailroom" "${modules[@]}" \
    --fully-curated /documentation/mailroom/postoffice
