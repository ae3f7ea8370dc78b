const reasons: Record<string, string> = {
  EACCES: 'permission denied',
  EDQUOT: 'disk quota exceeded',
  EEXIST: 'it already exists',
  EISDIR: 'it is a directory, not a file',
  ELOOP: 'too many symbolic links',
  EMFILE: 'too many open files',
  ENAMETOOLONG: 'the path is too long',
  ENOENT: 'no such file or directory',
  ENOSPC: 'no space left on the device',
  ENOTDIR: 'a part of the path is a file, not a directory',
  ENOTEMPTY: 'the directory is not empty',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
};

/**
 * A file-system error as a short phrase a user can act on, e.g. `no space left on the device
 * (ENOSPC)`; Node's own message repeats the path and the syscall, which the caller already names.
 */
export function fsReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code && reasons[code]) return `${reasons[code]} (${code})`;
  return error instanceof Error ? error.message : String(error);
}
