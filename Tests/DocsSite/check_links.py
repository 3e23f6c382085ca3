#!/usr/bin/env python3
"""Checks that every link in a built DocC site leads to a file of the site.

    check_links.py SITE [--page PAGE ...] [--fully-curated PAGE ...]

SITE is the folder that is served at the site's hosting base path (builddocs.sh's <output>/Mailroom, served at
/Mailroom/). What is checked:

- every href and src in the generated HTML files: an absolute path must be under the base path, and a path,
  absolute or relative, must name a file of the site (a folder: its index.html);
- in each render JSON file (data/**/*.json): every reference's url and image or download variant, and every
  identifier the page uses (topic groups, See Also, relationships, "Mentioned in", breadcrumbs, inline links,
  declaration tokens), which must have a reference with a url, unless it is a symbol outside the site (a
  standard library protocol, shown as plain text);
- every page path in the navigator index (index/index.json);
- every render JSON page has its HTML page, so that the page opens from an address as well as in the app.

A page path (/documentation/mailroom/postoffice) resolves when both the app's data
(data/documentation/mailroom/postoffice.json) and the static page (documentation/mailroom/postoffice/index.html)
exist, and its #fragment, if any, names an anchor of that page. Links with a scheme (https:, mailto:) leave the
site and are counted, not followed.

--page PAGE (a page path, /documentation/mailroomfoundation) fails when the site has no such page: each module
that builddocs.sh merges into the site must be there.

--fully-curated PAGE (a page path) also fails when that page has a topic group that DocC made up itself
("Instance Methods"): every member of the page is then to be curated by hand.
"""

import argparse
import collections
import json
import pathlib
import re
import sys
from html.parser import HTMLParser
from urllib.parse import unquote, urljoin, urlsplit


class LinkCollector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append(value)


