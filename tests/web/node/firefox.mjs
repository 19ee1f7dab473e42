// Debian's Firefox ESR for the panel's browser tests, driven by puppeteer-core over WebDriver BiDi.
// tests/web/engines.py starts it and speaks JSON lines: {"id", "op", ...} in, {"id", "value"|"error"} out.
// ops: open {width, height} -> page id; goto {url}, js {fn, args}, tapAt {x, y}, keys {text}, screenshot {path},
// errors, close {page}. Usage: node firefox.mjs FIREFOX_BINARY
import { createInterface } from "node:readline";
import puppeteer from "puppeteer-core";

const browser = await puppeteer.launch({
  browser: "firefox", executablePath: process.argv[2], headless: true, protocol: "webDriverBiDi",
});
const pages = new Map(); // id -> {page, context, errors}
let next = 1;

const ops = {
  async open({ width, height }) {
    const context = await browser.createBrowserContext(); // its own storage, as a fresh phone
    const page = await context.newPage();
    await page.setViewport({ width, height, deviceScaleFactor: 2, hasTouch: true });
    const entry = { page, context, errors: [] };
    page.on("pageerror", (error) => entry.errors.push(String(error?.message ?? error)));
    pages.set(next, entry);
    return next++;
  },
  goto: ({ page, url }) => pages.get(page).page.goto(url).then(() => null),
  js: ({ page, fn, args }) => pages.get(page).page.evaluate(`(${fn})(...${JSON.stringify(args)})`),
  tapAt: ({ page, x, y }) => pages.get(page).page.touchscreen.tap(x, y).then(() => null),
  keys: ({ page, text }) => pages.get(page).page.keyboard.type(text).then(() => null),
  screenshot: ({ page, path }) => pages.get(page).page.screenshot({ path }).then(() => path),
  errors: ({ page }) => pages.get(page).errors,
  async close({ page }) {
    await pages.get(page).context.close();
    pages.delete(page);
    return null;
  },
};

const lines = createInterface({ input: process.stdin });
const reply = (message) => process.stdout.write(JSON.stringify(message) + "\n");
reply({ id: 0, value: await browser.version() }); // ready
for await (const line of lines) {
  const { id, op, ...args } = JSON.parse(line);
  try {
    reply({ id, value: (await ops[op](args)) ?? null });
  } catch (error) {
    reply({ id, error: String(error?.message ?? error) });
  }
}
await browser.close();
