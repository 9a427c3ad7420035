/** The few plain HTML pages of signing in and out (the web UI proper lives elsewhere). */

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Pier</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}
form{display:grid;gap:.5rem;margin:1rem 0}a.button,button{padding:.5rem 1rem}.error{color:#a00}</style>
</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

export interface SignInPageProvider {
  name: string;
  display_name: string;
}

export function signInPage(providers: SignInPageProvider[], error?: string): string {
  const buttons = providers
    .map(
      (p) =>
        `<p><a class="button" id="sign-in-${escapeHtml(p.name)}" href="/ui/auth/${encodeURIComponent(p.name)}/login">` +
        `Sign in with ${escapeHtml(p.display_name || p.name)}</a></p>`,
    )
    .join('');
  return page(
    'Sign in',
    `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}${buttons}
<form method="post" action="/ui/auth/local">
<label>User name <input name="name" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in with a password</button>
</form>`,
  );
}

export function messagePage(title: string, message: string): string {
  return page(
    title,
    `<p class="error" role="alert">${escapeHtml(message)}</p><p><a href="/ui/auth/">Back to sign-in</a></p>`,
  );
}

/** A minimal landing page, used only when the web UI does not provide /ui itself. */
export function landingPage(user: { name: string; role: string }): string {
  return page(
    'Pier',
    `<p id="signed-in">Signed in as ${escapeHtml(user.name)} (${escapeHtml(user.role)})</p>
<form method="post" action="/ui/auth/logout"><button type="submit" id="sign-out">Sign out</button></form>`,
  );
}
