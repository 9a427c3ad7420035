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
