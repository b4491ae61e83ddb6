import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's chromium (`apt-get install -y chromium`), or the one THRESHER_CHROMIUM names. */
export const CHROMIUM = process.env.THRESHER_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Whether the browser tests can run here. On CI they must (`.ci/run` installs chromium): a missing browser
 * fails there rather than skipping the tests.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI)
    throw new Error(`no chromium at ${CHROMIUM}: .ci/run installs Debian's chromium before the tests`);
  return false;
}

export function launch(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where chromium's sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
}

/**
 * Wait until `expression` holds in the page, asked with `evaluate` (through the debugging protocol, which the
 * page's CSP allows): `waitForFunction` polls inside the page with `eval`, which the view's CSP forbids, so it
 * failed whenever the condition did not hold at its first look.
 */
export async function until(page: Page, expression: string): Promise<void> {
  await expect.poll(() => page.evaluate(expression), { timeout: 10_000, interval: 50 }).toBeTruthy();
}

export async function drawn(page: Page): Promise<void> {
  await page.waitForSelector('#diagram[data-drawn="true"]');
}