class Site:
    def __init__(self, root):
        self.root = root
        shell = (root / "index.html").read_text(encoding="utf-8")
        match = re.search(r'var baseUrl = "([^"]*)"', shell)
        if not match:
            sys.exit(f"{root}/index.html names no base path (baseUrl): not a DocC site built for static hosting")
        self.base = match.group(1)
        if not self.base.endswith("/"):
            self.base += "/"
        # Served from a folder above it, as builddocs.sh says, the site is at its base path only when its own
        # folders are named after that path: a site in <output>/Mailroom, served from <output>, is at /Mailroom/.
        if self.base.strip("/") and not root.as_posix().endswith("/" + self.base.strip("/")):
            sys.exit(
                f"{root} is built for the base path {self.base}: it must be in a folder of that name, so that serving "
                f"the folder above it puts it at {self.base} (its scripts and styles are there)"
            )
        self.broken = []
        self.checked = collections.Counter()  # links checked, by where they were found
        self.targets = set()
        self.external = set()
        self.anchors = {}

    def relative(self, path):
        return path.relative_to(self.root).as_posix()

    def report(self, source, link, why):
        entry = (self.relative(source), link, why)
        if entry not in self.broken:
            self.broken.append(entry)

    def file_for(self, site_path):
        """The file http.server sends for a path below the base path, or None."""
        candidate = self.root / unquote(site_path)
        if candidate.is_dir():
            candidate = candidate / "index.html"
        return candidate if candidate.is_file() else None

    def page_anchors(self, data_file):
        if data_file not in self.anchors:
            found = set()

            def walk(value):
                if isinstance(value, dict):
                    if isinstance(value.get("anchor"), str):
                        found.add(value["anchor"])
                    for item in value.values():
                        walk(item)
                elif isinstance(value, list):
                    for item in value:
                        walk(item)

            walk(json.loads(data_file.read_text(encoding="utf-8")))
            self.anchors[data_file] = found
        return self.anchors[data_file]

    def check_href(self, source, link, page_url):
        """An href or src of an HTML file, whose own address is page_url."""
        self.checked["href and src in HTML"] += 1
        parts = urlsplit(link)
        if parts.scheme or parts.netloc:
            self.external.add(link)
            return
        if not parts.path:
            return  # a fragment of the same page
        path = urljoin(page_url, parts.path)
        self.targets.add(path)
        if not path.startswith(self.base):
            self.report(source, link, f"outside the base path {self.base}")
        elif self.file_for(path[len(self.base):]) is None:
            self.report(source, link, "no such file")

    def check_page_url(self, source, url, where):
        """A page path as the app uses it, without the base path: /documentation/mailroom/postoffice#Topics."""
        self.checked[where] += 1
        parts = urlsplit(url)
        if parts.scheme or parts.netloc:
            self.external.add(url)
            return
        self.targets.add(url)
        path = parts.path.strip("/")
        if not path:
            self.report(source, url, "an empty page path")
            return
        data_file = self.root / "data" / (unquote(path) + ".json")
        if not data_file.is_file():
            self.report(source, url, f"no data/{path}.json")
        if self.file_for(path + "/") is None:
            self.report(source, url, f"no {path}/index.html")
        if parts.fragment and data_file.is_file() and parts.fragment not in self.page_anchors(data_file):
            self.report(source, url, f"no anchor #{parts.fragment} on the page")

    def check_asset_url(self, source, url):
        """An image, video or download of the app, without the base path: /images/org.mailroom.Mailroom/x.png."""
        self.checked["urls of render JSON references"] += 1
        parts = urlsplit(url)
        if parts.scheme or parts.netloc:
            self.external.add(url)
            return
        self.targets.add(url)
        if self.file_for(parts.path.lstrip("/")) is None:
            self.report(source, url, "no such file")

    def check_html(self, html_file):
        collector = LinkCollector()
        collector.feed(html_file.read_text(encoding="utf-8"))
        folder = self.relative(html_file.parent)
        page_url = self.base + ("" if folder == "." else folder + "/")
        for link in collector.links:
            self.check_href(html_file, link, page_url)

    def check_render_json(self, json_file):
        page = json.loads(json_file.read_text(encoding="utf-8"))
        references = page.get("references", {})
        for variant in page.get("variants", []):
            for path in variant.get("paths", []):
                self.check_page_url(json_file, path, "render JSON pages' own paths")
        for identifier, reference in references.items():
            kind = reference.get("type")
            if kind == "link":
                self.checked["urls of render JSON references"] += 1
                self.external.add(reference.get("url", identifier))
            elif kind in ("image", "video", "download", "file"):
                for variant in reference.get("variants", []):
                    self.check_asset_url(json_file, variant["url"])
                if "url" in reference:
                    self.check_asset_url(json_file, reference["url"])
            elif "url" in reference:
                self.check_page_url(json_file, reference["url"], "urls of render JSON references")
        own = page.get("identifier", {}).get("url")
        for identifier in sorted(used_identifiers(page)):
            if identifier == own:
                continue
            self.checked["identifiers used in render JSON, to references"] += 1
            reference = references.get(identifier)
            if reference is None:
                self.report(json_file, identifier, "used, but not among the page's references")
            elif reference.get("type") == "unresolvable" and "/documentation/" in identifier:
                self.report(json_file, identifier, "a documentation page DocC could not resolve")

    def check_navigator(self, index_file):
        index = json.loads(index_file.read_text(encoding="utf-8"))
        count = 0

        def walk(node):
            nonlocal count
            if "path" in node:
                count += 1
                self.check_page_url(index_file, node["path"], "navigator index paths")
            for child in node.get("children", []):
                walk(child)

        for nodes in index.get("interfaceLanguages", {}).values():
            for node in nodes:
                walk(node)
        return count

    def check_page(self, page_path):
        self.checked["pages that must be there (--page)"] += 1
        path = page_path.strip("/")
        if not (self.root / "data" / (path + ".json")).is_file() or self.file_for(path + "/") is None:
            self.broken.append((f"--page {page_path}", page_path, "no such page"))

    def check_curated(self, page_path):
        data_file = self.root / "data" / (page_path.strip("/") + ".json")
        if not data_file.is_file():
            self.broken.append((f"--fully-curated {page_path}", page_path, "no such page"))
            return
        page = json.loads(data_file.read_text(encoding="utf-8"))
        references = page.get("references", {})
        sections = page.get("topicSections", [])
        curated = {
            identifier
            for section in sections
            if not section.get("generated")
            for identifier in section.get("identifiers", [])
        }
        for section in sections:
            if not section.get("generated"):
                continue
            for identifier in section.get("identifiers", []):
                reference = references.get(identifier, {})
                url = reference.get("url", identifier)
                if reference.get("role") != "collectionGroup":
                    self.report(data_file, url, f"not curated: DocC put it in \"{section.get('title')}\"")
                    continue
                # A protocol's implementations ("CustomDebugStringConvertible Implementations") are a page DocC
                # makes and lets no one curate; the members it lists must be curated on the page itself.
                collection_file = self.root / "data" / (url.strip("/") + ".json")
                if not collection_file.is_file():
                    continue  # reported as a broken link
                collection = json.loads(collection_file.read_text(encoding="utf-8"))
                for member in (m for s in collection.get("topicSections", []) for m in s.get("identifiers", [])):
                    if member not in curated:
                        member_url = collection.get("references", {}).get(member, {}).get("url", member)
                        self.report(data_file, member_url, f"not curated: only in \"{reference.get('title')}\"")


