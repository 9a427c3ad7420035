/**
 * Counting what an operator's task costs in a real browser: page loads (every document the
 * main frame loads, downloads excepted) and form submissions (each form sent, GET or POST).
 * The task tests assert both, and docs/ui/README.md records them.
 */
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import type { Test } from 'tap';

export interface TaskCount {
  loads: number;
  submissions: number;
  /** Navigations by method, to check that every POST was a counted submission. */
  posts: number;
}

export function countTask(page: Page): TaskCount {
  const count: TaskCount = { loads: 0, submissions: 0, posts: 0 };
  page.on('load', () => count.loads++);
  page.on('request', (r) => {
    if (r.isNavigationRequest() && r.frame() === page.mainFrame() && r.method() === 'POST') count.posts++;
  });
  return count;
}

/** Submits a form by its button, as a person clicks it, and waits for the page it leads to. */
export async function submit(page: Page, count: TaskCount, button: string): Promise<void> {
  count.submissions++;
  await Promise.all([page.waitForEvent('load'), page.click(button)]);
}

/** Follows a link, and waits for the page it leads to. */
export async function follow(page: Page, link: string): Promise<void> {
  await Promise.all([page.waitForEvent('load'), page.click(link)]);
}

/** True when the page needs no sideways scrolling at its viewport's width. */
export async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

/** axe on the page: no violation of any impact (the pages of the certificate and search tasks). */
export async function noViolations(t: Test, page: Page, what: string): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  t.same(
    result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`),
    [],
    `${what}: axe finds no violation`,
  );
}
