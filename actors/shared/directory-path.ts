/**
 * Where a configured directory may be. Kernel pseudo-filesystems (/proc, /sys, /dev) hold no
 * files of ours, and some of them (/proc) make Node 20's recursive mkdir loop forever instead
 * of failing; so a directory on one of them is refused when the configuration is saved. Pure
 * string work (no node:path), so the web forms can judge it too.
 */

/** Top-level directories of kernel pseudo-filesystems: no configured directory lies under them. */
export const pseudoFilesystems = ['/proc', '/sys', '/dev'] as const;

/**
 * The absolute path with `.`, `..` and repeated slashes resolved as the kernel would read
 * them lexically (`/tmp/../proc/x` is `/proc/x`). Symbolic links are not followed: that needs
 * the file system, where the actors' own directory walk stops at such a place instead.
 */
export function resolveDots(absolute: string): string {
  const parts: string[] = [];
  for (const part of absolute.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/** The pseudo-filesystem the directory lies on, or undefined. */
export function pseudoFilesystemOf(absolute: string): string | undefined {
  const resolved = resolveDots(absolute);
  return pseudoFilesystems.find((top) => resolved === top || resolved.startsWith(`${top}/`));
}

/**
 * The file system's root and the directories of the operating system itself: the top-level
 * ones and those under /usr and /var that hold programs, libraries and the system's own state.
 */
export const systemDirectories = [
  '/',
  '/bin',
  '/boot',
  '/etc',
  '/lib',
  '/lib32',
  '/lib64',
  '/sbin',
  '/usr',
  '/usr/bin',
  '/usr/include',
  '/usr/lib',
  '/usr/lib32',
  '/usr/lib64',
  '/usr/libexec',
  '/usr/local',
  '/usr/local/bin',
  '/usr/local/lib',
  '/usr/local/sbin',
  '/usr/sbin',
  '/usr/share',
  '/var',
  '/var/lib',
  '/var/log',
] as const;

/**
 * Why the directory may not hold pier's files, or undefined when it may: a system directory
 * itself (pier would write its files among the system's, or a poller take the system's files
 * away; a folder under one, /var/lib/pier, is fine), or a place on a kernel pseudo-filesystem.
 * The one rule for every directory setting: the payload store's and the file actors'.
 */
export function unfitDirectory(absolute: string): string | undefined {
  const resolved = resolveDots(absolute);
  if ((systemDirectories as readonly string[]).includes(resolved))
    return resolved === '/'
      ? 'Must not be the root directory'
      : `Must not be ${resolved}, a system directory`;
  const top = pseudoFilesystemOf(resolved);
  return top ? `Must not be on ${top}, a kernel pseudo-filesystem` : undefined;
}
