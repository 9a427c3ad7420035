/** Debian's chromium driven by playwright-core for the web UI's browser tests, and axe on a page. */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Test } from 'tap';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Where the browser tests write their screenshots: a git-ignored folder, so a test run never
 * rewrites tracked files. `npm run screenshots` points it at docs/ui/ (the ones the README links).
 */
export const shots = path.resolve(
  process.env.PIER_SCREENSHOTS_DIR ?? path.join(import.meta.dirname, '../../.test-output/screenshots'),
);
mkdirSync(shots, { recursive: true });

/** A headless chromium, closed when the test ends. */
export async function launchChromium(t: Test): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `${chromiumPath} is missing: apt-get install -y --no-install-recommends chromium (see .ci/run)`,
    );
  }
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  t.teardown(() => browser.close());
  return browser;
}

/**
 * A page (1280 × 800 and light unless told) that collects console errors and page errors (a CSP
 * violation is one).
 */
export async function openPage(
  browser: Browser,
  { width = 1280, height = 800, colorScheme = 'light' as 'light' | 'dark' } = {},
): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  return { page, problems };
}

/** The text a reader sees, spaces collapsed. */
export async function textOf(page: Page, selector: string): Promise<string> {
  return (await page.innerText(selector)).replace(/\s+/g, ' ').trim();
}

export async function noSeriousViolations(t: Test, page: Page, name: string): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  t.same(
    bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`),
    [],
    `${name}: no serious or critical accessibility violation`,
  );
}

/** axe on the page (every rule, or those named): no violation of any impact, moderate and minor too. */
export async function noViolations(t: Test, page: Page, name: string, rules?: string[]): Promise<void> {
  const builder = new AxeBuilder({ page });
  const result = await (rules ? builder.withRules(rules) : builder).analyze();
  t.same(
    result.violations.map(
      (v) => `${v.impact ?? ''} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`,
    ),
    [],
    `${name}: axe reports no violation`,
  );
}
