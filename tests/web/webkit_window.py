"""The browser WebKitWebDriver starts for the panel's WebKit tests (tests/web/engines.py): a bare WebKitGTK
window holding only the page, so the page's viewport is the window (MiniBrowser's toolbar keeps its window
447 px wide at least, wider than a phone). Its storage is ephemeral, as a fresh phone's. It records the page's
uncaught errors in `window.__pageErrors`. Runs on Debian's Python with python3-gi and gir1.2-webkit2-4.1."""

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
from gi.repository import Gtk, WebKit2  # noqa: E402

RECORD_ERRORS = """window.__pageErrors = [];
addEventListener("error", (e) => window.__pageErrors.push(String(e.message)));
addEventListener("unhandledrejection", (e) => window.__pageErrors.push(String(e.reason)));"""

context = WebKit2.WebContext.new_with_website_data_manager(WebKit2.WebsiteDataManager.new_ephemeral())
context.set_automation_allowed(True)


def new_view(session: WebKit2.AutomationSession) -> WebKit2.WebView:
    content = WebKit2.UserContentManager()
    content.add_script(WebKit2.UserScript(RECORD_ERRORS, WebKit2.UserContentInjectedFrames.TOP_FRAME,
                                          WebKit2.UserScriptInjectionTime.START, None, None))
    view = WebKit2.WebView(web_context=context, user_content_manager=content, is_controlled_by_automation=True)
    window = Gtk.Window()
    window.set_default_size(390, 844)
    window.add(view)
    view.connect("close", lambda _view: window.destroy())
    window.show_all()
    return view


def started(_context: WebKit2.WebContext, session: WebKit2.AutomationSession) -> None:
    info = WebKit2.ApplicationInfo()
    info.set_name("smarttable-webkit")  # the browserName tests/web/engines.py asks WebKitWebDriver for
    info.set_version(WebKit2.get_major_version(), WebKit2.get_minor_version(), WebKit2.get_micro_version())
    session.set_application_info(info)
    session.connect("create-web-view", new_view)


context.connect("automation-started", started)
Gtk.main()
