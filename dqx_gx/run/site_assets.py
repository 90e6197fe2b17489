"""Data docs that open with no network: every script, style sheet and font inside the site.

GX's page templates load jQuery, Bootstrap, bootstrap-table, a date picker, Font Awesome, Vega and a
logo from public CDNs; where those cannot be reached (a locked-down network, a file share, a CI
artefact) GX's pages lose their icons, collapsible blocks and tabs. The pages dqx-gx builds load
instead the copies under ``static/vendor/`` that :func:`copy_site_assets` writes into the site from
the XStatic packages dqx-gx depends on, each beside its package's licence (or, where the package
ships none, a notice with the licence it declares and the notice the file carries). The index table
needs no script at all (``docs.DqxSiteIndexPageRenderer``), so bootstrap-table and the date picker
are not needed; Vega draws only the graphs of GX's distribution expectations, which dqx-gx
does not write, so it is not shipped.
"""

from __future__ import annotations

import importlib
import re
import shutil
import tempfile
from dataclasses import dataclass
from importlib import resources
from importlib.metadata import version
from pathlib import Path
from typing import Any

from great_expectations.render.view import DefaultJinjaIndexPageView, DefaultJinjaPageView

VENDOR = "static/vendor/"


@dataclass(frozen=True)
class Library:
    """Files of one XStatic package a page loads, copied to ``static/vendor/<folder>/``."""

    folder: str
    module: str
    distribution: str
    files: tuple[str, ...]

    @property
    def source(self) -> Path:
        return Path(importlib.import_module(self.module).BASE_DIR)


LIBRARIES = (
    Library("jquery", "xstatic.pkg.jquery", "XStatic-jQuery", ("jquery.min.js",)),
    Library(
        "bootstrap",
        "xstatic.pkg.bootstrap",
        "XStatic-Bootstrap",
        ("css/bootstrap.min.css", "js/bootstrap.bundle.min.js"),  # the bundle holds Popper
    ),
    Library(
        "font-awesome",
        "xstatic.pkg.font_awesome",
        "XStatic-Font-Awesome",
        (
            "css/all.min.css",
            *(
                f"webfonts/fa-{face}.{kind}"
                for face in ("brands-400", "regular-400", "solid-900", "v4compatibility")
                for kind in ("woff2", "ttf")
            ),
        ),
    ),
)

# What every page's head loads, in order: Bootstrap's styles before GX's own (inlined after them).
STYLESHEETS = ("bootstrap/css/bootstrap.min.css", "font-awesome/css/all.min.css")
SCRIPTS = ("jquery/jquery.min.js", "bootstrap/js/bootstrap.bundle.min.js")
LICENCE_FILES = ("LICENSE.txt", "LICENSE")
GX_STYLES = "render/view/static/styles/data_docs_default_styles.css"  # also inlined in every page

_REMOTE_TAG = re.compile(
    r"""<script\b[^>]*\bsrc=["']https?://[^>]*>\s*</script>|<link\b[^>]*\bhref=["']https?://[^>]*>""", re.I
)
# GX's logo on its web-assets bucket (the navbar image, with a tracking query, and the dark-mode background)
_GX_WEB_ASSET = re.compile(r"""https://great-expectations-web-assets\.[^'")\s]*""")
_STATIC_LINK = re.compile(r"""(\b(?:src|href)=["'])(?:\./|(?:\.\./)*)static/""")
_NEWSLETTER = re.compile(r"<footer>(?:(?!</footer>).)*greatexpectations\.io/newsletter.*?</footer>", re.S)
_GX_HOMEPAGE = re.compile(r"""<a href=["']https?://greatexpectations\.io/?["']>(.*?)</a>""")
_NOTICE = re.compile(r"/\*!.*?\*/", re.S)


