import { existsSync, readFileSync } from 'node:fs';

import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * Driving the dashboard in Debian's Chromium (headless, playwright-core) for
 * the browser specs: launch, a page per width and language, sign-in by the
 * accessible names decisions 15 fixes, and axe-core.
 */
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install it with \`apt-get install -y chromium\`, or set CHROMIUM_PATH.`,
    );
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/**
 * A fresh browser context at this width and browser language. `problems`
 * collects page errors and console errors; `expected` lists console errors a
 * test provokes on purpose (a refused request: "status of 409").
 */
export async function openDashboard(
  browser: Browser,
  { width = 1280, locale = 'en-US', expected = [] as RegExp[] } = {},
) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, locale });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !expected.some((r) => r.test(m.text()))) problems.push(m.text());
  });
  return { page, problems, context };
}

/**
 * axe-core on what the page shows now: no serious or critical violation, and
 * no two landmarks of one kind with the same name (decisions 20).
 */
export async function audit(page: Page, where: string): Promise<void> {
  // Evaluated over the DevTools protocol, which the page's CSP does not govern.
  // Once per document: a route change in the dashboard keeps the page, and axe with it.
  if (await page.evaluate('typeof axe === "undefined"')) await page.evaluate(AXE);
  const result = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  const bad = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical' || v.id === 'landmark-unique')
    .map(
      (v) =>
        `${where}: ${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
  expect(bad).toEqual([]);
}

/** How far the page scrolls sideways (0: not at all). */
export const sidewaysScroll = (page: Page): Promise<number> =>
  page.evaluate(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  ) as Promise<number>;

/** Signs in through the form (`Email`, `Password`, `Sign in`) and waits for the App picker. */
export async function signIn(
  page: Page,
  baseUrl: string,
  email: string,
  password: string,
): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // (At 360 px the navigation is folded behind `Menu`: the picker is always shown.)
  await page.getByRole('combobox', { name: 'App' }).waitFor();
}

/** Opens a screen by its route (the navigation may be folded behind `Menu` at 360 px). */
export async function route(page: Page, hash: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
}

/** The screen is drawn and its lists have loaded. */
export async function settled(page: Page, heading: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
}
