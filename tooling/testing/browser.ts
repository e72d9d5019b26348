/**
 * Headless Chromium for the browser tests of the packages that serve a page (GraphiQL, Swagger UI):
 * Debian's `chromium`, driven by the calling package's own `playwright-core`, kept offline.
 * The shapes below are the parts of playwright-core these helpers use, so tooling needs no
 * dependency on it: pass `chromium` and pages from `playwright-core`.
 */
import { existsSync } from 'node:fs';

/** Where Chromium is looked for: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags for a quiet headless run in a container: no sandbox, GPU, QUIC or background traffic. */
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** What of playwright-core's `chromium` is used. */
export interface ChromiumLauncher<TBrowser> {
  launch(options: { executablePath: string; args: string[] }): Promise<TBrowser>;
}

/** What of a playwright-core `Page` is used. */
export interface OfflinePage {
  route(url: string, handler: (route: { request(): { url(): string }; continue(): Promise<void>; abort(errorCode?: string): Promise<void> }) => unknown): Promise<unknown>;
  on(event: 'console', listener: (message: { type(): string; text(): string }) => unknown): unknown;
  on(event: 'pageerror', listener: (error: Error) => unknown): unknown;
}

/**
 * Launches headless Chromium from `CHROMIUM_PATH` with `chromium` (playwright-core's, from the
 * caller). Throws an error that says how to install it when it is missing; `test` names the test.
 */
export async function launchChromium<TBrowser>(chromium: ChromiumLauncher<TBrowser>, test: string): Promise<TBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM_PATH}: ${test} needs it. Install Debian's chromium ` +
        '(apt-get update && apt-get install -y chromium, or bash tooling/scripts/setup-services.sh) or set CHROMIUM_PATH.',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });
}

/**
 * Keeps `page` on this machine: every request that does not go to 127.0.0.1 is aborted (so a file
 * loaded from a CDN breaks the page) and its URL recorded in `blocked`; console errors and uncaught
 * page errors are recorded in `problems`. Both lists fill as the page runs.
 */
export async function keepOffline(page: OfflinePage): Promise<{ blocked: string[]; problems: string[] }> {
  const blocked: string[] = [];
  const problems: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1') return route.continue();
    blocked.push(url.href);
    return route.abort('internetdisconnected');
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  return { blocked, problems };
}