def copy_site_assets(target_store: Any) -> None:
    """Write the vendored files and their licences into a data docs site, and GX's style sheet with its
    remote logo replaced by the site's own, through GX's ``HtmlSiteStore.copy_static_assets`` (so
    any site backend GX writes to gets them too). Call it after GX has copied its static files."""
    with tempfile.TemporaryDirectory(prefix="dqx-gx-docs-") as staging:
        static = Path(staging, "static")
        styles = resources.files("great_expectations") / GX_STYLES
        (static / "styles").mkdir(parents=True)
        (static / "styles" / styles.name).write_text(
            _GX_WEB_ASSET.sub("../images/logo-long.png", styles.read_text(encoding="utf-8")), encoding="utf-8"
        )
        vendor = static / "vendor"
        for library in LIBRARIES:
            folder = vendor / library.folder
            for name in library.files:
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(library.source / name, folder / name)
            _copy_licence(library, folder)
        target_store.copy_static_assets(str(static))


def _copy_licence(library: Library, folder: Path) -> None:
    """The package's licence file if it ships one; always a notice naming the package, its version,
    the licence it declares and the notice each copied file carries."""
    module = importlib.import_module(library.module)
    for name in LICENCE_FILES:
        if (library.source / name).is_file():
            shutil.copyfile(library.source / name, folder / name)
    lines = [
        f"{module.DISPLAY_NAME} {module.VERSION} ({module.HOMEPAGE}), copied from the PyPI package "
        f"{library.distribution} {version(library.distribution)}.",
        f"Licence, as the package declares it: {module.LICENSE}.",
    ]
    for name in library.files:
        head = (library.source / name).read_bytes()[:2000].decode("utf-8", "replace")
        found = _NOTICE.search(head)
        if found:
            lines += ["", f"{name}:", found.group(0)]
    (folder / "NOTICE.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def site_root(document: Any) -> str:
    """The relative way from a page to the site's root. GX writes a suite's page at
    ``expectations/<suite name split at dots>.html`` and a run's at ``validations/<suite name split
    at dots>/<run name>/<run time>/<batch>.html`` (its navbar template counts the same way)."""
    renderer = str(getattr(document, "renderer_type", "") or "")
    dots = str(getattr(document, "expectation_suite_name", "") or "").count(".")
    if "ValidationResults" in renderer or "ProfilingResults" in renderer:
        return "../" * (dots + 4)
    if "ExpectationSuite" in renderer:
        return "../" * (dots + 1)
    return ""


def standalone(page: str, root: str) -> str:
    """``page`` loading the site's own copies: remote scripts and style sheets replaced by the vendored
    ones, GX's remote logo by the one in ``static/images``, every ``static/`` link made relative to
    ``root`` (GX's favicon link is one folder short on a run page), GX's newsletter footer dropped and
    its name left unlinked."""
    local = "\n".join(
        [f'<link rel="stylesheet" href="{root}{VENDOR}{path}">' for path in STYLESHEETS]
        + [f'<script src="{root}{VENDOR}{path}"></script>' for path in SCRIPTS]
    )
    tags = iter([local])
    page = _REMOTE_TAG.sub(lambda _: next(tags, ""), page)
    page = _GX_WEB_ASSET.sub(f"{root}static/images/logo-long.png", page)
    page = _STATIC_LINK.sub(lambda found: f"{found.group(1)}{root}static/", page)
    page = _GX_HOMEPAGE.sub(r"\1", page)
    return _NEWSLETTER.sub("", page)


class DqxPageView(DefaultJinjaPageView):
    """GX's page view, writing pages that load only files inside the site."""

    def render(self, document: Any, template: Any = None, **kwargs: Any) -> str:
        return standalone(super().render(document, template, **kwargs), site_root(document))  # type: ignore[no-untyped-call]


class DqxIndexPageView(DefaultJinjaIndexPageView):
    """GX's index view, writing an index that loads only files inside the site."""

    def render(self, document: Any, template: Any = None, **kwargs: Any) -> str:
        return standalone(super().render(document, template, **kwargs), site_root(document))  # type: ignore[no-untyped-call]
