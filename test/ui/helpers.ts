/** Driving the web UI through inject: a session with its CSRF cookie, form posts, errors read back. */
import type { TestServer } from '../helpers/server.js';

export interface UiSession {
  cookie: string;
  csrf: string;
  get(url: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }>;
  post(
    url: string,
    fields: Record<string, string | string[]>,
    withCsrf?: boolean,
  ): Promise<{ status: number; body: string; headers: Record<string, unknown> }>;
}

export async function openUi(server: TestServer): Promise<UiSession> {
  const first = await server.app.inject({ method: 'GET', url: '/ui' });
  const cookie = String(first.headers['set-cookie']).split(';')[0]!;
  const csrf = cookie.split('=')[1]!;
  return {
    cookie,
    csrf,
    async get(url) {
      const r = await server.app.inject({ method: 'GET', url, headers: { cookie } });
      return { status: r.statusCode, body: r.body, headers: r.headers };
    },
    async post(url, fields, withCsrf = true) {
      const params = new URLSearchParams();
      if (withCsrf) params.append('_csrf', csrf);
      for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) params.append(k, one);
      const r = await server.app.inject({
        method: 'POST',
        url,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: params.toString(),
      });
      return { status: r.statusCode, body: r.body, headers: r.headers };
    },
  };
}

function unescape(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** The per-field messages a page shows: beside fields, and in the form's list of other problems. */
export function shownErrors(page: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of page.matchAll(
    /<p class="error" id="f-[^"]*-error" data-field="([^"]+)">([\s\S]*?)<\/p>/g,
  )) {
    out[m[1]!] = unescape(m[2]!.trim());
  }
  for (const m of page.matchAll(/<li data-field="([^"]+)">(?:<strong>[^<]*<\/strong>: )?([\s\S]*?)<\/li>/g)) {
    out[m[1]!] = unescape(m[2]!.trim());
  }
  return out;
}

/** The fields a browser would submit for the first form on the page with this action, as rendered. */
export function renderedForm(page: string, action: string): Record<string, string> {
  const start = page.indexOf(`action="${action}"`);
  if (start < 0) throw new Error(`no form posting to ${action}`);
  const form = page.slice(start, page.indexOf('</form>', start));
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/<input\s([^>]*)>/g)) {
    const attrs = m[1]!;
    const name = /name="([^"]+)"/.exec(attrs)?.[1];
    const type = /type="([^"]+)"/.exec(attrs)?.[1] ?? 'text';
    if (!name || name === '_csrf' || type === 'file') continue;
    const value = unescape(/value="([^"]*)"/.exec(attrs)?.[1] ?? '');
    if (type === 'checkbox') {
      if (/\bchecked\b/.test(attrs)) fields[name] = value;
    } else fields[name] = value;
  }
  for (const m of form.matchAll(/<select\s[^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const options = [...m[2]!.matchAll(/<option value="([^"]*)"\s*(selected)?\s*>/g)];
    const chosen = options.find((o) => o[2]) ?? options[0];
    fields[m[1]!] = unescape(chosen?.[1] ?? '');
  }
  for (const m of form.matchAll(/<textarea\s[^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/textarea>/g)) {
    fields[m[1]!] = unescape(m[2]!);
  }
  return fields;
}
