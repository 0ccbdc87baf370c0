/**
 * Debian's Chromium for the browser tests, driven by playwright-core. Found the way npm test's
 * scripts/ensure-tools.mjs looks for it (and installs it where it can): CHROMIUM_PATH, then
 * chromium, chromium-browser, google-chrome on PATH, then /usr/bin/chromium.
 */
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM_SEARCH, findChromium } from "../../scripts/ensure-tools.mjs";

const found = findChromium();
/** The browser the tests launch; when none is found, where it was expected, for messages. */
export const CHROMIUM = found ?? process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** CI installs Chromium (npm test, .ci/run): a missing browser there is a failure, locally a skip with a reason. */
export const skipBrowser = !found && !process.env.CI;

const NOT_FOUND = `Chromium not found (looked at ${CHROMIUM_SEARCH}): apt-get install chromium, or set CHROMIUM_PATH`;

// Once per test file that imports this one, so no browser test is skipped without saying why.
if (skipBrowser) console.warn(`skipping the browser tests: ${NOT_FOUND}`);

export function launchChromium(): Promise<Browser> {
  if (!found) throw new Error(NOT_FOUND);
  return chromium.launch({
    executablePath: found,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
