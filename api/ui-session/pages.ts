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
function firstRunHelp(setupFile: string | undefined): string {
  const inBrowser = setupFile
    ? `<p>Create the first administrator in the browser: <a class="button" id="first-run-setup" href="/ui/setup">Set up Pier</a>
with the setup code the server printed on its console when it started, also in the file <code>${escapeHtml(setupFile)}</code>
on the server.</p>
<p>Or on the server, in the directory Pier runs from:</p>`
    : `<p>This is a fresh install. Create the first administrator on the server, in the directory Pier runs from:</p>`;
  return `<section class="alert alert-info first-run" aria-labelledby="first-run-heading">
<h2 id="first-run-heading">No user exists yet</h2>
${inBrowser}
<pre><code>npx pier users passwd NAME</code></pre>
<p>It reads the password (at least 12 characters) from standard input; a name nobody has yet becomes a local
administrator. Then sign in here with that name and password. (<code>pier users add NAME</code> makes a viewer
without a password, for people who sign in with an identity provider.)</p>
</section>`;
}

/** What the first-run page shows: the values typed (never the code or a password) and the problems. */
export interface SetupPageState {
  name?: string;
  errors?: Record<string, string>;
  setupFile: string;
}

const fieldError = (errors: Record<string, string>, field: string) =>
  errors[field]
    ? `<p class="error" id="setup-${field}-error" data-field="${field}">${escapeHtml(errors[field])}</p>`
    : '';

/** The first-run page: the setup code, and the first administrator's name and password. */
export function setupPage(state: SetupPageState): string {
  const errors = state.errors ?? {};
  const described = (field: string, hint: string) =>
    `aria-describedby="${hint}${errors[field] ? ` setup-${field}-error` : ''}"${errors[field] ? ' aria-invalid="true"' : ''}`;
  return page(
    'Set up Pier',
    `${errors._form ? `<p class="alert alert-error error" role="alert">${escapeHtml(errors._form)}</p>` : ''}
<p>No user exists yet. Choose the first administrator's name and password. The setup code proves you run this
server: it was printed on the server's console when it started and is in the file <code>${escapeHtml(state.setupFile)}</code>
on the server. It works once.</p>
<form method="post" action="/ui/setup" class="record-form" novalidate>
<div class="field"><label for="setup-code">Setup code</label>
<input id="setup-code" name="code" autocomplete="one-time-code" required ${described('code', 'setup-code-hint')}>
<p class="hint" id="setup-code-hint">Like ABCD-EFGH-JKLM-NPQR</p>${fieldError(errors, 'code')}</div>
<div class="field"><label for="setup-name">Administrator's name</label>
<input id="setup-name" name="name" autocomplete="username" required value="${escapeHtml(state.name ?? '')}" ${described('name', 'setup-name-hint')}>
<p class="hint" id="setup-name-hint">Letters, digits, - and _, as you will sign in</p>${fieldError(errors, 'name')}</div>
<div class="field"><label for="setup-password">Password</label>
<input id="setup-password" name="password" type="password" autocomplete="new-password" required ${described('password', 'setup-password-hint')}>
<p class="hint" id="setup-password-hint">At least 12 characters</p>${fieldError(errors, 'password')}</div>
<div class="field"><label for="setup-repeat">Password again</label>
<input id="setup-repeat" name="repeat" type="password" autocomplete="new-password" required ${described('repeat', 'setup-repeat-hint')}>
<p class="hint" id="setup-repeat-hint">The same password, to catch a typing mistake</p>${fieldError(errors, 'repeat')}</div>
<button type="submit">Create the administrator and sign in</button>
</form>`,
  );
}

export interface SignInPageState {
  error?: string;
  /** No user exists yet: the page says how to make the first administrator. */
  noUsersYet?: boolean;
  /** The setup code's file, while a fresh install's code works (the page offers /ui/setup). */
  setupFile?: string;
  /** PUBLIC_URL, when the browser reached the server by another address: sign-in works only there. */
  addressToUse?: string;
}

/** Where to sign in instead, for a browser on another address than PUBLIC_URL's. */
function otherAddress(url: string): string {
  const ui = `${url}/ui/auth/`;
  return `<p class="alert alert-info" role="status" id="address-to-use">This server's address is <a href="${escapeHtml(ui)}">${escapeHtml(url)}</a> (PUBLIC_URL): sign in there, since a sign-in sent from this address is refused.</p>`;
}

export function signInPage(providers: SignInPageProvider[], state: SignInPageState = {}): string {
  const { error, noUsersYet = false, addressToUse, setupFile } = state;
  const buttons = providers
    .map(
      (p) =>
        `<p><a class="button" id="sign-in-${escapeHtml(p.name)}" href="/ui/auth/${encodeURIComponent(p.name)}/login">` +
        `Sign in with ${escapeHtml(p.display_name || p.name)}</a></p>`,
    )
    .join('');
  return page(
    'Sign in',
    `${addressToUse ? otherAddress(addressToUse) : ''}${error ? `<p class="alert alert-error error" role="alert">${escapeHtml(error)}</p>` : ''}${noUsersYet ? firstRunHelp(setupFile) : ''}${buttons}
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
