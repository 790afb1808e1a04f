/**
 * A real headless Chromium (Debian's `chromium` package, which `.ci/run`
 * installs) driven by playwright-core, with a fresh profile per test. Tests
 * that open one declare `needs(CHROMIUM_PROGRAM)`: skipped, saying why, where
 * it is missing (`PAYWALLD_CHROMIUM=/nonexistent` tries that), failed under CI.
 * Console errors and page errors are collected, so that a test can assert
 * that nothing broke, a Content-Security-Policy violation included.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { atPath } from './requirements.ts';

export const CHROMIUM = process.env.PAYWALLD_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_PROGRAM = atPath(`Chromium at ${CHROMIUM}`, CHROMIUM, 'apt-get install -y chromium, or PAYWALLD_CHROMIUM=/path/to/chromium');

/** What a sandboxed, offline CI machine needs: no sandbox as root, no GPU, no calls home. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors seen so far. */
  errors: string[];
}

export async function openBrowser(t: TestContext, viewport = { width: 1280, height: 900 }): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run installs it)`);
  // A fresh profile, removed only after the browser closed (it writes there until it exits).
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'paywalld-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  t.after(async () => {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { context, page, errors };
}