def used_identifiers(value):
    """The doc:// identifiers a render JSON page uses outside its references: topic groups, See Also,
    relationships, "Mentioned in", breadcrumbs, inline links, declaration tokens."""
    found = set()
    if isinstance(value, dict):
        for name, item in value.items():
            if name != "references":
                found |= used_identifiers(item)
    elif isinstance(value, list):
        for item in value:
            found |= used_identifiers(item)
    elif isinstance(value, str) and value.startswith("doc://"):
        found.add(value)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("site", type=pathlib.Path)
    parser.add_argument("--page", action="append", default=[], metavar="PAGE")
    parser.add_argument("--fully-curated", action="append", default=[], metavar="PAGE")
    arguments = parser.parse_args()
    site = Site(arguments.site.resolve())

    html_files = sorted(site.root.rglob("*.html"))
    for html_file in html_files:
        site.check_html(html_file)

    data_root = site.root / "data"
    json_files = sorted(data_root.rglob("*.json"))
    for json_file in json_files:
        site.check_render_json(json_file)
        page = json_file.relative_to(data_root).with_suffix("").as_posix()
        if site.file_for(page + "/") is None:
            site.report(json_file, "/" + page, f"no HTML page {page}/index.html")

    navigator_entries = site.check_navigator(site.root / "index" / "index.json")
    for page_path in arguments.page:
        site.check_page(page_path)
    for page_path in arguments.fully_curated:
        site.check_curated(page_path)

    print(
        f"{site.root}, served at {site.base}: {len(html_files)} HTML files, {len(json_files)} render JSON pages, "
        f"{navigator_entries} navigator entries"
    )
    for where, count in site.checked.most_common():
        print(f"  {count:6} {where}")
    print(
        f"  {sum(site.checked.values()):6} links checked, to {len(site.targets)} distinct files and pages of the site; "
        f"{len(site.external)} distinct links leave the site (not followed)"
    )
    if site.broken:
        by_source = collections.defaultdict(list)
        for source, link, why in site.broken:
            by_source[source].append((link, why))
        print(f"{len(site.broken)} broken links:")
        for source in sorted(by_source):
            print(f"  {source}")
            for link, why in by_source[source]:
                print(f"    {link}: {why}")
        return 1
    print("no broken links")
    return 0


if __name__ == "__main__":
    sys.exit(main())
