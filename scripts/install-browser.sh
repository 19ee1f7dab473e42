#!/usr/bin/env bash
# The three browser engines of the panel's browser tests (tests/web/engines.py), all Debian's packages, never a
# downloaded browser build: chromium (driven by Playwright); WebKitGTK's WebKitWebDriver (Selenium, from the dev
# extra), whose window (tests/web/webkit_window.py) runs on Debian's python3-gi and draws on Xvfb; firefox-esr,
# driven by puppeteer-core (npm, pinned by tests/web/node/package-lock.json; it downloads no browser) on Node.js.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v WebKitWebDriver >/dev/null 2>&1 || need+=(webkit2gtk-driver)
/usr/bin/python3 -c "import gi; gi.require_version('WebKit2', '4.1'); gi.require_version('Gtk', '3.0')" \
  >/dev/null 2>&1 || need+=(python3-gi gir1.2-webkit2-4.1)
command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
command -v firefox-esr >/dev/null 2>&1 || command -v firefox >/dev/null 2>&1 || need+=(firefox-esr)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
if [ "${#need[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq -o DPkg::Lock::Timeout=600 "${need[@]}" >/dev/null
  else
    echo "install-browser: not root or no apt-get; install Debian's ${need[*]} by hand" >&2
    exit 1
  fi
fi
# puppeteer-core, again whenever the lock file changes
node_dir=tests/web/node
stamp="$node_dir/node_modules/.installed-$(sha1sum "$node_dir/package-lock.json" | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  touch "$stamp"
fi
