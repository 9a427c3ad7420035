/** The few plain HTML pages of signing in and out (the web UI proper lives elsewhere). */

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The web UI's own style sheet (api/ui/layout.ts serves it), so signing in looks like the rest. */
const styleSheet = '/ui/assets/app/ui.css';

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Pier</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${styleSheet}">
</head><body class="auth-page"><header class="top"><span class="brand">Pier</span></header>
<main class="auth-main"><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

export interface SignInPageProvider {
  name: string;
  display_name: string;
}

/**
 * What a fresh install's sign-in page says while no user exists: nobody can sign in with a
 * password yet, and the first administrator is made on the server with the `pier` command.
 */
function firstRunHelp(): string {
  return `<section class="alert alert-info first-run" aria-labelledby="first-run-heading">
<h2 id="first-run-heading">No user exists yet</h2>
<p>This is a fresh install. Create the first administrator on the server, in the directory Pier runs from:</p>
<pre><code>npx pier users passwd NAME</code></pre>
<p>It reads the password (at least 12 characters) from standard input; a name nobody has yet becomes a local
administrator. Then sign in here with that name and password. (<code>pier users add NAME</code> makes a viewer
without a password, for people who sign in with an identity provider.)</p>
</section>`;
}

export interface SignInPageState {
  error?: string;
  /** No user exists yet: the page says how to make the first administrator. */
  noUsersYet?: boolean;
  /** PUBLIC_URL, when the browser reached the server by another address: sign-in works only there. */
  addressToUse?: string;
}

/** Where to sign in instead, for a browser on another address than PUBLIC_URL's. */
function otherAddress(url: string): string {
  const ui = `${url}/ui/auth/`;
  return `<p class="alert alert-info" role="status" id="address-to-use">This server's address is <a href="${escapeHtml(ui)}">${escapeHtml(url)}</a> (PUBLIC_URL): sign in there, since a sign-in sent from this address is refused.</p>`;
}

export function signInPage(providers: SignInPageProvider[], state: SignInPageState = {}): string {
  const { error, noUsersYet = false, addressToUse } = state;
  const buttons = providers
    .map(
      (p) =>
        `<p><a class="button" id="sign-in-${escapeHtml(p.name)}" href="/ui/auth/${encodeURIComponent(p.name)}/login">` +
        `Sign in with ${escapeHtml(p.display_name || p.name)}</a></p>`,
    )
    .join('');
  return page(
    'Sign in',
    `${addressToUse ? otherAddress(addressToUse) : ''}${error ? `<p class="alert alert-error error" role="alert">${escapeHtml(error)}</p>` : ''}${noUsersYet ? firstRunHelp() : ''}${buttons}
<form method="post" action="/ui/auth/local" class="record-form">
<div class="field"><label for="sign-in-name">User name</label>
<input id="sign-in-name" name="name" autocomplete="username" required></div>
<div class="field"><label for="sign-in-password">Password</label>
<input id="sign-in-password" name="password" type="password" autocomplete="current-password" required></div>
<button type="submit">Sign in with a password</button>
</form>`,
  );
}

export function messagePage(title: string, message: string): string {
  return page(
    title,
    `<p class="alert alert-error error" role="alert">${escapeHtml(message)}</p><p><a href="/ui/auth/">Back to sign-in</a></p>`,
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
