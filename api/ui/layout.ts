/** The page shell every web UI page shares: head, assets, navigation, messages, main. */
import type { UiUser } from './current-user.js';
import { html, type Html } from './html.js';
import { csrfHeader } from './security.js';
import { signOutPath } from './current-user.js';

export const uiPrefix = '/ui';
export const assetPrefix = `${uiPrefix}/assets`;

/** What a page needs of its request: who is asking, the CSRF token, where they are. */
export interface UiRequestContext {
  user: UiUser;
  csrf: string;
  path: string;
  /** Sections whose API routes this process has (a module not installed has no page). */
  sections: readonly NavItem[];
  /** Where the page script subscribes to live updates (live.ts); none without an event stream. */
  events?: string | undefined;
}

export interface NavItem {
  href: string;
  label: string;
}

export interface Notice {
  kind: 'ok' | 'error' | 'info';
  text: string | Html;
}

export interface PageOptions {
  title: string;
  body: Html;
  notices?: Notice[];
  /** Extra scripts from the asset folder (the chart). */
  scripts?: string[];
  styles?: string[];
  /**
   * The page has live regions (live.ts): subscribe to the event stream, for one message's
   * lines only when `messageId` is given.
   */
  live?: { messageId?: string };
}

function notice(n: Notice): Html {
  return html`<div class="alert alert-${n.kind}" role="${n.kind === 'error' ? 'alert' : 'status'}">
    ${n.text}
  </div>`;
}

/** The stream address the page script opens, when the page is live and the process has events. */
function eventsFor(ui: UiRequestContext, page: PageOptions): string | undefined {
  if (!page.live || !ui.events) return undefined;
  const id = page.live.messageId;
  return id ? `${ui.events}?message_id=${encodeURIComponent(id)}` : ui.events;
}

export function layout(ui: UiRequestContext, page: PageOptions): string {
  const events = eventsFor(ui, page);
  const current = (item: NavItem) =>
    item.href === uiPrefix
      ? ui.path === uiPrefix || ui.path === `${uiPrefix}/`
      : ui.path.startsWith(item.href);
  return `<!doctype html>${html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="color-scheme" content="light dark" />
      <meta
        name="htmx-config"
        content='{"includeIndicatorStyles":false,"allowScriptTags":false,"allowEval":false}'
      />
      <title>${page.title} · Pier</title>
      <link rel="icon" href="data:," />
      <link rel="stylesheet" href="${assetPrefix}/app/ui.css" />
      ${(page.styles ?? []).map((s) => html`<link rel="stylesheet" href="${s}" />`)}
      <script src="${assetPrefix}/htmx/htmx.min.js" defer></script>
      <script src="${assetPrefix}/app/ui.js" defer></script>
      ${(page.scripts ?? []).map((s) => html`<script src="${s}" defer></script>`)}
    </head>
    <body
      hx-headers="${JSON.stringify({ [csrfHeader]: ui.csrf })}"
      ${events ? html`data-events="${events}"` : ''}
    >
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <a class="brand" href="${uiPrefix}">Pier</a>
        <span class="user" id="signed-in"
          >Signed in as <strong>${ui.user.displayName}</strong> (${ui.user.role})</span
        >
        ${
          ui.user.session
            ? html`<form class="sign-out" method="post" action="${signOutPath}">
                <button type="submit" id="sign-out">Sign out</button>
              </form>`
            : ''
        }
      </header>
      <div class="frame">
        <nav class="side" aria-label="Sections">
          <ul>
            ${ui.sections.map(
              (item) =>
                html`<li>
                  <a href="${item.href}" ${current(item) ? html` aria-current="page"` : ''}>${item.label}</a>
                </li>`,
            )}
          </ul>
        </nav>
        <main id="main" tabindex="-1">
          <h1>${page.title}</h1>
          ${(page.notices ?? []).map(notice)} ${page.body}
        </main>
      </div>
    </body>
  </html>`}`;
}
