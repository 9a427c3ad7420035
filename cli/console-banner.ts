/**
 * What `pier serve` tells a person watching its terminal once it serves: where the web UI is,
 * how to sign in the first time, where its data directory is. Written only when standard output
 * is a terminal; services and pipes get the log lines alone.
 */
export interface BannerFacts {
  /** The web UI's address (PUBLIC_URL, or the address pier listens on). */
  uiUrl: string;
  dataDir: string;
  /** A fresh install's setup code and its file; absent once a user exists. */
  setup?: { code: string; file: string };
  developerBuild: boolean;
}

export function consoleBanner(facts: BannerFacts): string {
  const lines = ['', `  Pier is running. Web UI: ${facts.uiUrl}/ui`, `  Data directory: ${facts.dataDir}`];
  if (facts.developerBuild)
    lines.push('  Developer build: requests without sign-in act as the user "developer".');
  else if (facts.setup)
    lines.push(
      `  First run: open ${facts.uiUrl}/ui/setup and create the first administrator`,
      `  with the setup code ${facts.setup.code} (also in ${facts.setup.file}).`,
    );
  else lines.push('  Sign in with your user name and password, or your identity provider.');
  lines.push('  Stop with Ctrl+C.', '', '');
  return lines.join('\n');
}
