/**
 * A real SMTP server on 127.0.0.1 for the email notifier's tests (the smtp-server package):
 * STARTTLS on a plain port or implicit TLS, with a user and password, keeping every message it
 * took (envelope, raw bytes, decoded subject and text) or refusing as told.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { Test } from 'tap';

export interface Mail {
  from: string;
  to: string[];
  user: string | undefined;
  /** Whether the session was encrypted when the message came. */
  secure: boolean;
  raw: string;
  subject: string;
  /** The message's text, quoted-printable undone. */
  text: string;
  headers: Record<string, string>;
}

export interface SmtpServer {
  port: number;
  mails: Mail[];
  /** SMTP reply codes for the next messages, in order (e.g. 451 to say "later", 554 to refuse). */
  refusals: number[];
  /** Tries, whatever the outcome: every DATA the server saw. */
  tries: number;
}

/** Undoes quoted-printable and folded header lines, enough to read what the notifier wrote. */
function decode(raw: string): Pick<Mail, 'subject' | 'text' | 'headers'> {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
  }
  const subject = (headers.subject ?? '').replace(
    /=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi,
    (_, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
            'latin1',
          ).toString('utf8'),
  );
  const body = rest.join('\n\n');
  const text = Buffer.from(
    body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
    'latin1',
  ).toString('utf8');
  return { subject, text, headers };
}

export async function startSmtp(
  t: Test,
  options: { secure: boolean; key: Buffer; cert: Buffer; user: string; password: string },
): Promise<SmtpServer> {
  const state: SmtpServer = { port: 0, mails: [], refusals: [], tries: 0 };
  const server = new SMTPServer({
    secure: options.secure,
    key: options.key,
    cert: options.cert,
    logger: false,
    authMethods: ['PLAIN', 'LOGIN'],
    // Authentication only over TLS, as a real submission server asks.
    allowInsecureAuth: false,
    onAuth(auth, _session, callback) {
      if (auth.username === options.user && auth.password === options.password)
        return callback(null, { user: auth.username });
      return callback(new Error('Authentication credentials invalid'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        state.tries += 1;
        const refusal = state.refusals.shift();
        if (refusal) {
          const error = new Error(refusal >= 500 ? 'Message refused' : 'Try again later') as Error & {
            responseCode: number;
          };
          error.responseCode = refusal;
          return callback(error);
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        state.mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: session.user as string | undefined,
          secure: session.secure,
          raw,
          ...decode(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.server.address() as AddressInfo).port;
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return state;
}
